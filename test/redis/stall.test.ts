/**
 * A Redis that stops, then one that stalls, as callers see them: two replicas in this process on
 * one redis-server (with persistence, as deployed) and the simulator. Redis is first stopped, then
 * frozen (SIGSTOP) for 30 s, the issue's figure: past the lease of the replicas' heartbeats
 * (JOB_LEASE_MS), so each may claim the other's jobs once Redis answers again, as it would in
 * production. Jobs finish upstream during each: the simulator holds them (`holdJobs`) until the
 * outage is established and its subscriptions are open, so no job can finish before. Meanwhile the replicas stay ready; reads, paged
 * ones too (whose endCursor pages on), answer within 3 s (a stalled Redis costs at most
 * REDIS_COMMAND_TIMEOUT_MS); writes answer REDIS_UNAVAILABLE at once; `jobCompleted(id)` and
 * `jobEvents` opened during the outage wait and then deliver each job once; and no answer repeats
 * the Redis client's own words.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAppReplicas, type AppReplicas } from '../support/app-replicas.js';
import { credentialHeaders, errorCodes, type CredentialHeaders, type GraphQLResponse } from '../support/harness.js';
import { connectedHost, gql, nqn, UPDATE_NQN } from '../support/job-calls.js';
import { eventually } from '../support/process.js';
import { dependenciesOf, redisUpAt } from '../support/redis.js';
import { subscribeWs, type Collected } from '../support/subscriptions.js';

const FREEZE_MS = 30_000;
/** How long a read may take while Redis is away or stalled. */
const READ_WITHIN_MS = 3_000;
const JOB_EVENTS = 'subscription { jobEvents { id status } }';
const JOB_COMPLETED = 'subscription($id: ID!) { jobCompleted(id: $id) { id status } }';
const READ = '{ hosts(first: 2) { totalCount nodes { uuid } } }';
const PAGED_READ = 'query ($after: String) { vmInstances(first: 5, after: $after) { nodes { uuid } pageInfo { hasNextPage endCursor } } }';
/** What ioredis says of a connection it cannot use: the gateway says it in its own words. */
const CLIENT_WORDS = /enableOfflineQueue|isn't writeable|Command timed out|Connection is closed|ECONNREFUSED|ioredis|Ready check/i;

interface JobResult {
  id: string;
  status: string;
}

