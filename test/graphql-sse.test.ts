/**
 * The graphql-sse client package against /graphql, in both of its modes: distinct connections
 * (one stream per operation, yoga's own SSE) and single connection (`singleConnection: true`: a
 * reserved stream, operations POSTed to it with its token).
 */
import { createClient, type Client, type ExecutionResult } from 'graphql-sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness.js';
import { eventually } from './support/process.js';

const UPDATE_NQN = /* GraphQL */ `
  mutation Update($input: UpdateHostNqnInput!) {
    updateHostNqn(input: $input) { job { id status } }
  }
`;

describe.each([
  { mode: 'distinct connections', singleConnection: false },
  { mode: 'single connection', singleConnection: true },
])('graphql-sse, $mode mode', ({ singleConnection }) => {
  let harness: Harness;
  let client: Client;

  beforeAll(async () => {
    harness = await startHarness({ config: { jobPollAfterMs: 100 } });
    client = createClient({ url: `${harness.url}/graphql`, singleConnection, headers: () => ({ ...harness.headers }), retryAttempts: 0 });
  });

  afterAll(async () => {
    client?.dispose();
    await harness?.close();
  });

  /** Every result of one operation, once it completes. */
  function collect<T>(query: string, variables: Record<string, unknown> = {}): Promise<ExecutionResult<T, unknown>[]> {
    return new Promise((resolve, reject) => {
      const results: ExecutionResult<T, unknown>[] = [];
      client.subscribe<T>({ query, variables }, { next: (result) => results.push(result), error: reject, complete: () => resolve(results) });
    });
  }

  function connectedHost(): string {
    const { tenantId } = harness.simulator.credentials;
    const host = [...harness.simulator.store.hosts.list(tenantId)].find((candidate) => candidate.status === 'Connected');
    if (!host) throw new Error('the estate has no connected host');
    return host.uuid;
  }

  it('runs a query with the caller\'s credentials', async () => {
    const { tenantId } = harness.simulator.credentials;
    const results = await collect<{ hosts: { totalCount: number } }>('{ hosts(first: 1) { totalCount } }');
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ data: { hosts: { totalCount: [...harness.simulator.store.hosts.list(tenantId)].length } } });
  });

  it('delivers jobCompleted for an async mutation, the id written as a variable', async () => {
    harness.simulator.configure({ asyncDelayMs: 300 });
    try {
      const nqn = `nqn.2014-08.org.nvmexpress:uuid:0000000${singleConnection ? 2 : 1}-0000-4000-8000-000000000000`;
      const started = await harness.gql<{ updateHostNqn: { job: { id: string; status: string } } }>(UPDATE_NQN, {
        input: { uuid: connectedHost(), nqn, async: true },
      });
      expect(started.errors).toBeUndefined();
      const job = started.data!.updateHostNqn.job;
      expect(job.status).toBe('RUNNING');
      const results = await collect<{ jobCompleted: unknown }>(
        'subscription($id: ID!) { jobCompleted(id: $id) { id status payload { ... on UpdateHostNqnPayload { host { nqn } } } } }',
        { id: job.id },
      );
      expect(results).toEqual([{ data: { jobCompleted: { id: job.id, status: 'SUCCEEDED', payload: { host: { nqn } } } } }]);
    } finally {
      harness.simulator.configure({ asyncDelayMs: 5 });
    }
  });

  it('streams jobEvents while other operations come and go, until the client unsubscribes', async () => {
    const events: { jobEvents: { id: string } }[] = [];
    let completed = false;
    const unsubscribe = client.subscribe<{ jobEvents: { id: string } }>(
      { query: 'subscription { jobEvents { id } }' },
      { next: (result) => void (result.data && events.push(result.data)), error: () => {}, complete: () => void (completed = true) },
    );
    try {
      const ids: string[] = [];
      for (const suffix of ['3', '4']) {
        // A query on the same client while the subscription is open.
        expect((await collect('{ hosts(first: 1) { totalCount } }'))[0]).toHaveProperty('data.hosts.totalCount');
        const started = await harness.gql<{ updateHostNqn: { job: { id: string } } }>(UPDATE_NQN, {
          input: { uuid: connectedHost(), nqn: `nqn.2014-08.org.nvmexpress:uuid:0000000${suffix}-0000-4000-8000-00000000000${singleConnection ? 1 : 0}` },
        });
        ids.push(started.data!.updateHostNqn.job.id);
      }
      await eventually(() => events.length >= 2, 'two job events');
      expect(events.map((event) => event.jobEvents.id)).toEqual(ids);
    } finally {
      unsubscribe();
    }
    expect(completed).toBe(false);
  });

  it('answers a field that needs a missing credential with UNAUTHENTICATED, like any other transport', async () => {
    const bare = createClient({ url: `${harness.url}/graphql`, singleConnection, headers: { 'x-graphql-yoga-csrf': '1' }, retryAttempts: 0 });
    try {
      const results = await new Promise<ExecutionResult<unknown, unknown>[]>((resolve, reject) => {
        const collected: ExecutionResult<unknown, unknown>[] = [];
        bare.subscribe({ query: '{ cbtTasks(first: 1) { totalCount } }' }, { next: (result) => collected.push(result), error: reject, complete: () => resolve(collected) });
      });
      const errors = results.flatMap((result) => (result.errors ?? []) as unknown as { extensions?: Record<string, unknown> }[]);
      expect(errors.map((error) => error.extensions?.code)).toEqual(['UNAUTHENTICATED']);
      // Yoga's own bookkeeping (the HTTP status it would answer) is not part of the answer.
      expect(errors[0]?.extensions).not.toHaveProperty('http');
    } finally {
      bare.dispose();
    }
  });
});
