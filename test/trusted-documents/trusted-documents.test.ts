/**
 * TRUSTED_DOCUMENTS: only the manifest's operations run, named by id the way Apollo Client, Relay
 * and GraphQL Code Generator's client preset send them, over POST, GET, graphql-ws and SSE; every
 * other document is refused before it is parsed, and cost, limits and budgets still apply.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createApp } from '../../src/app.js';
import { defaultConfig } from '../../src/config/index.js';
import { ManifestError } from '../../src/trusted-documents/manifest.js';
import { errorCodes, startHarness, type Harness } from '../support/harness.js';
import { subscribeSse } from '../support/subscriptions.js';

const HOSTS = 'query Hosts { hosts(first: 2) { totalCount nodes { name } } }';
const EXPENSIVE = 'query Expensive { hosts(first: 100) { nodes { vmInstances(first: 100) { nodes { snapshotGroups(first: 100) { nodes { name } } } } } } }';
const HUNGRY = 'query Hungry { hosts(first: 90) { nodes { name } } vmInstances(first: 9) { totalCount } }';
const UPDATE_NQN = 'mutation Update($input: UpdateHostNqnInput!) { updateHostNqn(input: $input) { job { id status } } }';
const JOB_COMPLETED = 'subscription JobCompleted($id: ID!) { jobCompleted(id: $id) { id status } }';
const INTROSPECTION = 'query IntrospectionQuery { __schema { queryType { name } } }';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

function apolloManifest(bodies: Record<string, string>): string {
  return JSON.stringify({
    format: 'apollo-persisted-query-manifest',
    version: 1,
    operations: Object.entries(bodies).map(([name, body]) => ({ id: sha256(body), name, type: body.split(' ')[0], body })),
  });
}

interface Answer {
  status: number;
  headers: Headers;
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

async function request(url: string, init: { method?: string; body?: unknown; headers?: Record<string, string>; search?: Record<string, string> } = {}): Promise<Answer> {
  const target = new URL(`${url}/graphql`);
  for (const [name, value] of Object.entries(init.search ?? {})) target.searchParams.append(name, value);
  const response = await fetch(target, {
    method: init.method ?? 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json, application/json',
      // The CSRF-safe header a GET needs.
      'graphql-require-preflight': '1',
      ...init.headers,
    },
    body: init.method === 'GET' ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
  });
  return { status: response.status, headers: response.headers, ...((await response.json()) as Omit<Answer, 'status' | 'headers'>) };
}

const byHash = (body: string): { extensions: { persistedQuery: { version: 1; sha256Hash: string } } } => ({
  extensions: { persistedQuery: { version: 1, sha256Hash: sha256(body) } },
});

describe('trusted documents', () => {
  let dir: string;
  let harness: Harness;
  const send = (body: unknown, headers?: Record<string, string>): Promise<Answer> => request(harness.url, { body, headers: { ...harness.headers, ...headers } });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trusted-documents-'));
    const path = join(dir, 'manifest.json');
    writeFileSync(path, apolloManifest({ Hosts: HOSTS, Expensive: EXPENSIVE, Update: UPDATE_NQN, JobCompleted: JOB_COMPLETED }));
    harness = await startHarness({ config: { trustedDocuments: path, graphiql: false, jobPollAfterMs: 100 } });
  });

  afterAll(async () => {
    await harness?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs a manifest operation named by its Apollo id, over POST and over GET', async () => {
    harness.resetStats();
    const posted = await send(byHash(HOSTS));
    expect(posted.status).toBe(200);
    expect(posted.errors).toBeUndefined();
    expect((posted.data?.hosts as { totalCount: number }).totalCount).toBeGreaterThan(0);
    expect(harness.upstreamRequests()).toBeGreaterThan(0);

    const got = await request(harness.url, { method: 'GET', headers: harness.headers, search: { extensions: JSON.stringify(byHash(HOSTS).extensions) } });
    expect(got.status).toBe(200);
    expect(got.data).toEqual(posted.data);
  });

  it('refuses a text document with PERSISTED_QUERY_ONLY (400) before parsing it, and asks nothing upstream', async () => {
    harness.resetStats();
    for (const query of [HOSTS, '{ hosts(first: 1) { totalCount } }', '{{{ not GraphQL']) {
      const answer = await send({ query });
      expect(answer.status).toBe(400);
      expect(errorCodes(answer)).toEqual(['PERSISTED_QUERY_ONLY']);
    }
    const got = await request(harness.url, { method: 'GET', headers: harness.headers, search: { query: HOSTS } });
    expect(got.status).toBe(400);
    expect(errorCodes(got)).toEqual(['PERSISTED_QUERY_ONLY']);
    expect(harness.upstreamRequests()).toBe(0);
  });

  it('answers an id the manifest does not hold PERSISTED_QUERY_NOT_FOUND (404, never cached)', async () => {
    const answer = await send(byHash('query Other { hosts { totalCount } }'));
    expect(answer.status).toBe(404);
    expect(errorCodes(answer)).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
    expect(answer.headers.get('cache-control')).toBe('no-store');
  });

  it('registers nothing: an APQ-style text with its hash is refused, and the hash stays unknown', async () => {
    const query = '{ vmInstances(first: 1) { totalCount } }';
    const register = await send({ query, ...byHash(query) });
    expect(errorCodes(register)).toEqual(['PERSISTED_QUERY_ONLY']);
    const again = await send(byHash(query));
    expect(errorCodes(again)).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
  });

  it('refuses what an attacker sends instead of an id: huge, of the wrong type, two ids, an id with another text, a batch', async () => {
    harness.resetStats();
    const refusals: [unknown, string][] = [
      [{ extensions: { persistedQuery: { version: 1, sha256Hash: 'a'.repeat(100_000) } } }, 'BAD_REQUEST'],
      [{ extensions: { persistedQuery: { version: 1, sha256Hash: 42 } } }, 'BAD_REQUEST'],
      [{ extensions: { persistedQuery: { version: 1, sha256Hash: { $ne: null } } } }, 'BAD_REQUEST'],
      [{ extensions: { persistedQuery: { version: 2, sha256Hash: sha256(HOSTS) } } }, 'BAD_REQUEST'],
      [{ documentId: ['a', 'b'] }, 'BAD_REQUEST'],
      [{ documentId: '' }, 'BAD_REQUEST'],
      [{ documentId: sha256(EXPENSIVE), ...byHash(HOSTS) }, 'BAD_REQUEST'],
      [{}, 'BAD_REQUEST'],
      [{ query: '{ hosts(first: 100) { nodes { name } } }', ...byHash(HOSTS) }, 'PERSISTED_QUERY_ONLY'],
      [{ query: ['{ hosts { totalCount } }'], ...byHash(HOSTS) }, 'PERSISTED_QUERY_ONLY'],
      [[byHash(HOSTS), byHash(HOSTS)], 'BAD_REQUEST'],
    ];
    for (const [body, code] of refusals) {
      const answer = await send(body);
      expect({ body, status: answer.status, codes: errorCodes(answer) }).toEqual({ body, status: 400, codes: [code] });
    }
    const long = await request(harness.url, { method: 'GET', headers: harness.headers, search: { documentId: 'a'.repeat(300) } });
    expect({ status: long.status, codes: errorCodes(long) }).toEqual({ status: 400, codes: ['BAD_REQUEST'] });
    expect(harness.upstreamRequests()).toBe(0);
  });

  it('still refuses a trusted operation its cost forbids, with MAX_COST_EXCEEDED and no upstream request', async () => {
    harness.resetStats();
    const answer = await send(byHash(EXPENSIVE));
    expect(errorCodes(answer)).toEqual(['MAX_COST_EXCEEDED']);
    expect(harness.upstreamRequests()).toBe(0);
  });

  it('runs a trusted mutation, then its trusted subscription over graphql-ws; a text or unknown id over graphql-ws is refused', async () => {
    const { tenantId } = harness.simulator.credentials;
    const host = [...harness.simulator.store.hosts.list(tenantId)].find((candidate) => candidate.status === 'Connected')!;
    const nqn = 'nqn.2014-08.org.nvmexpress:uuid:00000024-0000-4000-8000-000000000000';
    const started = await send({ ...byHash(UPDATE_NQN), variables: { input: { uuid: host.uuid, nqn, async: true } } });
    expect(started.errors).toBeUndefined();
    const job = (started.data?.updateHostNqn as { job: { id: string } }).job;

    const client = createClient({
      url: `${harness.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: harness.headers.authorization },
      retryAttempts: 0,
    });
    const run = (payload: Record<string, unknown>): Promise<unknown[]> =>
      new Promise((resolve) => {
        const results: unknown[] = [];
        client.subscribe(payload as { query: string }, {
          next: (result) => results.push(result),
          error: (error) => resolve([...results, { errors: error }]),
          complete: () => resolve(results),
        });
      });
    try {
      expect(await run({ query: '', variables: { id: job.id }, ...byHash(JOB_COMPLETED) })).toEqual([{ data: { jobCompleted: { id: job.id, status: 'SUCCEEDED' } } }]);
      // GraphQL Code Generator's shape, over the same socket: the id beside an empty query.
      expect(await run({ query: '', variables: { id: job.id }, documentId: sha256(JOB_COMPLETED) })).toEqual([{ data: { jobCompleted: { id: job.id, status: 'SUCCEEDED' } } }]);
      const text = (await run({ query: JOB_COMPLETED, variables: { id: job.id } })) as { errors: { extensions: { code: string } }[] }[];
      expect(text.map((result) => result.errors.map((error) => error.extensions.code))).toEqual([['PERSISTED_QUERY_ONLY']]);
      const unknown = (await run({ query: '', ...byHash('subscription { jobEvents { id } }') })) as { errors: { extensions: { code: string } }[] }[];
      expect(unknown.map((result) => result.errors.map((error) => error.extensions.code))).toEqual([['PERSISTED_QUERY_NOT_FOUND']]);
    } finally {
      await client.dispose();
    }
  });

  it('runs a trusted subscription over SSE', async () => {
    const { tenantId } = harness.simulator.credentials;
    const host = [...harness.simulator.store.hosts.list(tenantId)].find((candidate) => candidate.status === 'Connected')!;
    const done = await send({ ...byHash(UPDATE_NQN), variables: { input: { uuid: host.uuid, nqn: 'nqn.2014-08.org.nvmexpress:uuid:00000025-0000-4000-8000-000000000000' } } });
    const job = (done.data?.updateHostNqn as { job: { id: string } }).job;
    const response = await fetch(`${harness.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: harness.headers.authorization },
      body: JSON.stringify({ variables: { id: job.id }, ...byHash(JOB_COMPLETED) }),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain(JSON.stringify({ data: { jobCompleted: { id: job.id, status: 'SUCCEEDED' } } }));
    // And a text subscription over SSE is refused like any other.
    const refused = await subscribeSse(harness.url, JOB_COMPLETED, { id: job.id }, { authorization: harness.headers.authorization }).catch((error: Error) => error);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toContain('400');
  });

  it.each([false, true])('runs a trusted subscription through graphql-sse\'s client (single connection: %s) and refuses its text', async (singleConnection) => {
    const { tenantId } = harness.simulator.credentials;
    const host = [...harness.simulator.store.hosts.list(tenantId)].find((candidate) => candidate.status === 'Connected')!;
    const suffix = singleConnection ? '27' : '26';
    const done = await send({ ...byHash(UPDATE_NQN), variables: { input: { uuid: host.uuid, nqn: `nqn.2014-08.org.nvmexpress:uuid:000000${suffix}-0000-4000-8000-000000000000` } } });
    const job = (done.data?.updateHostNqn as { job: { id: string } }).job;
    const client = createSseClient({ url: `${harness.url}/graphql`, singleConnection, headers: () => ({ ...harness.headers }), retryAttempts: 0 });
    const collect = async (payload: { query: string; variables: Record<string, unknown>; extensions?: Record<string, unknown> }): Promise<unknown[]> => {
      const results: unknown[] = [];
      try {
        for await (const result of client.iterate(payload)) results.push(result);
      } catch (error) {
        results.push({ thrown: String(error) });
      }
      return results;
    };
    try {
      // graphql-sse's client, like graphql-ws, sends a `query` string: the id goes beside an empty one.
      expect(await collect({ query: '', variables: { id: job.id }, extensions: byHash(JOB_COMPLETED).extensions })).toEqual([
        { data: { jobCompleted: { id: job.id, status: 'SUCCEEDED' } } },
      ]);
      // The client reports the refusal's status only (the body says PERSISTED_QUERY_ONLY, as above).
      expect(await collect({ query: JOB_COMPLETED, variables: { id: job.id } })).toEqual([{ thrown: 'NetworkError: Server responded with 400: Bad Request' }]);
    } finally {
      client.dispose();
    }
  });

  it('refuses an introspection text with GRAPHIQL off', async () => {
    const answer = await send({ query: INTROSPECTION });
    expect(errorCodes(answer)).toEqual(['PERSISTED_QUERY_ONLY']);
  });
});

describe('trusted documents in the { id: document } map of Relay and the client preset', () => {
  let dir: string;
  let harness: Harness;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trusted-documents-'));
    const path = join(dir, 'persisted-documents.json');
    // Relay writes MD5-like ids, the client preset SHA-1 or SHA-256 ones: any string will do.
    writeFileSync(path, JSON.stringify({ '3f1ab8c0e2': HOSTS, 'sha256:hungry': HUNGRY }));
    // GraphiQL on: its introspection runs, nothing else as text; a small budget to spend.
    harness = await startHarness({ config: { trustedDocuments: path, graphiql: true, costBudget: 100, costBudgetRefill: 1, responseCacheTtlMs: 0 } });
  });

  afterAll(async () => {
    await harness?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs an operation by Relay\'s doc_id and by the client preset\'s documentId, in a POST body and as GET parameters', async () => {
    const relay = await request(harness.url, { body: { doc_id: '3f1ab8c0e2', query: null, variables: {} }, headers: harness.headers });
    expect(relay.errors).toBeUndefined();
    expect(relay.data?.hosts).toBeDefined();
    const preset = await request(harness.url, { body: { documentId: '3f1ab8c0e2' }, headers: harness.headers });
    expect(preset.data).toEqual(relay.data);
    for (const name of ['documentId', 'doc_id']) {
      const got = await request(harness.url, { method: 'GET', headers: harness.headers, search: { [name]: '3f1ab8c0e2' } });
      expect(got.data).toEqual(relay.data);
    }
    const repeated = await fetch(`${harness.url}/graphql?documentId=3f1ab8c0e2&documentId=sha256:hungry`, { headers: { ...harness.headers, 'graphql-require-preflight': '1' } });
    expect(repeated.status).toBe(400);
  });

  it('with GRAPHIQL on, runs GraphiQL\'s introspection text but no other text', async () => {
    const introspection = await request(harness.url, { body: { query: INTROSPECTION }, headers: harness.headers });
    expect(introspection.errors).toBeUndefined();
    expect(introspection.data).toEqual({ __schema: { queryType: { name: 'Query' } } });
    harness.resetStats();
    for (const query of ['{ hosts(first: 1) { totalCount } }', '{ __typename hosts(first: 1) { totalCount } }', '{ ... on Query { hosts(first: 1) { totalCount } } }']) {
      const answer = await request(harness.url, { body: { query }, headers: harness.headers });
      expect({ query, codes: errorCodes(answer) }).toEqual({ query, codes: ['PERSISTED_QUERY_ONLY'] });
    }
    expect(harness.upstreamRequests()).toBe(0);
  });

  it('charges a trusted operation to the credential\'s budget: RATE_LIMITED (429) once it is spent, not for another credential', async () => {
    // Requests 92 of the 100 points each time; what it uses stays spent (the response cache is off here).
    let answer: Answer | undefined;
    for (let attempt = 0; attempt < 20; attempt += 1) {
      answer = await request(harness.url, { body: { documentId: 'sha256:hungry' }, headers: harness.headers });
      if (answer.status !== 200) break;
      expect(answer.errors).toBeUndefined();
    }
    expect(answer!.status).toBe(429);
    expect(errorCodes(answer!)).toEqual(['RATE_LIMITED']);
    const other = await request(harness.url, { body: { documentId: 'sha256:hungry' }, headers: harness.secondHeaders });
    expect(other.errors).toBeUndefined();
  });
});

describe('a manifest the gateway cannot use', () => {
  it('is refused at start with a message naming the operation at fault', () => {
    const dir = mkdtempSync(join(tmpdir(), 'trusted-documents-'));
    try {
      const path = join(dir, 'manifest.json');
      writeFileSync(path, apolloManifest({ Hosts: HOSTS, Broken: 'query Broken { hosts { noSuchField } }' }));
      const compose = (): unknown => createApp({ ...defaultConfig, trustedDocuments: path, upstreamUrl: 'http://127.0.0.1:9' });
      expect(compose).toThrow(ManifestError);
      expect(compose).toThrow(/operation Broken does not validate against the schema: .*noSuchField/);
      writeFileSync(path, JSON.stringify({ a1: HOSTS, b2: 'query Typo { hosts { ' }));
      expect(compose).toThrow(/the operation of id "b2" \(query Typo\) is not GraphQL/);
      writeFileSync(path, JSON.stringify({ ['x'.repeat(300)]: HOSTS }));
      expect(compose).toThrow(/an id of 300 characters/);
      writeFileSync(path, '{ "format": "apollo-persisted-query-manifest", "version": 2, "operations": [] }');
      expect(compose).toThrow(/version 2 is not one this gateway reads/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
