/**
 * Replicas on a real three-master Redis Cluster (`REDIS_URL=redis+cluster://...`), started by the
 * test: jobs, their results and cursors work across replicas although the keys they use live on
 * different nodes, and a killed replica's jobs are claimed by the one left.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../../src/config/index.js';
import { credentialHeaders, errorCodes } from '../support/harness.js';
import { startRedisCluster, type RedisCluster } from '../support/redis-cluster.js';
import { subscribeWs } from '../support/subscriptions.js';
import { connectedHost, gql, JOB_FIELDS, type JobResult, nqn, replicaFleet, UPDATE_NQN } from '../support/replica-jobs.js';

// Processes started under tsx and a shared 2-core CI machine: what takes 5 s alone can take 40 s
// under the whole suite. A deadline for a hang, not a measure of speed.
const SLOW_TEST_MS = 120_000;
const JOB_COMPLETED = `subscription($id: ID!) { jobCompleted(id: $id) { ${JOB_FIELDS} } }`;
const JOB_EVENTS = `subscription { jobEvents { ${JOB_FIELDS} } }`;

describe('REDIS_URL naming a cluster or a Sentinel-watched master', () => {
  it('reads seed nodes, a master name, a database and TLS', () => {
    expect(loadConfig({ REDIS_URL: 'redis+cluster://10.0.0.1:7000,10.0.0.2:7001,redis-c' }).redisUrl).toBe('redis+cluster://10.0.0.1:7000,10.0.0.2:7001,redis-c');
    expect(loadConfig({ REDIS_URL: 'rediss+sentinel://app:s3cret@s1:26379,s2/mymaster/2?sentinelPassword=x' }).redisUrl).toBeDefined();
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379/0' }).redisUrl).toBe('redis://127.0.0.1:6379/0');
  });

  it('refuses a malformed one at start, without echoing its password', () => {
    for (const bad of [
      'redis+cluster://:hunter2@10.0.0.1:notaport',
      'redis+cluster://:hunter2@10.0.0.1:99999',
      'redis+cluster://:hunter2@10.0.0.1:7000/0',
      'redis+sentinel://:hunter2@10.0.0.1:26379',
      'redis+sentinel://:hunter2@10.0.0.1:26379/mymaster/notadb',
      'redis+sentinel://:hunter2@10.0.0.1:26379/a/b/c',
      'memcached://:hunter2@10.0.0.1',
      'redis+cluster://:hunter2@,',
    ]) {
      let thrown: unknown;
      try {
        loadConfig({ REDIS_URL: bad });
      } catch (error) {
        thrown = error;
      }
      expect(thrown, bad).toBeInstanceOf(ConfigError);
      expect((thrown as Error).message).toMatch(/^REDIS_URL/);
      expect((thrown as Error).message).not.toContain('hunter2');
    }
  });
});

describe('two replicas on a three-node Redis Cluster', () => {
  let cluster: RedisCluster;

  beforeAll(async () => {
    cluster = await startRedisCluster();
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  const fleet = replicaFleet(() => cluster.url);
  /** Both replicas send the upstream A's address as their webhook. */
  const pair = () => fleet.pair('a', { JOB_POLL_AFTER_MS: '100', JOB_LEASE_MS: '600' });

  async function keysPerNode(pattern: string): Promise<number[]> {
    return Promise.all(
      cluster.ports.map(async (port) => {
        const node = new Redis({ port, host: '127.0.0.1' });
        try {
          return (await node.keys(pattern)).length;
        } finally {
          node.disconnect();
        }
      }),
    );
  }

  it('delivers every job finished by a webhook on A to subscribers on B (and A), once each, and answers job(id) on both', { timeout: SLOW_TEST_MS }, async () => {
    const { a, b } = await pair();
    const params = { Authorization: fleet.headers.authorization! };
    const eventsOnA = await subscribeWs<{ jobEvents: JobResult }>(a.url, JOB_EVENTS, {}, params);
    const eventsOnB = await subscribeWs<{ jobEvents: JobResult }>(b.url, JOB_EVENTS, {}, params);
    fleet.simulator.configure({ asyncDelayMs: 400 });
    const uuid = connectedHost(fleet.simulator);

    // Started on both replicas; every webhook lands on A.
    const ids: string[] = [];
    for (let index = 0; index < 12; index++) {
      const started = await gql<{ updateHostNqn: { job: { id: string; status: string } } }>(
        index % 2 === 0 ? a.url : b.url,
        UPDATE_NQN,
        { input: { uuid, nqn: nqn(String(500 + index)), async: true } },
        fleet.headers,
      );
      expect(errorCodes(started)).toEqual([]);
      ids.push(started.data!.updateHostNqn.job.id);
    }
    const completedOnB = await subscribeWs<{ jobCompleted: JobResult }>(b.url, JOB_COMPLETED, { id: ids.at(-1) }, params);
    await Promise.all([eventsOnA.waitFor(12, 20_000), eventsOnB.waitFor(12, 20_000), completedOnB.completed]);
    // Nothing more arrives later (no duplicate deliveries).
    await new Promise((resolve) => setTimeout(resolve, 500));

    for (const events of [eventsOnA, eventsOnB]) {
      expect(events.results.map((result) => result.data?.jobEvents.id).sort()).toEqual([...ids].sort());
      expect(events.results.every((result) => result.data?.jobEvents.status === 'SUCCEEDED')).toBe(true);
    }
    expect(completedOnB.results).toEqual([
      { data: { jobCompleted: { id: ids.at(-1), status: 'SUCCEEDED', operation: 'UPDATE_HOST_NQN', payload: { host: { uuid, nqn: nqn('511') } } } } },
    ]);
    // Every webhook went to A: B heard of the jobs through the cluster only.
    const deliveries = fleet.simulator.journal().filter((entry) => ids.includes(entry.headers['x-job-uuid'] ?? ''));
    expect(deliveries.every((entry) => entry.headers['x-web-hook']?.startsWith(`${a.url}/webhooks/jobs/`))).toBe(true);
    for (const url of [a.url, b.url]) {
      for (const id of [ids[0], ids[1]]) {
        const read = await gql<{ job: { status: string } }>(url, 'query($id: ID!) { job(id: $id) { status } }', { id }, fleet.headers);
        expect(read.data).toEqual({ job: { status: 'SUCCEEDED' } });
      }
    }
    // The jobs' keys are spread over the cluster: this ran against more than one node.
    expect((await keysPerNode('gw:job:*')).filter((count) => count > 0).length).toBeGreaterThan(1);
    await Promise.all([eventsOnA.close(), eventsOnB.close(), completedOnB.close()]);
  });

  it('pages on B with a cursor A issued: the upstream cursor kept in the cluster', { timeout: SLOW_TEST_MS }, async () => {
    const { a, b } = await pair();
    const reader = credentialHeaders(fleet.simulator.credentials);
    const VMS = 'query($after: String) { vmInstances(first: 2, after: $after) { edges { node { uuid } } pageInfo { endCursor } } }';
    type Page = { vmInstances: { edges: { node: { uuid: string } }[]; pageInfo: { endCursor: string | null } } };
    const all = await gql<{ vmInstances: { edges: { node: { uuid: string } }[] } }>(a.url, 'query { vmInstances(first: 6) { edges { node { uuid } } } }', {}, reader);
    const first = await gql<Page>(a.url, VMS, {}, reader);
    const second = await gql<Page>(b.url, VMS, { after: first.data!.vmInstances.pageInfo.endCursor }, reader);
    expect(errorCodes(second)).toEqual([]);
    expect([...first.data!.vmInstances.edges, ...second.data!.vmInstances.edges].map((edge) => edge.node.uuid)).toEqual(
      all.data!.vmInstances.edges.slice(0, 4).map((edge) => edge.node.uuid),
    );
    expect((await keysPerNode('gateway:cursor:{cursors}:*')).reduce((sum, count) => sum + count, 0)).toBeGreaterThan(0);
  });

  it('loses nothing when A is killed mid-job with the webhooks dropped: B claims and polls its jobs, and B\'s subscribers get every result', { timeout: SLOW_TEST_MS }, async () => {
    const { a, b } = await pair();
    fleet.simulator.configure({ dropWebhooks: true, asyncDelayMs: 1500 });
    const uuid = connectedHost(fleet.simulator);
    const ids: string[] = [];
    for (let index = 0; index < 4; index++) {
      const started = await gql<{ updateHostNqn: { job: { id: string; status: string } } }>(a.url, UPDATE_NQN, { input: { uuid, nqn: nqn(String(700 + index)), async: true } }, fleet.headers);
      expect(started.data?.updateHostNqn.job.status).toBe('RUNNING');
      ids.push(started.data!.updateHostNqn.job.id);
    }
    expect(await a.kill('SIGKILL')).toBe('SIGKILL');

    const params = { Authorization: fleet.headers.authorization! };
    const completed = await Promise.all(ids.map((id) => subscribeWs<{ jobCompleted: JobResult }>(b.url, JOB_COMPLETED, { id }, params)));
    await Promise.all(completed.map((subscription) => subscription.completed));
    expect(completed.map((subscription) => subscription.results.map((result) => result.data?.jobCompleted.status))).toEqual(ids.map(() => ['SUCCEEDED']));
    // No webhook came: B polled the upstream for every one of A's jobs.
    for (const id of ids) expect(fleet.simulator.journal().some((entry) => entry.operation === 'PollJob' && entry.path.endsWith(id))).toBe(true);
    await Promise.all(completed.map((subscription) => subscription.close()));
  });
});
