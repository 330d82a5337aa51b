/**
 * The graphql-sse client package against /graphql, in both of its modes: distinct connections
 * (one stream per operation, yoga's own SSE) and single connection (`singleConnection: true`: a
 * reserved stream, operations POSTed to it with its token).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, type Client, type ExecutionResult } from 'graphql-sse';
import { createSchema, createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useSseSingleConnection } from '../../src/plugins/result/use-sse-single-connection.js';
import { startHarness, type Harness } from '../support/harness.js';
import { eventually } from '../support/process.js';

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

describe('single-connection reservations', () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    const yoga = createYoga({
      schema: createSchema({ typeDefs: 'type Query { hello: String }', resolvers: { Query: { hello: () => 'world' } } }),
      plugins: [useSseSingleConnection({ endpoint: '/graphql', maxBodyBytes: 1024, reservationTtlMs: 200, maxPendingReservations: 3 })],
      logging: false,
    });
    server = createServer(yoga);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const reserve = (headers: Record<string, string> = {}) => fetch(url, { method: 'PUT', headers });
  const open = (token: string, signal?: AbortSignal) =>
    fetch(url, { headers: { accept: 'text/event-stream', 'x-graphql-event-stream-token': token }, ...(signal ? { signal } : {}) });

  it('hands out its own token, not one the client proposes', async () => {
    const reserved = await reserve({ 'x-graphql-event-stream-token': 'chosen-by-the-client' });
    expect(reserved.status).toBe(201);
    expect(await reserved.text()).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('takes no operation for a stream that is not open yet', async () => {
    const token = await (await reserve()).text();
    const posted = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-graphql-event-stream-token': token },
      body: JSON.stringify({ query: '{ hello }', extensions: { operationId: '1' } }),
    });
    expect(posted.status).toBe(409);
  });

  it('drops a reservation nobody opens in time, and refuses more than the pending limit with 503 OVERLOADED', async () => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const tokens = await Promise.all([reserve(), reserve(), reserve()].map(async (response) => (await response).text()));
    const refused = await reserve();
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { errors: { extensions: { code: string } }[] }).errors[0]?.extensions.code).toBe('OVERLOADED');
    expect(refused.headers.get('retry-after')).toBe('1');

    await new Promise((resolve) => setTimeout(resolve, 300));
    // Dropped: its stream is gone, and there is room for new reservations.
    const late = await open(tokens[0]!);
    expect(late.status).toBeGreaterThanOrEqual(400);
    expect(late.status).toBeLessThan(500);
    const token = await (await reserve()).text();
    const control = new AbortController();
    const stream = await open(token, control.signal);
    expect(stream.status).toBe(200);
    control.abort();
  });
});
