/**
 * The job store in Redis, so every replica can take any job's webhook, answer `job(id)` and
 * finish it exactly once.
 *
 * Layout (prefix `gw:`):
 * - `gw:job:{id}`: a hash: `v` (its format, `FORMATS.job`), `record` (JSON of the fields that never
 *   change, the per-job webhook secret included), `status`, `location`, `finishedAt`, `outcome`
 *   (JSON), `replica` (who polls it). Running jobs expire after `runningTtlMs`, finished ones
 *   `ttlMs` after they finished. The hash's fields are written and read in `../redis/formats.ts`.
 * - `gw:jobs:running`: the ids of running jobs.
 * - `gw:jobs:owner:{owner}`: a sorted set of the ids of the jobs one credential started, scored by
 *   creation time, trimmed to the newest `OWNED_JOBS_LISTED`, expiring once no job in it can still
 *   be kept (`runningTtlMs + ttlMs` after the last one was added). An index, like the running set:
 *   an id whose job expired is dropped when a list finds it gone. Releases before it (format-1
 *   jobs) did not write it: such a job is listed the first time this replica reads it (`job(id)`,
 *   `jobCompleted`, its webhook, a claim), and marked format 2.
 * - `gw:replica:{replicaId}`: this replica's heartbeat, written before the replica takes jobs
 *   (and with each job it creates), renewed every `leaseMs / 3`, expiring after `leaseMs`.
 *
 * A replica that dies stops renewing its heartbeat; `claimOrphaned()` on any other replica then claims
 * its running jobs (atomically: one claimant per job) and returns them to be polled, so a result
 * is never lost with the replica that started the job, even when the webhook is dropped.
 *
 * Every command and script touches one key, so the store works unchanged on a Redis Cluster,
 * where a job's hash, the running set and each heartbeat may live on different nodes. The running
 * set is an index, not the truth: a job is written before its id is added, and the id is removed
 * after the job ended (by whoever ends it, or by the next claim that finds it ended or gone).
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { guardRedis, type RedisClient, type RedisConnection } from '../redis/connection.js';
import { decodeJob, encodeHeartbeat, encodeJob, encodeOutcome, FORMATS, noticeNewerFormats, type Decoded } from '../redis/formats.js';
import { meets, OWNED_JOBS_LISTED, type JobOutcome, type JobRecord, type JobStatus, type JobStore, type OwnedJob } from './store.js';

/** How long a job may stay running before Redis forgets it: 2 hours, past the upstream's apiTimeout. */
const DEFAULT_RUNNING_TTL_MS = 7_200_000;

export interface RedisJobStoreOptions {
  connection: RedisConnection;
  /** How long finished jobs stay readable (`JOB_TTL_MS`). */
  ttlMs: number;
  /** How long a replica's heartbeat outlives its last renewal before its jobs are claimed (`JOB_LEASE_MS`). */
  leaseMs: number;
  /** How long a job may stay running before Redis forgets it. @default DEFAULT_RUNNING_TTL_MS */
  runningTtlMs?: number;
  /** This replica's identity in the heartbeat and the `replica` field. @default random */
  replicaId?: string;
  /** Told once of each newer format met (a newer replica wrote it). */
  logger?: Logger | undefined;
}

export interface RedisJobStore extends JobStore {
  /** This replica's id, as written into the jobs it polls. */
  readonly replicaId: string;
  /** Writes this replica's heartbeat now; rejects with `RedisUnavailableError` when Redis is down. */
  heartbeat(): Promise<void>;
}

const PREFIX = 'gw:';
const RUNNING_KEY = `${PREFIX}jobs:running`;
const jobKey = (id: string): string => `${PREFIX}job:${id}`;
const replicaKey = (replica: string): string => `${PREFIX}replica:${replica}`;
const ownerKey = (owner: string): string => `${PREFIX}jobs:owner:${owner}`;

// Ends a running job once: KEYS[1] job; ARGV: status, outcome JSON, finishedAt, ttl ms. Returns
// the hash after the change, or nil when not running.
const FINISH_SCRIPT = `
if redis.call('HGET', KEYS[1], 'status') ~= 'RUNNING' then return nil end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'outcome', ARGV[2], 'finishedAt', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return redis.call('HGETALL', KEYS[1])
`;

