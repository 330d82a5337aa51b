/**
 * What a replica appends to the Redis streams (`streams.ts`), kept in memory until Redis takes it:
 * a finished job, a change the change feed found. Every subscriber, this replica's own too, hears
 * of them only through the streams, so an append that fails (Redis away, restarting, failing over,
 * refusing writes) is not dropped but waits, in order, behind the ones before it.
 *
 * Entries go out in batches, each one `MULTI`/`EXEC` (on a cluster the streams share a slot): a
 * batch is appended whole or not at all, so a retry doubles nothing, save a batch that Redis took
 * but whose answer was lost (its second copy the readers drop: a job id already handed out, a
 * change already applied). A failed batch is tried again after a pause that doubles from
 * `RETRY_FIRST_MS` to `RETRY_MAX_MS`, and at once when the connection is back.
 *
 * Memory bounds the wait: past `maxBytes` waiting, a new entry is dropped (counted through
 * `onDropped`, logged at `warn` once until the outbox has emptied again). A dropped job stays
 * readable with `job(id)`; only its subscribers miss it.
 */
import type { Logger } from 'pino';
import type { RedisClient } from './connection.js';
import type { StreamKey } from './streams.js';

/** What an entry carries, for the dropped count. */
export type OutboxKind = 'job' | 'live_change';

export interface RedisOutboxOptions {
  /** The connection appends go on (`RedisConnection.commands`). */
  client: RedisClient;
  /** Entries each stream keeps, about (`REDIS_STREAM_MAX_LEN`). */
  streamMaxLen: number;
  /** Most bytes waiting (`REDIS_OUTBOX_MAX_BYTES`). */
  maxBytes: number;
  logger: Logger;
  /** Called for each entry dropped because `maxBytes` were waiting. */
  onDropped?: ((kind: OutboxKind) => void) | undefined;
}

export interface RedisOutbox {
  /** Appends `fields` to `stream` as soon as Redis takes them, after every entry appended before. */
  append(stream: StreamKey, fields: readonly string[], kind: OutboxKind): void;
  /** Entries waiting. */
  entries(): number;
  /** Bytes waiting (the sum of the entries' field lengths). */
  bytes(): number;
  /** Writes what waits if Redis takes it now, then stops retrying; logs what is left. */
  close(): Promise<void>;
}

/** Pause before the first retry of a failed batch, in ms; it doubles at each failure. */
const RETRY_FIRST_MS = 100;
/** Longest pause between two retries, in ms. */
const RETRY_MAX_MS = 5_000;
/** Entries appended in one transaction at most. */
const BATCH_ENTRIES = 100;

interface Entry {
  readonly stream: StreamKey;
  readonly fields: readonly string[];
  readonly kind: OutboxKind;
  readonly size: number;
}

export function createRedisOutbox(options: RedisOutboxOptions): RedisOutbox {
  const { client, streamMaxLen, maxBytes, logger } = options;
  const queue: Entry[] = [];
  let waiting = 0;
  let flushing: Promise<void> | undefined;
  let retry: NodeJS.Timeout | undefined;
  let failures = 0;
  let firstFailureAt = 0;
  let full = false;
  let closed = false;

  function append(stream: StreamKey, fields: readonly string[], kind: OutboxKind): void {
    const size = fields.reduce((sum, field) => sum + Buffer.byteLength(field), 0);
    if (waiting + size > maxBytes) {
      options.onDropped?.(kind);
      if (!full) {
        full = true;
        logger.warn({ entries: queue.length, bytes: waiting, maxBytes, kind }, 'the Redis outbox is full (REDIS_OUTBOX_MAX_BYTES): what more finishes is dropped until Redis takes what waits; subscribers miss it, job(id) still answers it');
      }
      return;
    }
    queue.push({ stream, fields, kind, size });
    waiting += size;
    flush();
  }

  /** Starts writing what waits, unless a write is under way or a retry is planned. */
  function flush(): void {
    if (flushing !== undefined || retry !== undefined || queue.length === 0 || closed) return;
    flushing = drain().finally(() => (flushing = undefined));
  }

  async function drain(): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.slice(0, BATCH_ENTRIES);
      const transaction = client.multi();
      for (const { stream, fields } of batch) transaction.xadd(stream, 'MAXLEN', '~', String(streamMaxLen), '*', ...fields);
      let replies: [Error | null, unknown][] | null;
      try {
        replies = await transaction.exec();
        if (replies === null) throw new Error('the transaction was discarded');
      } catch (error) {
        planRetry(error);
        return;
      }
      queue.splice(0, batch.length);
      for (const [index, [error]] of replies.entries()) {
        // Refused inside the transaction (the key is not a stream): trying again would not help.
        if (error !== null) logger.warn({ err: error, stream: batch[index]!.stream, kind: batch[index]!.kind }, 'Redis refused an entry of the outbox; it is dropped');
      }
      waiting -= batch.reduce((sum, { size }) => sum + size, 0);
      if (failures > 0) logger.info({ entries: batch.length, waitedMs: Date.now() - firstFailureAt }, 'Redis takes the outbox again: what waited is appended');
      failures = 0;
    }
    full = false;
  }

  function planRetry(error: unknown): void {
    if (failures === 0) firstFailureAt = Date.now();
    const waitMs = Math.min(RETRY_FIRST_MS * 2 ** failures, RETRY_MAX_MS);
    failures += 1;
    logger.debug({ err: error, entries: queue.length, bytes: waiting, retryInMs: waitMs }, 'appending to the Redis streams failed; the entries wait in the outbox');
    retry = setTimeout(() => {
      retry = undefined;
      flush();
    }, waitMs);
    retry.unref();
  }

  // Back: write at once rather than at the next planned retry.
  const onReady = (): void => {
    clearTimeout(retry);
    retry = undefined;
    flush();
  };
  client.on('ready', onReady);

  return {
    append,
    entries: () => queue.length,
    bytes: () => waiting,
    async close() {
      await flushing;
      if (client.status === 'ready') onReady();
      await flushing;
      closed = true;
      clearTimeout(retry);
      client.off('ready', onReady);
      if (queue.length > 0) logger.warn({ entries: queue.length, bytes: waiting }, 'closing with entries Redis has not taken: their subscribers miss them, job(id) still answers them');
    },
  };
}