describe('a Redis that stops, then stalls, under two replicas', () => {
  let replicas: AppReplicas;
  let headers: CredentialHeaders;
  const answers: unknown[] = [];

  beforeAll(async () => {
    replicas = await startAppReplicas({ jobPollAfterMs: 500 }, { persistent: true });
    headers = credentialHeaders(replicas.simulator.credentials);
  });

  afterAll(async () => {
    await replicas?.stop();
  });

  async function timed<T>(url: string, query: string, variables: Record<string, unknown> = {}): Promise<{ ms: number; response: GraphQLResponse<T> }> {
    const started = Date.now();
    const response = await gql<T>(url, query, variables, headers);
    answers.push(response);
    return { ms: Date.now() - started, response };
  }

  async function startJob(url: string, suffix: string): Promise<string> {
    const { response } = await timed<{ updateHostNqn: { job: JobResult } }>(url, UPDATE_NQN, { input: { uuid: connectedHost(replicas.simulator), nqn: nqn(suffix), async: true } });
    expect(errorCodes(response)).toEqual([]);
    return response.data!.updateHostNqn.job.id;
  }

  /** What a caller sees while Redis is away: ready replicas, reads within 3 s, writes refused at once with the code. */
  async function expectServedWithoutRedis(): Promise<void> {
    const { replicaA: a, replicaB: b } = replicas;
    for (const replica of [a, b]) {
      expect((await fetch(`${replica.url}/readyz`)).status).toBe(200);
      const read = await timed<{ hosts: { totalCount: number } }>(replica.url, READ);
      expect(errorCodes(read.response)).toEqual([]);
      expect(read.response.data?.hosts.totalCount).toBeGreaterThan(0);
      expect(read.ms).toBeLessThan(READ_WITHIN_MS);
      type Page = { vmInstances: { nodes: { uuid: string }[]; pageInfo: { endCursor: string | null } } };
      const paged = await timed<Page>(replica.url, PAGED_READ);
      expect(errorCodes(paged.response)).toEqual([]);
      expect(paged.response.data?.vmInstances.nodes).toHaveLength(5);
      expect(paged.ms).toBeLessThan(READ_WITHIN_MS);
      // Its endCursor, issued without Redis, pages on without Redis too.
      const endCursor = paged.response.data?.vmInstances.pageInfo.endCursor;
      expect(endCursor).toEqual(expect.any(String));
      const next = await timed<Page>(replica.url, PAGED_READ, { after: endCursor });
      expect(errorCodes(next.response)).toEqual([]);
      expect(next.response.data?.vmInstances.nodes).toHaveLength(5);
      expect(next.response.data?.vmInstances.nodes.map((node) => node.uuid)).not.toContain(paged.response.data?.vmInstances.nodes[4]?.uuid);
      expect(next.ms).toBeLessThan(READ_WITHIN_MS);
      const write = await timed(replica.url, UPDATE_NQN, { input: { uuid: connectedHost(replicas.simulator), nqn: nqn('999'), async: true } });
      expect(errorCodes(write.response)).toEqual(['REDIS_UNAVAILABLE']);
      expect(write.ms).toBeLessThan(READ_WITHIN_MS);
    }
  }

  it('keeps both replicas ready and answering, and delivers every job once to subscriptions opened during the outage', { timeout: 240_000 }, async () => {
    const { redis, simulator, replicaA: a, replicaB: b } = replicas;
    const params = { Authorization: headers.authorization };
    const subscriptions: Collected<unknown>[] = [];
    const subscribe = async <T>(url: string, query: string, variables: Record<string, unknown> = {}): Promise<Collected<T>> => {
      const subscription = await subscribeWs<T>(url, query, variables, params);
      subscriptions.push(subscription as Collected<unknown>);
      return subscription;
    };
    const eventsBefore = await subscribe<{ jobEvents: JobResult }>(b.url, JOB_EVENTS);
    // The jobs finish upstream when released, while Redis is away: a delay would race a slow machine.
    simulator.configure({ holdJobs: true });

    // Stopped.
    const stoppedJobs = [await startJob(a.url, '801'), await startJob(b.url, '802')];
    await redis.stop();
    await eventually(async () => (await dependenciesOf(a.url)).redis === 'down', 'Redis reported down');
    const eventsDuringStop = await subscribe<{ jobEvents: JobResult }>(a.url, JOB_EVENTS);
    const completedDuringStop = await subscribe<{ jobCompleted: JobResult }>(b.url, JOB_COMPLETED, { id: stoppedJobs[0] });
    await expectServedWithoutRedis();
    simulator.configure({ holdJobs: false });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect([eventsBefore, eventsDuringStop, completedDuringStop].map((subscription) => subscription.results)).toEqual([[], [], []]);
    await redis.start();
    await Promise.all([a, b].map((replica) => eventually(async () => redisUpAt(replica.url), 'Redis reported up again', 400, 50)));
    await Promise.all([eventsBefore.waitFor(2, 60_000), eventsDuringStop.waitFor(2, 60_000), completedDuringStop.completed]);

    // Frozen.
    simulator.configure({ holdJobs: true });
    const frozenJobs = [await startJob(a.url, '803'), await startJob(b.url, '804')];
    redis.freeze();
    const frozenAt = Date.now();
    try {
      // Nothing refuses: the replicas learn of the stall from a command left unanswered.
      await Promise.all([a, b].map((replica) => eventually(async () => (await dependenciesOf(replica.url)).redis === 'down', 'the stall found', 200, 50)));
      const eventsDuringFreeze = await subscribe<{ jobEvents: JobResult }>(b.url, JOB_EVENTS);
      const completedDuringFreeze = await subscribe<{ jobCompleted: JobResult }>(a.url, JOB_COMPLETED, { id: frozenJobs[1] });
      await expectServedWithoutRedis();
      simulator.configure({ holdJobs: false });
      await new Promise((resolve) => setTimeout(resolve, frozenAt + FREEZE_MS - Date.now()));
      expect([eventsDuringFreeze, completedDuringFreeze].map((subscription) => subscription.results)).toEqual([[], []]);
      redis.thaw();

      await Promise.all([
        eventsBefore.waitFor(4, 60_000),
        eventsDuringStop.waitFor(4, 60_000),
        eventsDuringFreeze.waitFor(2, 60_000),
        completedDuringFreeze.completed,
      ]);
      // Late duplicates would come now.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const ids = (results: Collected<{ jobEvents: JobResult }>['results']): (string | undefined)[] => results.map((result) => result.data?.jobEvents.id).sort();
      expect(ids(eventsBefore.results)).toEqual([...stoppedJobs, ...frozenJobs].sort());
      expect(ids(eventsDuringStop.results)).toEqual([...stoppedJobs, ...frozenJobs].sort());
      expect(ids(eventsDuringFreeze.results)).toEqual([...frozenJobs].sort());
      expect(completedDuringStop.results).toEqual([{ data: { jobCompleted: { id: stoppedJobs[0], status: 'SUCCEEDED' } } }]);
      expect(completedDuringFreeze.results).toEqual([{ data: { jobCompleted: { id: frozenJobs[1], status: 'SUCCEEDED' } } }]);
    } finally {
      redis.thaw();
      simulator.configure({ holdJobs: false });
    }

    const said = JSON.stringify([...answers, ...subscriptions.map((subscription) => subscription.results)]);
    expect(said).toContain('REDIS_UNAVAILABLE');
    expect(said).not.toMatch(CLIENT_WORDS);
    await Promise.all(subscriptions.map((subscription) => subscription.close()));
  });
});