// Sets the polling address of a job that still exists (never recreates an expired one).
const SET_LOCATION_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'location', ARGV[1])
return 1
`;

// Moves a running job from the replica it belonged to (whose heartbeat is gone) to this one, unless
// someone else did first: KEYS[1] job; ARGV: the replica it belonged to, this replica. Returns 1
// when claimed. One claimant per job, whichever replicas look at once.
const CLAIM_SCRIPT = `
if redis.call('HGET', KEYS[1], 'status') ~= 'RUNNING' then return 0 end
if redis.call('HGET', KEYS[1], 'replica') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'replica', ARGV[2])
return 1
`;

// Marks a job that still exists with its format: KEYS[1] job; ARGV[1] the version.
const MARK_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[1])
return 1
`;

export function createRedisJobStore(options: RedisJobStoreOptions): RedisJobStore {
  const redis: RedisClient = options.connection.commands;
  const { ttlMs, leaseMs } = options;
  const runningTtlMs = options.runningTtlMs ?? DEFAULT_RUNNING_TTL_MS;
  const replicaId = options.replicaId ?? randomBytes(8).toString('hex');
  const notice = noticeNewerFormats(options.logger);
  let closed = false;

  const writeHeartbeat = (): Promise<unknown> => redis.set(replicaKey(replicaId), encodeHeartbeat(Date.now()), 'PX', leaseMs);
  // Needs the command connection only: waiting for the subscriber too (whichever comes up last)
  // left a fresh replica without a heartbeat until the next renewal, a third of a lease, while
  // its peers claimed its jobs.
  async function renewHeartbeat(): Promise<void> {
    if (closed || redis.status !== 'ready') return;
    await writeHeartbeat().catch(() => undefined);
  }
  const heartbeat = setInterval(() => void renewHeartbeat(), Math.max(50, Math.floor(leaseMs / 3)));
  heartbeat.unref();
  // Renew as soon as Redis is reachable (at start, and after an outage).
  redis.on('ready', () => void renewHeartbeat());

  /** Lists a job in its owner's index: after the job itself, so a listed id always finds its job. */
  async function indexOwned(job: Pick<JobRecord, 'id' | 'owner' | 'createdAt'>): Promise<void> {
    await redis
      .multi()
      .zadd(ownerKey(job.owner), job.createdAt, job.id)
      .zremrangebyrank(ownerKey(job.owner), 0, -(OWNED_JOBS_LISTED + 1))
      .pexpire(ownerKey(job.owner), runningTtlMs + ttlMs)
      .exec();
  }

  /**
   * The job of a hash read; a format-1 job (a previous release wrote it, without listing it) is
   * listed in its owner's index and marked as this format, once. Best effort: a failure leaves it
   * for the next read.
   */
  async function adopt(decoded: Decoded<JobRecord> | null): Promise<JobRecord | null> {
    if (decoded === null) return null;
    const job = decoded.value;
    if (decoded.version < FORMATS.job) {
      await indexOwned(job)
        .then(() => redis.eval(MARK_SCRIPT, 1, jobKey(job.id), String(FORMATS.job)))
        .catch(() => undefined);
    }
    return job;
  }

  async function read(id: string): Promise<JobRecord | null> {
    return adopt(decodeJob(await redis.hgetall(jobKey(id)), notice));
  }

  return {
    replicaId,
    heartbeat: () =>
      guardRedis('write heartbeat', async () => {
        await writeHeartbeat();
      }),
    create: (job) =>
      guardRedis('create job', async () => {
        const fields = encodeJob(job, replicaId);
        // The heartbeat first: no job of this replica is ever in Redis without it. Then the job,
        // then its id in the running set, so a claim never finds an id without its job.
        await writeHeartbeat();
        await redis
          .multi()
          .hset(jobKey(job.id), fields)
          .pexpire(jobKey(job.id), job.status === 'RUNNING' ? runningTtlMs : ttlMs)
          .exec();
        if (job.status === 'RUNNING') await redis.sadd(RUNNING_KEY, job.id);
        await indexOwned(job);
      }),
    get: (id) => guardRedis('read job', () => read(id)),
    setLocation: (id, location) =>
      guardRedis('set job location', async () => {
        await redis.eval(SET_LOCATION_SCRIPT, 1, jobKey(id), location);
      }),
    finish: (id, outcome: JobOutcome) =>
      guardRedis('finish job', async () => {
        const status: JobStatus = outcome.success ? 'SUCCEEDED' : 'FAILED';
        const reply = await redis.eval(FINISH_SCRIPT, 1, jobKey(id), status, encodeOutcome(outcome), String(Date.now()), String(ttlMs));
        if (!Array.isArray(reply)) return null;
        // Only an index: a claim that finds the id of an ended job removes it too.
        await redis.srem(RUNNING_KEY, id).catch(() => undefined);
        return adopt(decodeJob(pairsToObject(reply), notice));
      }),
    claimOrphaned: () =>
      guardRedis('claim orphaned jobs', async () => {
        const ids = await redis.smembers(RUNNING_KEY);
        const owners = await Promise.all(ids.map((id) => redis.hmget(jobKey(id), 'status', 'replica')));
        const alive = new Map<string, Promise<boolean>>();
        const isAlive = (replica: string): Promise<boolean> => {
          let known = alive.get(replica);
          if (known === undefined) {
            known = redis.exists(replicaKey(replica)).then((count) => count > 0);
            alive.set(replica, known);
          }
          return known;
        };
        const claimed = await Promise.all(
          ids.map(async (id, index) => {
            const [status, replica] = owners[index]!;
            if (status !== 'RUNNING' || !replica) {
              // Ended, expired or discarded: forget the id.
              await redis.srem(RUNNING_KEY, id);
              return null;
            }
            if (replica === replicaId || (await isAlive(replica))) return null;
            // Read before the claim: a job this release cannot read (a newer replica wrote it) is
            // left to one that can; claimed, it would be polled by no one. Its replica is gone, so
            // nothing changes it between this read and the claim, which checks it still runs.
            const job = await read(id);
            if (job === null || job.status !== 'RUNNING') return null;
            const won = await redis.eval(CLAIM_SCRIPT, 1, jobKey(id), replica, replicaId);
            return won === 1 ? job : null;
          }),
        );
        return claimed.filter((job): job is JobRecord => job !== null);
      }),
    discard: (id) =>
      guardRedis('discard job', async () => {
        const owner = (await read(id))?.owner;
        await redis.del(jobKey(id));
        await redis.srem(RUNNING_KEY, id);
        if (owner !== undefined) await redis.zrem(ownerKey(owner), id);
      }),
    listOwned: (owner, filter) =>
      guardRedis('list jobs', async () => {
        const ids = await redis.zrevrange(ownerKey(owner), 0, OWNED_JOBS_LISTED - 1);
        const found = await Promise.all(ids.map((id) => redis.hmget(jobKey(id), 'status', 'record', 'v')));
        const gone: string[] = [];
        const jobs: OwnedJob[] = [];
        ids.forEach((id, index) => {
          const [status, record, v] = found[index]!;
          if (!status || !record) {
            gone.push(id);
            return;
          }
          // Unreadable (a newer format this release cannot list): left in the index for its writer.
          const decoded = decodeJob({ status, record, v }, notice);
          if (decoded === null) return;
          const { operation, createdAt } = decoded.value;
          const job: OwnedJob = { id, operation, status: decoded.value.status, createdAt };
          if (meets(job, filter)) jobs.push(job);
        });
        if (gone.length > 0) await redis.zrem(ownerKey(owner), ...gone);
        return jobs;
      }),
    async close() {
      closed = true;
      clearInterval(heartbeat);
      // Hands this replica's running jobs to the others at their next claim, not a lease later.
      if (options.connection.isReady()) await redis.del(replicaKey(replicaId)).catch(() => undefined);
    },
  };
}

function pairsToObject(reply: unknown[]): Record<string, string> {
  const result: Record<string, string> = {};
  for (let index = 0; index + 1 < reply.length; index += 2) result[String(reply[index])] = String(reply[index + 1]);
  return result;
}
