/**
 * The response cache (`@graphql-yoga/plugin-response-cache`), scoped per credential: the session
 * is a digest of the three credential headers, so one caller's cached answer is never served to
 * another. Entries expire per type (`RESPONSE_CACHE_TTLS`), and a finished write drops the
 * answers it made stale (`invalidation.ts`), on every replica. Cacheable answers carry an
 * ETag naming the cached answer (its key and the version cached); `If-None-Match` naming the
 * answer cached now answers 304.
 */
import { createHash, randomUUID } from 'node:crypto';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { useResponseCache as useYogaResponseCache, type Cache } from '@graphql-yoga/plugin-response-cache';
import { callerOfRequest } from '../context.js';
import { mayBeLiveRequest } from '../execution/execution-kind.js';
import { trackExecutions } from './store.js';

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

/** How the cache plugin marks an answer it served (`@graphql-yoga/plugin-response-cache`'s `onParams`). */
const SERVED_FROM_CACHE = Symbol.for('servedFromResponseCache');

/** Carries a cached answer's version from the cache to `onResponse`, which removes it. */
const ANSWER_VERSION_HEADER = 'x-gateway-answer-version';


export interface ResponseCacheOptions {
  /**
   * Where answers are kept (`createResponseCacheStore`); share it with `createWriteInvalidation`
   * so finished writes invalidate it.
   */
  cache: Cache;
  /** TTL (ms) of answers whose types have no entry in `ttls`; 0 turns the cache off (`RESPONSE_CACHE_TTL_MS`). */
  responseCacheTtlMs: number;
  /** TTL (ms) per type name or `Type.field` coordinate. @default RESPONSE_CACHE_TTLS */
  ttls?: Readonly<Record<string, number>>;
  /** Report `extensions.responseCache` (hit, didCache, ttl, invalidatedEntities) to clients. @default false */
  includeExtensionMetadata?: boolean;
  /** Hears each query the cache could answer: `true` when it did, `false` when the query executed (metrics). */
  onLookup?: ((hit: boolean) => void) | undefined;
}

export function useResponseCache(options: ResponseCacheOptions): Plugin {
  const ttlMs = options.responseCacheTtlMs;
  // Off: not even the key is computed.
  if (ttlMs <= 0) return {};
  const executions = trackExecutions(options.cache);
  // Without a credential every field fails UNAUTHENTICATED; not caching those keeps "one session
  // per credential" free of a shared anonymous session. The WebSocket path builds its requests
  // without headers, so subscriptions and WS operations bypass the cache too.
  // A live query (`@live`) is neither served from nor kept in the cache: each of its answers is a fresh run.
  const enabled = (request: Request): boolean => !mayBeLiveRequest(request) && !callerOfRequest(request).anonymous;
  const cachePlugin = useYogaResponseCache({
    cache: executions.cache,
    ttl: ttlMs,
    ttlPerSchemaCoordinate: { ...(options.ttls ?? RESPONSE_CACHE_TTLS) },
    // Records are keyed by `__typename` + `uuid`: the uuid is what a finished job's input and
    // answer name (see createWriteInvalidation), where the global `id` would have to be rebuilt.
    idFields: ['uuid'],
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
    // The caller's key: one session for every spelling of its credentials, as for budgets and jobs.
    session: (request) => {
      const caller = callerOfRequest(request);
      return caller.anonymous ? null : caller.key;
    },
    // node:crypto's synchronous hash: the default goes through WebCrypto's promise per request.
    buildResponseCacheKey: ({ documentString, operationName, variableValues, sessionId, context }) =>
      executions.keyed(
        context,
        createHash('sha256')
          .update(documentString)
          .update('\0')
          .update(operationName ?? '')
          .update('\0')
          .update(JSON.stringify(variableValues ?? {}))
          .update('\0')
          .update(sessionId ?? '')
          .digest('hex'),
      ),
    enabled,
  });
  return {
    onPluginInit({ addPlugin }) {
      addPlugin(cachePlugin);
      // Added after the cache plugin, so an execution ends here once its answer was cached or not.
      addPlugin({
        onExecute({ args }) {
          const key = executions.start(args.contextValue, args.document, args.operationName, args.schema);
          if (key === undefined) return;
          // A cacheable query the cache did not answer.
          options.onLookup?.(false);
          return {
            onExecuteDone: ({ result }) => {
              if (!isAsyncIterable(result)) return executions.end(key);
              return { onEnd: () => executions.end(key) };
            },
          };
        },
      });
    },
    onExecutionResult({ result }) {
      if (result !== undefined && !isAsyncIterable(result) && SERVED_FROM_CACHE in result) options.onLookup?.(true);
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
