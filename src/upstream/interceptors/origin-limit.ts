/**
 * `createOriginLimitInterceptor`: each dispatch holds a place of its origin's `OriginLimiter`
 * (`limiter.ts`) from the moment it is let through until its answer ends, every retry included.
 * A dispatch that finds the origin busy waits in its queue, and leaves it when `opts.signal`
 * aborts (the deadline interceptor's); one that finds the queue full ends at once with
 * `QueueFullError`. Either way it never reached a connection.
 */
import type { Duplex } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { OriginLimiter } from '../limiter.js';
import { endEarly } from './end-early.js';

export function createOriginLimitInterceptor(limiter: OriginLimiter): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) =>
    function originLimitInterceptor(opts, handler) {
      const origin = String(opts.origin);
      const release = limiter.tryAcquire(origin);
      if (release !== undefined) return dispatchHolding(dispatch, opts, handler, release);
      const { signal } = opts as { signal?: AbortSignal | undefined };
      limiter.acquire(origin, signal).then(
        (granted) => {
          if (signal?.aborted) {
            granted();
            endEarly(handler, signal.reason as Error);
            return;
          }
          try {
            dispatchHolding(dispatch, opts, handler, granted);
          } catch (error) {
            endEarly(handler, error instanceof Error ? error : new Error(String(error)));
          }
        },
        (error: unknown) => endEarly(handler, error instanceof Error ? error : new Error(String(error))),
      );
      return true;
    };
}

function dispatchHolding(dispatch: Dispatcher.Dispatch, opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler, release: () => void): boolean {
  try {
    return dispatch(opts, new ReleasingHandler(handler, release));
  } catch (error) {
    release();
    throw error;
  }
}

/** Gives the place back as the dispatch ends, whichever way, before the handler hears of it. */
class ReleasingHandler implements Dispatcher.DispatchHandler {
  constructor(
    private readonly handler: Dispatcher.DispatchHandler,
    private readonly release: () => void,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.handler.onRequestStart?.(controller, context);
  }

  onRequestUpgrade(controller: Dispatcher.DispatchController, statusCode: number, headers: ResponseHeaders, socket: Duplex): void {
    this.release();
    this.handler.onRequestUpgrade?.(controller, statusCode, headers, socket);
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: ResponseHeaders, statusMessage?: string): void {
    this.handler.onResponseStart?.(controller, statusCode, headers, statusMessage);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.handler.onResponseData?.(controller, chunk);
  }

  onResponseEnd(controller: Dispatcher.DispatchController, trailers: ResponseHeaders): void {
    this.release();
    this.handler.onResponseEnd?.(controller, trailers);
  }

  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    this.release();
    this.handler.onResponseError?.(controller, error);
  }
}

type ResponseHeaders = Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseStart']>>[2];
