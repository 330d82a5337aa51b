/**
 * Redis away, and nothing lost: two gateway replicas (processes) on a real redis-server that
 * keeps its data across a restart, and the simulator. Jobs started just before Redis stops finish
 * upstream while it is stopped (30 s); their finish cannot be written, so they stay RUNNING and
 * are polled again once it is back. The subscriptions stay open through the outage (it is shorter
 * than REDIS_RESUME_GRACE_MS), and after it every `jobEvents` subscriber (graphql-ws and SSE) and
 * every `jobCompleted` one gets every job exactly once. A change the change feed found on A while
 * Redis was away waited in A's outbox and reaches B's live query once Redis is back, replayed from
 * the stream: B's other live queries do not run again.
 *
 * And a Redis that took a job's finish but answered too late (a stall past the command timeout):
 * the job, found finished when polled again, is published then.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialHeaders, errorCodes, metricTotal, startHarness, type Harness } from '../support/harness.js';
import { eventually, type GatewayProcess } from '../support/process.js';
import { freePort, startRedis, type RedisServer } from '../support/redis.js';
import { connectedHost, gql, nqn, replicaFleet, UPDATE_NQN } from '../support/replica-jobs.js';
import { subscribeSse, subscribeWs, type Collected } from '../support/subscriptions.js';

const OUTAGE_MS = 30_000;
const JOBS = 6;
const JOB_EVENTS = 'subscription { jobEvents { id status } }';
const JOB_COMPLETED = 'subscription($id: ID!) { jobCompleted(id: $id) { id status } }';
const VMS = 'query Vms @live { vmInstances(first: 50) { nodes { uuid state } } }';
const VOLUMES = 'query Volumes @live { volumes(first: 5) { totalCount nodes { uuid } } }';

interface JobResult {
  id: string;
  status: string;
}

interface Vms {
  vmInstances: { nodes: { uuid: string; state: string }[] };
}

type Results = Collected<unknown>['results'];

function stateOf(results: Collected<Vms>['results'], index: number, vm: string): string | undefined {
  return results[index]?.data?.vmInstances.nodes.find((candidate) => candidate.uuid === vm)?.state;
}

/** The error codes among a subscription's results. */
function errorsIn(results: Results): unknown[] {
  return results.flatMap((result) => (result.errors ?? []).map((error) => error.extensions?.code ?? error.message));
}

