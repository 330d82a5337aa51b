/**
 * Amplification into the upstream (issue 19): what one abusive request, or a run of them from one
 * address, can make the gateway send upstream. Every attack is bounded in count, runs over
 * loopback against the embedded simulator, and asserts a figure counted by the simulator's own
 * `GET /__sim/stats` (zeroed with `POST /__sim/reset`).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { errorCodes, startHarness, type GraphQLResponse, type Harness } from '../support/harness.js';

const NODES = 'query($ids: [ID!]!) { nodes(ids: $ids) { id } }';

/** A session the upstream never issued. */
function inventedSession(): string {
  return `OAuth ${randomBytes(16).toString('hex')}`;
}

/** Global ids of `count` host NICs on as many made-up hosts: each would be a GetHostNetworkFacts call of its own. */
function madeUpHostNicIds(count: number): string[] {
  return Array.from({ length: count }, () =>
    Buffer.from(`HostNic:${randomBytes(16).toString('hex')}.${randomBytes(16).toString('hex')}`).toString('base64'),
  );
}

async function simulatorStats(harness: Harness): Promise<{ total: number; byOperation: Record<string, number> }> {
  const response = await fetch(`${harness.simulator.url}/__sim/stats`);
  return (await response.json()) as { total: number; byOperation: Record<string, number> };
}

async function resetSimulatorStats(harness: Harness): Promise<void> {
  await fetch(`${harness.simulator.url}/__sim/reset`, { method: 'POST' });
}

/** Upstream calls the simulator counted while `attack` ran. */
async function upstreamCallsOf(harness: Harness, attack: () => Promise<unknown>): Promise<number> {
  await resetSimulatorStats(harness);
  await attack();
  return (await simulatorStats(harness)).total;
}

function costOf(response: GraphQLResponse): { requestedQueryCost: number; throttleStatus: { currentlyAvailable: number } } {
  return response.extensions?.cost as { requestedQueryCost: number; throttleStatus: { currentlyAvailable: number } };
}

describe('amplification into the upstream', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({ config: { responseCacheTtlMs: 0 } });
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('a nodes request of 100 made-up host NIC ids under an invented session makes at most one upstream call', async () => {
    let response: GraphQLResponse | undefined;
    const calls = await upstreamCallsOf(harness, async () => {
      response = await harness.gql(NODES, { ids: madeUpHostNicIds(100) }, { authorization: inventedSession() });
    });
    // Before: 100 GetHostNetworkFacts calls, one per made-up host.
    expect(calls).toBeLessThanOrEqual(1);
    expect(new Set(errorCodes(response!))).toEqual(new Set(['UNAUTHENTICATED']));
  });

  it('a nodes request of 5,000 made-up ids under an invented session makes at most one upstream call', async () => {
    let response: GraphQLResponse | undefined;
    const calls = await upstreamCallsOf(harness, async () => {
      response = await harness.gql(NODES, { ids: madeUpHostNicIds(5_000) }, { authorization: inventedSession() });
    });
    // Before: 1,032 calls (32 connections and the 1,000-call queue full), the rest UPSTREAM_UNAVAILABLE.
    expect(calls).toBeLessThanOrEqual(1);
    expect(errorCodes(response!)).not.toContain('UPSTREAM_UNAVAILABLE');
  });

  it('a second request with a credential the upstream rejected makes no upstream call', async () => {
    const session = inventedSession();
    const first = await harness.gql(NODES, { ids: madeUpHostNicIds(10) }, { authorization: session });
    expect(errorCodes(first)).toContain('UNAUTHENTICATED');
    let second: GraphQLResponse | undefined;
    const calls = await upstreamCallsOf(harness, async () => {
      second = await harness.gql(NODES, { ids: madeUpHostNicIds(10) }, { authorization: session });
    });
    expect(calls).toBe(0);
    expect(new Set(errorCodes(second!))).toEqual(new Set(['UNAUTHENTICATED']));
  });

  it('the same rejected session spelled differently makes no upstream call either', async () => {
    const token = randomBytes(16).toString('hex');
    await harness.gql('{ cbtTasks(first: 1) { totalCount } }', undefined, { authorization: `OAuth ${token}` });
    let again: GraphQLResponse | undefined;
    const calls = await upstreamCallsOf(harness, async () => {
      again = await harness.gql('{ cbtTasks(first: 1) { totalCount } }', undefined, { authorization: `oauth   ${token}` });
    });
    expect(calls).toBe(0);
    expect(errorCodes(again!)).toEqual(['UNAUTHENTICATED']);
  });
});

