/**
 * What a call that got no answer failed of, as one error class of `errors.ts`: its deadline
 * passed, the gateway's queue of calls to the origin was full, the connection failed, or the
 * caller gave up (its own reason comes back). Pure functions of the failure, tested without a
 * server (`test/upstream/answers.test.ts`); `answers.ts` reads the calls that got one.
 */
import { UpstreamBadRequestError, UpstreamRequestError, UpstreamTimeoutError, UpstreamUnavailableError } from './errors.js';
import { DeadlineExceededError } from './interceptors/deadline.js';
import { QueueFullError } from './limiter.js';

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

/** Failures that happen before a request leaves the gateway: the upstream surely did not see it. */
const NOT_SENT_CODES: ReadonlySet<string> = new Set([...CONNECT_FAILURE_CODES, 'UND_ERR_INVALID_ARG']);

const TIMEOUT_CODES: ReadonlySet<string> = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT']);

/** What is known of a call that ended without an answer. */
export interface NoAnswer {
  /** Whether the request was written to a connection: the upstream may have acted on it. */
  sent: boolean;
  /** The caller's own signal: when it aborted, the caller gave up. */
  callerSignal: AbortSignal | undefined;
}

/**
 * The error a call that got no answer ends with: a typed `UpstreamRequestError`, or the caller's
 * own abort reason when the caller gave up (not an upstream failure).
 */
export function failureOf(operation: string, error: unknown, { sent, callerSignal }: NoAnswer): unknown {
  if (error instanceof UpstreamRequestError) return error;
  if (error instanceof QueueFullError) {
    return new UpstreamUnavailableError(`${operation}: the gateway is at its limit of upstream calls (${error.message})`, { operation, cause: error });
  }
  if (error instanceof DeadlineExceededError) {
    return new UpstreamTimeoutError(`${operation}: no answer from the upstream within ${error.timeoutMs} ms`, { operation, cause: error, mayHaveBeenDelivered: sent });
  }
  if (callerSignal?.aborted) return callerGaveUp(operation, callerSignal, sent);
  return transportFailure(operation, error);
}

/** The caller gave up: not an upstream failure, so the caller's own reason comes back (a deadline of its own as a timeout). */
export function callerGaveUp(operation: string, signal: AbortSignal, mayHaveBeenDelivered: boolean): unknown {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name === 'TimeoutError') {
    return new UpstreamTimeoutError(`${operation}: the caller's deadline passed`, { operation, cause: reason, mayHaveBeenDelivered });
  }
  return reason;
}

/** A failure with no HTTP answer: a timeout of undici's own, or a connection that failed. */
export function transportFailure(operation: string, error: unknown): UpstreamRequestError {
  const code = transportErrorCode(error);
  const reason = error instanceof Error ? error.message : String(error);
  const mayHaveBeenDelivered = !NOT_SENT_CODES.has(code);
  if (TIMEOUT_CODES.has(code)) {
    return new UpstreamTimeoutError(`${operation}: the upstream did not answer in time (${code})`, { operation, cause: error, mayHaveBeenDelivered });
  }
  if (code === 'UND_ERR_INVALID_ARG') {
    return new UpstreamBadRequestError(`${operation}: the request could not be sent: ${reason}`, { operation, cause: error });
  }
  return new UpstreamUnavailableError(`${operation}: the upstream is unreachable (${code || reason})`, { operation, cause: error, mayHaveBeenDelivered });
}

/** The `code` of a transport error (undici's, or a socket's), looked for down its `cause` chain; '' when none. */
export function transportErrorCode(error: unknown): string {
  if (!(error instanceof Error)) return '';
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  return transportErrorCode(error.cause);
}
