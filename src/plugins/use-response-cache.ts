/**
 * The response cache (`@graphql-yoga/plugin-response-cache`), scoped per credential: the session
 * is a digest of the three credential headers, so one caller's cached answer is never served to
 * another. Entries expire per type (`RESPONSE_CACHE_TTLS`), and are invalidated by `__typename`
 * + `id` when a mutation returns a changed record, and by type when a job finishes (a write that
 * completes later, or creates records no cached list knows yet). Cacheable answers carry an ETag
 * naming the cached answer (its key and the version cached); `If-None-Match` naming the answer
 * cached now answers 304.
 */
import { createHash, randomUUID } from 'node:crypto';
import { getNamedType, isInterfaceType, isObjectType, isUnionType, type GraphQLNamedType, type GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { createInMemoryCache, useResponseCache as useYogaResponseCache, type Cache } from '@graphql-yoga/plugin-response-cache';

/**
 * Time to live (ms) by type or schema coordinate. An answer lives as long as the shortest TTL of
 * anything it contains; what is not listed lives `ttlMs` (the `RESPONSE_CACHE_TTL_MS` setting).
 * The upstream also changes without passing through the gateway (VMs start and stop, sensors
 * move), which bounds every TTL; mutations through the gateway invalidate at once.
 */
export const RESPONSE_CACHE_TTLS: Readonly<Record<string, number>> = Object.freeze({
  /** A job's status changes by itself: never cached. */
  Job: 0,
  'Query.job': 0,
  /** Power state and placement change often and outside the gateway. */
  VmInstance: 10_000,
  VmNic: 10_000,
  CbtTask: 10_000,
  PrimaryStorageCapacity: 10_000,
  /** Live hardware readings. */
  'Host.sensors': 5_000,
  /** Hardware inventory barely changes. */
  HbaDevice: 300_000,
  FiberChannelLun: 300_000,
  'Host.blockDevices': 300_000,
});

/** Carries a cached answer's version from the cache to `onResponse`, which removes it. */
const ANSWER_VERSION_HEADER = 'x-gateway-answer-version';

/** The headers whose values make up a caller's identity (CONTRACT section 3). */
const CREDENTIAL_HEADERS = ['authorization', 'x-resources-authorization', 'x-tenant-id'] as const;

export interface ResponseCacheOptions {
  /** Where answers are kept; share it with `invalidateJobTypes` so finished jobs invalidate it. */
  cache: Cache;
  /** TTL (ms) of answers whose types have no entry in `ttls`; 0 turns the cache off. @default 30000 */
  ttlMs?: number;
  /** TTL (ms) per type name or `Type.field` coordinate. @default RESPONSE_CACHE_TTLS */
  ttls?: Readonly<Record<string, number>>;
  /** Report `extensions.responseCache` (hit, didCache, ttl, invalidatedEntities) to clients. @default false */
  includeExtensionMetadata?: boolean;
}

/** The cache the plugin and the job invalidation share. */
export function createResponseCacheStore(options: { max?: number } = {}): Cache {
  return createInMemoryCache({ max: options.max ?? 1_000 });
}

/** A digest of the caller's three credential headers, or null when the caller sent none. */
export function credentialSession(headers: Headers): string | null {
  const values = CREDENTIAL_HEADERS.map((name) => headers.get(name)?.trim() ?? '');
  if (values.every((value) => value === '')) return null;
  const hash = createHash('sha256');
  for (const value of values) hash.update(value).update('\0');
  return hash.digest('hex');
}

export function useResponseCache(options: ResponseCacheOptions): Plugin {
  const ttlMs = options.ttlMs ?? 30_000;
  // Off: not even the key is computed.
  if (ttlMs <= 0) return {};
  // Without a credential every field fails UNAUTHENTICATED; not caching those keeps "one session
  // per credential" free of a shared anonymous session. The WebSocket path builds its requests
  // without headers, so subscriptions and WS operations bypass the cache too.
  const enabled = (request: Request): boolean => credentialSession(request.headers) !== null;
  const cachePlugin = useYogaResponseCache({
    cache: options.cache,
    ttl: ttlMs,
    ttlPerSchemaCoordinate: { ...(options.ttls ?? RESPONSE_CACHE_TTLS) },
    // Every record type has a global `id`; a mutation payload's record invalidates the cached
    // answers holding that `__typename` + `id`.
    idFields: ['id'],
    invalidateViaMutation: true,
    // As the plugin's default (answers with errors are not cached), and each cached answer gets
    // a version of its own, which its ETag carries (see onResponse).
    shouldCacheResult: ({ result }) => {
      if (result.errors?.length) return false;
      const extensions = (result.extensions ??= {}) as { http?: { headers?: Record<string, string> } };
      ((extensions.http ??= {}).headers ??= {})[ANSWER_VERSION_HEADER] = randomUUID();
      return true;
    },
    includeExtensionMetadata: options.includeExtensionMetadata ?? false,
    session: (request) => credentialSession(request.headers),
    // node:crypto's synchronous hash: the default goes through WebCrypto's promise per request.
    buildResponseCacheKey: ({ documentString, operationName, variableValues, sessionId }) =>
      createHash('sha256')
        .update(documentString)
        .update('\0')
        .update(operationName ?? '')
        .update('\0')
        .update(JSON.stringify(variableValues ?? {}))
        .update('\0')
        .update(sessionId ?? '')
        .digest('hex'),
    enabled,
  });
  return {
    onPluginInit({ addPlugin }) {
      addPlugin(cachePlugin);
    },
    onResponse({ request, response, setResponse, fetchAPI }) {
      // The cache plugin marks a cacheable answer with an ETag that is its cache key: the same
      // for the answer before and after a mutation changed it, so a client revalidating an old
      // copy would be told 304. The ETag sent also names the cached answer's version (stamped
      // when it was cached), and 304 answers only a copy of the answer cached now.
      const key = response.headers.get('etag');
      if (!key) return;
      const version = response.headers.get(ANSWER_VERSION_HEADER) ?? '';
      const etag = `W/"${createHash('sha256').update(key).update('\0').update(version).digest('base64url')}"`;
      // Copied name by name: a Headers built from another keeps the names' case, and then its
      // `set('etag')` adds a second ETag beside the cache plugin's `ETag` instead of replacing it.
      const headers = new fetchAPI.Headers();
      response.headers.forEach((value, name) => headers.append(name, value));
      headers.delete(ANSWER_VERSION_HEADER);
      headers.set('etag', etag);
      // Answers depend on the credential: shared caches must key on it, and clients revalidate
      // (a 304 is cheap) so that a mutation's invalidation reaches them.
      headers.set('cache-control', 'private, no-cache');
      for (const header of ['Authorization', 'X-Resources-Authorization', 'X-Tenant-ID']) headers.append('vary', header);
      if (matchesEtag(request.headers.get('if-none-match'), etag)) {
        headers.delete('content-type');
        headers.delete('content-length');
        setResponse(new fetchAPI.Response(null, { status: 304, headers }));
      } else {
        setResponse(new fetchAPI.Response(response.body, { status: response.status, statusText: response.statusText, headers }));
      }
    },
  };
}

/** Whether an `If-None-Match` list names `etag` (weak comparison: `W/` is ignored), or is `*`. */
function matchesEtag(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  const wanted = opaque(etag);
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === wanted);
}

