/**
 * Where jobs live and how their results travel: in-process without `REDIS_URL`, Redis (job store
 * and pub/sub) with it, so several replicas act as one.
 */
import type { Logger } from 'pino';
import { createRedisConnection, type RedisConnection } from '../redis/connection.js';
import { createJobPubSub, type JobPubSub } from './events.js';
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
  logger: Logger;
}

export interface JobBackend {
  readonly store: JobStore;
  readonly pubsub: JobPubSub;
  /** The Redis connection, when `REDIS_URL` is set. */
  readonly redis: RedisConnection | undefined;
  /**
   * Connects (waiting at most `connectTimeoutMs`; a gateway that starts before Redis is simply
   * not ready until it comes) and, with Redis, keeps claiming the running jobs of replicas that
   * stopped, every `jobLeaseMs / 3`, for `jobs` to poll.
   */
  start(jobs: JobManager, connectTimeoutMs?: number): Promise<void>;
  /** Redis answers a ping; undefined without Redis. */
  redisReachable(): Promise<boolean | undefined>;
  /** Stops claiming, hands this replica's running jobs to the others, disconnects. */
  close(): Promise<void>;
}

export function createJobBackend(options: JobBackendOptions): JobBackend {
  const { logger, redisUrl } = options;
  if (redisUrl === undefined) {
    const store = createMemoryJobStore({ ttlMs: options.jobTtlMs });
    return {
      store,
      pubsub: createJobPubSub(),
      redis: undefined,
      async start() {},
      redisReachable: async () => undefined,
      close: () => store.close(),
    };
  }

  const redis = createRedisConnection({ url: redisUrl, logger });
  const store = createRedisJobStore({ connection: redis, ttlMs: options.jobTtlMs, leaseMs: options.jobLeaseMs, logger });
  const pubsub = createRedisJobPubSub({ connection: redis, store, logger });
  let claimer: NodeJS.Timeout | undefined;

  return {
    store,
    pubsub,
    redis,
    async start(jobs, connectTimeoutMs = 5000) {
      if (!(await redis.waitUntilReady(connectTimeoutMs))) {
        logger.error({ redis: redactUrl(redisUrl) }, 'redis is not reachable yet; the gateway is not ready until it is');
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
    redisReachable: () => redis.ping(),
    async close() {
      clearInterval(claimer);
      await store.close();
      await redis.close();
    },
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
