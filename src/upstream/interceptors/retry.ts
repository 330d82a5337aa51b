/**
 * `createRetryInterceptor`: retries an idempotent GET with jittered exponential backoff, after a
 * connection error or a 502/503/504 that is not a business answer. One logical request across its
 * attempts: the handler sees a single request.
 */
import type { Dispatcher } from 'undici';
import { carriesErrorCode } from '../answers.js';
import { CONNECT_FAILURE_CODES, transportErrorCode } from '../failures.js';

export interface RetryInterceptorOptions {
  /** Attempts after the first one. */
  retries: number;
  /** First backoff ceiling in ms; each retry doubles it. */
  baseDelayMs: number;
  /** Backoff ceiling in ms. */
  maxDelayMs: number;
  /** Source of jitter in [0, 1) (`Math.random`; a fixed one in tests). */
  random: () => number;
}

/** What a dispatch tells the retry interceptor besides undici's options. */
export interface RetryDispatchOptions {
  /** Hears each retry, before its attempt (the upstream call's span counts them). */
  onRetry?: ((attempt: number) => void) | undefined;
}

/**
 * Errors from a connection that never produced a response (never made, or broken before any
 * answer): safe to retry for a GET. Timeouts of headers or body are not among them: the client's deadline already spans every attempt.
 */
const RETRYABLE_ERROR_CODES: ReadonlySet<string> = new Set([
  ...CONNECT_FAILURE_CODES,
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
]);

/** Statuses that mean "the service is momentarily away" when their body is not an ErrorCode. */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

/** A retryable status's body is buffered to look for an ErrorCode; bodies beyond this pass through. */
const MAX_INSPECTED_BODY_BYTES = 64 * 1024;

/**
 * Retries a GET (or HEAD) on a connection error and on a 502/503/504 whose body is not a
 * business `{"error": ErrorCode}`: the service answers its own business and validation errors
 * with 503 too, and repeating those only repeats the error. Never retries other methods (every
 * write is an asynchronous job: repeating one could run it twice), nor a dispatch marked
 * `idempotent: false`, nor once the response has started flowing to the caller.
 */
export function createRetryInterceptor(options: RetryInterceptorOptions): Dispatcher.DispatcherComposeInterceptor {
  const retries = Math.max(0, Math.floor(options.retries));
  const { baseDelayMs, maxDelayMs, random } = options;
  return (dispatch) =>
    function retryInterceptor(opts, handler) {
      const method = opts.method.toUpperCase();
      if (retries === 0 || (method !== 'GET' && method !== 'HEAD') || opts.idempotent === false) {
        return dispatch(opts, handler);
      }
      // Full jitter: a uniformly random wait below an exponentially growing ceiling, so that
      // many gateways retrying after one upstream blip do not return in lockstep.
      const backoff = (attempt: number): number => random() * Math.min(maxDelayMs, baseDelayMs * 2 ** attempt);
      return new RetryingRequest(dispatch, opts, handler, retries, backoff).start();
    };
}

type ResponseHeaders = Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseStart']>>[2];

/** A retryable answer held back until its body shows whether it is an ErrorCode. */
interface HeldResponse {
  statusCode: number;
  headers: ResponseHeaders;
  statusMessage: string | undefined;
  chunks: Buffer[];
  size: number;
}

/** One logical request across its attempts; the downstream handler sees a single request. */
class RetryingRequest implements Dispatcher.DispatchController {
  private attempt = 0;
  private current: Dispatcher.DispatchController | null = null;
  private timer: NodeJS.Timeout | null = null;
  private responded = false;
  private requestStarted = false;
  private done = false;
  private pausedByCaller = false;
  private abortReason: Error | null = null;

  constructor(
    private readonly dispatch: Dispatcher.Dispatch,
    private readonly opts: Dispatcher.DispatchOptions,
    private readonly handler: Dispatcher.DispatchHandler,
    private readonly retries: number,
    private readonly backoff: (attempt: number) => number,
  ) {}

  start(): boolean {
    return this.dispatch(this.opts, this.attemptHandler());
  }

