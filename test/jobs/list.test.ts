/**
 * `jobs(...)` and `Job` as a node: a dashboard reloaded while a write runs finds the job again,
 * newest first, filtered by status and operation, refetchable by `node(id:)`; never another
 * credential's. Over the in-process store and over Redis (two replicas, one list).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { startAppReplicas, type AppReplicas } from '../support/app-replicas.js';
import { credentialHeaders, startHarness, type GraphQLResponse, type Harness } from '../support/harness.js';
import { connectedHost, gql, nqn, UPDATE_NQN } from '../support/replica-jobs.js';

interface JobNode {
  id: string;
  status: string;
  operation: string;
}

interface JobsPage {
  jobs: { totalCount: number; edges: { cursor: string; node: JobNode }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
}

const JOBS = `query($first: Int, $after: String, $status: JobStatus, $operation: JobOperation) {
  jobs(first: $first, after: $after, status: $status, operation: $operation) {
    totalCount
    edges { cursor node { id status operation } }
    pageInfo { hasNextPage endCursor }
  }
}`;

type Ask = <T>(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>) => Promise<GraphQLResponse<T>>;

/** The behaviour both stores must show; `askA` and `askB` may be two replicas of one fleet. */
function describeJobList(name: string, setup: () => Promise<{ askA: Ask; askB: Ask; hostUuid: string; slowDown: (ms: number) => void; close: () => Promise<void>; second: Record<string, string> }>) {
  describe(name, () => {
    let env: Awaited<ReturnType<typeof setup>>;

    beforeAll(async () => {
      env = await setup();
    });

    afterAll(async () => {
      await env.close();
    });

    async function start(suffix: string, async = true): Promise<string> {
      const response = await env.askA<{ updateHostNqn: { job: { id: string } } }>(UPDATE_NQN, { input: { uuid: env.hostUuid, nqn: nqn(suffix), async } });
      expect(response.errors).toBeUndefined();
      return response.data!.updateHostNqn.job.id;
    }

    it('a reloaded client finds its running job in jobs(status: RUNNING), and refetches it by node(id:)', async () => {
      env.slowDown(3000);
      const running = await start('running');
      const page = await env.askB<JobsPage>(JOBS, { status: 'RUNNING' });
      expect(page.errors).toBeUndefined();
      expect(page.data!.jobs.edges.map((edge) => edge.node)).toContainEqual({ id: running, status: 'RUNNING', operation: 'UPDATE_HOST_NQN' });
      expect(page.data!.jobs.edges.every((edge) => edge.node.status === 'RUNNING')).toBe(true);

      const node = await env.askB<{ node: { __typename: string; id: string; status: string } }>('query($id: ID!) { node(id: $id) { __typename id ... on Job { status } } }', { id: running });
      expect(node.data?.node).toEqual({ __typename: 'Job', id: running, status: 'RUNNING' });
      env.slowDown(5);
    });

    it('never lists another credential\'s jobs, and node(id:) of one is NOT_FOUND', async () => {
      const mine = await start('mine', false);
      const theirs = await env.askA<JobsPage>(JOBS, { first: 100 }, env.second);
      expect(theirs.errors).toBeUndefined();
      expect(theirs.data!.jobs.edges.map((edge) => edge.node.id)).not.toContain(mine);

      const node = await env.askA<{ node: unknown }>('query($id: ID!) { node(id: $id) { id } }', { id: mine }, env.second);
      expect(node.data?.node).toBeNull();
      expect(node.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');

      const own = await env.askA<JobsPage>(JOBS, { first: 100 });
      expect(own.data!.jobs.edges.map((edge) => edge.node.id)).toContain(mine);
    });

    it('lists newest first and pages on by cursor without repeating a job when newer ones arrive', async () => {
      const ids: string[] = [];
      for (const suffix of ['p1', 'p2', 'p3', 'p4']) ids.push(await start(suffix, false));
      const first = await env.askB<JobsPage>(JOBS, { first: 2, operation: 'UPDATE_HOST_NQN' });
      expect(first.data!.jobs.edges.map((edge) => edge.node.id)).toEqual([ids[3], ids[2]]);
      expect(first.data!.jobs.pageInfo.hasNextPage).toBe(true);

      // A newer job arrives between the pages: the next page still starts after the cursor.
      await start('p5', false);
      const next = await env.askA<JobsPage>(JOBS, { first: 2, operation: 'UPDATE_HOST_NQN', after: first.data!.jobs.pageInfo.endCursor });
      expect(next.data!.jobs.edges.map((edge) => edge.node.id)).toEqual([ids[1], ids[0]]);
    });

    it('filters by operation, and refuses a cursor of other filters', async () => {
      const none = await env.askA<JobsPage>(JOBS, { operation: 'DESTROY_VM_INSTANCE' });
      expect(none.data!.jobs).toMatchObject({ totalCount: 0, edges: [] });

      const page = await env.askA<JobsPage>(JOBS, { first: 1, status: 'SUCCEEDED' });
      const cursor = page.data!.jobs.pageInfo.endCursor;
      const mixed = await env.askA<JobsPage>(JOBS, { first: 1, status: 'FAILED', after: cursor });
      expect(mixed.errors?.[0]?.extensions?.code).toBe('INVALID_CURSOR');
    });

    it('asks for the resource credential', async () => {
      const anonymous = await env.askA<JobsPage>(JOBS, {}, {});
      expect(anonymous.data?.jobs).toBeNull();
      expect(anonymous.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    });
  });
}

describeJobList('jobs(...) in one process', async () => {
  const harness: Harness = await startHarness();
  const ask: Ask = (query, variables, headers) => harness.gql(query, variables, headers);
  return {
    askA: ask,
    askB: ask,
    hostUuid: connectedHost(harness.simulator),
    slowDown: (ms) => harness.simulator.configure({ asyncDelayMs: ms }),
    second: harness.secondHeaders,
    close: () => harness.close(),
  };
});

describeJobList('jobs(...) over Redis, two replicas', async () => {
  const fleet: AppReplicas = await startAppReplicas({});
  const headers = credentialHeaders(fleet.simulator.credentials);
  const on =
    (app: App): Ask =>
    (query, variables = {}, asked = headers) =>
      gql(app.url, query, variables, asked);
  return {
    askA: on(fleet.replicaA),
    askB: on(fleet.replicaB),
    hostUuid: connectedHost(fleet.simulator),
    slowDown: (ms) => fleet.simulator.configure({ asyncDelayMs: ms }),
    second: credentialHeaders(fleet.simulator.credentials.second),
    close: () => fleet.stop(),
  };
});
