/**
 * The job pub/sub over Redis: each finished job is appended once to a Redis stream (through the
 * outbox, which keeps it until Redis takes it), and every replica reads the stream from its own
 * offset (`streams.ts`) and hands each job to its own subscribers (`finished`, then `job` by id,
 * then `jobEvents`' subscribers by credential, each event with its entry id as position).
 *
 * A stream rather than PUBLISH: a message published while a replica's connection is down is gone
 * for that replica, and its subscribers would silently miss a result while staying connected. The
 * reader reconnects and reads on from the last entry it saw, so every subscriber gets every
 * finished job, once (a job id already handed out is dropped). Open subscriptions stay open while
 * the reader is away, for up to `resumeGraceMs`; what cannot be replayed ends them with
 * `RedisUnavailableError` (code `REDIS_UNAVAILABLE`) and clients subscribe again: the entries
 * after the reader's offset gone, or the reader away longer than `resumeGraceMs`.
 *
 * No result is lost between "read the store" and "listen" either: a `job` subscription listens
 * first (in this process, where the reader delivers) and then reads the store.
 */
import { Repeater } from 'graphql-yoga';
import type { Logger } from 'pino';
import { RedisUnavailableError, type RedisConnection } from '../redis/connection.js';
import { decodeFinishedJob, encodeFinishedJob, noticeNewerFormats } from '../redis/formats.js';
import type { RedisOutbox } from '../redis/outbox.js';
import { compareIds, FINISHED_STREAM_KEY, type StreamReader } from '../redis/streams.js';
import { joinKeyedSet } from '../utils/keyed-sets.js';
import { createJobEventHub, type EventPosition, type JobEvent, type JobEventSource } from './event-log.js';
import { createJobPubSub, FINISHED_SCOPE, type JobPubSub } from './events.js';
import type { JobRecord, JobStore } from './store.js';

export interface RedisJobPubSubOptions {
  connection: RedisConnection;
  /** Read after a `job` subscription starts listening, to deliver a job that finished before. */
  store: JobStore;
  /** The reader of the Redis streams, the finished jobs' among them. */
  reader: StreamReader;
  /** Where finished jobs wait until Redis takes them. */
  outbox: RedisOutbox;
  logger: Logger;
  /**
   * How long open subscriptions wait for a lost reader connection to come back (and replay what
   * it missed) before they end with `REDIS_UNAVAILABLE`; new ones wait as long (`REDIS_RESUME_GRACE_MS`).
   */
  resumeGraceMs: number;
}

/** Job ids remembered as delivered, so one published twice reaches subscribers once. */
const DELIVERED_MEMORY = 10_000;

interface Subscriber {
  push(job: JobRecord): void;
  fail(error: Error): void;
}

/** Entries read per XRANGE while replaying `jobEvents(after:)`. */
const REPLAY_CHUNK = 500;

