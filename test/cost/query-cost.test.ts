/**
 * The query cost over real HTTP against the simulator: an operation over `MAX_COST` is refused
 * before it runs, every answer reports its requested and actual cost, and a credential that has
 * spent its budget is rate limited, though a cached answer stays free.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DASHBOARD_QUERY as DASHBOARD } from '../../bench/dashboard.js';
import { errorCodes, startHarness, type GraphQLResponse, type Harness } from '../support/harness.js';

/** POSTs a raw body to /graphql and answers the status, headers and parsed JSON body. */
async function post(harness: Harness, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${harness.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', ...harness.headers, ...headers },
    body,
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: (text === '' ? {} : JSON.parse(text)) as Omit<GraphQLResponse, 'status'> };
}

describe('query cost', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness();
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('rejects first: 100 nested three levels deep with MAX_COST_EXCEEDED and no upstream request', async () => {
    harness.resetStats();
    const warn = vi.spyOn(console, 'warn');
    const response = await harness.gql(/* GraphQL */ `{
      hosts(first: 100) { nodes { vmInstances(first: 100) { nodes { snapshotGroups(first: 100) { nodes { name } } } } } }
    }`).finally(() => warn.mockRestore());
    // (Refused below the response cache: nothing bypasses the logger to say so.)
    expect(warn).not.toHaveBeenCalled();
    expect(errorCodes(response)).toEqual(['MAX_COST_EXCEEDED']);
    const cost = response.errors?.[0]?.extensions?.cost as { requestedQueryCost: number; maximumQueryCost: number };
    expect(cost.requestedQueryCost).toBeGreaterThan(1_000_000);
    expect(cost.maximumQueryCost).toBe(100_000);
    expect(harness.upstreamRequests()).toBe(0);
  });

  it('counts `first` from variables, and the default page when it is omitted', async () => {
    const query = 'query ($n: Int) { hosts(first: $n) { nodes { vmInstances { nodes { name } } } } }';
    const small = await harness.gql(query, { n: 2 });
    const omitted = await harness.gql('{ hosts { nodes { vmInstances { nodes { name } } } } }');
    const cost = (response: GraphQLResponse) => (response.extensions?.cost as { requestedQueryCost: number }).requestedQueryCost;
    // 1 connection + 2 hosts × (1 + 1 connection + 20 VMs)
    expect(cost(small)).toBe(1 + 2 * (1 + 1 + 20));
    expect(cost(omitted)).toBe(1 + 20 * (1 + 1 + 20));
  });

  it('reports the requested and the actual cost of each operation in extensions.cost', async () => {
    const response = await harness.gql(DASHBOARD);
    expect(response.errors).toBeUndefined();
    const cost = response.extensions?.cost as {
      requestedQueryCost: number;
      actualQueryCost: number;
      throttleStatus: { maximumAvailable: number; currentlyAvailable: number; restoreRate: number };
    };
    expect(cost.requestedQueryCost).toBeGreaterThan(0);
    expect(cost.requestedQueryCost).toBeLessThanOrEqual(100_000);
    expect(cost.actualQueryCost).toBeGreaterThan(0);
    expect(cost.actualQueryCost).toBeLessThanOrEqual(cost.requestedQueryCost);
    expect(cost.throttleStatus).toMatchObject({ maximumAvailable: 200_000, restoreRate: 5_000 });
  });

  it('works out the cost of a repeated operation from the variables of each execution', async () => {
    // One document text, so one parsed document: what is kept per operation must not keep the
    // first execution's @include conditions or page size.
    const query = `query ($n: Int, $names: Boolean!, $hbas: Boolean!) {
      vmInstances(first: $n) { nodes { uuid host @include(if: $names) { name } host @include(if: $hbas) { hbaDevices(first: 2) { nodes { uuid } } } } }
    }`;
    type Node = { host?: { hbaDevices?: { nodes: unknown[] } } };
    const costOf = async (variables: Record<string, unknown>) => {
      const response = await harness.gql(query, variables);
      expect(response.errors).toBeUndefined();
      const nodes = (response.data as { vmInstances: { nodes: Node[] } }).vmInstances.nodes;
      const hosts = nodes.filter((node) => node.host).length;
      const hbas = nodes.reduce((sum, node) => sum + (node.host?.hbaDevices?.nodes.length ?? 0), 0);
      return { ...(response.extensions?.cost as { requestedQueryCost: number; actualQueryCost: number }), hosts, hbas };
    };
    const names = await costOf({ n: 2, names: true, hbas: false });
    const hbas = await costOf({ n: 3, names: false, hbas: true });
    expect(names.hosts).toBeGreaterThan(0);
    expect(hbas.hbas).toBeGreaterThan(0);
    // The connection, its nodes, their hosts, and each host's HBA connection and devices.
    expect(names.actualQueryCost).toBe(1 + 2 + names.hosts);
    expect(hbas.actualQueryCost).toBe(1 + 3 + 2 * hbas.hosts + hbas.hbas);
    expect(names.requestedQueryCost).toBe(1 + 2 * 2);
    expect(hbas.requestedQueryCost).toBe(1 + 3 * (1 + 1 + 1 + 2));
  });

  it('works out an operation without variables from the data of each execution', async () => {
    // The same document for two callers (the response cache is per credential, so both execute).
    const query = '{ vmInstances(first: 4) { nodes { uuid host { name } } } }';
    for (const headers of [harness.headers, harness.secondHeaders]) {
      const response = await harness.gql(query, {}, headers);
      const nodes = (response.data as { vmInstances: { nodes: { host: unknown }[] } }).vmInstances.nodes;
      expect(response.extensions?.cost).toMatchObject({
        requestedQueryCost: 1 + 4 * 2,
        actualQueryCost: 1 + nodes.length + nodes.filter((node) => node.host).length,
      });
    }
  });
});

