/**
 * Upstream failures as GraphQL sees them: the `UpstreamError` type (mutation payloads) and the
 * mapping of client-layer errors to field errors with `extensions.code` and
 * `extensions.upstream`.
 */
import { GraphQLError } from 'graphql';
import { builder } from '../../builder.js';
import { isUpstreamRequestError, UpstreamRateLimitedError } from '../../upstream/errors.js';
import type { ErrorCodeRecord } from '../../upstream/records.js';
import type { UnreadableRecord } from '../../upstream/wire.js';

export const UpstreamErrorRef = builder.objectRef<ErrorCodeRecord>('UpstreamError');

UpstreamErrorRef.implement({
  // The spec's ErrorCode, as old as the service.
  extensions: { since: null },
  description: 'An error reported by the upstream service (its ErrorCode structure), with the root cause chained beneath it.',
  fields: (t) => ({
    code: t.exposeString('code', {
      nullable: false,
      description: 'Globally unique error identifier of the form `<AREA>.<number>`, e.g. `SYS.1003`, `VM.1010`.',
    }),
    description: t.exposeString('description', { description: 'Brief description.' }),
    details: t.exposeString('details', { description: 'Detailed information.' }),
    elaboration: t.exposeString('elaboration', { description: 'Reserved; usually null.' }),
    opaque: t.field({ type: 'JSON', description: 'Reserved structure; usually null.', resolve: (error) => error.opaque }),
    cause: t.field({
      type: UpstreamErrorRef,
      nullable: true,
      description: 'The root-cause error beneath this one; null when there is none.',
      resolve: (error) => error.cause,
    }),
  }),
});

/** The ErrorCode as plain JSON for `extensions.upstream` (null fields left out). */
export function errorCodeToJson(error: ErrorCodeRecord): Record<string, unknown> {
  const json: Record<string, unknown> = { code: error.code };
  for (const key of ['description', 'details', 'elaboration', 'opaque'] as const) {
    if (error[key] !== null && error[key] !== undefined) json[key] = error[key];
  }
  if (error.cause) json.cause = errorCodeToJson(error.cause);
  return json;
}

/**
 * Turns an upstream-client error into a GraphQL error meant for the client; returns null for
 * anything else (which the error masking hides).
 */
export function upstreamToGraphQLError(error: unknown): GraphQLError | null {
  if (!isUpstreamRequestError(error)) return null;
  return new GraphQLError(error.message, {
    extensions: {
      code: error.code,
      operation: error.operation,
      ...(error.status === undefined ? {} : { upstreamStatus: error.status }),
      ...(error.errorCode === undefined ? {} : { upstream: errorCodeToJson(error.errorCode) }),
      ...(error instanceof UpstreamRateLimitedError ? { retryAfter: error.retryAfterSeconds } : {}),
    },
  });
}

/**
 * The field error of one record the gateway cannot read (an `UnreadableRecord` in a page or an
 * embedded list): it nulls that record's slot only; `extensions.path` names the value upstream.
 */
export function unreadableRecordError(item: UnreadableRecord): GraphQLError {
  return new GraphQLError(`The upstream sent a record the gateway cannot read: ${item.message}`, {
    extensions: { code: 'UPSTREAM_PROTOCOL_ERROR', path: item.path, ...(item.uuid === null ? {} : { uuid: item.uuid }) },
  });
}
