/**
 * Operation limits, query cost and budgets, and transport safety: every abusive request gets its
 * documented error (docs/security/limits-and-cost.md) and costs the upstream nothing.
 */
import { createSchema, createYoga } from 'graphql-yoga';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
// The dashboard the bench measures and the batching test pins: its cost must fit the limits.
import { DASHBOARD_QUERY as DASHBOARD } from '../../../bench/dashboard.js';
import { createApp } from '../../../src/app.js';
import { defaultConfig } from '../../../src/config/index.js';
import { useUnexpectedErrorLogging } from '../../../src/observability/use-unexpected-error-logging.js';
import { createSimulator } from '../../../src/simulator/server.js';
import { errorCodes, startHarness, type GraphQLResponse, type Harness } from '../../support/harness.js';
import { subscribeWs } from '../../support/subscriptions.js';

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

/** `{ vmInstances { nodes { host { vmInstances { nodes { host ... } } } } } }`, `levels` times. */
function deepQuery(levels: number): string {
  let inner = 'name';
  for (let i = 0; i < levels; i++) inner = `vmInstances(first: 1) { nodes { host { ${inner} } } }`;
  return `{ hosts(first: 1) { nodes { ${inner} } } }`;
}

describe('operation limits and cost', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness();
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('rejects a depth bomb with MAX_DEPTH_EXCEEDED and no upstream request', async () => {
    harness.resetStats();
    const response = await harness.gql(deepQuery(10));
    expect(errorCodes(response)).toEqual(['MAX_DEPTH_EXCEEDED']);
    expect(response.errors?.[0]?.extensions).toMatchObject({ limit: 12 });
    expect(response.data).toBeUndefined();
    expect(harness.upstreamRequests()).toBe(0);
  });

  it('rejects an alias bomb with MAX_ALIASES_EXCEEDED and no upstream request', async () => {
    harness.resetStats();
    const aliases = Array.from({ length: 50 }, (_, i) => `a${i}: hosts(first: 1) { totalCount }`).join(' ');
    const response = await harness.gql(`{ ${aliases} }`);
    expect(errorCodes(response)).toEqual(['MAX_ALIASES_EXCEEDED']);
    expect(harness.upstreamRequests()).toBe(0);
  });

  it('rejects a 1,000-field query with MAX_TOKENS_EXCEEDED and no upstream request', async () => {
    harness.resetStats();
    const fields = Array.from({ length: 1000 }, () => 'name').join(' ');
    const response = await harness.gql(`{ hosts(first: 1) { nodes { ${fields} } } }`);
    expect(errorCodes(response)).toEqual(['MAX_TOKENS_EXCEEDED']);
    expect(harness.upstreamRequests()).toBe(0);
  });

  it('rejects a directive flood with MAX_DIRECTIVES_EXCEEDED and no upstream request', async () => {
    harness.resetStats();
    const fields = Array.from({ length: 60 }, () => 'totalCount @include(if: true)').join(' ');
    const response = await harness.gql(`{ hosts(first: 1) { ${fields} } }`);
    expect(errorCodes(response)).toEqual(['MAX_DIRECTIVES_EXCEEDED']);
    expect(harness.upstreamRequests()).toBe(0);
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

  it('rejects a malformed Uuid with BAD_USER_INPUT and no upstream request', async () => {
    harness.resetStats();
    const response = await harness.gql('query ($u: Uuid!) { host(uuid: $u) { name } }', { u: 'ZZZ' });
    expect(errorCodes(response)).toEqual(['BAD_USER_INPUT']);
    expect(harness.upstreamRequests()).toBe(0);
  });

  it('rejects wrong variable types with BAD_USER_INPUT and no upstream request, writing nothing to the console', async () => {
    harness.resetStats();
    // Answered before the response cache sees the operation: its "execute function was not
    // called" console warning would otherwise go around the logger for every such request.
    const warn = vi.spyOn(console, 'warn');
    try {
      const response = await harness.gql('query ($n: Int) { hosts(first: $n) { totalCount } }', { n: 'ten' });
      expect(errorCodes(response)).toEqual(['BAD_USER_INPUT']);
      expect(response.data).toBeUndefined();
      expect(harness.upstreamRequests()).toBe(0);
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it('rejects malformed JSON with BAD_REQUEST (HTTP 400) and no upstream request', async () => {
    harness.resetStats();
    const response = await post(harness, '{"query": "{ hosts { totalCount } }",');
    expect(response.status).toBe(400);
    expect(response.body.errors?.map((error) => error.extensions?.code)).toEqual(['BAD_REQUEST']);
    expect(harness.upstreamRequests()).toBe(0);
  });

  it('rejects a 5 MB body with REQUEST_ENTITY_TOO_LARGE (HTTP 413) and no upstream request', async () => {
    harness.resetStats();
    const padding = ' '.repeat(5 * 1024 * 1024);
    const response = await post(harness, `{"query": "{ hosts { totalCount } }"${padding}}`);
    expect(response.status).toBe(413);
    expect(response.body.errors?.map((error) => error.extensions?.code)).toEqual(['REQUEST_ENTITY_TOO_LARGE']);
    expect(harness.upstreamRequests()).toBe(0);
  });

  it('rejects a chunked body over the limit (no Content-Length) the same way', async () => {
    harness.resetStats();
    const chunk = new TextEncoder().encode(' '.repeat(256 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode('{"query": "{ hosts { totalCount } }"'));
        if (sent >= 8) {
          controller.enqueue(new TextEncoder().encode('}'));
          controller.close();
          return;
        }
        sent += 1;
        controller.enqueue(chunk);
      },
    });
    const response = await fetch(`${harness.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...harness.headers },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    const body = (await response.json()) as Omit<GraphQLResponse, 'status'>;
    expect(body.errors?.map((error) => error.extensions?.code)).toEqual(['REQUEST_ENTITY_TOO_LARGE']);
    expect(harness.upstreamRequests()).toBe(0);
  });

  it('applies the same limits over WebSocket: an error message for the operation, the socket stays usable', async () => {
    harness.resetStats();
    const params = { Authorization: harness.headers.authorization };
    const tokens = Array.from({ length: 600 }, () => 'id status').join(' ');
    const flooded = await subscribeWs(harness.url, `subscription { jobEvents { ${tokens} } }`, {}, params);
    await flooded.completed;
    expect(flooded.results.flatMap((result) => result.errors ?? []).map((error) => error.extensions?.code)).toEqual(['MAX_TOKENS_EXCEEDED']);
    await flooded.close();
    const deep = await subscribeWs(harness.url, `subscription { jobEvents { payload { ... on UpdateHostNqnPayload { host { vmInstances { nodes { host { vmInstances { nodes { host { vmInstances { nodes { name } } } } } } } } } } } } }`, {}, params);
    await deep.completed;
    expect(deep.results.flatMap((result) => result.errors ?? []).map((error) => error.extensions?.code)).toEqual(['MAX_DEPTH_EXCEEDED']);
    await deep.close();
    expect(harness.upstreamRequests()).toBe(0);
  });

  it('still runs the dashboard and GraphiQL introspection within the limits', async () => {
    const dashboard = await harness.gql(DASHBOARD);
    expect(dashboard.errors).toBeUndefined();
    const { getIntrospectionQuery } = await import('graphql');
    const introspection = await harness.gql(getIntrospectionQuery());
    expect(introspection.errors).toBeUndefined();
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

describe('transport safety', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({ config: { corsOrigins: ['https://ops.example.com'] } });
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('refuses a simple GET without a preflight-forcing header (CSRF_PREVENTED, 403) and runs one with it', async () => {
    const url = `${harness.url}/graphql?query=${encodeURIComponent('{ __typename }')}`;
    const bare = await fetch(url, { headers: { accept: 'application/json' } });
    expect(bare.status).toBe(403);
    const body = (await bare.json()) as Omit<GraphQLResponse, 'status'>;
    expect(body.errors?.map((error) => error.extensions?.code)).toEqual(['CSRF_PREVENTED']);

    const marked = await fetch(url, { headers: { accept: 'application/json', 'x-graphql-yoga-csrf': '1' } });
    expect(marked.status).toBe(200);
    expect(await marked.json()).toMatchObject({ data: { __typename: 'Query' } });
  });

  it('refuses a form POST (a cross-site form could send one) without the header', async () => {
    const response = await fetch(`${harness.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `query=${encodeURIComponent('{ __typename }')}`,
    });
    expect(response.status).toBe(403);
  });

  it('answers CORS preflights for the configured origins only', async () => {
    const preflight = (origin: string) =>
      fetch(`${harness.url}/graphql`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,authorization' },
      });
    const allowed = await preflight('https://ops.example.com');
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://ops.example.com');
    const foreign = await preflight('https://evil.example.net');
    expect(foreign.headers.get('access-control-allow-origin')).not.toBe('https://evil.example.net');
  });
});

describe('GRAPHIQL=false', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({ config: { graphiql: false } });
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('serves no GraphiQL page, refuses introspection and gives no field suggestions', async () => {
    const page = await fetch(`${harness.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(await page.text()).not.toContain('GraphiQL');
    const introspection = await harness.gql('{ __schema { types { name } } }');
    expect(introspection.data ?? null).toBeNull();
    expect(introspection.errors?.[0]?.message).toMatch(/introspection/i);
    const typo = await harness.gql('{ hostz { totalCount } }');
    expect(typo.errors?.[0]?.message).not.toMatch(/Did you mean/);
    const query = await harness.gql('{ hosts(first: 1) { totalCount } }');
    expect(query.errors).toBeUndefined();
  });
});

describe('unexpected errors', () => {
  it('are masked for the client and logged with the request id', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const yoga = createYoga<Record<string, unknown>, { requestId: string }>({
      schema: createSchema({
        typeDefs: 'type Query { broken: String }',
        resolvers: { Query: { broken: () => { throw new TypeError('secret internal detail'); } } },
      }),
      context: ({ request }) => ({ requestId: request.headers.get('x-request-id') ?? 'none' }),
      plugins: [useUnexpectedErrorLogging({ logger })],
      logging: false,
    });
    const response = await yoga.fetch('http://localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'req-42' },
      body: JSON.stringify({ query: '{ broken }' }),
    });
    const body = (await response.json()) as Omit<GraphQLResponse, 'status'>;
    expect(JSON.stringify(body)).not.toContain('secret internal detail');
    expect(body.errors?.[0]?.message).toBe('Unexpected error.');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ reqId: 'req-42', err: { message: 'secret internal detail' } });
  });

  it('are the only errors logged: an upstream refusal meant for the client is not logged as an error', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const simulator = createSimulator({});
    const app = createApp({ ...defaultConfig, port: 0, host: '127.0.0.1', upstreamUrl: await simulator.start(0, '127.0.0.1') }, { logger });
    try {
      const url = await app.start();
      const response = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'OAuth 00000000000000000000000000000000' },
        body: JSON.stringify({ query: '{ cbtTasks(first: 1) { totalCount } }' }),
      });
      expect(errorCodes((await response.json()) as GraphQLResponse)).toEqual(['UNAUTHENTICATED']);
      expect(lines.filter((line) => Number(line.level) >= 50)).toEqual([]);
    } finally {
      await app.stop();
      await simulator.stop();
    }
  });

  it('are not logged as errors once the client has hung up: its reads were cancelled on purpose', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const hangUp = new AbortController();
    const yoga = createYoga<Record<string, unknown>, { requestId: string; signal: AbortSignal }>({
      schema: createSchema({
        typeDefs: 'type Query { slow: String }',
        resolvers: {
          Query: {
            // What an upstream read does when its caller's signal aborts: it rejects with the reason.
            slow: () => {
              hangUp.abort();
              throw hangUp.signal.reason;
            },
          },
        },
      }),
      context: () => ({ requestId: 'req-43', signal: hangUp.signal }),
      plugins: [useUnexpectedErrorLogging({ logger })],
      logging: false,
    });
    await yoga.fetch('http://localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ slow }' }),
    });
    expect(lines.filter((line) => Number(line.level) >= 50)).toEqual([]);
    expect(lines).toMatchObject([{ level: 20, reqId: 'req-43', msg: 'operation abandoned by its client' }]);
  });
});
