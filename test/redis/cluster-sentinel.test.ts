/**
 * `REDIS_URL=redis+sentinel://...`: the gateway finds the master through a real sentinel, and
 * after the sentinel fails the master over to its replica, it follows: ready again, jobs kept,
 * new jobs delivered to subscribers.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCodes, startHarness, type Harness } from '../support/harness.js';
import { eventually } from '../support/process.js';
import { startRedisSentinel, type RedisSentinel } from '../support/redis-cluster.js';
import { subscribeWs } from '../support/subscriptions.js';
import { connectedHost, nqn, UPDATE_NQN } from '../support/replica-jobs.js';

// Processes started under tsx and a shared 2-core CI machine: what takes 5 s alone can take 40 s
// under the whole suite. A deadline for a hang, not a measure of speed.
const SLOW_TEST_MS = 120_000;

describe('a master behind Sentinel', () => {
  let sentinel: RedisSentinel;
  let harness: Harness;

  beforeAll(async () => {
    sentinel = await startRedisSentinel();
    // Jobs take 300 ms: a subscription opened just before is listening by the time one finishes.
    harness = await startHarness({ simulator: { asyncDelayMs: 300 }, config: { redisUrl: sentinel.url, jobPollAfterMs: 1000, jobLeaseMs: 600 } });
  });

  afterAll(async () => {
    await harness?.close();
    await sentinel?.stop();
  });

  let lastReadiness = '';
  const ready = async (): Promise<boolean> => {
    // Redis as the replica sees it: every connection back (the replica itself stays ready throughout).
    const response = await fetch(`${harness.url}/healthz`);
    lastReadiness = await response.text();
    return (JSON.parse(lastReadiness) as { dependencies: { redis?: string } }).dependencies.redis === 'up';
  };

  async function runJob(suffix: string): Promise<string> {
    const done = await harness.gql<{ updateHostNqn: { job: { id: string; status: string } } }>(UPDATE_NQN, { input: { uuid: connectedHost(harness.simulator), nqn: nqn(suffix) } });
    expect(errorCodes(done)).toEqual([]);
    expect(done.data!.updateHostNqn.job.status).toBe('SUCCEEDED');
    return done.data!.updateHostNqn.job.id;
  }

  it('keeps jobs in the master the sentinel names, and follows it to the replica it promotes', { timeout: SLOW_TEST_MS }, async () => {
    await eventually(ready, 'ready through the sentinel');
    const params = { Authorization: harness.headers.authorization };
    const before = await subscribeWs<{ jobEvents: { id: string } }>(harness.url, 'subscription { jobEvents { id } }', {}, params);
    const first = await runJob('901');
    await before.waitFor(1);
    expect(before.results).toEqual([{ data: { jobEvents: { id: first } } }]);
    // The job is in the master's keyspace.
    const master = new Redis({ port: sentinel.masterPort, host: '127.0.0.1' });
    try {
      expect(await master.exists(`gw:job:${first}`)).toBe(1);
      // Replicated before the master goes: what a failover keeps.
      expect(await master.wait(1, 5000)).toBe(1);
    } finally {
      master.disconnect();
    }

    await sentinel.killMaster();
    await eventually(async () => (await sentinel.masterAddress()) === `127.0.0.1:${sentinel.replicaPort}`, 'the sentinel promotes the replica', 400, 50);
    await eventually(ready, 'ready again on the promoted replica', 400, 50).catch((error: unknown) => {
      throw new Error(`${String(error)}: ${lastReadiness}`);
    });

    const read = await harness.gql<{ job: { status: string } }>('query($id: ID!) { job(id: $id) { status } }', { id: first });
    expect(read.data).toEqual({ job: { status: 'SUCCEEDED' } });
    const after = await subscribeWs<{ jobEvents: { id: string } }>(harness.url, 'subscription { jobEvents { id } }', {}, params);
    const second = await runJob('902');
    await after.waitFor(1);
    expect(after.results).toEqual([{ data: { jobEvents: { id: second } } }]);
    // The subscription open across the failover either heard of the new job (the reader came back
    // in time and lost nothing) or ended saying why; never silently short of it.
    await eventually(() => before.results.length === 2, 'the open subscription hears of the second job or ends');
    expect([
      [{ data: { jobEvents: { id: first } } }, { data: { jobEvents: { id: second } } }],
      'REDIS_UNAVAILABLE',
    ]).toContainEqual(before.results[1]?.errors ? before.results[1].errors[0]?.extensions?.code : before.results);
    await Promise.all([before.close(), after.close()]);
  });
});