describe('per-credential budgets', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({ config: { costBudget: 100, costBudgetRefill: 1 } });
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('answers RATE_LIMITED with retryAfter (HTTP 429, Retry-After) once a credential has spent its budget, and no upstream request', async () => {
    const query = '{ hosts(first: 60) { nodes { name } } }'; // requests 61 points
    const first = await harness.gql(query);
    expect(first.errors).toBeUndefined();
    // What the first did not use came back: the actual cost is what it returned.
    const firstCost = first.extensions?.cost as { actualQueryCost: number; throttleStatus: { currentlyAvailable: number } };
    expect(firstCost.throttleStatus.currentlyAvailable).toBeGreaterThanOrEqual(100 - firstCost.actualQueryCost);

    const hungry = '{ hosts(first: 90) { nodes { name } } vmInstances(first: 9) { totalCount } }'; // 91 + 1 points
    harness.resetStats();
    const warn = vi.spyOn(console, 'warn');
    const limited = await post(harness, JSON.stringify({ query: hungry })).finally(() => warn.mockRestore());
    expect(warn).not.toHaveBeenCalled();
    expect(limited.status).toBe(429);
    expect(limited.body.errors?.map((error) => error.extensions?.code)).toEqual(['RATE_LIMITED']);
    const retryAfter = limited.body.errors?.[0]?.extensions?.retryAfter;
    expect(typeof retryAfter).toBe('number');
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('retry-after')).toBe(String(retryAfter));
    expect(harness.upstreamRequests()).toBe(0);

    // Another credential has a budget of its own.
    const other = await harness.gql(hungry, undefined, harness.secondHeaders);
    expect(other.errors).toBeUndefined();
  });

  it('serves a cached answer free even when the budget no longer holds its cost', async () => {
    const budgetHarness = await startHarness({ config: { costBudget: 100, costBudgetRefill: 1 } });
    try {
      const query = '{ vmInstances(first: 60) { nodes { name } } }'; // requests 61 points, uses 61
      const first = await budgetHarness.gql(query);
      expect(first.errors).toBeUndefined();
      const left = (first.extensions?.cost as { throttleStatus: { currentlyAvailable: number } }).throttleStatus.currentlyAvailable;
      expect(left).toBeLessThan(61);
      budgetHarness.resetStats();
      const cached = await budgetHarness.gql(query);
      expect(cached.errors).toBeUndefined();
      expect(cached.data).toEqual(first.data);
      expect(budgetHarness.upstreamRequests()).toBe(0);
      // The budget really is short: a query it has not answered before is refused.
      const uncached = await budgetHarness.gql('{ vmInstances(first: 50) { nodes { uuid } } }');
      expect(errorCodes(uncached)).toEqual(['RATE_LIMITED']);
    } finally {
      await budgetHarness.close();
    }
  });
});
