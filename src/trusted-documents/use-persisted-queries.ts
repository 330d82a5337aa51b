/**
 * Automatic persisted queries, Apollo's APQ protocol (version 1): a client sends
 * `extensions.persistedQuery.sha256Hash` alone, over GET or POST; an unknown hash answers the
 * `PersistedQueryNotFound` error, the client repeats with the query text, which registers it, and
 * from then on the hash alone runs it. A hash-only GET is a short, stable URL a mobile client,
 * a browser or a CDN can cache.
 *
 * Written here rather than taken from `@graphql-yoga/plugin-apq`: its last release still pins
 * `@graphql-tools/utils@^10` as a peer, which conflicts with the v11 the other yoga plugins need.
 */
import { createHash } from 'node:crypto';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { PERSISTED_QUERY_NOT_FOUND } from '../errors/codes.js';
import { getRecentlyUsed } from '../utils/recently-used.js';

/** Most queries kept. */
const DEFAULT_MAX_QUERIES = 1_000;
/** Longest query text accepted for registration, in characters. */
const DEFAULT_MAX_QUERY_LENGTH = 100_000;

export interface PersistedQueriesOptions {
  /** Most queries kept; the least recently used is dropped first. @default DEFAULT_MAX_QUERIES */
  max?: number;
  /** Longest query text accepted for registration, in characters. @default DEFAULT_MAX_QUERY_LENGTH */
  maxQueryLength?: number;
}

/** An APQ error code clients (Apollo's persisted-query link) recognise; the miss, `PERSISTED_QUERY_NOT_FOUND`, is shared with trusted documents. */
export const PERSISTED_QUERY_NOT_SUPPORTED = 'PERSISTED_QUERY_NOT_SUPPORTED';

interface PersistedQueryExtension {
  version: unknown;
  sha256Hash: unknown;
}

export function usePersistedQueries(options: PersistedQueriesOptions = {}): Plugin {
  const store = createQueryStore(options.max ?? DEFAULT_MAX_QUERIES);
  const maxQueryLength = options.maxQueryLength ?? DEFAULT_MAX_QUERY_LENGTH;
  return {
    onParams({ params, setParams }) {
      const persisted = readExtension(params.extensions);
      if (!persisted) return;
      if (persisted.version !== 1) {
        throw createGraphQLError('Unsupported persisted query version; only version 1 is supported.', {
          extensions: { code: PERSISTED_QUERY_NOT_SUPPORTED, http: { status: 400 } },
        });
      }
      const hash = typeof persisted.sha256Hash === 'string' ? persisted.sha256Hash.toLowerCase() : '';
      if (!/^[0-9a-f]{64}$/.test(hash)) {
        throw createGraphQLError('`persistedQuery.sha256Hash` must be 64 hexadecimal characters.', {
          extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
        });
      }
      if (params.query == null || params.query === '') {
        const query = store.get(hash);
        if (query === undefined) {
          // The client is meant to retry with the text, so the miss must not be cached anywhere.
          throw createGraphQLError('PersistedQueryNotFound', {
            extensions: { code: PERSISTED_QUERY_NOT_FOUND, http: { status: 200, headers: { 'cache-control': 'no-store' } } },
          });
        }
        setParams({ ...params, query });
        return;
      }
      if (params.query.length > maxQueryLength) return;
      if (sha256(params.query) !== hash) {
        throw createGraphQLError('`persistedQuery.sha256Hash` is not the SHA-256 of the query sent with it.', {
          extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
        });
      }
      store.set(hash, params.query);
    },
  };
}

function readExtension(extensions: Record<string, unknown> | undefined): PersistedQueryExtension | null {
  const persisted = extensions?.persistedQuery;
  if (typeof persisted !== 'object' || persisted === null) return null;
  return { version: (persisted as Record<string, unknown>).version, sha256Hash: (persisted as Record<string, unknown>).sha256Hash };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A bounded map that forgets the least recently used query (Map keeps insertion order). */
function createQueryStore(max: number): { get(hash: string): string | undefined; set(hash: string, query: string): void } {
  const queries = new Map<string, string>();
  return {
    get: (hash) => getRecentlyUsed(queries, hash),
    set(hash, query) {
      queries.delete(hash);
      queries.set(hash, query);
      if (queries.size > max) queries.delete(queries.keys().next().value as string);
    },
  };
}
