/**
 * The response cache (`@graphql-yoga/plugin-response-cache`), scoped per credential: the session
 * is a digest of the three credential headers, so one caller's cached answer is never served to
 * another. Entries expire per type (`RESPONSE_CACHE_TTLS`), and a finished write drops the
 * answers it made stale (`createWriteInvalidation`), on every replica. Cacheable answers carry an
 * ETag naming the cached answer (its key and the version cached); `If-None-Match` naming the
 * answer cached now answers 304.
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  getNamedType,
  getOperationAST,
  isInterfaceType,
  isObjectType,
  isUnionType,
  type DocumentNode,
  type GraphQLNamedType,
  type GraphQLSchema,
} from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { createInMemoryCache, useResponseCache as useYogaResponseCache, type Cache } from '@graphql-yoga/plugin-response-cache';
import { callerOfRequest } from '../../context.js';
import { selectedFieldTypes } from '../../schema/kit/selected-types.js';
import { mayBeLiveRequest } from '../../execution/execution-kind.js';

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

/** The cache the plugin and the job invalidation share: it counts its invalidations. */
export interface ResponseCacheStore extends Cache {
  /** Invalidations made so far, so that an answer read across one is not cached. */
  readonly invalidations: number;
}

/** Invalidations the store made so far; 0 for a store of another making (which goes unguarded). */
function invalidationsOf(cache: Cache): number {
  return 'invalidations' in cache && typeof cache.invalidations === 'number' ? cache.invalidations : 0;
}

export interface ResponseCacheStoreOptions {
  /** Most answers kept, least recently used dropped (`RESPONSE_CACHE_MAX_ENTRIES`). */
  responseCacheMaxEntries: number;
}

/** The cache the plugin and the job invalidation share; it counts its invalidations. */
export function createResponseCacheStore(options: ResponseCacheStoreOptions): ResponseCacheStore {
  const store = createInMemoryCache({ max: options.responseCacheMaxEntries });
  let invalidations = 0;
  return {
    get: (key) => store.get(key),
    set: (key, result, entities, ttl) => store.set(key, result, entities, ttl),
    invalidate: (entities) => {
      invalidations += 1;
      return store.invalidate(entities);
    },
    get invalidations() {
      return invalidations;
    },
  };
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

/** Most executing cache keys remembered at once (a safety bound: each is forgotten as it ends). */
const MAX_TRACKED_KEYS = 10_000;

interface Execution {
  /** The store's invalidation count when the earliest running execution of the key began. */
  invalidationsAtStart: number;
  /** The connection types the document selects. */
  connections: readonly string[];
  /** Executions of the key under way. */
  running: number;
}

/**
 * What the cache plugin does not see of an executing query, kept by cache key until its answer
 * is cached:
 * - The connection types its document selects. The plugin indexes an answer only by the objects
 *   with an id in it, so a page or a `totalCount` of CBT tasks would be indexed under no name a
 *   new task could invalidate.
 * - Whether an invalidation happened while it executed. A read that took the records before a
 *   write changed them, and ends after the write dropped them, would cache the old records anew;
 *   such an answer is served but not cached.
 */
function trackExecutions(cache: Cache) {
  const keyByContext = new WeakMap<object, string>();
  const executions = new Map<string, Execution>();
  const connectionsByDocument = new WeakMap<DocumentNode, readonly string[]>();
  return {
    /** Remembers the cache key of an operation's context (the key is a digest of its document). */
    keyed(context: unknown, key: string): string {
      if (typeof context === 'object' && context !== null) keyByContext.set(context, key);
      return key;
    },
    /** Notes a query operation with a cache key as it starts; answers its key, for `end`. */
    start(context: unknown, document: DocumentNode, operationName: string | null | undefined, schema: GraphQLSchema): string | undefined {
      const key = typeof context === 'object' && context !== null ? keyByContext.get(context) : undefined;
      if (key === undefined || getOperationAST(document, operationName)?.operation !== 'query') return undefined;
      const running = executions.get(key);
      if (running) {
        // The earlier start decides for both.
        running.running += 1;
        return key;
      }
      let connections = connectionsByDocument.get(document);
      if (!connections) {
        connections = selectedConnectionTypes(schema, document);
        connectionsByDocument.set(document, connections);
      }
      if (executions.size >= MAX_TRACKED_KEYS) executions.delete(executions.keys().next().value as string);
      executions.set(key, { invalidationsAtStart: invalidationsOf(cache), connections, running: 1 });
      return key;
    },
    /** Forgets an execution once its answer was cached, or not. */
    end(key: string): void {
      const execution = executions.get(key);
      if (execution && --execution.running <= 0) executions.delete(key);
    },
    /** The cache, storing each answer also under its connection types, unless it may be stale. */
    cache: {
      get: (key) => cache.get(key),
      invalidate: (entities) => cache.invalidate(entities),
      set: (key, result, entities, ttl) => {
        const execution = executions.get(key);
        if (!execution || execution.invalidationsAtStart !== invalidationsOf(cache)) return;
        const connections = execution.connections.map((typename) => ({ typename }));
        return cache.set(key, result, [...entities, ...connections], ttl);
      },
    } satisfies Cache,
  };
}

/** The connection types (those with `pageInfo`) any field of the document returns. */
function selectedConnectionTypes(schema: GraphQLSchema, document: DocumentNode): readonly string[] {
  return [...selectedFieldTypes(schema, document)].filter((type) => isObjectType(type) && 'pageInfo' in type.getFields()).map((type) => type.name);
}

/** Whether an `If-None-Match` list names `etag` (weak comparison: `W/` is ignored), or is `*`. */
function matchesEtag(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  const wanted = opaque(etag);
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === wanted);
}

