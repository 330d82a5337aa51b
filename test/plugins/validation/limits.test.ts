/**
 * Operation limits and transport safety: every abusive request gets its documented error
 * (docs/security/limits-and-cost.md) and costs the upstream nothing. (The query cost and budgets:
 * test/cost/query-cost.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
// The dashboard the bench measures and the batching test pins: its cost must fit the limits.
import { DASHBOARD_QUERY as DASHBOARD } from '../../../bench/dashboard.js';
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

describe('operation limits', () => {
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
