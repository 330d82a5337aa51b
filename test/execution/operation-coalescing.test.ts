/**
 * Operation coalescing: identical queries in flight of one credential share one execution and
 * its upstream calls, over real HTTP against the simulator, whose latency keeps them in flight
 * together. The response cache is off, so every caller reaches execution.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type GraphQLResponse, type Harness } from '../support/harness.js';

const DASHBOARD = 'query Dashboard { vmInstances(first: 10) { totalCount nodes { name state host { name } } } }';
const LATENCY_MS = 300;

async function metric(harness: Harness, name: string): Promise<number> {
  const text = await (await fetch(`${harness.url}/metrics`)).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(name));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** Resolves once the simulator has received `count` requests since the last reset. */
async function upstreamReached(harness: Harness, count: number): Promise<void> {
  while (harness.upstreamRequests() < count) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('operation coalescing', () => {
  let harness: Harness;
  /** Upstream requests of one dashboard on its own. */
  let alone: number;

  beforeAll(async () => {
    harness = await startHarness({ config: { responseCacheTtlMs: 0, jobPollAfterMs: 100 } });
    harness.resetStats();
    const first = await harness.gql(DASHBOARD);
    expect(first.errors).toBeUndefined();
    alone = harness.upstreamRequests();
    expect(alone).toBeGreaterThan(1);
  });

  afterAll(async () => {
    await harness.close();
  });

  afterEach(() => {
    harness.simulator.configure({ latencyMs: 0 });
  });

  it('identical concurrent queries of one credential make one execution and one set of upstream calls, each caller charged', async () => {
    harness.simulator.configure({ latencyMs: LATENCY_MS });
    harness.resetStats();
    const joinedBefore = await metric(harness, 'gateway_coalesced_queries_total{execution="joined"}');
    const answers = await Promise.all(Array.from({ length: 8 }, () => harness.gql(DASHBOARD)));
    expect(harness.upstreamRequests()).toBe(alone);
    expect((await metric(harness, 'gateway_coalesced_queries_total{execution="joined"}')) - joinedBefore).toBe(7);
    for (const answer of answers) {
      expect(answer.errors).toBeUndefined();
      expect(answer.data).toEqual(answers[0]!.data);
    }
    for (const answer of answers) expect(answer.extensions?.cost).toMatchObject({ requestedQueryCost: expect.any(Number), actualQueryCost: expect.any(Number) });
  });

  it('each caller of a shared execution is admitted and charged on its own', async () => {
    const cost = ((await harness.gql(DASHBOARD)).extensions?.cost as { requestedQueryCost: number }).requestedQueryCost;
    // A budget of three dashboards, barely refilled.
    const tight = await startHarness({ config: { responseCacheTtlMs: 0, costBudget: 3 * cost, costBudgetRefill: 1 } });
    try {
      tight.simulator.configure({ latencyMs: LATENCY_MS });
      const answers = await Promise.all(Array.from({ length: 5 }, () => tight.gql(DASHBOARD)));
      expect(answers.filter((answer) => answer.errors === undefined)).toHaveLength(3);
      expect(answers.filter((answer) => answer.errors?.[0]?.extensions?.code === 'RATE_LIMITED')).toHaveLength(2);
    } finally {
      await tight.close();
    }
  });

  it('two credentials never share an execution', async () => {
    harness.simulator.configure({ latencyMs: LATENCY_MS });
    harness.resetStats();
    const [first, second] = await Promise.all([harness.gql(DASHBOARD), harness.gql(DASHBOARD, undefined, harness.secondHeaders)]);
    expect(first.errors).toBeUndefined();
    expect(second.errors).toBeUndefined();
    expect(first.data).not.toEqual(second.data);
    expect(harness.upstreamRequests()).toBe(2 * alone);
  });

  it("a caller's own finished write is visible to its next query while an identical query is in flight", async () => {
    // The hosts are read first, the VMs of each after: a read in flight past its first round.
    const query = '{ hosts(first: 1) { nodes { uuid nqn vmInstances(first: 1) { totalCount } } } }';
    type Hosts = { hosts: { nodes: { uuid: string; nqn: string | null }[] } };
    const before = await harness.gql<Hosts>(query);
    const host = before.data!.hosts.nodes[0]!;
    const nqn = `nqn.2014-08.org.example:coalesce-${Date.now()}`;

    // Every upstream answer waits: the read below takes its hosts before the write changes them,
    // and is still waiting for its VMs when the write has finished.
    harness.simulator.configure({ latencyMs: 1_000 });
    harness.resetStats();
    const inFlight = harness.gql<Hosts>(query);
    await upstreamReached(harness, 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const written = await harness.gql<{ updateHostNqn: { job: { status: string } } }>(
      'mutation($input: UpdateHostNqnInput!) { updateHostNqn(input: $input) { job { status } } }',
      { input: { uuid: host.uuid, nqn, async: false } },
    );
    expect(written.errors).toBeUndefined();
    expect(written.data!.updateHostNqn.job.status).toBe('SUCCEEDED');

    const after = await harness.gql<Hosts>(query);
    expect(after.data!.hosts.nodes[0]).toMatchObject({ uuid: host.uuid, nqn });
    // The read in flight took the hosts before the write: it answers what it read then.
    expect((await inFlight).data!.hosts.nodes[0]!.nqn).toBe(host.nqn);
  });

  it('a caller hanging up does not cancel the execution it shares with the others', async () => {
    harness.simulator.configure({ latencyMs: LATENCY_MS });
    harness.resetStats();
    const gone = new AbortController();
    const first = fetch(`${harness.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...harness.headers },
      body: JSON.stringify({ query: DASHBOARD }),
      signal: gone.signal,
    }).catch((error: unknown) => error);
    await upstreamReached(harness, 1);
    const others = Array.from({ length: 3 }, () => harness.gql(DASHBOARD));
    // Let the others reach the gateway and join before the first caller leaves.
    await new Promise((resolve) => setTimeout(resolve, 50));
    gone.abort();
    expect(await first).toBeInstanceOf(Error);
    for (const answer of await Promise.all(others)) {
      expect(answer.errors).toBeUndefined();
      expect((answer.data as { vmInstances: { nodes: unknown[] } }).vmInstances.nodes).toHaveLength(10);
    }
    expect(harness.upstreamRequests()).toBe(alone);
  });

  it('an execution every caller has hung up on stops reading', async () => {
    harness.simulator.configure({ latencyMs: LATENCY_MS });
    harness.resetStats();
    const callers = Array.from({ length: 3 }, () => new AbortController());
    const requests = callers.map((caller) =>
      fetch(`${harness.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...harness.headers },
        body: JSON.stringify({ query: DASHBOARD }),
        signal: caller.signal,
      }).catch((error: unknown) => error),
    );
    // All gone while the first round of reads waits upstream: the later rounds never start.
    await upstreamReached(harness, 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (const caller of callers) caller.abort();
    await Promise.all(requests);
    await new Promise((resolve) => setTimeout(resolve, 4 * LATENCY_MS));
    expect(harness.upstreamRequests()).toBeLessThan(alone);
  });

  it('COALESCE_QUERIES=false runs every query on its own', async () => {
    const off = await startHarness({ config: { responseCacheTtlMs: 0, coalesceQueries: false } });
    try {
      off.simulator.configure({ latencyMs: LATENCY_MS });
      const answers: GraphQLResponse[] = await Promise.all(Array.from({ length: 4 }, () => off.gql(DASHBOARD)));
      for (const answer of answers) expect(answer.errors).toBeUndefined();
      // One host batch per execution (upstream calls alone could be shared below execution).
      expect(await metric(off, 'gateway_dataloader_batch_size_count')).toBe(4);
      expect(await metric(off, 'gateway_coalesced_queries_total')).toBe(0);
    } finally {
      await off.close();
    }
  });
});
