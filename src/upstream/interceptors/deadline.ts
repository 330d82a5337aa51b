/**
 * `createDeadlineInterceptor`: the time one call is allowed, all of it: waiting for a place in its
 * origin's queue, every attempt and backoff, the whole body. Also the caller's hang-up: a dispatch
 * whose `signal` aborts ends with the signal's reason.
 *
 * Either way the dispatch ends at once, with `onResponseError`, whichever layer it is in: through
 * its controller once it has one, else by ending the handler here (a request waiting for a
 * connection has no controller yet). The layers inside see the deadline and the hang-up together
 * as `opts.signal`: the origin limiter's queue leaves on it.
 */
import type { Duplex } from 'node:stream';
import type { Dispatcher } from 'undici';
import { endEarly } from './end-early.js';

export interface DeadlineInterceptorOptions {
  /** Time allowed for one dispatch, in ms, unless it sets its own `deadlineMs`. */
  timeoutMs: number;
}

/** What a dispatch tells the deadline interceptor besides undici's options. */
export interface DeadlineDispatchOptions {
  /** Time allowed for this dispatch instead of the interceptor's `timeoutMs` (a readiness ping's is short). */
  deadlineMs?: number | undefined;
  /** The caller's hang-up. Inside the interceptor: the deadline and the hang-up together. */
  signal?: AbortSignal | undefined;
}

/** A dispatch ended because its deadline passed. */
export class DeadlineExceededError extends Error {
  override name = 'DeadlineExceededError';
  readonly code = 'UPSTREAM_DEADLINE_EXCEEDED';
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
  }
}

export function createDeadlineInterceptor({ timeoutMs }: DeadlineInterceptorOptions): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) =>
    function deadlineInterceptor(opts, handler) {
      const { deadlineMs = timeoutMs, signal } = opts as Dispatcher.DispatchOptions & DeadlineDispatchOptions;
      return new DeadlineRequest(handler, signal).start(dispatch, opts, deadlineMs);
    };
}

/** One dispatch under its deadline: a handler decorator that ends the request when time is up. */
class DeadlineRequest implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | null = null;
  private readonly inside = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private ended = false;

  constructor(
    private readonly handler: Dispatcher.DispatchHandler,
    private readonly callerSignal: AbortSignal | undefined,
  ) {}

  start(dispatch: Dispatcher.Dispatch, opts: Dispatcher.DispatchOptions, deadlineMs: number): boolean {
    if (this.callerSignal?.aborted) {
      this.abort(this.callerSignal.reason as Error);
      return true;
    }
    this.timer = setTimeout(() => this.abort(new DeadlineExceededError(deadlineMs)), deadlineMs);
    this.callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
    try {
      return dispatch({ ...opts, signal: this.inside.signal } as Dispatcher.DispatchOptions, this);
    } catch (error) {
      this.stop();
      throw error;
    }
  }

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    if (this.ended) {
      // Ended while it waited for a connection: it must not be written now.
      controller.abort(this.inside.signal.reason as Error);
      return;
    }
    this.controller = controller;
    this.handler.onRequestStart?.(controller, context);
  }

  onRequestUpgrade(controller: Dispatcher.DispatchController, statusCode: number, headers: ResponseHeaders, socket: Duplex): void {
    if (this.ended) return;
    this.stop();
    this.ended = true;
    this.handler.onRequestUpgrade?.(controller, statusCode, headers, socket);
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: ResponseHeaders, statusMessage?: string): void {
    if (!this.ended) this.handler.onResponseStart?.(controller, statusCode, headers, statusMessage);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (!this.ended) this.handler.onResponseData?.(controller, chunk);
  }

  onResponseEnd(controller: Dispatcher.DispatchController, trailers: ResponseHeaders): void {
    if (this.ended) return;
    this.finish();
    this.handler.onResponseEnd?.(controller, trailers);
  }

  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    if (this.ended) return;
    this.finish();
    this.handler.onResponseError?.(controller, error);
  }

  private readonly onCallerAbort = (): void => this.abort(this.callerSignal?.reason as Error);

  /** Ends the dispatch with `reason`: the layers inside first, then here if they did not. */
  private abort(reason: Error): void {
    if (this.ended) return;
    this.inside.abort(reason);
    this.controller?.abort(reason);
    if (this.ended) return;
    this.finish();
    endEarly(this.handler, reason);
  }

  private finish(): void {
    this.ended = true;
    this.stop();
  }

  private stop(): void {
    clearTimeout(this.timer);
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
  }
}

type ResponseHeaders = Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseStart']>>[2];