describe('a legitimate tenant under a flood of made-up ids', () => {
  let harness: Harness;

  beforeAll(async () => {
    // A small pool and queue and a slow upstream, so that a flood of calls would fill them for a while.
    harness = await startHarness({
      simulator: { latencyMs: 20 },
      config: { responseCacheTtlMs: 0, upstreamConnections: 4, upstreamMaxQueued: 50 },
    });
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('answers without UPSTREAM_UNAVAILABLE while invented sessions ask for 300 made-up NICs', async () => {
    const attack = Promise.all(
      Array.from({ length: 3 }, () => harness.gql(NODES, { ids: madeUpHostNicIds(100) }, { authorization: inventedSession() })),
    );
    // Started while the attack's calls are (before the change: were) queued.
    await new Promise((resolve) => setTimeout(resolve, 30));
    const legitimate = await harness.gql<{ hosts: { nodes: { networkFacts: unknown }[] } }>(
      '{ hosts(first: 4) { nodes { networkFacts { nics { id } } } } }',
    );
    const answers = await attack;
    expect(errorCodes(legitimate)).toEqual([]);
    expect(legitimate.data?.hosts.nodes.every((host) => host.networkFacts !== null)).toBe(true);
    for (const answer of answers) expect(errorCodes(answer)).not.toContain('UPSTREAM_UNAVAILABLE');
  });
});

describe('the budget of an address for credentials the upstream has not accepted', () => {
  const BURST = 10;
  let harness: Harness;

  beforeAll(async () => {
    // One call a minute regained: the 100 requests below run in far less.
    harness = await startHarness({ config: { unverifiedCallsPerAddress: BURST, unverifiedCallsPerMinute: 1, trustedProxies: ['127.0.0.1'] } });
  });

  afterAll(async () => {
    await harness?.close();
  });

  afterEach(async () => {
    await resetSimulatorStats(harness);
  });

  it(`100 requests with fresh invented sessions from one address make at most ${BURST} + 1 upstream calls`, async () => {
    const tenant = { ...harness.headers, 'x-forwarded-for': '203.0.113.7' };
    expect((await harness.gql('{ cbtTasks(first: 1) { totalCount } }', undefined, tenant)).errors).toBeUndefined();
    const answers: GraphQLResponse[] = [];
    const calls = await upstreamCallsOf(harness, async () => {
      for (let i = 0; i < 100; i++) {
        answers.push(await harness.gql('{ cbtTasks(first: 1) { totalCount } }', undefined, { authorization: inventedSession(), 'x-forwarded-for': '203.0.113.7' }));
      }
    });
    // Before: 100 calls, every invented credential with a full budget of its own.
    expect(calls).toBeLessThanOrEqual(BURST + 1);
    const codes = answers.flatMap(errorCodes);
    expect(codes.filter((code) => code === 'RATE_LIMITED').length).toBeGreaterThanOrEqual(100 - BURST - 1);
    const limited = answers.find((answer) => errorCodes(answer).includes('RATE_LIMITED'));
    expect(limited?.errors?.[0]?.extensions?.retryAfter).toBeGreaterThan(0);
    // A tenant whose session the upstream accepted before is served from the same address...
    expect((await harness.gql('{ cbtTasks(first: 1) { totalCount } }', undefined, tenant)).errors).toBeUndefined();
    // ...and another client behind the trusted proxy (127.0.0.1) has a budget of its own.
    const elsewhere = await harness.gql('{ cbtTasks(first: 1) { totalCount } }', undefined, {
      authorization: inventedSession(),
      'x-forwarded-for': '203.0.113.7, 198.51.100.20',
    });
    expect(errorCodes(elsewhere)).toEqual(['UNAUTHENTICATED']);
  });
});

describe('X-Forwarded-For from a peer that is not a trusted proxy', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({ config: { unverifiedCallsPerAddress: 3, unverifiedCallsPerMinute: 1 } });
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('buys no fresh budget: 20 invented sessions, each claiming another address, make at most 3 + 1 upstream calls', async () => {
    const calls = await upstreamCallsOf(harness, async () => {
      for (let i = 0; i < 20; i++) {
        await harness.gql('{ cbtTasks(first: 1) { totalCount } }', undefined, { authorization: inventedSession(), 'x-forwarded-for': `192.0.2.${i + 1}` });
      }
    });
    expect(calls).toBeLessThanOrEqual(4);
  });
});

describe('the credential as the upstream reads it', () => {
  let harness: Harness;
  let session: string;

  beforeAll(async () => {
    // A budget that refills one point a second: what one request spends shows in the next one's.
    harness = await startHarness({ config: { responseCacheTtlMs: 0, costBudget: 1_000, costBudgetRefill: 1 } });
    session = harness.simulator.credentials.session;
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('`OAuth <s>` and `oauth  <s>` draw on one cost budget', async () => {
    const query = '{ hosts(first: 5) { nodes { uuid } } }';
    const first = await harness.gql(query, undefined, { authorization: `OAuth ${session}`, 'x-resources-authorization': harness.headers['x-resources-authorization'], 'x-tenant-id': harness.headers['x-tenant-id'] });
    const second = await harness.gql(query, undefined, { authorization: `oauth  ${session}`, 'x-resources-authorization': harness.headers['x-resources-authorization'], 'x-tenant-id': harness.headers['x-tenant-id'] });
    expect(first.errors).toBeUndefined();
    expect(second.errors).toBeUndefined();
    const spent = 1 + 5;
    expect(costOf(first).throttleStatus.currentlyAvailable).toBe(1_000 - spent);
    // Before: 994 again, a full budget of its own (the refill adds at most a point or two meanwhile).
    expect(costOf(second).throttleStatus.currentlyAvailable).toBeLessThanOrEqual(1_000 - 2 * spent + 2);
  });

  it('the same session spelled `oauth` reads the job it started as `OAuth`', async () => {
    const hosts = await harness.gql<{ hosts: { nodes: { uuid: string; status: string }[] } }>('{ hosts(first: 20) { nodes { uuid status } } }');
    const host = hosts.data!.hosts.nodes.find((candidate) => candidate.status === 'CONNECTED')!;
    const started = await harness.gql<{ updateHostNqn: { job: { id: string } } }>(
      'mutation($input: UpdateHostNqnInput!) { updateHostNqn(input: $input) { job { id } } }',
      { input: { uuid: host.uuid, nqn: `nqn.2014-08.org.example:spelling-${Date.now()}`, async: true } },
      { authorization: `OAuth ${session}` },
    );
    const { id } = started.data!.updateHostNqn.job;
    const read = await harness.gql<{ job: { id: string } }>('query($id: ID!) { job(id: $id) { id } }', { id }, { authorization: `oauth   ${session}` });
    // Before: FORBIDDEN, "started with another credential".
    expect(read.errors).toBeUndefined();
    expect(read.data?.job.id).toBe(id);
  });
});

describe('the cost of upstream calls and of introspection', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({ config: { responseCacheTtlMs: 0 } });
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('charges each id of nodes as the upstream call it can cause', async () => {
    const response = await harness.gql(NODES, { ids: madeUpHostNicIds(100) });
    // 100 records and 100 calls at 10 points (before: 100).
    expect(costOf(response).requestedQueryCost).toBe(100 * (1 + 10));
  });

  it('charges a relation with no batch form per parent, even when it answers a scalar', async () => {
    const response = await harness.gql('{ hosts(first: 10) { nodes { blockDevices sensors } } }');
    expect(response.errors).toBeUndefined();
    // 1 connection + 10 hosts, and two calls per host at 10 points (before: 11).
    expect(costOf(response).requestedQueryCost).toBe(1 + 10 * (1 + 2 * 10));
  });

  it('charges introspection in proportion to what it returns', async () => {
    const small = await harness.gql('{ __type(name: "Query") { name } }');
    const types = await harness.gql<{ __schema: { types: unknown[] } }>('{ __schema { types { name } } }');
    const fields = await harness.gql('{ __schema { types { name fields { name } } } }');
    expect(costOf(small).requestedQueryCost).toBe(1);
    const typeCount = types.data!.__schema.types.length;
    // Before: 0 for each.
    expect(costOf(types).requestedQueryCost).toBe(1 + typeCount);
    expect(costOf(fields).requestedQueryCost).toBeGreaterThan(5 * typeCount);
  });
});