describe('a 30 s Redis outage under two replicas', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis({ persistent: true });
  });
  afterAll(async () => {
    await redis?.stop();
  });
  const fleet = replicaFleet(() => redis.url);

  async function pair(): Promise<{ a: GatewayProcess; b: GatewayProcess }> {
    const [portA, portB] = [await freePort(), await freePort()];
    const webhooks = `http://127.0.0.1:${portA}`;
    // REDIS_RESUME_GRACE_MS at its default (60 s): the default rides out this 30 s outage.
    const env = { JOB_POLL_AFTER_MS: '1000', LIVE_MIN_INTERVAL_MS: '0' };
    // A polls the change feed every 250 ms; B, in effect, never (its first poll finds A's lease).
    const a = await fleet.replica(portA, webhooks, { ...env, LIVE_POLL_MS: '250' });
    const b = await fleet.replica(portB, webhooks, { ...env, LIVE_POLL_MS: '600000' });
    await Promise.all([a, b].map((gateway) => eventually(async () => (await fetch(`${gateway.url}/readyz`)).status === 200, 'replica ready')));
    return { a, b };
  }

  it('loses no job and no change: every subscriber gets every job once after it, and B gets the change A found during it', { timeout: 180_000 }, async () => {
    const { a, b } = await pair();
    const { simulator } = fleet;
    const params = { Authorization: fleet.headers.authorization! };
    const reader = credentialHeaders(simulator.credentials);
    const uuid = connectedHost(simulator);

    // A's live query first, so that A holds the VMs' lease before B asks.
    const vmsOnA = await subscribeWs<Vms>(a.url, VMS, {}, reader);
    await vmsOnA.waitFor(1);
    await eventually(async () => (await metricTotal(a.url, 'gateway_live_pollers')) === 1, 'A polling the VMs');
    const vmsOnB = await subscribeWs<Vms>(b.url, VMS, {}, reader);
    const volumesOnB = await subscribeWs(b.url, VOLUMES, {}, reader);
    await Promise.all([vmsOnB.waitFor(1), volumesOnB.waitFor(1)]);
    const vm = vmsOnB.results[0]!.data!.vmInstances.nodes.find((candidate) => candidate.state === 'RUNNING')!.uuid;

    const eventsOnB = await subscribeWs<{ jobEvents: JobResult }>(b.url, JOB_EVENTS, {}, params);
    const eventsOnA = await subscribeSse<{ jobEvents: JobResult }>(a.url, JOB_EVENTS, {}, { authorization: fleet.headers.authorization! });
    // A stream of writes, held upstream until Redis is stopped: all of them finish while it is away.
    simulator.configure({ holdJobs: true });
    const ids: string[] = [];
    const completed: Collected<{ jobCompleted: JobResult }>[] = [];
    for (let index = 0; index < JOBS; index++) {
      const started = await gql<{ updateHostNqn: { job: JobResult } }>(index % 2 === 0 ? a.url : b.url, UPDATE_NQN, { input: { uuid, nqn: nqn(String(700 + index)), async: true } }, fleet.headers);
      expect(errorCodes(started)).toEqual([]);
      expect(started.data!.updateHostNqn.job.status).toBe('RUNNING');
      ids.push(started.data!.updateHostNqn.job.id);
      completed.push(await subscribeWs<{ jobCompleted: JobResult }>(b.url, JOB_COMPLETED, { id: ids.at(-1) }, params));
    }

    await redis.stop();
    const stoppedAt = Date.now();
    simulator.configure({ holdJobs: false });
    // Changed upstream as Redis goes: A's poller finds it, its PUBLISH and append fail.
    simulator.churn.apply({ tenant: 'first', kind: 'vmState', uuid: vm });
    await vmsOnA.waitFor(2, 10_000);
    expect(stateOf(vmsOnA.results, 1, vm)).not.toBe('RUNNING');
    await eventually(async () => (await metricTotal(a.url, 'gateway_redis_outbox_entries')) >= 1, 'the change waiting in A\'s outbox');
    // What a client sees meanwhile: writes refused, saying why; the subscriptions silent; the
    // replica still ready (Redis is everyone's: the Service keeps it).
    const refused = await gql(b.url, UPDATE_NQN, { input: { uuid, nqn: nqn('799'), async: true } }, fleet.headers);
    expect(errorCodes(refused)).toEqual(['REDIS_UNAVAILABLE']);
    expect((await fetch(`${b.url}/readyz`)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, stoppedAt + OUTAGE_MS - Date.now()));
    expect([eventsOnA, eventsOnB, ...completed].map((subscription) => subscription.results)).toEqual(Array.from({ length: 2 + JOBS }, () => []));
    expect(vmsOnB.results).toHaveLength(1);

    await redis.start();
    await Promise.all([eventsOnA.waitFor(JOBS, 60_000), eventsOnB.waitFor(JOBS, 60_000), ...completed.map((subscription) => subscription.completed)]);
    await vmsOnB.waitFor(2, 20_000);
    expect(stateOf(vmsOnB.results, 1, vm)).not.toBe('RUNNING');
    await eventually(async () => (await metricTotal(a.url, 'gateway_redis_outbox_entries')) === 0, 'A\'s outbox written');
    // Late duplicates, or a re-run of every live query, would come now.
    await new Promise((resolve) => setTimeout(resolve, 2_000));

    for (const events of [eventsOnA, eventsOnB]) {
      expect(errorsIn(events.results)).toEqual([]);
      expect(events.results.map((result) => result.data?.jobEvents.id).sort()).toEqual([...ids].sort());
    }
    expect(completed.map((subscription) => subscription.results)).toEqual(ids.map((id) => [{ data: { jobCompleted: { id, status: 'SUCCEEDED' } } }]));
    expect(vmsOnB.results).toHaveLength(2);
    expect(volumesOnB.results).toHaveLength(1);
    for (const id of ids) {
      const read = await gql<{ job: JobResult }>(b.url, 'query($id: ID!) { job(id: $id) { id status } }', { id }, fleet.headers);
      expect(read.data?.job).toEqual({ id, status: 'SUCCEEDED' });
    }
    expect(await metricTotal(a.url, 'gateway_redis_outbox_dropped_total')).toBe(0);
    await Promise.all([vmsOnA, vmsOnB, volumesOnB, eventsOnA, eventsOnB, ...completed].map((subscription) => subscription.close()));
  });
});

describe('a Redis that took a job\'s finish but answered too late', () => {
  let redis: RedisServer;
  let control: Redis;
  let harness: Harness;

  beforeAll(async () => {
    redis = await startRedis();
    control = new Redis(redis.url, { connectionName: 'test-control' });
    harness = await startHarness({ simulator: { asyncDelayMs: 500 }, config: { redisUrl: redis.url, jobPollAfterMs: 200 } });
  });

  afterAll(async () => {
    control?.disconnect();
    await harness?.close();
    await redis?.stop();
  });

  it('publishes the job once it finds it finished: its subscribers hear of it once', { timeout: 60_000 }, async () => {
    const events = await subscribeWs<{ jobEvents: JobResult }>(harness.url, JOB_EVENTS, {}, { Authorization: harness.headers.authorization });
    const started = await harness.gql<{ updateHostNqn: { job: JobResult } }>(UPDATE_NQN, { input: { uuid: connectedHost(harness.simulator), nqn: nqn('990'), async: true } });
    const id = started.data!.updateHostNqn.job.id;
    // Writes (the job's finish script among them) wait 6 s, past the gateway's command timeout
    // (REDIS_COMMAND_TIMEOUT_MS); reads, PING among them, go on. Redis runs the finish it held once the pause ends.
    await control.client('PAUSE', 6_000, 'WRITE');
    try {
      await events.waitFor(1, 30_000);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(events.results).toEqual([{ data: { jobEvents: { id, status: 'SUCCEEDED' } } }]);
      const read = await harness.gql<{ job: JobResult }>('query($id: ID!) { job(id: $id) { id status } }', { id });
      expect(read.data?.job).toEqual({ id, status: 'SUCCEEDED' });
    } finally {
      await control.client('UNPAUSE');
      await events.close();
    }
  });
});
