/**
 * Where jobs live and how their results travel: in-process without `REDIS_URL`, Redis (job store
 * and pub/sub) with it, so several replicas act as one. With Redis it also holds what the change
 * feed shares: the one reader of the Redis streams and the outbox that appends to them.
 */
import type { Logger } from 'pino';
import { createRedisConnection, type RedisConnection } from '../redis/connection.js';
import { createRedisOutbox, type OutboxKind, type RedisOutbox } from '../redis/outbox.js';
import { createStreamReader, type StreamReader } from '../redis/streams.js';
import { createMemoryJobEvents, type JobEventSource } from './event-log.js';
import { createJobPubSub, FINISHED_SCOPE, type JobPubSub } from './events.js';
import type { JobManager } from './manager.js';
import { createRedisJobPubSub } from './redis-pubsub.js';
import { createRedisJobStore } from './redis-store.js';
import { createMemoryJobStore, type JobStore } from './store.js';

export interface JobBackendOptions {
  /** `REDIS_URL`; unset keeps everything in this process. */
  redisUrl: string | undefined;
  /** How long finished jobs stay readable (`JOB_TTL_MS`). */
  jobTtlMs: number;
  /** How long a silent replica keeps its running jobs before another one claims them (`JOB_LEASE_MS`). */
  jobLeaseMs: number;
  /** How long open subscriptions wait for a lost Redis connection to come back (`REDIS_RESUME_GRACE_MS`). */
  redisResumeGraceMs: number;
  /** Longest a Redis command may go unanswered (`REDIS_COMMAND_TIMEOUT_MS`). */
  redisCommandTimeoutMs: number;
  /** Entries each Redis stream keeps, about (`REDIS_STREAM_MAX_LEN`); without Redis, the finished jobs `jobEvents(after:)` can replay. */
  redisStreamMaxLen: number;
  /** Most bytes kept in memory while Redis does not take them (`REDIS_OUTBOX_MAX_BYTES`). */
  redisOutboxMaxBytes: number;
  /** Called for each entry the outbox drops at its bound (e.g. to count them). */
  onOutboxDropped?: ((kind: OutboxKind) => void) | undefined;
  logger: Logger;
}

/** What the change feed shares with the jobs over Redis. */
export interface SharedStreams {
  /** The one reader of the Redis streams (finished jobs, change-feed changes). */
  readonly reader: StreamReader;
  /** Where finished jobs and change-feed changes wait until Redis takes them. */
  readonly outbox: RedisOutbox;
}

export interface JobBackend {
  readonly store: JobStore;
  readonly pubsub: JobPubSub;
  /** `jobEvents`: each owner's finished jobs, resumable from a cursor. */
  readonly events: JobEventSource;
  /** The Redis connection, when `REDIS_URL` is set. */
  readonly redis: RedisConnection | undefined;
  /** The streams' reader and outbox, when `REDIS_URL` is set. */
  readonly streams: SharedStreams | undefined;
  /**
   * Connects (waiting at most `connectTimeoutMs`; a gateway that starts before Redis is simply
   * not ready until it comes) and, with Redis, keeps claiming the running jobs of replicas that
   * stopped, every `jobLeaseMs / 3`, for `jobs` to poll.
   */
  start(jobs: JobManager, connectTimeoutMs?: number): Promise<void>;
  /** Resolves true once every Redis connection is up, false after `timeoutMs`; undefined without Redis. */
  readonly untilRedisAnswers: ((timeoutMs: number) => Promise<boolean>) | undefined;
  /** Stops claiming, hands this replica's running jobs to the others, disconnects. */
  close(): Promise<void>;
}

export function createJobBackend(options: JobBackendOptions): JobBackend {
  const { logger, redisUrl } = options;
  if (redisUrl === undefined) {
    const store = createMemoryJobStore({ ttlMs: options.jobTtlMs });
    const pubsub = createJobPubSub();
    const events = createMemoryJobEvents(options.redisStreamMaxLen);
    return {
      store,
      pubsub: {
        publish(routingKey, key, job) {
          // The `finished` topic comes first for every job: its event is logged before anyone hears of it.
          if (routingKey === 'finished' && key === FINISHED_SCOPE) events.append(job);
          pubsub.publish(routingKey, key, job);
        },
        subscribe: pubsub.subscribe,
      },
      events,
      redis: undefined,
      streams: undefined,
      async start() {},
      untilRedisAnswers: undefined,
      close: () => store.close(),
    };
  }

  const redis = createRedisConnection({ url: redisUrl, logger, commandTimeoutMs: options.redisCommandTimeoutMs });
  const store = createRedisJobStore({ connection: redis, ttlMs: options.jobTtlMs, leaseMs: options.jobLeaseMs, logger });
  const streams = createSharedStreams(redis, options);
  const pubsub = createRedisJobPubSub({ connection: redis, store, reader: streams.reader, outbox: streams.outbox, logger, resumeGraceMs: options.redisResumeGraceMs });
  let claimer: NodeJS.Timeout | undefined;

  return {
    store,
    pubsub,
    events: pubsub,
    redis,
    streams,
    async start(jobs, connectTimeoutMs = 5000) {
      if (!(await redis.waitUntilReady(connectTimeoutMs))) {
        logger.error({ redis: redactUrl(redisUrl) }, 'redis is not reachable yet; Redis-backed operations fail with REDIS_UNAVAILABLE until it is');
      } else {
        // Before this replica takes a job (and before it claims others'): a job whose replica has
        // no heartbeat is claimed by the first peer that looks.
        await store.heartbeat().catch((error: unknown) => logger.warn({ err: error }, 'writing the heartbeat failed; renewed on the next interval'));
      }
      const claim = (): void => {
        if (!redis.isReady()) return;
        jobs.resumeRunning().catch((error: unknown) => logger.warn({ err: error }, 'claiming the jobs of stopped replicas failed'));
      };
      claim();
      claimer = setInterval(claim, Math.max(50, Math.floor(options.jobLeaseMs / 3)));
      claimer.unref();
      logger.info({ replica: store.replicaId }, 'jobs are kept in redis');
    },
    untilRedisAnswers: (timeoutMs) => redis.waitUntilReady(timeoutMs),
    async close() {
      clearInterval(claimer);
      await store.close();
      // Before disconnecting: what finished last is appended if Redis takes it.
      await streams.outbox.close();
      await redis.close();
    },
  };
}

/** The reader of the Redis streams on `connection`, and the outbox that appends to them. */
export function createSharedStreams(
  connection: RedisConnection,
  options: Pick<JobBackendOptions, 'redisStreamMaxLen' | 'redisOutboxMaxBytes' | 'onOutboxDropped' | 'logger'>,
): SharedStreams {
  return {
    reader: createStreamReader({ client: connection.reader, logger: options.logger }),
    outbox: createRedisOutbox({
      client: connection.commands,
      streamMaxLen: options.redisStreamMaxLen,
      maxBytes: options.redisOutboxMaxBytes,
      logger: options.logger,
      onDropped: options.onOutboxDropped,
    }),
  };
}

/** The URL without its password, for logs. */
function redactUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return '(unparsable REDIS_URL)';
  }
}
