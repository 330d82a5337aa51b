/**
 * The settings of work cached, shared or compiled (`performance`), and of the sealed connection
 * cursors with the upstream cursors they stand for (`cursors`).
 *
 * One part of the settings table, which `../index.ts` composes in the reference page's order.
 */
import { boolean, bytes, integer, milliseconds, secret } from '../parsers.js';
import { optional, setting } from '../declaration.js';

export const performanceSettings = Object.freeze({
  responseCacheTtlMs: setting({
    variable: 'RESPONSE_CACHE_TTL_MS',
    group: 'performance',
    parser: milliseconds(0, 86_400_000),
    default: 30_000,
    description: 'Life of a cached answer whose types set no shorter TTL; `0` turns the response cache off.',
  }),
  responseCacheMaxEntries: setting({
    variable: 'RESPONSE_CACHE_MAX_ENTRIES',
    group: 'performance',
    parser: integer(1, 1_000_000),
    default: 1_000,
    description: 'Most answers the response cache keeps (least recently used dropped).',
  }),
  compressionMinBytes: setting({
    variable: 'COMPRESSION_MIN_BYTES',
    group: 'performance',
    parser: bytes(0, 100_000_000),
    default: 1_024,
    description: 'Smallest JSON answer compressed (brotli, else gzip) for a client that accepts it.',
  }),
  graphqlJit: setting({
    variable: 'GRAPHQL_JIT',
    group: 'performance',
    parser: boolean(),
    default: true,
    description: 'Run operations compiled by graphql-jit where it answers exactly as graphql-js; the other shapes always run on graphql-js.',
  }),
  decodeSelectedFields: setting({
    variable: 'DECODE_SELECTED_FIELDS',
    group: 'performance',
    parser: boolean(),
    default: true,
    description: 'A query\'s upstream reads decode only the record fields the query selects; `false` decodes whole records.',
  }),
  coalesceQueries: setting({
    variable: 'COALESCE_QUERIES',
    group: 'performance',
    parser: boolean(),
    default: true,
    description:
      'Identical queries in flight (same document, operation name, variables and credentials) share one execution; never mutations, subscriptions or `@defer`/`@stream`, and never across a finished write of the credential.',
  }),
  shareUpstreamGets: setting({
    variable: 'SHARE_UPSTREAM_GETS',
    group: 'performance',
    parser: boolean(),
    default: true,
    description: 'Identical upstream GETs in flight under the same credential share one HTTP exchange, whichever GraphQL requests they come from; `false` gives every read its own.',
  }),

  cursorSecret: optional({
    variable: 'CURSOR_SECRET',
    group: 'cursors',
    parser: secret(16),
    unset: 'with `REDIS_URL`, a random key agreed through Redis; else random per process',
    description: 'Key material sealing connection cursors; replicas given the same one honour each other\'s cursors, and cursors survive restarts.',
  }),
  cursorTtlMs: setting({
    variable: 'CURSOR_TTL_MS',
    group: 'cursors',
    parser: milliseconds(1_000, 2_592_000_000),
    default: 86_400_000,
    description: 'How long a connection cursor of the cursor family stays valid after it was issued; it outlives the upstream cursor behind it (it resumes from the position it names), and is sealed, so a long life costs nothing in safety. Also the longest an upstream cursor is kept for it.',
  }),
  cursorStoreMaxBytes: setting({
    variable: 'CURSOR_STORE_MAX_BYTES',
    group: 'cursors',
    parser: bytes(65_536, 1_073_741_824),
    default: 33_554_432,
    description: 'Most bytes the kept upstream cursors take together (in process, or in Redis with `REDIS_URL`); when full the oldest go first.',
  }),
});