/** What a finished write touched, as the mutation kit declares it (`touchedBy`). */
export interface WrittenRecords {
  /** Record types it created, changed or removed. */
  types: readonly string[];
  /** Uuids of the records it changed or removed (or created). */
  uuids: readonly string[];
  /** Types of which any record may have changed. */
  everyRecordOf: readonly string[];
}

/** The types a mutation declares it touches (`WriteTouches` of the mutation kit). */
export interface DeclaredTouches {
  types: readonly string[];
  everyRecordOf?: readonly string[] | undefined;
}

/** Every mutation's declared touches, by mutation name (checked against the schema). */
export type DeclaredWrites = ReadonlyMap<string, DeclaredTouches>;

/**
 * Read your writes: drops every cached answer a finished write made stale. That is each answer
 * holding a record it changed or removed (`__typename` + `uuid`, the id the cache collects),
 * each answer holding a list (connection) of a type it touched, whose members, order or
 * `totalCount` may have changed, and each answer holding any record of a type it may change
 * wholesale. Throws at once when a declaration names a type the schema lacks, or leaves out a
 * record type its payload returns.
 */
export function createWriteInvalidation(cache: Cache, schema: GraphQLSchema, declared: DeclaredWrites): (written: WrittenRecords) => void {
  const connections = connectionTypesByNode(schema);
  for (const [mutation, touches] of declared) checkDeclaration(schema, mutation, touches);
  return (written) => {
    const entities: { typename: string; id?: string }[] = [];
    for (const typename of written.types) {
      // Uuids are unique across types: each matches only under its own type.
      for (const id of written.uuids) entities.push({ typename, id });
      for (const connection of connections.get(typename) ?? []) entities.push({ typename: connection });
    }
    for (const typename of written.everyRecordOf) entities.push({ typename });
    if (entities.length > 0) void cache.invalidate(entities);
  };
}

function checkDeclaration(schema: GraphQLSchema, mutation: string, touches: DeclaredTouches): void {
  for (const name of [...touches.types, ...(touches.everyRecordOf ?? [])]) {
    const type = schema.getType(name);
    if (!isObjectType(type)) throw new Error(`mutation ${mutation} touches ${name}, which is no object type of the schema`);
    if (touches.types.includes(name) && !('uuid' in type.getFields())) throw new Error(`mutation ${mutation} touches ${name}, which has no uuid`);
  }
  const missing = payloadRecordTypes(schema, mutation).filter((name) => !touches.types.includes(name));
  if (missing.length > 0) throw new Error(`mutation ${mutation} returns ${missing.join(', ')} but does not declare touching them`);
}

/** The record types (with a `uuid`) anywhere in a mutation's payload, other than its job. */
function payloadRecordTypes(schema: GraphQLSchema, mutationName: string): string[] {
  const field = schema.getMutationType()?.getFields()[mutationName];
  if (!field) return [];
  const found = new Set<string>();
  const seen = new Set<string>();
  const visit = (type: GraphQLNamedType): void => {
    if (seen.has(type.name)) return;
    seen.add(type.name);
    for (const concrete of concreteTypes(schema, type)) {
      const fields = concrete.getFields();
      if ('uuid' in fields) {
        found.add(concrete.name);
        continue;
      }
      for (const [name, child] of Object.entries(fields)) if (name !== 'job') visit(getNamedType(child.type));
    }
  };
  visit(getNamedType(field.type));
  return [...found];
}

/** Each record type's connection types: the object types whose `nodes` (or edges' `node`) are of it. */
function connectionTypesByNode(schema: GraphQLSchema): Map<string, string[]> {
  const byNode = new Map<string, string[]>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    const fields = type.getFields();
    const edges = fields.edges ? getNamedType(fields.edges.type) : undefined;
    const nodeField = fields.nodes ?? (edges && isObjectType(edges) ? edges.getFields().node : undefined);
    if (!fields.pageInfo || !nodeField) continue;
    for (const node of concreteTypes(schema, getNamedType(nodeField.type))) {
      byNode.set(node.name, [...(byNode.get(node.name) ?? []), type.name]);
    }
  }
  return byNode;
}

function concreteTypes(schema: GraphQLSchema, type: GraphQLNamedType) {
  if (isObjectType(type)) return [type];
  if (isUnionType(type) || isInterfaceType(type)) return schema.getPossibleTypes(type);
  return [];
}
