/**
 * Several replicas behind a load balancer, sharing one Redis: a webhook may land on any replica
 * and a subscriber may sit on any other; a replica may die mid-job; Redis itself may go away.
 * Replicas are real processes (`node --import tsx src/index.ts`) against a real redis-server.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialHeaders, errorCodes, startHarness, type Harness } from '../support/harness.js';
import { eventually, type GatewayProcess } from '../support/process.js';
import { dependenciesOf, freePort, redisUpAt, startRedis, type RedisServer } from '../support/redis.js';
import { subscribeWs } from '../support/subscriptions.js';
import { connectedHost, gql, JOB_FIELDS, type JobResult, nqn, replicaFleet, UPDATE_NQN } from '../support/replica-jobs.js';

const JOB_COMPLETED = `subscription($id: ID!) { jobCompleted(id: $id) { ${JOB_FIELDS} } }`;

describe('two replicas sharing one Redis', () => {
  let redis: RedisServer;

  beforeAll(async () => {
    redis = await startRedis();
  });

  afterAll(async () => {
    await redis?.stop();
  });

  const fleet = replicaFleet(() => redis.url);
  /** Replica A sends the upstream B's address as its webhook; B sends its own. */
  const pair = () => fleet.pair('b', { JOB_POLL_AFTER_MS: '100', JOB_LEASE_MS: '600' });

  async function metric(url: string, line: RegExp): Promise<number> {
    const text = await (await fetch(`${url}/metrics`)).text();
    const match = text.split('\n').find((candidate) => line.test(candidate));
    return match ? Number(match.split(' ').pop()) : 0;
  }

  it('completes a mutation sent to A whose webhook lands on B, delivers it to subscribers on both, and answers job(id) on both', async () => {
    const { a, b } = await pair();
    const params = { Authorization: fleet.headers.authorization! };
    const eventsOnA = await subscribeWs<{ jobEvents: JobResult }>(a.url, `subscription { jobEvents { ${JOB_FIELDS} } }`, {}, params);
    const eventsOnB = await subscribeWs<{ jobEvents: JobResult }>(b.url, `subscription { jobEvents { ${JOB_FIELDS} } }`, {}, params);
    fleet.simulator.configure({ asyncDelayMs: 300 });

    const started = await gql<{ updateHostNqn: { job: { id: string; status: string } } }>(
      a.url,
      UPDATE_NQN,
      { input: { uuid: connectedHost(fleet.simulator), nqn: nqn('101'), async: true } },
      fleet.headers,
    );
    const job = started.data!.updateHostNqn.job;
    expect(job.status).toBe('RUNNING');
    const sent = fleet.simulator.journal().find((entry) => entry.headers['x-job-uuid'] === job.id);
    expect(sent?.headers['x-web-hook']).toMatch(new RegExp(`^${b.url}/webhooks/jobs/${job.id}/`));

    const completedOnA = await subscribeWs<{ jobCompleted: JobResult }>(a.url, JOB_COMPLETED, { id: job.id }, params);
    const completedOnB = await subscribeWs<{ jobCompleted: JobResult }>(b.url, JOB_COMPLETED, { id: job.id }, params);
    await Promise.all([completedOnA.completed, completedOnB.completed, eventsOnA.waitFor(1), eventsOnB.waitFor(1)]);

    const expected = { id: job.id, status: 'SUCCEEDED', operation: 'UPDATE_HOST_NQN', payload: { host: { uuid: connectedHost(fleet.simulator), nqn: nqn('101') } } };
    expect(completedOnA.results).toEqual([{ data: { jobCompleted: expected } }]);
    expect(completedOnB.results).toEqual([{ data: { jobCompleted: expected } }]);
    expect(eventsOnA.results).toEqual([{ data: { jobEvents: expected } }]);
    expect(eventsOnB.results).toEqual([{ data: { jobEvents: expected } }]);

    // B took the webhook; A never saw one.
    expect(await metric(b.url, /^gateway_webhook_deliveries_total\{result="accepted",status="200"\}/)).toBe(1);
    expect(await metric(a.url, /^gateway_webhook_deliveries_total\{result="accepted"/)).toBe(0);

    for (const url of [a.url, b.url]) {
      const read = await gql<{ job: { status: string } }>(url, 'query($id: ID!) { job(id: $id) { status } }', { id: job.id }, fleet.headers);
      expect(read.data).toEqual({ job: { status: 'SUCCEEDED' } });
    }
    await Promise.all([eventsOnA.close(), eventsOnB.close(), completedOnA.close(), completedOnB.close()]);
  });

  it('drops a cached read on A when a write finishes on B', async () => {
    const { a } = await pair();
    const reader = credentialHeaders(fleet.simulator.credentials);
    const uuid = connectedHost(fleet.simulator);
    const readNqn = async (): Promise<string | undefined> =>
      (await gql<{ host: { nqn: string } }>(a.url, 'query($uuid: Uuid!) { host(uuid: $uuid) { nqn } }', { uuid }, reader)).data?.host.nqn;
    const before = await readNqn();
    // Changed behind the gateway's back: A's cached answer (30 s TTL) keeps the old value.
    fleet.simulator.store.hosts.getAny(uuid)!.nqn = nqn('998');
    expect(await readNqn()).toBe(before);

    // A's webhook lands on B: the job finishes there, and A must still drop its cached read.
    const started = await gql<{ updateHostNqn: { job: { id: string } } }>(a.url, UPDATE_NQN, { input: { uuid, nqn: nqn('999'), async: true } }, fleet.headers);
    const completed = await subscribeWs(a.url, JOB_COMPLETED, { id: started.data!.updateHostNqn.job.id }, { Authorization: fleet.headers.authorization! });
    await completed.completed;
    await eventually(async () => (await readNqn()) === nqn('999'), 'A serves the new NQN', 40, 50);
    await completed.close();
  });

  it('forgets on every replica a CBT task deleted through A while the webhook lands on B', async () => {
    const { a, b } = await pair();
    const reader = credentialHeaders(fleet.simulator.credentials);
    const vm = [...fleet.simulator.store.vms.list(fleet.simulator.credentials.tenantId)].find(
      (candidate) => candidate.state === 'Running' && fleet.simulator.store.cbtTasks.by('vmInstanceUuid', candidate.uuid, fleet.simulator.credentials.tenantId).length === 0,
    )!;
    const created = await gql<{ createCbtTask: { cbtTask: { uuid: string } } }>(
      a.url,
      'mutation($input: CreateCbtTaskInput!) { createCbtTask(input: $input) { cbtTask { uuid } } }',
      { input: { name: 'scale-out-ryw', taskType: 'VM', resourceUuids: [vm.uuid] } },
      fleet.headers,
    );
    const uuid = created.data!.createCbtTask.cbtTask.uuid;
    const readTask = (url: string) => gql<{ cbtTask: { uuid: string; status: string } | null }>(url, 'query($uuid: Uuid!) { cbtTask(uuid: $uuid) { uuid status } }', { uuid }, reader);
    // Cached on both replicas (a second read costs the upstream nothing).
    for (const url of [a.url, b.url]) {
      expect((await readTask(url)).data).toEqual({ cbtTask: { uuid, status: 'CREATED' } });
      const before = fleet.simulator.stats().total;
      await readTask(url);
      expect(fleet.simulator.stats().total).toBe(before);
    }

    const deleted = await gql<{ deleteCbtTask: { error: unknown; job: { status: string } } }>(
      a.url,
      'mutation($input: DeleteCbtTaskInput!) { deleteCbtTask(input: $input) { error { code } job { status } } }',
      { input: { uuid } },
      fleet.headers,
    );
    expect(deleted.data?.deleteCbtTask).toEqual({ error: null, job: { status: 'SUCCEEDED' } });
    // B finished the job; A learned it over Redis. Neither serves the deleted task any more.
    for (const url of [a.url, b.url]) {
      const after = await readTask(url);
      expect(after.data).toEqual({ cbtTask: null });
      expect(errorCodes(after)).toEqual(['NOT_FOUND']);
    }
  });

  it('loses nothing when A is killed mid-job and the webhook is dropped: B polls the job, its subscriber gets the result, job(id) answers', async () => {
    const { a, b } = await pair();
    fleet.simulator.configure({ dropWebhooks: true, asyncDelayMs: 1500 });
    const started = await gql<{ updateHostNqn: { job: { id: string; status: string } } }>(
      a.url,
      UPDATE_NQN,
      { input: { uuid: connectedHost(fleet.simulator), nqn: nqn('202'), async: true } },
      fleet.headers,
    );
    const job = started.data!.updateHostNqn.job;
    expect(job.status).toBe('RUNNING');
    expect(await a.kill('SIGKILL')).toBe('SIGKILL');

    const completedOnB = await subscribeWs<{ jobCompleted: JobResult }>(b.url, JOB_COMPLETED, { id: job.id }, {
      Authorization: fleet.headers.authorization!,
    });
    await completedOnB.completed;
    expect(completedOnB.results).toEqual([
      { data: { jobCompleted: { id: job.id, status: 'SUCCEEDED', operation: 'UPDATE_HOST_NQN', payload: { host: { uuid: connectedHost(fleet.simulator), nqn: nqn('202') } } } } },
    ]);
    const read = await gql<{ job: { status: string } }>(b.url, 'query($id: ID!) { job(id: $id) { status } }', { id: job.id }, fleet.headers);
    expect(read.data).toEqual({ job: { status: 'SUCCEEDED' } });
    // No webhook was delivered: B learned the result by polling the upstream.
    expect(fleet.simulator.journal().filter((entry) => entry.operation === 'PollJob' && entry.path.endsWith(job.id)).length).toBeGreaterThan(0);
    expect(await metric(b.url, /^gateway_webhook_deliveries_total\{result="accepted"/)).toBe(0);
    await completedOnB.close();
  });
});

