/**
 * The job pub/sub over Redis: each finished job is appended once to a Redis stream, and every
 * replica reads the stream from its own offset and hands each job to its own subscribers
 * (`finished`, then `job` by id, then `owner` by credential).
 *
 * A stream rather than PUBLISH: a message published while a replica's connection is down (killed
 * by `client-output-buffer-limit`, a network blip, a proxy's idle timeout) is gone for that
 * replica, and its subscribers would silently miss a result while staying connected. A stream
 * keeps the entries: the reader reconnects and reads on from the last entry it saw, so every
 * subscriber gets every finished job, once (the reader also drops a job id it already handed
 * out). What the reader cannot replay it says so: when the entries after its offset are gone
 * (Redis restarted without them, a failover lost them, or the stream was trimmed past it while
 * the reader was away) or the reader stays away longer than `resumeGraceMs`, open subscriptions
 * end with `RedisUnavailableError` (code `REDIS_UNAVAILABLE`) and clients subscribe again.
 *
 * No result is lost between "read the store" and "listen" either: a `job` subscription listens
 * first (in this process, where the reader delivers) and then reads the store.
 *
 * On a Redis Cluster the stream and its epoch share a hash tag (one slot, one node), and a blocking
 * read holds only the reader's own connection.
 */
import { randomBytes } from 'node:crypto';
import { Repeater } from 'graphql-yoga';
import type { Logger } from 'pino';
import { RedisUnavailableError, type RedisClient, type RedisConnection } from '../redis/connection.js';
import { decodeFinishedJob, encodeFinishedJob, noticeNewerFormats } from '../redis/formats.js';
import { createJobPubSub, FINISHED_SCOPE, type JobPubSub } from './events.js';
import type { JobRecord, JobStore } from './store.js';

export interface RedisJobPubSubOptions {
  connection: RedisConnection;
  /** Read after a `job` subscription starts listening, to deliver a job that finished before. */
  store: JobStore;
  logger: Logger;
  /**
   * How long open subscriptions wait for a lost reader connection to come back (and replay what
   * it missed) before they end with `REDIS_UNAVAILABLE`; new ones wait as long. @default DEFAULT_RESUME_GRACE_MS
   */
  resumeGraceMs?: number;
  /** Longest single blocking read. @default DEFAULT_BLOCK_MS */
  blockMs?: number;
}

/** How long open subscriptions wait for a lost reader connection to come back, in ms. */
const DEFAULT_RESUME_GRACE_MS = 3_000;
/** Longest single blocking read, in ms. */
const DEFAULT_BLOCK_MS = 5_000;

/** The finished jobs, oldest first; about `STREAM_MAX_LEN` kept. */
export const FINISHED_STREAM_KEY = 'gw:{jobs-finished}';
/** A random value written once per Redis dataset: a new one means the stream was lost. */
const EPOCH_KEY = 'gw:{jobs-finished}:epoch';
/** Entries kept: how far behind a reader may fall (while disconnected) and still catch up. */
const STREAM_MAX_LEN = 10_000;
/**
 * Waits before each new attempt to append a finished job whose XADD failed (a dropped connection,
 * a failover): about 6 s in all. Every subscriber, this replica's too, hears of a job only through
 * the stream, so a failed append is retried rather than dropped; an append that did land but whose
 * reply was lost makes a second entry, which readers drop as already delivered.
 */
const APPEND_RETRY_MS = [100, 200, 400, 800, 1_600, 3_200];
/** Job ids remembered as delivered, so one published twice reaches subscribers once. */
const DELIVERED_MEMORY = 10_000;

interface Subscriber {
  push(job: JobRecord): void;
  fail(error: Error): void;
}

