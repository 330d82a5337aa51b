/**
 * Results published while a replica's Redis connection is down are not lost for its subscribers:
 * the test keeps cutting the replicas' Redis connections that carry results to subscribers (the
 * stream reader, and every pub/sub connection) while jobs finish, on one Redis and on a
 * three-node cluster. Every `jobEvents` and `jobCompleted` subscriber still gets every finished
 * job exactly once, and the replica whose connection was cut still drops the cached reads the
 * jobs changed. And what cannot be replayed (the stream trimmed past the reader's offset, or lost
 * with the dataset) ends the open subscriptions with REDIS_UNAVAILABLE instead of leaving them
 * silently short. A finished job whose append to the stream fails for a while is appended when it
 * works again, however long that takes.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialHeaders, errorCodes, startHarness, type Harness } from '../support/harness.js';
import { eventually } from '../support/process.js';
import { readerIds, redisUpAt, startRedis } from '../support/redis.js';
import { startRedisCluster } from '../support/redis-cluster.js';
import { subscribeSse, subscribeWs } from '../support/subscriptions.js';
import { connectedHost, gql, nqn, replicaFleet, UPDATE_NQN } from '../support/replica-jobs.js';

// Processes started under tsx and a shared 2-core CI machine: what takes 5 s alone can take 40 s
// under the whole suite. A deadline for a hang, not a measure of speed.
const SLOW_TEST_MS = 120_000;
const JOB_COMPLETED = 'subscription($id: ID!) { jobCompleted(id: $id) { id status } }';
const JOB_EVENTS = 'subscription { jobEvents { id status } }';

interface JobResult {
  id: string;
  status: string;
}

/** The node holding the finished-jobs stream: the others answer MOVED. */
async function streamNode(nodes: readonly Redis[]): Promise<Redis> {
  for (const node of nodes) {
    if (await node.exists('gw:{jobs-finished}').then(() => true, () => false)) return node;
  }
  throw new Error('no node holds the stream');
}

/**
 * Cuts, on every node, the connections that carry finished jobs to the replicas' subscribers,
 * then waits until both replicas' readers are connected to the stream's node again, so each cut
 * is one the gateway must recover from (rather than one long outage). Returns the connections cut.
 */
async function cutDeliveryConnections(nodes: readonly Redis[]): Promise<number> {
  let cut = 0;
  for (const node of nodes) {
    for (const id of readerIds(await node.client('LIST'))) cut += Number(await node.client('KILL', 'ID', id));
    cut += Number(await node.client('KILL', 'TYPE', 'pubsub'));
  }
  const holder = await streamNode(nodes);
  await eventually(async () => readerIds(await holder.client('LIST')).length >= 2, 'both readers reconnected', 400, 25);
  return cut;
}

const deployments = [
  { name: 'one Redis', start: async () => { const server = await startRedis(); return { url: server.url, ports: [server.port], stop: () => server.stop() }; } },
  { name: 'a three-node Redis Cluster', start: startRedisCluster },
];

