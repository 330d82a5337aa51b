/**
 * The response cache (`@graphql-yoga/plugin-response-cache`), scoped per credential: the session
 * is a digest of the three credential headers, so one caller's cached answer is never served to
 * another. Entries expire per type (`RESPONSE_CACHE_TTLS`), and are invalidated by `__typename`
 * + `id` when a mutation returns a changed record, and by type when a job finishes (a write that
 * completes later, or creates records no cached list knows yet). Cacheable answers carry an ETag;
 * `If-None-Match` with a live ETag answers 304.
 */
import { createHash } from 'node:crypto';
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
    onResponse({ response }) {
      if (!response.headers.has('etag')) return;
      // Answers depend on the credential: shared caches must key on it, and clients revalidate
      // (a 304 is cheap) so that a mutation's invalidation reaches them.
      response.headers.set('cache-control', 'private, no-cache');
      for (const header of ['Authorization', 'X-Resources-Authorization', 'X-Tenant-ID']) response.headers.append('vary', header);
    },
  };
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
