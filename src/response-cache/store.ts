/**
 * Where the response cache keeps answers, and what keeps a stale answer out of it: a store that
 * counts its invalidations (`createResponseCacheStore`), and the tracking of executing queries
 * (`trackExecutions`) that indexes each answer under the connection types it lists and does not
 * cache one read across an invalidation. The yoga side is `use-response-cache.ts`; what a
 * finished write drops, `invalidation.ts`.
 */
import { getOperationAST, isObjectType, type DocumentNode, type GraphQLSchema } from 'graphql';
import { createInMemoryCache, type Cache } from '@graphql-yoga/plugin-response-cache';
import { selectedFieldTypes } from '../schema/kit/selected-types.js';

/** The cache the plugin and the job invalidation share: it counts its invalidations. */
export interface ResponseCacheStore extends Cache {
  /** Invalidations made so far, so that an answer read across one is not cached. */
  readonly invalidations: number;
}

/** Invalidations the store made so far; 0 for a store of another making (which goes unguarded). */
export function invalidationsOf(cache: Cache): number {
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
export function trackExecutions(cache: Cache) {
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
