/**
 * One error class per way an upstream call can fail, each with a stable `code` that callers and
 * tests assert on (never the message text). The GraphQL layer maps `code` to
 * `extensions.code` and `errorCode` to `extensions.upstream`.
 */
import type { ErrorCodeRecord } from './records.js';

export type UpstreamErrorCode =
  /** The upstream answered with an ErrorCode (business or validation error, usually 503). */
  | 'UPSTREAM_ERROR'
  /** The upstream rejected the credential (ID.1001 session invalid, or a 401/403 of the cursor family). */
  | 'UNAUTHENTICATED'
  /** The upstream refused the caller (ID.1002 permission denied, or a 403 tenant mismatch). */
  | 'FORBIDDEN'
  /** A REST-layer rejection: 400 plain text (malformed query, bad cursor, wrong parameter type). */
  | 'UPSTREAM_BAD_REQUEST'
  /** 404: unknown route, expired job, or a record that does not exist. */
  | 'UPSTREAM_NOT_FOUND'
  /** The upstream is down: connection refused or reset, 5xx without an ErrorCode, or the breaker is open. */
  | 'UPSTREAM_UNAVAILABLE'
  /** No answer within the configured timeout. */
  | 'UPSTREAM_TIMEOUT'
  /** The upstream answered something the decoder cannot read. */
  | 'UPSTREAM_PROTOCOL_ERROR'
  /** Not sent: the client's address spent its calls under credentials the upstream has not accepted yet. */
  | 'RATE_LIMITED';

export interface UpstreamErrorDetails {
  /** The spec operation name, e.g. `QueryFiberChannelLun`. */
  operation: string;
  /** HTTP status of the upstream answer, when there was one. */
  status?: number | undefined;
  /** The upstream ErrorCode with its cause chain, when the body carried one. */
  errorCode?: ErrorCodeRecord | undefined;
  cause?: unknown;
  /** No answer came, but the request may have reached the upstream (the connection failed after it was sent). */
  mayHaveBeenDelivered?: boolean | undefined;
}

export class UpstreamRequestError extends Error {
  readonly code: UpstreamErrorCode;
  readonly operation: string;
  readonly status: number | undefined;
  readonly errorCode: ErrorCodeRecord | undefined;
  /**
   * True when no answer came but the request may have reached the upstream (a connection reset
   * after sending, a timeout): a write that failed this way may still run, so its job must be
   * polled for rather than given up. False when the request surely was not acted on (refused
   * connection, open circuit breaker, full queue) or an answer came.
   */
  readonly mayHaveBeenDelivered: boolean;

  constructor(code: UpstreamErrorCode, message: string, details: UpstreamErrorDetails) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.code = code;
    this.operation = details.operation;
    this.status = details.status;
    this.errorCode = details.errorCode;
    this.mayHaveBeenDelivered = details.mayHaveBeenDelivered ?? false;
  }
}

export class UpstreamBusinessError extends UpstreamRequestError {
  declare readonly errorCode: ErrorCodeRecord;
  constructor(errorCode: ErrorCodeRecord, details: Omit<UpstreamErrorDetails, 'errorCode'>) {
    super('UPSTREAM_ERROR', `${errorCode.code}: ${errorCode.description ?? errorCode.details ?? 'upstream error'}`, {
      ...details,
      errorCode,
    });
  }
}

/**
 * The base of the classes below: one class per `code`, so a caller can `instanceof` the failure
 * it handles and every instance of a class carries that class's code.
 */
function withCode<const C extends UpstreamErrorCode>(code: C) {
  return class extends UpstreamRequestError {
    declare readonly code: C;
    constructor(message: string, details: UpstreamErrorDetails) {
      super(code, message, details);
    }
  };
}

export class UpstreamAuthenticationError extends withCode('UNAUTHENTICATED') {}

export class UpstreamForbiddenError extends withCode('FORBIDDEN') {}

export class UpstreamBadRequestError extends withCode('UPSTREAM_BAD_REQUEST') {}

export class UpstreamNotFoundError extends withCode('UPSTREAM_NOT_FOUND') {}

export class UpstreamUnavailableError extends withCode('UPSTREAM_UNAVAILABLE') {}

export class UpstreamTimeoutError extends withCode('UPSTREAM_TIMEOUT') {}

export class UpstreamProtocolError extends withCode('UPSTREAM_PROTOCOL_ERROR') {}

/** A call the gateway did not make: see `credential-gate.ts`. */
export class UpstreamRateLimitedError extends withCode('RATE_LIMITED') {
  /** When the address may make such a call again. */
  readonly retryAfterSeconds: number;
  constructor(message: string, details: UpstreamErrorDetails & { retryAfterSeconds: number }) {
    super(message, details);
    this.retryAfterSeconds = details.retryAfterSeconds;
  }
}

export function isUpstreamRequestError(error: unknown): error is UpstreamRequestError {
  return error instanceof UpstreamRequestError;
}