/**
 * The record types a mutation's payload returns (`UpdateHostNqnPayload.host` → `Host`), for
 * invalidating by type when its job finishes.
 */
export function payloadEntityTypes(schema: GraphQLSchema, mutationName: string): string[] {
  const field = schema.getMutationType()?.getFields()[mutationName];
  if (!field) return [];
  const payload = getNamedType(field.type);
  if (!isObjectType(payload)) return [];
  const types = new Set<string>();
  for (const [name, payloadField] of Object.entries(payload.getFields())) {
    if (name === 'job' || name === 'error' || name === 'clientMutationId') continue;
    for (const type of concreteTypes(schema, getNamedType(payloadField.type))) {
      if ('id' in type.getFields()) types.add(type.name);
    }
  }
  return [...types];
}

function concreteTypes(schema: GraphQLSchema, type: GraphQLNamedType) {
  if (isObjectType(type)) return [type];
  if (isUnionType(type) || isInterfaceType(type)) return schema.getPossibleTypes(type);
  return [];
}

/** Drops every cached answer holding a record of a type the finished mutation returns. */
export async function invalidateJobTypes(cache: Cache, schema: GraphQLSchema, mutationName: string): Promise<void> {
  const typenames = payloadEntityTypes(schema, mutationName);
  if (typenames.length > 0) await cache.invalidate(typenames.map((typename) => ({ typename })));
}
