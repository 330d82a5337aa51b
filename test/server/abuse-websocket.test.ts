/**
 * Abuse over graphql-ws, each attack bounded in count and time, over loopback: a client that stops
 * reading, introspection multiplied by aliases, a flood of subscriptions, client-chosen names on
 * the public `/metrics`, and operations over WebSocket under the same admission and cost as over
 * HTTP. Plus mutations over graphql-ws, which graphql-ws allows and the gateway must serve.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { Socket } from 'node:net';
import { getIntrospectionQuery } from 'graphql';
import { createClient, type Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { loadConfig } from '../../src/config/index.js';
import { CLOSE_SEND_BUFFER_FULL } from '../../src/server/websocket.js';
import { errorCodes, startHarness, type Harness } from '../support/harness.js';
import { eventually, spawnGateway, type GatewayProcess } from '../support/process.js';
import { subscribeSse } from '../support/subscriptions.js';

const MiB = 1024 * 1024;

/** GraphiQL's introspection query: one `__schema`, a 246 KB answer. */
const INTROSPECTION = getIntrospectionQuery();

interface WsResult {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

/** A raw graphql-ws connection (no client library), acknowledged and ready for `subscribe` messages. */
async function openRawSocket(httpUrl: string, connectionParams: Record<string, string> = {}): Promise<WebSocket> {
  const socket = new WebSocket(`${httpUrl.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
  await once(socket, 'open');
  socket.send(JSON.stringify({ type: 'connection_init', payload: connectionParams }));
  const [ack] = (await once(socket, 'message')) as [Buffer];
  expect(JSON.parse(ack.toString())).toMatchObject({ type: 'connection_ack' });
  return socket;
}

function wsClient(httpUrl: string, connectionParams: Record<string, string>): Client {
  return createClient({ url: `${httpUrl.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams, retryAttempts: 0, lazy: false });
}

/** One operation over a graphql-ws client: its results, and how it ended (its error messages, or complete). */
function operation(client: Client, query: string, variables: Record<string, unknown> = {}) {
  const results: WsResult[] = [];
  let unsubscribe = (): void => undefined;
  const ended = new Promise<{ errors?: WsResult['errors'] }>((resolve) => {
    unsubscribe = client.subscribe<Record<string, unknown>>({ query, variables }, {
      next: (result) => void results.push(result as WsResult),
      error: (error) => resolve({ errors: Array.isArray(error) ? (error as WsResult['errors']) : [{ message: String(error) }] }),
      complete: () => resolve({}),
    });
  });
  return { results, ended, unsubscribe: () => unsubscribe() };
}

/** The first result of an operation that answers once (a query or a mutation). */
async function answer(client: Client, query: string, variables: Record<string, unknown> = {}): Promise<WsResult> {
  const op = operation(client, query, variables);
  const end = await op.ended;
  return op.results[0] ?? { errors: end.errors };
}

/** Sum of the samples of a metric in Prometheus text. */
function metricTotal(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

describe('a graphql-ws client that stops reading', () => {
  let gateway: GatewayProcess;

  beforeAll(async () => {
    // A process of its own: its resident memory is the figure.
    gateway = await spawnGateway({ PORT: '0', LOG_LEVEL: 'warn' });
  });

  afterAll(async () => {
    await gateway?.kill();
  });

  async function scrape(): Promise<string> {
    return (await fetch(`${gateway.url}/metrics`)).text();
  }

  it('pins at most its send buffer: 400 introspection answers grow the gateway by under 60 MiB, and its socket is closed with 4008', async () => {
    // Warm up (schema, JIT, buffers) so the baseline is the steady state.
    for (let i = 0; i < 10; i++) {
      const response = await fetch(`${gateway.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: INTROSPECTION }),
      });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
    const before = await scrape();
    const rssBefore = metricTotal(before, 'process_resident_memory_bytes');
    const queriesBefore = metricTotal(before, 'gateway_graphql_operations_total');

    const socket = await openRawSocket(gateway.url);
    // The client reads nothing from now on: the kernel's buffers fill, then the gateway's.
    (socket as unknown as { _socket: Socket })._socket.pause();
    const operations = 400;
    for (let id = 0; id < operations; id++) socket.send(JSON.stringify({ id: String(id), type: 'subscribe', payload: { query: INTROSPECTION } }));

    await eventually(
      async () => metricTotal(await scrape(), 'gateway_graphql_operations_total') - queriesBefore >= operations,
      'the gateway to execute every query',
      600,
      100,
    );
    let rssPeak = 0;
    for (let i = 0; i < 5; i++) {
      rssPeak = Math.max(rssPeak, metricTotal(await scrape(), 'process_resident_memory_bytes'));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const growth = rssPeak - rssBefore;
    console.info(`gateway RSS ${(rssBefore / MiB).toFixed(0)} MiB before, +${(growth / MiB).toFixed(1)} MiB with ${operations} introspection answers unread`);
    expect(growth).toBeLessThan(60 * MiB);

    // Reading again, the client gets what was buffered, then the close frame.
    const closed = once(socket, 'close') as Promise<[number, Buffer]>;
    (socket as unknown as { _socket: Socket })._socket.resume();
    const [code, reason] = await closed;
    expect(code).toBe(CLOSE_SEND_BUFFER_FULL);
    expect(reason.toString()).toMatch(/not reading/);
  }, 90_000);
});

describe('abuse over graphql-ws', () => {
  let harness: Harness;
  let params: Record<string, string>;

  beforeAll(async () => {
    harness = await startHarness({
      config: { maxSubscriptionsPerCredential: 150, metricsOperationNames: ['Dashboard'], jobPollAfterMs: 100 },
    });
    params = { ...harness.headers };
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('refuses more than one __schema per operation, over HTTP and over WebSocket, and answers several cheap __type lookups', async () => {
    const schemaRoots = Array.from({ length: 22 }, (_, i) => `s${i}: __schema { types { name fields { name } } }`).join(' ');
    const refused = await harness.gql(`{ ${schemaRoots} }`);
    expect(refused.status).toBe(400);
    expect(errorCodes(refused)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(refused.errors?.[0]?.message).toMatch(/__schema 22 times; at most 1/);
    expect(refused.errors?.[0]?.extensions).toMatchObject({ limit: 1, found: 22 });
    expect(refused.data).toBeUndefined();

    // A `__schema` reached through fragments counts too.
    const viaFragments = await harness.gql('query { a: __schema { queryType { name } } ...More } fragment More on Query { ... on Query { b: __schema { queryType { name } } } }');
    expect(errorCodes(viaFragments)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    // Several `__type` lookups are how schema browsers and codegen plugins work: they answer.
    const types = await harness.gql(
      'query { a: __type(name: "Host") { name fields { name } } ...More c: __type(name: "VmInstance") { name kind } } fragment More on Query { ... on Query { b: __type(name: "Job") { name interfaces { name } } } }',
    );
    expect(types.errors).toBeUndefined();
    expect(types.data).toMatchObject({ a: { name: 'Host' }, b: { name: 'Job', interfaces: [{ name: 'Node' }] }, c: { name: 'VmInstance', kind: 'OBJECT' } });
    // ... each priced by what it returns, so a caller's cost budget bounds them.
    const lookup = (alias: string) => `${alias}: __type(name: "Host") { fields { name type { name } } }`;
    const costOf = async (count: number) => {
      const response = await harness.gql(`{ ${Array.from({ length: count }, (_, i) => lookup(`t${i}`)).join(' ')} }`);
      expect(response.errors).toBeUndefined();
      return (response.extensions?.cost as { requestedQueryCost: number }).requestedQueryCost;
    };
    const [single, triple] = [await costOf(1), await costOf(3)];
    expect(single).toBeGreaterThan(1);
    expect(triple).toBe(3 * single);
    // One is fine: GraphiQL's own introspection query.
    const one = await harness.gql(INTROSPECTION);
    expect(one.errors).toBeUndefined();
    expect(JSON.stringify(one.data).length).toBeGreaterThan(100_000);

    const client = wsClient(harness.url, params);
    try {
      const overWs = await answer(client, `{ ${schemaRoots} }`);
      expect(overWs.errors?.map((error) => error.extensions?.code)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
      // The socket stays usable.
      expect((await answer(client, '{ __typename }')).data).toEqual({ __typename: 'Query' });
    } finally {
      await client.dispose();
    }
  });

  it('closes a socket sent a message over MAX_BODY_BYTES (1 MiB) with 1009, as HTTP refuses such a body', async () => {
    const socket = await openRawSocket(harness.url, params);
    const closed = once(socket, 'close') as Promise<[number, Buffer]>;
    socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: `{ __typename }${' '.repeat(2 * MiB)}` } }));
    const [code] = await closed;
    expect(code).toBe(1009);
  });

  it('refuses variables or extensions nested deeper than 32 levels with BAD_REQUEST, as HTTP does, and keeps the socket', async () => {
    const socket = await openRawSocket(harness.url, params);
    const messages: { id?: string; type: string; payload?: unknown }[] = [];
    socket.on('message', (data: Buffer) => void messages.push(JSON.parse(data.toString()) as (typeof messages)[number]));
    // Raw text: a client library's JSON.stringify cannot even write 100,000 levels.
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const query = 'query($uuids: [Uuid!]) { vmInstances(first: 1, filter: { uuids: $uuids }) { totalCount } }';
    socket.send(`{"id":"1","type":"subscribe","payload":{"query":${JSON.stringify(query)},"variables":{"uuids":${deep}}}}`);
    socket.send(`{"id":"2","type":"subscribe","payload":{"query":"{ __typename }","extensions":{"x":${deep}}}}`);
    socket.send(JSON.stringify({ id: '3', type: 'subscribe', payload: { query: '{ __typename }' } }));
    await eventually(() => messages.filter((message) => message.type === 'complete' || message.type === 'error').length === 3, 'the three operations to end');
    const refusal = (id: string) => messages.find((message) => message.id === id && message.type === 'error')?.payload;
    expect(refusal('1')).toEqual([expect.objectContaining({ message: '"variables" is nested deeper than 32 levels.', extensions: { code: 'BAD_REQUEST' } })]);
    expect(refusal('2')).toEqual([expect.objectContaining({ message: '"extensions" is nested deeper than 32 levels.', extensions: { code: 'BAD_REQUEST' } })]);
    expect(messages.find((message) => message.id === '3' && message.type === 'next')?.payload).toMatchObject({ data: { __typename: 'Query' } });
    socket.close();
  });

  it('caps subscriptions per socket (100) and per credential over WebSocket and SSE (here 150): the extra one is refused, the first ones keep working', async () => {
    // Both credentials read something first, as a dashboard does: accepted by the upstream, they
    // are not held to the address's cap on unverified subscriptions (the next test).
    expect((await harness.gql('{ vmInstances(first: 1) { totalCount } }')).errors).toBeUndefined();
    expect((await harness.gql('{ vmInstances(first: 1) { totalCount } }', {}, harness.secondHeaders)).errors).toBeUndefined();
    const first = wsClient(harness.url, params);
    const second = wsClient(harness.url, params);
    const other = wsClient(harness.url, { ...harness.secondHeaders });
    try {
      const onFirst = Array.from({ length: 101 }, () => operation(first, 'subscription { jobEvents { id status } }'));
      const refusedOnSocket = await onFirst[100]!.ended;
      expect(refusedOnSocket.errors?.map((error) => error.extensions)).toEqual([{ code: 'TOO_MANY_SUBSCRIPTIONS', per: 'socket', limit: 100 }]);

      const onSecond = Array.from({ length: 51 }, () => operation(second, 'subscription { jobEvents { id status } }'));
      const refusedForCredential = await onSecond[50]!.ended;
      expect(refusedForCredential.errors?.map((error) => error.extensions)).toEqual([{ code: 'TOO_MANY_SUBSCRIPTIONS', per: 'credential', limit: 150 }]);
      // Another credential has places of its own.
      const otherTenant = operation(other, 'subscription { jobEvents { id status } }');

      // The 150 accepted ones all get the next job; the refused ones got nothing.
      const host = [...harness.simulator.store.hosts.list(harness.simulator.credentials.tenantId)].find((candidate) => candidate.status === 'Connected')!;
      const done = await harness.gql<{ updateHostNqn: { job: { id: string; status: string } } }>(
        'mutation($input: UpdateHostNqnInput!) { updateHostNqn(input: $input) { job { id status } } }',
        { input: { uuid: host.uuid, nqn: 'nqn.2014-08.org.nvmexpress:uuid:00000404-0000-4000-8000-000000000001' } },
      );
      expect(done.data?.updateHostNqn.job.status).toBe('SUCCEEDED');
      const accepted = [...onFirst.slice(0, 100), ...onSecond.slice(0, 50)];
      await eventually(() => accepted.every((op) => op.results.some((result) => (result.data?.jobEvents as { status?: string } | undefined)?.status === 'SUCCEEDED')), 'every accepted subscriber to get the job');
      expect(onFirst[100]!.results).toEqual([]);
      expect(otherTenant.results).toEqual([]);

      // SSE subscriptions count under the credential too.
      const refusedOverSse = await subscribeSse(harness.url, 'subscription { jobEvents { id status } }', {}, harness.headers);
      await refusedOverSse.completed;
      expect(refusedOverSse.results.map((result) => result.errors?.[0]?.extensions)).toEqual([{ code: 'TOO_MANY_SUBSCRIPTIONS', per: 'credential', limit: 150 }]);

      // A completed subscription frees its place, which an SSE stream takes, and gives back when it ends.
      const isOpen = async (op: { ended: Promise<unknown> }) => {
        await new Promise((resolve) => setTimeout(resolve, 200));
        return (await Promise.race([op.ended, 'open'])) === 'open';
      };
      onSecond[0]!.unsubscribe();
      await new Promise((resolve) => setTimeout(resolve, 100));
      const overSse = await subscribeSse(harness.url, 'subscription { jobEvents { id status } }', {}, harness.headers);
      const whileSseHolds = operation(second, 'subscription { jobEvents { id status } }');
      expect((await whileSseHolds.ended).errors?.[0]?.extensions).toMatchObject({ code: 'TOO_MANY_SUBSCRIPTIONS', per: 'credential' });
      await overSse.close();
      await new Promise((resolve) => setTimeout(resolve, 200));
      const again = operation(second, 'subscription { jobEvents { id status } }');
      expect(await isOpen(again)).toBe(true);
      again.unsubscribe();
    } finally {
      await Promise.all([first.dispose(), second.dispose(), other.dispose()]);
    }
  });

  it('caps subscriptions from one address under credentials the upstream has not accepted (100), whatever credentials they invent', async () => {
    const invented = () => ({ authorization: `OAuth ${randomUUID().replaceAll('-', '')}` });
    const sockets = [wsClient(harness.url, invented()), wsClient(harness.url, invented())];
    const subscribe = (client: Client) => operation(client, 'subscription { jobEvents { id status } }');
    try {
      // 60 on each socket, each socket its own made-up session: 100 open, the rest refused.
      const ops = sockets.flatMap((client) => Array.from({ length: 60 }, () => subscribe(client)));
      const ended = await Promise.all(ops.slice(100).map((op) => op.ended));
      for (const end of ended) expect(end.errors?.map((error) => error.extensions)).toEqual([{ code: 'TOO_MANY_SUBSCRIPTIONS', per: 'address', limit: 100 }]);
      const stillOpen = await Promise.race([Promise.any(ops.slice(0, 100).map((op) => op.ended)), new Promise((resolve) => setTimeout(() => resolve('open'), 300))]);
      expect(stillOpen).toBe('open');

      // A fresh credential over SSE is refused too; one the upstream has accepted is not.
      const overSse = await subscribeSse(harness.url, 'subscription { jobEvents { id status } }', {}, invented());
      await overSse.completed;
      expect(overSse.results.map((result) => result.errors?.[0]?.extensions)).toEqual([{ code: 'TOO_MANY_SUBSCRIPTIONS', per: 'address', limit: 100 }]);
      expect((await harness.gql('{ vmInstances(first: 1) { totalCount } }')).errors).toBeUndefined();
      const verified = wsClient(harness.url, params);
      const accepted = subscribe(verified);
      expect(await Promise.race([accepted.ended, new Promise((resolve) => setTimeout(() => resolve('open'), 300))])).toBe('open');
      accepted.unsubscribe();
      await verified.dispose();

      // A completed one gives its place back.
      ops[0]!.unsubscribe();
      await new Promise((resolve) => setTimeout(resolve, 100));
      const next = subscribe(sockets[1]!);
      expect(await Promise.race([next.ended, new Promise((resolve) => setTimeout(() => resolve('open'), 300))])).toBe('open');
    } finally {
      await Promise.all(sockets.map((client) => client.dispose()));
    }
  });

  it('labels /metrics with configured operation names only: a client-chosen name appears nowhere', async () => {
    expect((await harness.gql('query secretProjectX { vmInstances(first: 1) { totalCount } }')).errors).toBeUndefined();
    expect((await harness.gql('query Dashboard { vmInstances(first: 1) { totalCount } }')).errors).toBeUndefined();
    const client = wsClient(harness.url, params);
    try {
      expect((await answer(client, 'query secretProjectXOverWs { hosts(first: 1) { totalCount } }')).errors).toBeUndefined();
      const subscription = operation(client, 'subscription secretProjectXJobs { jobEvents { id } }');
      await new Promise((resolve) => setTimeout(resolve, 100));
      subscription.unsubscribe();
    } finally {
      await client.dispose();
    }
    const metrics = await (await fetch(`${harness.url}/metrics`)).text();
    expect(metrics).not.toMatch(/secretProjectX/);
    expect(metrics).toMatch(/gateway_graphql_operations_total\{operation_type="query",operation_name="Dashboard",root_field="vmInstances",result="success"\} 1/);
    expect(metrics).toMatch(/gateway_graphql_operations_total\{operation_type="query",operation_name="other",root_field="vmInstances",result="success"\} 1/);
    expect(metrics).toMatch(/gateway_graphql_operations_total\{operation_type="query",operation_name="other",root_field="hosts",result="success"\} 1/);
    expect(metrics).toMatch(/gateway_graphql_operations_total\{operation_type="subscription",operation_name="other",root_field="jobEvents",result="success"\} 1/);
  });

  it('runs mutations over graphql-ws as over HTTP: waited for, or RUNNING and then delivered to the job subscriptions', async () => {
    const client = wsClient(harness.url, params);
    try {
      const hosts = [...harness.simulator.store.hosts.list(harness.simulator.credentials.tenantId)].filter((candidate) => candidate.status === 'Connected');
      const mutation = 'mutation($input: UpdateHostNqnInput!) { updateHostNqn(input: $input) { host { uuid nqn } error { code } job { id status } } }';
      const nqn = (n: number) => `nqn.2014-08.org.nvmexpress:uuid:00000404-0000-4000-8000-00000000010${n}`;

      const waited = await answer(client, mutation, { input: { uuid: hosts[0]!.uuid, nqn: nqn(1) } });
      expect(waited.errors).toBeUndefined();
      expect(waited.data).toMatchObject({ updateHostNqn: { host: { uuid: hosts[0]!.uuid, nqn: nqn(1) }, error: null, job: { status: 'SUCCEEDED' } } });
      // What the HTTP answer to the same mutation looks like.
      const overHttp = await harness.gql(mutation, { input: { uuid: hosts[0]!.uuid, nqn: nqn(2) } });
      expect(Object.keys(overHttp.data!.updateHostNqn as object)).toEqual(Object.keys(waited.data!.updateHostNqn as object));

      const events = operation(client, 'subscription { jobEvents { id status operation } }');
      await new Promise((resolve) => setTimeout(resolve, 100));
      const started = await answer(client, mutation, { input: { uuid: hosts[1]!.uuid, nqn: nqn(3), async: true } });
      expect(started.errors).toBeUndefined();
      const job = (started.data!.updateHostNqn as { job: { id: string; status: string } }).job;
      expect(job.status).toBe('RUNNING');
      const completed = operation(client, 'subscription($id: ID!) { jobCompleted(id: $id) { id status } }', { id: job.id });
      expect(await completed.ended).toEqual({});
      expect(completed.results).toEqual([{ data: { jobCompleted: { id: job.id, status: 'SUCCEEDED' } } }]);
      await eventually(() => events.results.some((result) => (result.data?.jobEvents as { id?: string } | undefined)?.id === job.id), 'jobEvents to deliver the job');
      events.unsubscribe();
      expect(harness.simulator.store.hosts.get(harness.simulator.credentials.tenantId, hosts[1]!.uuid)?.nqn).toBe(nqn(3));
    } finally {
      await client.dispose();
    }
  });
});

describe('admission and cost over graphql-ws', () => {
  let harness: Harness;

  beforeAll(async () => {
    // As the HTTP admission test: one at a time, one waiting, a fixed limit; and a small cost limit.
    harness = await startHarness({
      config: { maxConcurrentOperations: 1, maxQueuedOperations: 1, admissionTargetUtilization: 0, responseCacheTtlMs: 0, maxCost: 500 },
    });
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('lets one query wait its turn and refuses the next with OVERLOADED, and refuses a query over MAX_COST, as over HTTP', async () => {
    const client = wsClient(harness.url, { ...harness.headers });
    try {
      harness.simulator.configure({ latencyMs: 300 });
      const query = '{ vmInstances(first: 1) { nodes { name } } }';
      const running = answer(client, query);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const waiting = answer(client, query);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const refused = await answer(client, query);
      expect(refused.errors?.map((error) => error.extensions?.code)).toEqual(['OVERLOADED']);
      for (const result of await Promise.all([running, waiting])) {
        expect(result.errors).toBeUndefined();
        expect(result.data).toMatchObject({ vmInstances: { nodes: [{ name: expect.any(String) }] } });
      }
      harness.simulator.configure({ latencyMs: 0 });
      const metrics = await (await fetch(`${harness.url}/metrics`)).text();
      expect(metrics).toMatch(/^gateway_operations_shed_total 1$/m);
      expect(metrics).toMatch(/^gateway_operations_running 0$/m);

      harness.resetStats();
      const costly = await answer(client, '{ hosts(first: 100) { nodes { vmInstances(first: 100) { nodes { name } } } } }');
      expect(costly.errors?.map((error) => error.extensions?.code)).toEqual(['MAX_COST_EXCEEDED']);
      expect(harness.upstreamRequests()).toBe(0);
    } finally {
      harness.simulator.configure({ latencyMs: 0 });
      await client.dispose();
    }
  });
});

describe('settings', () => {
  it('defaults to 1 MiB unsent per socket, 100 subscriptions per socket, 500 per credential, one __schema per operation, no operation names on /metrics', () => {
    expect(loadConfig({})).toMatchObject({
      wsMaxBufferedBytes: 1_048_576,
      wsMaxSubscriptionsPerSocket: 100,
      maxSubscriptionsPerCredential: 500,
      maxIntrospectionSchemas: 1,
      metricsOperationNames: [],
    });
    expect(loadConfig({ METRICS_OPERATION_NAMES: 'Dashboard, VmDetails' }).metricsOperationNames).toEqual(['Dashboard', 'VmDetails']);
    expect(() => loadConfig({ METRICS_OPERATION_NAMES: 'Dashboard,{evil}' })).toThrow(/METRICS_OPERATION_NAMES/);
    expect(() => loadConfig({ WS_MAX_SUBSCRIPTIONS_PER_SOCKET: '0' })).toThrow(/WS_MAX_SUBSCRIPTIONS_PER_SOCKET/);
  });
});
