/**
 * `createCursorKeeper`: what the connections need to issue and honour short, opaque cursors: the
 * seal (whose key every replica must share) and the store of upstream cursors (which every
 * replica must read).
 *
 * The key: `CURSOR_SECRET` when set (replicas given the same secret honour each other's cursors,
 * and cursors survive restarts). Otherwise, with `REDIS_URL`, one random key agreed through Redis
 * (the first replica to start writes it, `SET NX`; the others read it), so replicas act as one
 * with nothing to configure. Otherwise a random key of this process.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { guardRedis, RedisUnavailableError, type RedisConnection } from '../redis/connection.js';
import { decodeCursorSecret, encodeCursorSecret } from '../redis/formats.js';
import { CursorSeal } from './seal.js';
import { createMemoryCursorStore, createRedisCursorStore, type UpstreamCursorStore } from './store.js';

const SECRET_KEY = 'gateway:cursor-secret';
const AGREE_RETRY_MS = 1000;

export interface CursorKeeperOptions {
  /** Key material of the seal (`CURSOR_SECRET`); unset: agreed through Redis, or random per process. */
  cursorSecret: string | undefined;
  /** How long a cursor stays valid (`CURSOR_TTL_MS`), and an upstream cursor kept for it at most. */
  cursorTtlMs: number;
  /** Budget of the kept upstream cursors, in bytes (`CURSOR_STORE_MAX_BYTES`). */
  cursorStoreMaxBytes: number;
  /** With Redis, the key is agreed and the upstream cursors kept there. */
  redis: RedisConnection | undefined;
  logger?: Logger | undefined;
}

export interface CursorKeeper {
  /** How long a cursor stays valid after it was issued, in ms (`CURSOR_TTL_MS`). */
  readonly ttlMs: number;
  /** Agrees the key through Redis when that is where it comes from; retries in the background until it can. */
  start(): Promise<void>;
  close(): void;
  /** Seals a payload into a cursor. Throws `RedisUnavailableError` while the shared key is not known yet. */
  seal(payload: Uint8Array): string;
  /** The payload of a cursor sealed with this key; null for anything else. */
  open(token: string): Buffer | null;
  /** A keyed digest of what a cursor belongs to. */
  bind(parts: readonly unknown[]): Buffer;
  /** A reference derived from what a cursor names (see `CursorSeal.reference`). */
  reference(parts: readonly unknown[]): Buffer;
  /** Keeps an upstream cursor (under `ref` when given); resolves to its reference. */
  keep(cursor: string, ref?: Buffer): Promise<Buffer>;
  /** The upstream cursor kept under `ref`; null once expired or evicted. */
  recall(ref: Buffer): Promise<string | null>;
}

export function createCursorKeeper(options: CursorKeeperOptions): CursorKeeper {
  const { redis } = options;
  const storeOptions = { ttlMs: options.cursorTtlMs, maxBytes: options.cursorStoreMaxBytes };
  const store: UpstreamCursorStore = redis ? createRedisCursorStore(redis, storeOptions) : createMemoryCursorStore(storeOptions);
  let seal: CursorSeal | undefined;
  if (options.cursorSecret !== undefined) seal = new CursorSeal(Buffer.from(options.cursorSecret, 'utf8'));
  else if (redis === undefined) seal = new CursorSeal(randomBytes(32));
  let retry: NodeJS.Timeout | undefined;
  let closed = false;

  async function agree(connection: RedisConnection): Promise<void> {
    try {
      const secret = await guardRedis('agree cursor key', async () => {
        await connection.commands.set(SECRET_KEY, encodeCursorSecret(randomBytes(32)), 'NX');
        return connection.commands.get(SECRET_KEY);
      });
      if (secret === null) throw new Error('the agreed cursor key vanished');
      const key = decodeCursorSecret(secret);
      if (key === null) throw new Error(`the agreed cursor key (${SECRET_KEY}) is not one: fewer than 16 bytes of hex`);
      seal = new CursorSeal(key);
    } catch (error) {
      if (closed) return;
      options.logger?.warn({ err: error }, 'cursor key not agreed through redis yet; cursors fail with REDIS_UNAVAILABLE until it is');
      retry = setTimeout(() => void agree(connection), AGREE_RETRY_MS);
      retry.unref();
    }
  }

  function current(): CursorSeal {
    if (seal === undefined) throw new RedisUnavailableError('Redis is unavailable (the cursor key shared by the replicas is not known yet)');
    return seal;
  }

  return {
    ttlMs: options.cursorTtlMs,
    async start() {
      if (seal === undefined && redis !== undefined) await agree(redis);
    },
    close() {
      closed = true;
      clearTimeout(retry);
    },
    seal: (payload) => current().seal(payload),
    open: (token) => current().open(token),
    bind: (parts) => current().bind(parts),
    reference: (parts) => current().reference(parts),
    keep: (cursor, ref) => store.keep(cursor, ref),
    recall: (ref) => store.recall(ref),
  };
}
