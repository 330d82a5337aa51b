/**
 * The gateway's Redis streams and their one reader per replica: finished jobs
 * (`redis-pubsub.ts`) and the change feed's changes (`feed-replicas.ts`), each appended once
 * (through the outbox, `outbox.ts`) and read by every replica from its own offset.
 *
 * A stream rather than PUBLISH: a message published while a replica's connection is down (killed
 * by `client-output-buffer-limit`, a network blip, a proxy's idle timeout, Redis restarting) is
 * gone for that replica. A stream keeps the entries: the reader reconnects and reads on from the
 * last entry it saw. What it cannot replay it says so (`StreamFollower.gap`): when the entries
 * after its offset are gone (Redis restarted without them, a failover lost them, or the stream was
 * trimmed past it while the reader was away). An epoch key beside the streams, a random value
 * written once per Redis dataset, and Redis 7's count of the entries ever added set against those
 * a stream holds, tell.
 *
 * One blocking read (`XREAD BLOCK`) follows every stream, on a connection of its own (`reader`):
 * on a Redis Cluster the streams and the epoch share a hash tag (one slot, one node), so that one
 * read may name them all.
 */
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { RedisClient } from './connection.js';

/** The finished jobs, oldest first; about `REDIS_STREAM_MAX_LEN` kept. */
export const FINISHED_STREAM_KEY = 'gw:{jobs-finished}';
/**
 * The change feed's changes, oldest first; about `REDIS_STREAM_MAX_LEN` kept. Under the finished
 * jobs' hash tag, so that one blocking read follows both (and the key keeps its first name).
 */
export const LIVE_CHANGES_STREAM_KEY = 'gw:{jobs-finished}:live-changes';
/** A random value written once per Redis dataset: a new one means the streams were lost. */
const EPOCH_KEY = 'gw:{jobs-finished}:epoch';
/** The streams every replica reads. */
const STREAM_KEYS = [FINISHED_STREAM_KEY, LIVE_CHANGES_STREAM_KEY] as const;
export type StreamKey = (typeof STREAM_KEYS)[number];

/** Longest single blocking read, in ms. */
const DEFAULT_BLOCK_MS = 5_000;
/** Entries one read returns at most, over all streams. */
const READ_COUNT = 256;

/** What follows one stream. */
export interface StreamFollower {
  /** Each entry after the reader's offset, in order. */
  entry(id: string, fields: readonly string[]): void;
  /** Entries after the reader's offset are gone: what they said will never be read. */
  gap(): void;
  /** The reader stopped for good (its connection was closed). */
  end?(): void;
}

export interface StreamReader {
  /** Hands `key`'s entries to `follower` from now on; returns the function that stops. */
  follow(key: StreamKey, follower: StreamFollower): () => void;
  /** The reader knows its offsets and has checked them since its last interruption. */
  caughtUp(): boolean;
  /** Resolves true once caught up (at once, unless it is catching up), false after `timeoutMs`. */
  waitCaughtUp(timeoutMs: number): Promise<boolean>;
  /** Calls `listener` each time a read fails or the connection is lost; returns the unsubscribe function. */
  onInterrupted(listener: () => void): () => void;
  /** The Redis dataset's epoch the offsets belong to; undefined before the first check. */
  epoch(): string | undefined;
}

export interface StreamReaderOptions {
  /** The reader's own connection (`RedisConnection.reader`): blocking reads hold it. */
  client: RedisClient;
  logger: Logger;
  /** Longest single blocking read. @default DEFAULT_BLOCK_MS */
  blockMs?: number;
}

interface Followed {
  readonly key: StreamKey;
  /** The last entry read; unknown until the first check. */
  offset: string | undefined;
  /** How many entries the stream had received up to `offset` (Redis 7's `entries-added` numbering). */
  seen: number;
  readonly followers: Set<StreamFollower>;
}