export function createRedisJobPubSub(options: RedisJobPubSubOptions): JobPubSub & JobEventSource {
  const { connection, store, reader, outbox, logger, resumeGraceMs } = options;
  // Topics other than the three a finished job goes to stay in this process.
  const local = createJobPubSub();
  const subscribers = new Map<string, Set<Subscriber>>();
  const delivered = new Set<string>();
  const notice = noticeNewerFormats(logger);
  let grace: NodeJS.Timeout | undefined;

  const events = createJobEventHub({
    beforeListening: async () => {
      if (!(await reader.waitCaughtUp(resumeGraceMs)) || connection.commands.status !== 'ready') {
        throw new RedisUnavailableError('Redis is unavailable: subscriptions cannot be delivered until it returns.');
      }
    },
    replay: replayEvents,
  });

  function failAll(error: Error): void {
    for (const set of subscribers.values()) for (const subscriber of set) subscriber.fail(error);
    events.failAll(error);
  }

  /**
   * The owner's finished jobs after `after`, read from the stream; null when the stream is not the
   * one the cursor was given on, or no longer holds the entry it names (trimming takes the oldest
   * first, so while that entry is kept, every later one is).
   */
  async function replayEvents(owner: string, after: EventPosition): Promise<JobEvent[] | null> {
    const epoch = reader.epoch();
    if (epoch === undefined || after.epoch !== epoch) return null;
    const client = connection.commands;
    const [oldest] = (await client.xrange(FINISHED_STREAM_KEY, '-', '+', 'COUNT', 1)) as Array<[string, string[]]>;
    if (oldest === undefined || compareIds(oldest[0], after.id) > 0) return null;
    const replayed: JobEvent[] = [];
    const seen = new Set<string>();
    for (let start = `(${after.id}`; ; ) {
      const entries = (await client.xrange(FINISHED_STREAM_KEY, start, '+', 'COUNT', REPLAY_CHUNK)) as Array<[string, string[]]>;
      for (const [id, fields] of entries) {
        const job = decodeFinishedJob(fields, notice)?.value;
        if (job === undefined || job.owner !== owner || seen.has(job.id)) continue;
        seen.add(job.id);
        replayed.push({ position: { epoch, id }, job });
      }
      if (entries.length < REPLAY_CHUNK) return replayed;
      start = `(${entries.at(-1)![0]}`;
    }
  }

  reader.onInterrupted(() => {
    if (grace !== undefined) return;
    grace = setTimeout(() => {
      grace = undefined;
      if (reader.caughtUp()) return;
      failAll(new RedisUnavailableError('The connection to Redis was lost: results published meanwhile cannot be delivered. Subscribe again.'));
    }, resumeGraceMs);
    grace.unref();
  });

  function deliver(job: JobRecord, entryId: string): void {
    if (delivered.has(job.id)) return;
    delivered.add(job.id);
    if (delivered.size > DELIVERED_MEMORY) delivered.delete(delivered.values().next().value as string);
    // `finished` first: this replica forgets the cached reads the job changed before its
    // `jobCompleted` subscribers hear of it.
    for (const topic of [`finished:${FINISHED_SCOPE}`, `job:${job.id}`]) {
      for (const subscriber of subscribers.get(topic) ?? []) subscriber.push(job);
    }
    const epoch = reader.epoch();
    if (epoch !== undefined) events.publish({ position: { epoch, id: entryId }, job });
  }

  reader.follow(FINISHED_STREAM_KEY, {
    entry(id, fields) {
      const job = decodeFinishedJob(fields, notice)?.value;
      if (job) deliver(job, id);
      else logger.warn({ entry: id }, 'an entry of the finished-jobs stream is not a job; skipped');
    },
    gap() {
      logger.warn('finished jobs published while the stream reader was away are gone from Redis; ending open subscriptions');
      failAll(new RedisUnavailableError('Results published while the connection to Redis was lost are gone. Subscribe again.'));
    },
    end() {
      clearTimeout(grace);
      failAll(new RedisUnavailableError('The gateway is closing its connection to Redis.'));
    },
  });

  function subscribe(routingKey: string, id: string): Repeater<JobRecord> {
    if (routingKey !== 'finished' && routingKey !== 'job') {
      return local.subscribe(routingKey, id) as Repeater<JobRecord>;
    }
    const topic = `${routingKey}:${id}`;
    return new Repeater<JobRecord>(async (push, stop) => {
      // A reader that lost its connection a moment ago is given `resumeGraceMs` to come back, and
      // so is a command connection dropped by a Redis that stalls (the reader's read just waits).
      const deadline = Date.now() + resumeGraceMs;
      if (!(await reader.waitCaughtUp(resumeGraceMs)) || !(await connection.waitUntilReady(Math.max(0, deadline - Date.now())))) {
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
      void stop.then(joinKeyedSet(subscribers, topic, subscriber));
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
    if (routingKey === 'job') return; // carried by the `finished` entry
    if (routingKey !== 'finished') {
      local.publish(routingKey, key, job);
      return;
    }
    outbox.append(FINISHED_STREAM_KEY, encodeFinishedJob(job), 'job');
  }

  return {
    publish: publish as JobPubSub['publish'],
    subscribe: subscribe as JobPubSub['subscribe'],
    subscribeEvents: events.subscribeEvents,
  };
}
