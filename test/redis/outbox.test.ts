/**
 * The outbox of the Redis streams against a real redis-server: what is appended while Redis is
 * away or refuses appends waits in memory and goes out in order as soon as Redis takes it again;
 * past its bound, newer entries are dropped, counted, and logged once.
 */
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createRedisConnection, type RedisConnection } from '../../src/redis/connection.js';
import { createRedisOutbox, type OutboxKind, type RedisOutbox } from '../../src/redis/outbox.js';
import { FINISHED_STREAM_KEY } from '../../src/redis/streams.js';
import { eventually } from '../support/process.js';
import { startRedis, type RedisServer } from '../support/redis.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Setup {
  redis: RedisServer;
  connection: RedisConnection;
  control: Redis;
  outbox: RedisOutbox;
  dropped: OutboxKind[];
  warnings: string[];
}

async function setUp(maxBytes: number): Promise<Setup> {
  const redis = await startRedis();
  cleanups.push(() => redis.stop());
  const warnings: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(String(JSON.parse(line).msg)) });
  const connection = createRedisConnection({ url: redis.url, logger });
  expect(await connection.waitUntilReady(5_000)).toBe(true);
  cleanups.push(() => connection.close());
  const control = new Redis(redis.url, { connectionName: 'test-control' });
  control.on('error', () => undefined);
  cleanups.push(() => control.disconnect());
  const dropped: OutboxKind[] = [];
  const outbox = createRedisOutbox({ client: connection.commands, streamMaxLen: 1_000, maxBytes, logger, onDropped: (kind) => dropped.push(kind) });
  cleanups.push(() => outbox.close());
  return { redis, connection, control, outbox, dropped, warnings };
}

async function appended(control: Redis): Promise<string[]> {
  return (await control.xrange(FINISHED_STREAM_KEY, '-', '+')).map(([, fields]) => fields[1]!);
}

describe('the outbox of the Redis streams', () => {
  it('keeps what is appended while Redis is stopped and appends it, in order, as soon as Redis is back', async () => {
    const { redis, connection, control, outbox } = await setUp(1_000_000);
    await redis.stop();
    const entries = Array.from({ length: 30 }, (_, index) => `entry-${index}`);
    for (const entry of entries) outbox.append(FINISHED_STREAM_KEY, ['job', entry], 'job');
    // Long enough for the pause before the next retry to have grown past 1.5 s.
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    expect(outbox.entries()).toBe(entries.length);
    expect(outbox.bytes()).toBe(entries.reduce((sum, entry) => sum + 'job'.length + entry.length, 0));

    await redis.start();
    expect(await connection.waitUntilReady(5_000)).toBe(true);
    const back = Date.now();
    await eventually(() => outbox.entries() === 0, 'the outbox written', 100, 20);
    // At once, not at the next retry planned.
    expect(Date.now() - back).toBeLessThan(1_500);
    expect(outbox.bytes()).toBe(0);
    expect(await appended(control)).toEqual(entries);
  }, 30_000);

  it('drops what comes once its bound waits, counts each, logs once, and appends what it kept when Redis takes appends again', async () => {
    const { control, outbox, dropped, warnings } = await setUp(4_096);
    await control.call('ACL', 'SETUSER', 'default', '-xadd');
    cleanups.push(async () => void (await control.call('ACL', 'SETUSER', 'default', '+xadd')));
    const entries = Array.from({ length: 10 }, (_, index) => `${index}`.padEnd(1_000, '.'));
    for (const entry of entries) outbox.append(FINISHED_STREAM_KEY, ['job', entry], index(entry) % 2 === 0 ? 'job' : 'live_change');
    expect(outbox.entries()).toBe(4);
    expect(dropped).toEqual(['job', 'live_change', 'job', 'live_change', 'job', 'live_change']);
    expect(warnings.filter((message) => message.startsWith('the Redis outbox is full'))).toHaveLength(1);

    await control.call('ACL', 'SETUSER', 'default', '+xadd');
    await eventually(() => outbox.entries() === 0, 'the outbox written', 200, 50);
    expect(await appended(control)).toEqual(entries.slice(0, 4));
  }, 30_000);
});

function index(entry: string): number {
  return Number.parseInt(entry, 10);
}