describe.each(deployments)('results published while a replica\'s connection to $name is cut', ({ start }) => {
  let redis: { url: string; ports: readonly number[]; stop(): Promise<void> };
  let nodes: Redis[];

  beforeAll(async () => {
    redis = await start();
    nodes = redis.ports.map((port) => new Redis({ port, host: '127.0.0.1', connectionName: 'test-control' }));
  });

  afterAll(async () => {
    for (const node of nodes ?? []) node.disconnect();
    await redis?.stop();
  });

  const fleet = replicaFleet(() => redis.url);

  it('every subscriber on the cut replica gets every finished job exactly once, and its cached reads are dropped', { timeout: SLOW_TEST_MS }, async () => {
    // A takes every webhook; B's connections are the ones cut (A's too: they are found by name).
    const { a, b } = await fleet.pair('a', { JOB_POLL_AFTER_MS: '5000' });
    const params = { Authorization: fleet.headers.authorization! };
    const reader = credentialHeaders(fleet.simulator.credentials);
    const uuid = connectedHost(fleet.simulator);
    const readNqn = async (): Promise<string | undefined> =>
      (await gql<{ host: { nqn: string } }>(b.url, 'query($uuid: Uuid!) { host(uuid: $uuid) { nqn } }', { uuid }, reader)).data?.host.nqn;
    const cachedBefore = await readNqn();

    const wsOnB = await subscribeWs<{ jobEvents: JobResult }>(b.url, JOB_EVENTS, {}, params);
    const sseOnB = await subscribeSse<{ jobEvents: JobResult }>(b.url, JOB_EVENTS, {}, { authorization: fleet.headers.authorization! });
    const wsOnA = await subscribeWs<{ jobEvents: JobResult }>(a.url, JOB_EVENTS, {}, params);
    fleet.simulator.configure({ asyncDelayMs: 250 });

    let cutting = true;
    let cuts = 0;
    const cutter = (async () => {
      while (cutting) {
        cuts += await cutDeliveryConnections(nodes);
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
    })();

    const count = 12;
    const ids: string[] = [];
    const completed: Awaited<ReturnType<typeof subscribeWs<{ jobCompleted: JobResult }>>>[] = [];
    try {
      for (let index = 0; index < count; index++) {
        const started = await gql<{ updateHostNqn: { job: { id: string; status: string } } }>(
          index % 2 === 0 ? a.url : b.url,
          UPDATE_NQN,
          { input: { uuid, nqn: nqn(String(800 + index)), async: true } },
          fleet.headers,
        );
        expect(errorCodes(started)).toEqual([]);
        const id = started.data!.updateHostNqn.job.id;
        ids.push(id);
        completed.push(await subscribeWs<{ jobCompleted: JobResult }>(b.url, JOB_COMPLETED, { id }, params));
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await Promise.all([wsOnB.waitFor(count, 20_000), sseOnB.waitFor(count, 20_000), wsOnA.waitFor(count, 20_000), ...completed.map((subscription) => subscription.completed)]);
    } finally {
      cutting = false;
      await cutter;
    }
    expect(cuts).toBeGreaterThan(8);
    // Late duplicates would arrive now.
    await new Promise((resolve) => setTimeout(resolve, 500));

    const sorted = [...ids].sort();
    for (const events of [wsOnB, sseOnB, wsOnA]) {
      expect(events.results.map((result) => result.errors ?? result.data?.jobEvents.id).sort()).toEqual(sorted);
    }
    expect(completed.map((subscription) => subscription.results)).toEqual(ids.map((id) => [{ data: { jobCompleted: { id, status: 'SUCCEEDED' } } }]));
    // B's cached read (30 s TTL) was dropped when the jobs finished on A.
    expect(cachedBefore).not.toBe(nqn(String(800 + count - 1)));
    await eventually(async () => (await readNqn()) === nqn(String(800 + count - 1)), 'B serves the NQN the last job wrote', 40, 50);
    await Promise.all([wsOnB.close(), sseOnB.close(), wsOnA.close(), ...completed.map((subscription) => subscription.close())]);
  });
});

describe('a reader that comes back to find the results it missed gone', () => {
  let redis: Awaited<ReturnType<typeof startRedis>>;
  let control: Redis;
  let harness: Harness;

  beforeAll(async () => {
    redis = await startRedis();
    control = new Redis(redis.url, { connectionName: 'test-control' });
    // Jobs take 300 ms: a subscription opened just before is listening by the time one finishes.
    harness = await startHarness({ simulator: { asyncDelayMs: 300 }, config: { redisUrl: redis.url, jobPollAfterMs: 1000, jobLeaseMs: 600 } });
  });

  afterAll(async () => {
    control?.disconnect();
    await harness?.close();
    await redis?.stop();
  });

  async function readerId(): Promise<string> {
    return readerIds(await control.client('LIST'))[0]!;
  }

  async function runJob(): Promise<string> {
    const done = await harness.gql<{ updateHostNqn: { job: { id: string; status: string } } }>(UPDATE_NQN, { input: { uuid: connectedHost(harness.simulator), nqn: nqn('950') } });
    expect(done.data?.updateHostNqn.job.status).toBe('SUCCEEDED');
    return done.data!.updateHostNqn.job.id;
  }

  it('appends a finished job whose XADD failed once Redis takes it again, however long after: its subscribers still hear of it', { timeout: 30_000 }, async () => {
    const params = { Authorization: harness.headers.authorization };
    const open = await subscribeWs<{ jobEvents: JobResult }>(harness.url, JOB_EVENTS, {}, params);
    // Only XADD is refused (the job's own hash is written as usual), for 7 s: longer than the
    // 6 s a failed append used to be retried for before it was dropped.
    await control.call('ACL', 'SETUSER', 'default', '-xadd');
    let heardBefore: number | undefined;
    const restore = setTimeout(() => {
      heardBefore = open.results.length;
      void control.call('ACL', 'SETUSER', 'default', '+xadd');
    }, 7_000);
    try {
      const id = await runJob();
      await open.waitFor(1, 25_000);
      expect(heardBefore).toBe(0);
      expect(open.results).toEqual([{ data: { jobEvents: { id, status: 'SUCCEEDED' } } }]);
      expect(await control.xlen('gw:{jobs-finished}')).toBe(1);
    } finally {
      clearTimeout(restore);
      await control.call('ACL', 'SETUSER', 'default', '+xadd');
      await open.close();
    }
  });

  // Each cut and what follows it run in one MULTI: done before the reader can reconnect.
  it.each([
    ['trimmed past its offset', (multi: ReturnType<Redis['multi']>) => multi.xadd('gw:{jobs-finished}', '*', 'job', '{}').xtrim('gw:{jobs-finished}', 'MAXLEN', 0)],
    ['lost with the whole dataset', (multi: ReturnType<Redis['multi']>) => multi.flushall()],
  ])('ends open subscriptions with REDIS_UNAVAILABLE when the stream was %s, and delivers again to new ones', async (_name, lose) => {
    const params = { Authorization: harness.headers.authorization };
    const open = await subscribeWs<{ jobEvents: JobResult }>(harness.url, JOB_EVENTS, {}, params);
    const first = await runJob();
    await open.waitFor(1);
    await lose(control.multi().client('KILL', 'ID', await readerId())).exec();
    await open.completed;
    expect(open.results.map((result) => result.errors?.[0]?.extensions?.code ?? result.data?.jobEvents.id)).toEqual([first, 'REDIS_UNAVAILABLE']);

    await eventually(async () => redisUpAt(harness.url), 'Redis reported up again');
    const again = await subscribeWs<{ jobEvents: JobResult }>(harness.url, JOB_EVENTS, {}, params);
    const second = await runJob();
    await again.waitFor(1);
    expect(again.results).toEqual([{ data: { jobEvents: { id: second, status: 'SUCCEEDED' } } }]);
    await Promise.all([open.close(), again.close()]);
  });
});
