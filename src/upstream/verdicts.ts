/**
 * What a call's outcome tells the gateway's two memories of the upstream: the circuit breaker of
 * its origin (`breaker.ts`: is the upstream there?) and the credential gate (`credential-gate.ts`:
 * did the upstream take this credential?). Pure functions of the outcome.
 */
import type { CredentialVerdict } from './credential-gate.js';
import { readableAuthorization } from './credentials.js';
import { UpstreamRequestError } from './errors.js';
import { QueueFullError } from './limiter.js';

/** How a failed call settles its breaker ticket: the upstream is away, it answered, or nothing was learnt. */
export type BreakerReport = 'failure' | 'success' | 'release';

/** What a failed call says about the upstream. */
export function breakerReportOf(error: unknown, callerGaveUp: boolean): BreakerReport {
  if (callerGaveUp) return 'release';
  const away =
    error instanceof UpstreamRequestError &&
    (error.code === 'UPSTREAM_TIMEOUT' || (error.code === 'UPSTREAM_UNAVAILABLE' && !(error.cause instanceof QueueFullError)));
  // Any other answer (an ErrorCode, a 4xx, an unreadable body) proves the upstream is there.
  return away ? 'failure' : 'success';
}

/**
 * What a failed call's answer says about its credential. `status` is the answer's (null: none
 * came); `authorization` the header the call carried.
 */
export function credentialVerdictOf(status: number | null, error: unknown, authorization: string | undefined): CredentialVerdict {
  // No answer, or the service away (5xx without an ErrorCode): nothing learnt.
  if (status === null || (error instanceof UpstreamRequestError && error.code === 'UPSTREAM_UNAVAILABLE')) return 'unknown';
  if (error instanceof UpstreamRequestError && error.code === 'UNAUTHENTICATED') return 'rejected';
  // The service answers 400 to a request it reads no credential from (docs/upstream/assumptions.md#credentials-and-errors).
  if (status === 400 && readableAuthorization(authorization ?? '') === null) return 'rejected';
  // Any other answer came after the service had taken the credential.
  return 'accepted';
}

/** Whether a failed call may have reached the upstream: an answer came, or none came after sending. */
export function mayHaveReachedUpstream(error: unknown): boolean {
  return !(error instanceof UpstreamRequestError) || error.status !== undefined || error.mayHaveBeenDelivered;
}