  // DispatchController, as seen by the downstream handler: forwarded to the live attempt.
  get aborted(): boolean {
    return this.abortReason !== null || (this.current?.aborted ?? false);
  }
  get paused(): boolean {
    return this.pausedByCaller;
  }
  get reason(): Error | null {
    return this.abortReason ?? this.current?.reason ?? null;
  }
  abort(reason: Error): void {
    if (this.done) return;
    this.abortReason = reason;
    if (this.timer !== null) {
      // Between attempts there is no connection to abort: end the request here.
      clearTimeout(this.timer);
      this.timer = null;
      this.finishWithError(reason);
      return;
    }
    this.current?.abort(reason);
  }
  pause(): void {
    this.pausedByCaller = true;
    this.current?.pause();
  }
  resume(): void {
    this.pausedByCaller = false;
    this.current?.resume();
  }

  private finishWithError(error: Error): void {
    if (this.done) return;
    this.done = true;
    this.handler.onResponseError?.(this, error);
  }

  private scheduleRetry(): void {
    const delay = this.backoff(this.attempt);
    this.attempt += 1;
    (this.opts as RetryDispatchOptions).onRetry?.(this.attempt);
    this.current = null;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.done) return;
      // The call ended while this one waited (its deadline, its caller: the deadline interceptor's signal).
      const { signal } = this.opts as { signal?: AbortSignal | undefined };
      if (signal?.aborted) {
        this.finishWithError(signal.reason as Error);
        return;
      }
      try {
        this.dispatch(this.opts, this.attemptHandler());
      } catch (error) {
        this.finishWithError(error instanceof Error ? error : new Error(String(error)));
      }
    }, delay);
  }

  private canRetry(): boolean {
    return !this.responded && this.abortReason === null && this.attempt < this.retries;
  }

  private attemptHandler(): Dispatcher.DispatchHandler {
    // Set when this attempt's response is being held back to inspect its body.
    let held: HeldResponse | null = null;
    return {
      onRequestStart: (controller, context) => {
        this.current = controller;
        if (this.abortReason !== null) {
          controller.abort(this.abortReason);
          return;
        }
        if (this.pausedByCaller) controller.pause();
        // The first attempt that reaches a connection starts the request for the handler: one
        // refused before it did not.
        if (!this.requestStarted) {
          this.requestStarted = true;
          this.handler.onRequestStart?.(this, context);
        }
      },
      onRequestUpgrade: (_controller, statusCode, headers, socket) => {
        this.responded = true;
        this.handler.onRequestUpgrade?.(this, statusCode, headers, socket);
      },
      onResponseStart: (_controller, statusCode, headers, statusMessage) => {
        if (statusCode < 200) return;
        if (RETRYABLE_STATUSES.has(statusCode) && this.canRetry()) {
          held = { statusCode, headers, statusMessage, chunks: [], size: 0 };
          return;
        }
        this.responded = true;
        this.handler.onResponseStart?.(this, statusCode, headers, statusMessage);
      },
      onResponseData: (_controller, chunk) => {
        if (held === null) {
          this.handler.onResponseData?.(this, chunk);
          return;
        }
        held.chunks.push(chunk);
        held.size += chunk.length;
        if (held.size > MAX_INSPECTED_BODY_BYTES) {
          // Too big to be a short outage page: hand it on as it is.
          const release = held;
          held = null;
          this.responded = true;
          this.handler.onResponseStart?.(this, release.statusCode, release.headers, release.statusMessage);
          for (const c of release.chunks) this.handler.onResponseData?.(this, c);
        }
      },
      onResponseEnd: (_controller, trailers) => {
        if (held !== null) {
          const release = held;
          held = null;
          const body = Buffer.concat(release.chunks, release.size);
          if (!carriesErrorCode(body)) {
            this.scheduleRetry();
            return;
          }
          this.responded = true;
          this.handler.onResponseStart?.(this, release.statusCode, release.headers, release.statusMessage);
          if (body.length > 0) this.handler.onResponseData?.(this, body);
        }
        this.done = true;
        this.handler.onResponseEnd?.(this, trailers);
      },
      onResponseError: (_controller, error) => {
        if (this.done) return;
        held = null;
        if (this.canRetry() && RETRYABLE_ERROR_CODES.has(transportErrorCode(error))) {
          this.scheduleRetry();
          return;
        }
        this.finishWithError(error);
      },
    };
  }
}