describe('a replica that has just started', () => {
  let redis: RedisServer;

  beforeAll(async () => {
    redis = await startRedis();
  });

  afterAll(async () => {
    await redis?.stop();
  });

  const fleet = replicaFleet(() => redis.url);
  async function replica(): Promise<GatewayProcess> {
    const port = await freePort();
    // A long lease: its heartbeat is renewed only every 10 s, so the first one must not wait for that.
    return fleet.replica(port, `http://127.0.0.1:${port}`, { JOB_LEASE_MS: '30000', JOB_POLL_AFTER_MS: '60000' });
  }

  it('keeps its jobs while alive: a peer starting next to it does not claim them', async () => {
    const commands = new Redis(redis.url);
    try {
      fleet.simulator.configure({ dropWebhooks: true, asyncDelayMs: 60_000 });
      const a = await replica();
      const started = await gql<{ updateHostNqn: { job: { id: string; status: string } } }>(
        a.url,
        UPDATE_NQN,
        { input: { uuid: connectedHost(fleet.simulator), nqn: nqn('404'), async: true } },
        { authorization: `OAuth ${fleet.simulator.credentials.session}` },
      );
      const job = started.data!.updateHostNqn.job;
      expect(job.status).toBe('RUNNING');
      const owner = await commands.hget(`gw:job:${job.id}`, 'replica');
      expect(await commands.exists(`gw:replica:${owner}`)).toBe(1);

      // A peer claims, as it starts, every running job whose replica has no heartbeat.
      await replica();
      expect(await commands.hget(`gw:job:${job.id}`, 'replica')).toBe(owner);
    } finally {
      fleet.simulator.configure({ dropWebhooks: false, asyncDelayMs: 5 });
      commands.disconnect();
    }
  });
});

