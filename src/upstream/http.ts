/**
 * The dispatcher every upstream request goes through: one undici `Agent` (a keep-alive `Pool`
 * per origin) composed with two small interceptors, per the undici layering (API on dispatchers
 * on core):
 *
 * - `createTimeoutInterceptor`: default headers and body timeouts on every dispatch.
 * - `createRetryInterceptor`: retries idempotent GETs with jittered exponential backoff.
 *
 * The overall deadline of one call (all attempts, body included) is the client's `AbortSignal`,
 * which the retry interceptor honours between attempts.
 */
import { Agent, type Dispatcher } from 'undici';

export interface RetryInterceptorOptions {
  /** Attempts after the first one. */
  retries: number;
  /** First backoff ceiling in ms; each retry doubles it. @default 100 */
  baseDelayMs?: number;
  /** Backoff ceiling in ms. @default 2000 */
  maxDelayMs?: number;
  /** Source of jitter in [0, 1). @default Math.random */
  random?: () => number;
}

/**
 * Errors of a connection that was never made (refused, no route, no such name, connect timeout):
 * the request surely did not reach the upstream, and a GET may be sent again.
 */
export const CONNECT_FAILURE_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETDOWN',
  'ENETUNREACH',
  'EHOSTDOWN',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

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
  const baseDelayMs = options.baseDelayMs ?? 100;
  const maxDelayMs = options.maxDelayMs ?? 2000;
  const random = options.random ?? Math.random;
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

/**
 * A dispatch handler that wants to hear of each retry (the upstream call's span counts them):
 * the retry interceptor calls `onRetry` before each new attempt. Other handlers ignore it.
 */
export interface RetryListener {
  onRetry?(attempt: number): void;
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
  private started = false;
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
    (this.handler as RetryListener).onRetry?.(this.attempt);
    this.current = null;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.done) return;
      try {
        this.dispatch(this.opts, this.attemptHandler());
      } catch (error) {
        this.finishWithError(error instanceof Error ? error : new Error(String(error)));
      }
    }, delay);
  }

  private canRetry(): boolean {
    return !this.started && this.abortReason === null && this.attempt < this.retries;
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
        if (this.attempt === 0) this.handler.onRequestStart?.(this, context);
      },
      onRequestUpgrade: (_controller, statusCode, headers, socket) => {
        this.started = true;
        this.handler.onRequestUpgrade?.(this, statusCode, headers, socket);
      },
      onResponseStart: (_controller, statusCode, headers, statusMessage) => {
        if (statusCode < 200) return;
        if (RETRYABLE_STATUSES.has(statusCode) && this.canRetry()) {
          held = { statusCode, headers, statusMessage, chunks: [], size: 0 };
          return;
        }
        this.started = true;
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
          this.started = true;
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
          this.started = true;
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

/** The `code` of a transport error (undici's, or a socket's), looked for down its `cause` chain; '' when none. */
export function transportErrorCode(error: unknown): string {
  if (!(error instanceof Error)) return '';
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  return transportErrorCode(error.cause);
}

/** Does the body parse as `{"error": {...}}`, the service's business/validation error answer? */
export function carriesErrorCode(body: Buffer | string): boolean {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  if (!text.trimStart().startsWith('{')) return false;
  try {
    const parsed: unknown = JSON.parse(text);
    const error = (parsed as { error?: unknown }).error;
    return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string';
  } catch {
    return false;
  }
}

/** Sets headers and body timeouts on every dispatch that does not choose its own. */
export function createTimeoutInterceptor(timeoutMs: number): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) =>
    function timeoutInterceptor(opts, handler) {
      return dispatch(
        { ...opts, headersTimeout: opts.headersTimeout ?? timeoutMs, bodyTimeout: opts.bodyTimeout ?? timeoutMs },
        handler,
      );
    };
}

export interface UpstreamDispatcherOptions {
  /** Keep-alive connections per upstream origin. */
  connections: number;
  /** Headers and body timeout of one attempt, in ms. */
  timeoutMs: number;
  /** Retry options for idempotent GETs. */
  retry: RetryInterceptorOptions;
  /** Use this dispatcher instead of a new `Agent` (e.g. a `MockAgent`); it is not closed by `close()`. */
  dispatcher?: Dispatcher | undefined;
}

export interface UpstreamDispatcher {
  dispatcher: Dispatcher;
  /** Closes the agent this module created (a caller-supplied dispatcher stays open). */
  close(): Promise<void>;
}

export function createUpstreamDispatcher(options: UpstreamDispatcherOptions): UpstreamDispatcher {
  // undici's default keep-alive (4 s unless the server says otherwise) is kept on purpose: a
  // longer one risks writing a non-retryable POST into a socket the server already closed.
  const owned = options.dispatcher === undefined ? new Agent({ connections: options.connections, connect: { timeout: options.timeoutMs } }) : null;
  const base: Dispatcher = options.dispatcher ?? (owned as Agent);
  // compose() runs the last interceptor first: retry wraps timeout, so each attempt gets fresh timeouts.
  const dispatcher = base.compose(createTimeoutInterceptor(options.timeoutMs), createRetryInterceptor(options.retry));
  return {
    dispatcher,
    close: async () => {
      if (owned !== null) await owned.close();
    },
  };
}
