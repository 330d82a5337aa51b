/**
 * The dispatcher every upstream request goes through: one undici `Agent` (a keep-alive `Pool`
 * per origin) composed with small interceptors, per the undici layering (API on dispatchers on
 * core), from the outside in:
 *
 * - `createDeadlineInterceptor`: the time of the whole call, and the caller's hang-up.
 * - `createOriginLimitInterceptor`: a place among the origin's calls in flight, or a wait for one.
 * - `createRetryInterceptor`: retries idempotent GETs with jittered exponential backoff.
 * - `createTimeoutInterceptor`: headers and body timeouts of each attempt.
 */
import { Agent, type Dispatcher } from 'undici';
import { createDeadlineInterceptor, type DeadlineDispatchOptions } from './interceptors/deadline.js';
import { createOriginLimitInterceptor } from './interceptors/origin-limit.js';
import { createRetryInterceptor, type RetryDispatchOptions, type RetryInterceptorOptions } from './interceptors/retry.js';
import { createTimeoutInterceptor } from './interceptors/timeout.js';
import type { OriginLimiter } from './limiter.js';

export { createDeadlineInterceptor, DeadlineExceededError } from './interceptors/deadline.js';
export type { DeadlineDispatchOptions, DeadlineInterceptorOptions } from './interceptors/deadline.js';
export { createOriginLimitInterceptor } from './interceptors/origin-limit.js';
export { createRetryInterceptor } from './interceptors/retry.js';
export type { RetryDispatchOptions, RetryInterceptorOptions } from './interceptors/retry.js';
export { createTimeoutInterceptor } from './interceptors/timeout.js';
export type { TimeoutInterceptorOptions } from './interceptors/timeout.js';

/** A dispatch through the upstream dispatcher: undici's options and what its interceptors read. */
export type UpstreamDispatchOptions = Dispatcher.DispatchOptions & DeadlineDispatchOptions & RetryDispatchOptions;

export interface UpstreamDispatcherOptions {
  /** Keep-alive connections per upstream origin. */
  connections: number;
  /** Time of one call, all attempts included; also the headers, body and connect timeout of each attempt. In ms. */
  timeoutMs: number;
  /** Retry options for idempotent GETs. */
  retry: RetryInterceptorOptions;
  /** The calls in flight and waiting per origin. */
  limiter: OriginLimiter;
  /** Use this dispatcher instead of a new `Agent` (e.g. a `MockAgent`); it is not closed by `close()`. */
  dispatcher: Dispatcher | undefined;
}

export interface UpstreamDispatcher {
  dispatcher: Dispatcher;
  /** Closes the agent this module created (a caller-supplied dispatcher stays open). */
  close(): Promise<void>;
}

export function createUpstreamDispatcher(options: UpstreamDispatcherOptions): UpstreamDispatcher {
  const { timeoutMs } = options;
  // undici's default keep-alive (4 s unless the server says otherwise) is kept on purpose: a
  // longer one risks writing a non-retryable POST into a socket the server already closed.
  const owned = options.dispatcher === undefined ? new Agent({ connections: options.connections, connect: { timeout: timeoutMs } }) : null;
  const base: Dispatcher = options.dispatcher ?? (owned as Agent);
  // compose() runs the last interceptor first: each attempt gets fresh timeouts, the limiter's
  // place spans the retries, and the deadline spans the wait for that place.
  const dispatcher = base.compose(
    createTimeoutInterceptor({ timeoutMs }),
    createRetryInterceptor(options.retry),
    createOriginLimitInterceptor(options.limiter),
    createDeadlineInterceptor({ timeoutMs }),
  );
  return {
    dispatcher,
    close: async () => {
      if (owned !== null) await owned.close();
    },
  };
}
