/**
 * Identical upstream GETs in flight share one HTTP exchange (`SHARE_UPSTREAM_GETS`): across
 * GraphQL requests, never across credentials, never after a write finished, and a caller that
 * leaves takes nobody else's answer with it. Counted on the simulator, which answers slowly
 * enough (`latencyMs`) for the reads to overlap.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator/server.js';
import type { CursorCredential, UpstreamClient, UpstreamRequestEvent } from '../../src/upstream/index.js';
import { startHarness, type Harness } from '../support/harness.js';
import { createTestUpstreamClient } from '../support/upstream-client.js';

const LATENCY_MS = 150;

describe('the upstream client shares identical reads in flight', () => {
  let simulator: Simulator;
  let url: string;
  let token: CursorCredential;
  let otherToken: CursorCredential;
  const clients: UpstreamClient[] = [];

  function newClient(options: { shareUpstreamGets?: boolean; onRequest?: (event: UpstreamRequestEvent) => void; onSharedRead?: (operation: string) => void } = {}): UpstreamClient {
    const client = createTestUpstreamClient({ upstreamUrl: url, upstreamTimeoutMs: 5000, ...options });
    clients.push(client);
    return client;
  }

  const page = (client: UpstreamClient, credential: CursorCredential, signal?: AbortSignal) =>
    client.cursorQuery(credential, { resourceType: 'vm', pageSize: 5 }, { signal });

  beforeAll(async () => {
    simulator = createSimulator({ seed: 7, hosts: 4, vms: 45, asyncDelayMs: 5, latencyMs: LATENCY_MS });
    url = await simulator.start(0, '127.0.0.1');
    token = { authorization: `Bearer ${simulator.credentials.token}`, tenantId: simulator.credentials.tenantId };
    otherToken = { authorization: `Bearer ${simulator.credentials.second.token}`, tenantId: simulator.credentials.second.tenantId };
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await simulator.stop();
  });

  beforeEach(() => simulator.resetStats());

  it('two identical reads of one credential make one upstream request, reported once', async () => {
    const events: UpstreamRequestEvent[] = [];
    const shared: string[] = [];
    const client = newClient({ onRequest: (event) => events.push(event), onSharedRead: (operation) => shared.push(operation) });
    const [first, second] = await Promise.all([page(client, token), page(client, token)]);
    expect(simulator.stats().total).toBe(1);
    expect(second.items.map((vm) => vm.uuid)).toEqual(first.items.map((vm) => vm.uuid));
    expect(events).toHaveLength(1);
    expect(shared).toEqual(['CursorQuery']);
  });

  it('two credentials never share', async () => {
    const client = newClient();
    const [mine, theirs] = await Promise.all([page(client, token), page(client, otherToken)]);
    expect(simulator.stats().total).toBe(2);
    expect(mine.items.map((vm) => vm.uuid)).not.toEqual(theirs.items.map((vm) => vm.uuid));
  });

  it('a caller that aborts is rejected alone; the exchange goes on for the other', async () => {
    const events: UpstreamRequestEvent[] = [];
    const client = newClient({ onRequest: (event) => events.push(event) });
    const leaving = new AbortController();
    const gone = page(client, token, leaving.signal);
    const staying = page(client, token, new AbortController().signal);
    setTimeout(() => leaving.abort(new Error('client gone')), LATENCY_MS / 3);
    await expect(gone).rejects.toThrow('client gone');
    const answer = await staying;
    expect(answer.items).toHaveLength(5);
    expect(simulator.stats().total).toBe(1);
    expect(events.map((event) => event.error)).toEqual([undefined]);
  });

  it('the exchange is aborted once every caller has gone, and the next read starts afresh', async () => {
    const events: UpstreamRequestEvent[] = [];
    const client = newClient({ onRequest: (event) => events.push(event) });
    const callers = [new AbortController(), new AbortController()];
    const reads = callers.map((caller) => page(client, token, caller.signal));
    for (const caller of callers) caller.abort(new Error('client gone'));
    for (const read of reads) await expect(read).rejects.toThrow('client gone');
    await expect.poll(() => events.length).toBe(1);
    expect(events[0]?.error).toBe('ABORTED');
    expect((await page(client, token)).items).toHaveLength(5);
    expect(events).toHaveLength(2);
  });

  it('a read that starts after a write finished does not join one in flight before it', async () => {
    const client = newClient();
    const before = page(client, token);
    client.closeReadsInFlight();
    const after = page(client, token);
    await Promise.all([before, after]);
    expect(simulator.stats().total).toBe(2);
  });

  it('turned off, every read makes its own request', async () => {
    const client = newClient({ shareUpstreamGets: false });
    await Promise.all([page(client, token), page(client, token)]);
    expect(simulator.stats().total).toBe(2);
  });
});

// Operation coalescing off: identical queries would otherwise share their whole execution, and
// these tests are about separate executions sharing their upstream reads.
describe('GraphQL requests share upstream reads in flight', () => {
  // Every VM's host and volumes: a cursor page, then the hosts' and the volumes' batches.
  const QUERY = '{ vmInstances(first: 5) { nodes { name host { name } volumes { uuid } } } }';
  let harness: Harness;
  let alone: number;

  beforeAll(async () => {
    harness = await startHarness({ simulator: { latencyMs: LATENCY_MS }, config: { responseCacheTtlMs: 0, coalesceQueries: false } });
    harness.resetStats();
    const answer = await harness.gql(QUERY);
    expect(answer.errors).toBeUndefined();
    alone = harness.upstreamRequests();
  });

  afterAll(async () => {
    await harness.close();
  });

  beforeEach(() => harness.resetStats());

  it('two identical concurrent queries of one credential make the upstream requests of one', async () => {
    const answers = await Promise.all([harness.gql(QUERY), harness.gql(QUERY)]);
    expect(answers.map((answer) => answer.errors)).toEqual([undefined, undefined]);
    expect(answers[1]?.data).toEqual(answers[0]?.data);
    expect(harness.upstreamRequests()).toBe(alone);
    const metrics = await (await fetch(`${harness.url}/metrics`)).text();
    expect(metrics).toMatch(/gateway_upstream_requests_shared_total\{operation="CursorQuery"\} [1-9]/);
  });

  it('two credentials never share', async () => {
    const answers = await Promise.all([harness.gql(QUERY), harness.gql(QUERY, undefined, harness.secondHeaders)]);
    expect(answers.map((answer) => answer.errors)).toEqual([undefined, undefined]);
    expect(harness.upstreamRequests()).toBe(2 * alone);
  });

  it('a client that hangs up leaves the other its whole answer', async () => {
    const leaving = new AbortController();
    const gone = fetch(`${harness.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...harness.headers },
      body: JSON.stringify({ query: QUERY }),
      signal: leaving.signal,
    });
    const staying = harness.gql(QUERY);
    setTimeout(() => leaving.abort(), LATENCY_MS / 3);
    await expect(gone).rejects.toThrow();
    const answer = await staying;
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toMatchObject({ vmInstances: { nodes: expect.arrayContaining([expect.objectContaining({ host: expect.anything() })]) } });
    expect(harness.upstreamRequests()).toBe(alone);
  });

  it('SHARE_UPSTREAM_GETS=false gives every query its own upstream requests', async () => {
    const unshared = await startHarness({ simulator: { latencyMs: LATENCY_MS }, config: { responseCacheTtlMs: 0, coalesceQueries: false, shareUpstreamGets: false } });
    try {
      await Promise.all([unshared.gql(QUERY), unshared.gql(QUERY)]);
      expect(unshared.upstreamRequests()).toBe(2 * alone);
    } finally {
      await unshared.close();
    }
  });
});
