/**
 * The Redis job store meeting jobs of other formats (real redis-server): a job the previous
 * release wrote (its hash from test/fixtures/redis-formats/) joins its owner's list the first time
 * this release reads it, and a job of a format this release cannot read is never claimed by it, so
 * a replica that can read it polls it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisJobStore, type RedisJobStore } from '../../src/jobs/redis-store.js';
import { createRedisConnection, type RedisConnection } from '../../src/redis/connection.js';
import { FORMATS } from '../../src/redis/formats.js';
import { startRedis, type RedisServer } from '../support/redis.js';

const FIXTURES = join(import.meta.dirname, '../fixtures/redis-formats');

/** A hash of a job the previous release left running, and its id. */
function previousReleaseRunningJob(): { id: string; hash: Record<string, string> } {
  const [release] = readdirSync(FIXTURES).sort();
  const client = JSON.parse(readFileSync(join(FIXTURES, release!, 'client.json'), 'utf8')) as { runningJob: string };
  const { keys } = JSON.parse(readFileSync(join(FIXTURES, release!, 'job.json'), 'utf8')) as { keys: { key: string; value: Record<string, string> }[] };
  return { id: client.runningJob, hash: keys.find((record) => record.key === `gw:job:${client.runningJob}`)!.value };
}

describe('the Redis job store and jobs of other formats', () => {
  let redis: RedisServer;
  let connection: RedisConnection;
  let commands: Redis;
  let store: RedisJobStore;

  beforeAll(async () => {
    redis = await startRedis();
    connection = createRedisConnection({ url: redis.url, logger: pino({ level: 'silent' }) });
    expect(await connection.waitUntilReady(5000)).toBe(true);
    commands = new Redis(redis.url);
    store = createRedisJobStore({ connection, ttlMs: 60_000, leaseMs: 1_000 });
  });

  afterAll(async () => {
    await store?.close();
    commands?.disconnect();
    await connection?.close();
    await redis?.stop();
  });

  it('lists a job of the previous release, and marks it this format, once this release has read it', async () => {
    const { id, hash } = previousReleaseRunningJob();
    await commands.hset(`gw:job:${id}`, hash);
    const owner = (JSON.parse(hash.record!) as { owner: string }).owner;
    expect(await store.listOwned(owner, {})).toEqual([]);

    const job = await store.get(id);
    expect(job).toMatchObject({ id, status: 'RUNNING', owner });
    expect(await store.listOwned(owner, {})).toEqual([{ id, operation: 'updateHostNqn', status: 'RUNNING', createdAt: job!.createdAt }]);
    expect(await commands.hget(`gw:job:${id}`, 'v')).toBe(String(FORMATS.job));
  });

  it('leaves a running job it cannot read to a replica that can, rather than claim it and poll it never', async () => {
    const id = 'f'.repeat(32);
    // A newer format that moved the job's fields out of `record`; its replica has stopped.
    await commands.hset(`gw:job:${id}`, { v: '9', status: 'RUNNING', replica: 'stopped-replica', record: '{"layout":"elsewhere"}' });
    await commands.sadd('gw:jobs:running', id);
    expect(await store.claimOrphaned()).toEqual([]);
    expect(await commands.hget(`gw:job:${id}`, 'replica')).toBe('stopped-replica');
    expect(await commands.sismember('gw:jobs:running', id)).toBe(1);
  });
});