describe('a Redis outage', () => {
  let redis: RedisServer;
  let harness: Harness;

  beforeAll(async () => {
    redis = await startRedis();
    // Redis stays away past the subscriptions' grace (and comes back empty: no persistence).
    harness = await startHarness({ config: { redisUrl: redis.url, jobPollAfterMs: 100, jobLeaseMs: 600, redisResumeGraceMs: 1_000 } });
  });

  afterAll(async () => {
    await harness?.close();
    await redis?.stop();
  });

  async function probes(): Promise<{ ready: number; dependencies: Record<string, string> }> {
    return { ready: (await fetch(`${harness.url}/readyz`)).status, dependencies: await dependenciesOf(harness.url) };
  }

  it('stays ready, reports Redis down and fails subscriptions with REDIS_UNAVAILABLE while Redis is down, and recovers when it returns', async () => {
    await eventually(async () => redisUpAt(harness.url), 'every Redis connection up');
    expect(await probes()).toEqual({ ready: 200, dependencies: { upstream: 'up', redis: 'up' } });
    const params = { Authorization: harness.headers.authorization };
    const open = await subscribeWs<{ jobEvents: JobResult }>(harness.url, 'subscription { jobEvents { id status } }', {}, params);

    await redis.stop();
    // Past REDIS_RESUME_GRACE_MS the open subscription ends with an error saying why, rather than
    // staying silent.
    await open.completed;
    expect(open.results.map((result) => result.errors?.[0]?.extensions?.code)).toEqual(['REDIS_UNAVAILABLE']);
    expect(await probes()).toEqual({ ready: 200, dependencies: { upstream: 'up', redis: 'down' } });

    const refused = await subscribeWs(harness.url, 'subscription { jobEvents { id status } }', {}, params);
    await refused.completed;
    expect(refused.results.map((result) => result.errors?.[0]?.extensions?.code)).toEqual(['REDIS_UNAVAILABLE']);
    const read = await harness.gql('query($id: ID!) { job(id: $id) { status } }', { id: 'a'.repeat(32) });
    expect(errorCodes(read)).toEqual(['REDIS_UNAVAILABLE']);
    // Reads that need no Redis still work.
    const hosts = await harness.gql<{ hosts: { totalCount: number } }>('{ hosts(first: 1) { totalCount } }');
    expect(hosts.data?.hosts.totalCount).toBeGreaterThan(0);

    await redis.start();
    await eventually(async () => redisUpAt(harness.url), 'Redis reported up after it returned');
    const events = await subscribeWs<{ jobEvents: JobResult }>(harness.url, `subscription { jobEvents { ${JOB_FIELDS} } }`, {}, params);
    // subscribeWs resolves once the socket is open, before the gateway has subscribed (its reader of
    // the finished-jobs stream may still be checking its offset after the outage): a job that takes
    // 300 ms finishes after the subscription is in place.
    harness.simulator.configure({ asyncDelayMs: 300 });
    const done = await harness
      .gql<{ updateHostNqn: { job: { id: string; status: string } } }>(UPDATE_NQN, {
        input: { uuid: connectedHost(harness.simulator), nqn: nqn('303') },
      })
      .finally(() => harness.simulator.configure({ asyncDelayMs: 5 }));
    expect(done.errors).toBeUndefined();
    expect(done.data?.updateHostNqn.job.status).toBe('SUCCEEDED');
    await events.waitFor(1);
    expect(events.results[0]?.data?.jobEvents).toMatchObject({ id: done.data!.updateHostNqn.job.id, status: 'SUCCEEDED' });
    const readBack = await harness.gql<{ job: { status: string } }>('query($id: ID!) { job(id: $id) { status } }', {
      id: done.data!.updateHostNqn.job.id,
    });
    expect(readBack.data).toEqual({ job: { status: 'SUCCEEDED' } });
    await Promise.all([open.close(), refused.close(), events.close()]);
  });
});