export function createRedisJobPubSub(options: RedisJobPubSubOptions): JobPubSub {
  const { connection, store, logger } = options;
  const reader: RedisClient = connection.reader;
  const resumeGraceMs = options.resumeGraceMs ?? DEFAULT_RESUME_GRACE_MS;
  const blockMs = options.blockMs ?? DEFAULT_BLOCK_MS;
  // Topics other than the three a finished job goes to stay in this process.
  const local = createJobPubSub();
  const subscribers = new Map<string, Set<Subscriber>>();
  const delivered = new Set<string>();
  const notice = noticeNewerFormats(logger);

  /** The last entry handed out, and the epoch it belongs to; unknown until the first check. */
  let offset: string | undefined;
  /** How many entries the stream had received up to `offset` (Redis 7's `entries-added` numbering). */
  let seen = 0;
  let epoch: string | undefined;
  let needsCheck = true;
  let grace: NodeJS.Timeout | undefined;
  const onOffsetKnown = new Set<() => void>();

  function failAll(error: Error): void {
    for (const set of subscribers.values()) for (const subscriber of set) subscriber.fail(error);
  }

  function interrupted(): void {
    needsCheck = true;
    if (grace !== undefined || ended()) return;
    grace = setTimeout(() => {
      grace = undefined;
      if (!needsCheck) return;
      failAll(new RedisUnavailableError('The connection to Redis was lost: results published meanwhile cannot be delivered. Subscribe again.'));
    }, resumeGraceMs);
    grace.unref();
  }
  reader.on('close', interrupted);
  const ended = (): boolean => reader.status === 'end';

  function deliver(job: JobRecord): void {
    if (delivered.has(job.id)) return;
    delivered.add(job.id);
    if (delivered.size > DELIVERED_MEMORY) delivered.delete(delivered.values().next().value as string);
    // `finished` first: this replica forgets the cached reads the job changed before its
    // `jobCompleted` subscribers hear of it.
    for (const topic of [`finished:${FINISHED_SCOPE}`, `job:${job.id}`, `owner:${job.owner}`]) {
      for (const subscriber of subscribers.get(topic) ?? []) subscriber.push(job);
    }
  }

  /**
   * Establishes the offset (at start: the stream's end) or, after an interruption, makes sure
   * every entry after it is still there; if not, ends the open subscriptions and starts afresh.
   */
  async function check(): Promise<void> {
    await reader.set(EPOCH_KEY, randomBytes(12).toString('hex'), 'NX');
    const current = await reader.get(EPOCH_KEY);
    const state = await streamState(reader);
    // Trimming takes the oldest entries: more of them gone than this reader has counted (entries
    // added up to its offset) means some it never read. Fewer added than it counted, a newest id
    // older than its offset, or a new epoch: not the stream it was reading.
    const counts = state.entriesAdded !== undefined;
    const lost =
      offset !== undefined &&
      (current !== epoch ||
        compareIds(state.lastId, offset) < 0 ||
        (counts && (state.entriesAdded! - state.length > seen || state.entriesAdded! < seen)));
    if (lost) {
      logger.warn({ offset, stream: state.lastId, seen, entriesAdded: state.entriesAdded, length: state.length }, 'finished jobs published while the stream reader was away are gone from Redis; ending open subscriptions');
      failAll(new RedisUnavailableError('Results published while the connection to Redis was lost are gone. Subscribe again.'));
    }
    if (offset === undefined || lost) {
      offset = state.lastId;
      seen = state.entriesAdded ?? 0;
    }
    epoch = current ?? undefined;
    needsCheck = false;
    clearTimeout(grace);
    grace = undefined;
    for (const resolve of onOffsetKnown) resolve();
    onOffsetKnown.clear();
  }

  async function run(): Promise<void> {
    while (!ended()) {
      try {
        if (reader.status !== 'ready') {
          if (reader.status === 'wait') reader.connect().catch(() => undefined);
          await sleep(50);
          continue;
        }
        if (needsCheck) await check();
        const reply = (await reader.xread('COUNT', 256, 'BLOCK', blockMs, 'STREAMS', FINISHED_STREAM_KEY, offset!)) as StreamReply | null;
        for (const [, entries] of reply ?? []) {
          for (const [id, fields] of entries) {
            offset = id;
            seen += 1;
            const job = decodeFinishedJob(fields, notice)?.value;
            if (job) deliver(job);
            else logger.warn({ entry: id }, 'an entry of the finished-jobs stream is not a job; skipped');
          }
        }
      } catch (error) {
        if (ended()) break;
        logger.debug({ err: error }, 'reading finished jobs from redis failed; checking the stream before reading on');
        interrupted();
        await sleep(100);
      }
    }
    clearTimeout(grace);
    failAll(new RedisUnavailableError('The gateway is closing its connection to Redis.'));
  }
  void run();

  /** Resolves true once the reader knows its offset (at once, unless it is catching up), false after `resumeGraceMs`. */
  function offsetKnown(): Promise<boolean> {
    if (offset !== undefined && !needsCheck) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const known = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        onOffsetKnown.delete(known);
        resolve(false);
      }, resumeGraceMs);
      timer.unref();
      onOffsetKnown.add(known);
    });
  }

  function subscribe(routingKey: string, id: string): Repeater<JobRecord> {
    if (routingKey !== 'finished' && routingKey !== 'job' && routingKey !== 'owner') {
      return local.subscribe(routingKey, id) as Repeater<JobRecord>;
    }
    const topic = `${routingKey}:${id}`;
    return new Repeater<JobRecord>(async (push, stop) => {
      // A reader that lost its connection a moment ago is given `resumeGraceMs` to come back.
      if (!(await offsetKnown()) || connection.commands.status !== 'ready') {
        stop(new RedisUnavailableError('Redis is unavailable: subscriptions cannot be delivered until it returns.'));
        return;
      }
      // A `job` subscription hears of its job once, from the store or from the stream.
      let heard = false;
      const subscriber: Subscriber = {
        push(job) {
          if (routingKey === 'job' && heard) return;
          heard = true;
          void push(job);
        },
        fail: (error) => stop(error),
      };
      let set = subscribers.get(topic);
      if (!set) subscribers.set(topic, (set = new Set()));
      set.add(subscriber);
      void stop.then(() => {
        set.delete(subscriber);
        if (set.size === 0 && subscribers.get(topic) === set) subscribers.delete(topic);
      });
      if (routingKey !== 'job') return;
      try {
        const job = await store.get(id);
        if (job && job.status !== 'RUNNING') subscriber.push(job);
      } catch (error) {
        stop(error instanceof RedisUnavailableError ? error : new RedisUnavailableError('Redis is unavailable.', { cause: error }));
      }
    });
  }

  function publish(routingKey: string, key: string, job: JobRecord): void {
    if (routingKey === 'job' || routingKey === 'owner') return; // carried by the `finished` entry
    if (routingKey !== 'finished') {
      local.publish(routingKey, key, job);
      return;
    }
    append(job.id, encodeFinishedJob(job), 0);
  }

  function append(id: string, entry: readonly string[], attempt: number): void {
    connection.commands.xadd(FINISHED_STREAM_KEY, 'MAXLEN', '~', String(STREAM_MAX_LEN), '*', ...entry).catch((error: unknown) => {
      const waitMs = APPEND_RETRY_MS[attempt];
      if (waitMs === undefined) {
        logger.warn({ err: error, job: id, attempts: attempt + 1 }, 'publishing a finished job on Redis failed; its subscribers miss it (job(id) still answers it)');
        return;
      }
      logger.debug({ err: error, job: id, retryInMs: waitMs }, 'publishing a finished job on Redis failed; trying again');
      setTimeout(() => append(id, entry, attempt + 1), waitMs).unref();
    });
  }

  return {
    publish: publish as JobPubSub['publish'],
    subscribe: subscribe as JobPubSub['subscribe'],
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

async function streamState(client: RedisClient): Promise<StreamState> {
  let reply: unknown[];
  try {
    reply = (await client.xinfo('STREAM', FINISHED_STREAM_KEY)) as unknown[];
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
