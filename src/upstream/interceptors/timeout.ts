/**
 * `createTimeoutInterceptor`: the headers and body timeouts of each attempt (undici's own), on
 * every dispatch that does not choose its own. The time of a whole call is `deadline.ts`'s.
 */
import type { Dispatcher } from 'undici';

export interface TimeoutInterceptorOptions {
  /** Headers and body timeout of one attempt, in ms. */
  timeoutMs: number;
}

export function createTimeoutInterceptor({ timeoutMs }: TimeoutInterceptorOptions): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) =>
    function timeoutInterceptor(opts, handler) {
      return dispatch({ ...opts, headersTimeout: opts.headersTimeout ?? timeoutMs, bodyTimeout: opts.bodyTimeout ?? timeoutMs }, handler);
    };
}
