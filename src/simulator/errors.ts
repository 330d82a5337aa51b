/**
 * The simulator's two failures, which every layer of it may throw: a business or validation
 * failure answered with the spec's ErrorCode, and a REST-layer rejection answered with 400 plain
 * text. A leaf: it imports nothing, so the query languages, the store and the handlers can all
 * use it.
 */

/** The spec's ErrorCode as it goes on the wire (null fields omitted). */
export interface WireErrorCode {
  code: string;
  description?: string;
  details?: string;
  elaboration?: string;
  opaque?: Record<string, unknown>;
  cause?: WireErrorCode;
}

/** Builds an ErrorCode, chaining `cause` beneath it. */
export function errorCode(code: string, description: string, details?: string, cause?: WireErrorCode): WireErrorCode {
  return {
    code,
    description,
    ...(details === undefined ? {} : { details }),
    ...(cause === undefined ? {} : { cause }),
  };
}

/** A business or validation failure: answered (or its job finished) with `{"error": ErrorCode}`. */
export class SimError extends Error {
  constructor(
    readonly errorCode: WireErrorCode,
    /** HTTP status when answered synchronously; the real service uses 503 for these. */
    readonly status = 503,
  ) {
    super(`${errorCode.code}: ${errorCode.description ?? ''}`);
  }
}

/** A REST-layer rejection (malformed JSON, wrong parameter type): 400 plain text, before any job. */
export class SimBadRequest extends Error {}