/** Starts reading every stream from its end; reads until the connection is closed. */
export function createStreamReader(options: StreamReaderOptions): StreamReader {
  const { client, logger } = options;
  const blockMs = options.blockMs ?? DEFAULT_BLOCK_MS;
  const streams = new Map<StreamKey, Followed>(STREAM_KEYS.map((key) => [key, { key, offset: undefined, seen: 0, followers: new Set() }]));
  const events = new EventEmitter();
  events.setMaxListeners(0);
  let epoch: string | undefined;
  let needsCheck = true;

  const ended = (): boolean => client.status === 'end';
  function interrupted(): void {
    needsCheck = true;
    if (!ended()) events.emit('interrupted');
  }
  client.on('close', interrupted);

  /**
   * Establishes the offsets (at start: the streams' ends) or, after an interruption, makes sure
   * every entry after them is still there; a stream where some are gone starts afresh, after its
   * followers are told.
   */
  async function check(): Promise<void> {
    await client.set(EPOCH_KEY, randomBytes(12).toString('hex'), 'NX');
    const current = await client.get(EPOCH_KEY);
    for (const stream of streams.values()) {
      const state = await streamState(client, stream.key);
      // Trimming takes the oldest entries: more of them gone than this reader has counted (entries
      // added up to its offset) means some it never read. Fewer added than it counted, a newest id
      // older than its offset, or a new epoch: not the stream it was reading.
      const { offset, seen } = stream;
      const counts = state.entriesAdded !== undefined;
      const lost =
        offset !== undefined &&
        (current !== epoch ||
          compareIds(state.lastId, offset) < 0 ||
          (counts && (state.entriesAdded! - state.length > seen || state.entriesAdded! < seen)));
      if (lost) {
        logger.warn({ stream: stream.key, offset, lastId: state.lastId, seen, entriesAdded: state.entriesAdded, length: state.length }, 'entries of a Redis stream published while its reader was away are gone from Redis');
        for (const follower of stream.followers) follower.gap();
      }
      if (offset === undefined || lost) {
        stream.offset = state.lastId;
        stream.seen = state.entriesAdded ?? 0;
      }
    }
    epoch = current ?? undefined;
    needsCheck = false;
    events.emit('caught-up');
  }

  async function read(): Promise<void> {
    const keys = [...streams.keys()];
    const reply = (await client.xread('COUNT', READ_COUNT, 'BLOCK', blockMs, 'STREAMS', ...keys, ...keys.map((key) => streams.get(key)!.offset!))) as StreamReply | null;
    for (const [key, entries] of reply ?? []) {
      const stream = streams.get(key as StreamKey);
      if (stream === undefined) continue;
      for (const [id, fields] of entries) {
        stream.offset = id;
        stream.seen += 1;
        for (const follower of stream.followers) follower.entry(id, fields);
      }
    }
  }

  async function run(): Promise<void> {
    while (!ended()) {
      try {
        if (client.status !== 'ready') {
          if (client.status === 'wait') client.connect().catch(() => undefined);
          await sleep(50);
          continue;
        }
        if (needsCheck) await check();
        await read();
      } catch (error) {
        if (ended()) break;
        logger.debug({ err: error }, 'reading the Redis streams failed; checking them before reading on');
        interrupted();
        await sleep(100);
      }
    }
    for (const stream of streams.values()) for (const follower of stream.followers) follower.end?.();
  }
  void run();

  const caughtUp = (): boolean => !needsCheck && [...streams.values()].every((stream) => stream.offset !== undefined);

  return {
    follow(key, follower) {
      const { followers } = streams.get(key)!;
      followers.add(follower);
      return () => followers.delete(follower);
    },
    caughtUp,
    waitCaughtUp(timeoutMs) {
      if (caughtUp()) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const known = (): void => {
          clearTimeout(timer);
          resolve(true);
        };
        const timer = setTimeout(() => {
          events.off('caught-up', known);
          resolve(false);
        }, timeoutMs);
        timer.unref();
        events.once('caught-up', known);
      });
    },
    onInterrupted(listener) {
      events.on('interrupted', listener);
      return () => events.off('interrupted', listener);
    },
    epoch: () => epoch,
  };
}

type StreamReply = Array<[key: string, entries: Array<[id: string, fields: string[]]>]>;

interface StreamState {
  /** The newest id the stream ever gave (`0-0` when it does not exist). */
  lastId: string;
  /** Entries it holds now. */
  length: number;
  /** Entries ever appended (Redis 7 and later). */
  entriesAdded: number | undefined;
}

async function streamState(client: RedisClient, key: string): Promise<StreamState> {
  let reply: unknown[];
  try {
    reply = (await client.xinfo('STREAM', key)) as unknown[];
  } catch (error) {
    if (error instanceof Error && /no such key/i.test(error.message)) return { lastId: '0-0', length: 0, entriesAdded: 0 };
    throw error;
  }
  const info = new Map<string, unknown>();
  for (let index = 0; index + 1 < reply.length; index += 2) info.set(String(reply[index]), reply[index + 1]);
  const added = info.get('entries-added');
  return {
    lastId: String(info.get('last-generated-id') ?? '0-0'),
    length: Number(info.get('length') ?? 0),
    entriesAdded: added === undefined ? undefined : Number(added),
  };
}

/** Orders two stream ids (`<ms>-<seq>`). */
export function compareIds(a: string, b: string): number {
  const [aMs = 0, aSeq = 0] = a.split('-').map(Number);
  const [bMs = 0, bSeq = 0] = b.split('-').map(Number);
  return aMs - bMs || aSeq - bSeq;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
