/**
 * The upstream layer's public API: the client, the per-request session over it, the two
 * families' spelling of conditions, its types and errors, the decoded records, and
 * the decoders for result bodies read elsewhere (job results, webhook pushes).
 */
export { createUpstreamClient, UPSTREAM_FIXED_OPTIONS } from './client.js';
export type { UpstreamClientOptions, UpstreamRequestEvent } from './client.js';
export { DecodeError, isUnreadable, normalizeInterfaceType, readableItems, RecordDecoder, UndecodedFieldError, UnreadableRecord, type Readable } from './decode.js';
export * from './errors.js';
export { cursorFamilyOf, resourceFamilyOf, toCursorFilters, toQueryConditions } from './families.js';
export type { Condition, ConditionOperator, Sort, UpstreamFamily } from './families.js';
export {
  createDeadlineInterceptor,
  createOriginLimitInterceptor,
  createRetryInterceptor,
  createTimeoutInterceptor,
  createUpstreamDispatcher,
  DeadlineExceededError,
} from './http.js';
export type {
  DeadlineDispatchOptions,
  DeadlineInterceptorOptions,
  RetryDispatchOptions,
  RetryInterceptorOptions,
  TimeoutInterceptorOptions,
  UpstreamDispatcher,
  UpstreamDispatcherOptions,
  UpstreamDispatchOptions,
} from './http.js';
export type * from './records.js';
export { createUpstreamSession, UpstreamSession } from './session.js';
export type { CredentialFamily, JobCaller, SessionBinding } from './session.js';
export { createTimestampParser } from './timestamps.js';
export type { TimestampParser } from './timestamps.js';
export type * from './types.js';
export * from './operations/index.js';
