/**
 * OpenTelemetry traces end to end: the gateway, configured by the `OTEL_*` settings, exports
 * through the official OTLP/HTTP exporter to a real receiver started here, while it serves the
 * simulator over real HTTP. Each test runs a gateway of its own and stops it (which flushes its
 * spans) before reading what the receiver got.
 */
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { DASHBOARD_QUERY, type DashboardResult } from '../../bench/dashboard.js';
import { defaultConfig, loadConfig, type GatewayConfig } from '../../src/config/index.js';
import { createSimulator, type Simulator } from '../../src/simulator/server.js';
import { tracingEnabled } from '../../src/tracing/provider.js';
import { credentialHeaders, errorCodes, startHarness } from '../support/harness.js';
import { freePort, startRedis } from '../support/redis.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { connectedHost, nqn } from '../support/replica-jobs.js';
import { subscribeSse, subscribeWs } from '../support/subscriptions.js';

const UPDATE_NQN = /* GraphQL */ `
  mutation Update($input: UpdateHostNqnInput!) {
    updateHostNqn(input: $input) { host { uuid nqn } job { id status } }
  }
`;

const CLIENT_TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN_ID = '00f067aa0ba902b7';

interface Traced {
  app: App;
  simulator: Simulator;
  url: string;
  headers: Record<string, string>;
  /** Log lines the gateway wrote, parsed. */
  logs: Record<string, unknown>[];
  gql<T>(query: string, variables?: Record<string, unknown>, extraHeaders?: Record<string, string>): Promise<{ data?: T; errors?: unknown[] }>;
  /** Stops the gateway (which exports every span it still holds) and the simulator. */
  stop(): Promise<void>;
}

let receiver: OtlpReceiver;
let running: Traced | undefined;

beforeEach(async () => {
  receiver = await startOtlpReceiver();
});

afterEach(async () => {
  await running?.stop();
  running = undefined;
  await receiver.close();
});

async function startTraced(config: Partial<GatewayConfig> = {}, simulatorOptions: Parameters<typeof createSimulator>[0] = {}): Promise<Traced> {
  const simulator = createSimulator({ asyncDelayMs: 5, ...simulatorOptions });
  const simulatorUrl = await simulator.start(0, '127.0.0.1');
  const logs: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const app = createApp(
    { ...defaultConfig, port: 0, host: '127.0.0.1', upstreamUrl: simulatorUrl, otelExporterOtlpEndpoint: receiver.endpoint, otelServiceName: 'gateway-under-test', ...config },
    { logger: pino({ level: 'info' }, destination) },
  );
  const url = await app.start();
  const headers = credentialHeaders(simulator.credentials);
  let stopped = false;
  const traced: Traced = {
    app,
    simulator,
    url,
    headers,
    logs,
    async gql(query, variables, extraHeaders = {}) {
      const response = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers, ...extraHeaders },
        body: JSON.stringify({ query, variables }),
      });
      return (await response.json()) as never;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await app.stop();
      await simulator.stop();
    },
  };
  running = traced;
  return traced;
}

function children(spans: readonly ReceivedSpan[], parent: ReceivedSpan): ReceivedSpan[] {
  return spans.filter((span) => span.traceId === parent.traceId && span.parentSpanId === parent.spanId);
}

/** Whether `span` descends from `ancestor` through spans the receiver holds. */
function descendsFrom(spans: readonly ReceivedSpan[], span: ReceivedSpan, ancestor: ReceivedSpan): boolean {
  const byId = new Map(spans.map((candidate) => [candidate.spanId, candidate]));
  for (let current: ReceivedSpan | undefined = span; current !== undefined; current = byId.get(current.parentSpanId)) {
    if (current.spanId === ancestor.spanId) return true;
  }
  return false;
}

function only(spans: readonly ReceivedSpan[], predicate: (span: ReceivedSpan) => boolean, what: string): ReceivedSpan {
  const found = spans.filter(predicate);
  expect(found, what).toHaveLength(1);
  return found[0]!;
}


describe('OpenTelemetry traces', () => {
  it('the 50-VM dashboard is one trace: parse, validate, execute, its loader batches, and one span per upstream request it made', async () => {
    const gateway = await startTraced();
    gateway.simulator.resetStats();
    const response = await gateway.gql<DashboardResult['data']>(DASHBOARD_QUERY);
    expect(response.errors).toBeUndefined();
    expect(response.data!.vmInstances.nodes).toHaveLength(50);
    const upstreamRequests = gateway.simulator.stats().total;
    const journal = [...gateway.simulator.journal()];
    await gateway.stop();

    const spans = receiver.spans;
    expect(receiver.requests.every((request) => request.path === '/v1/traces')).toBe(true);
    const operation = only(spans, (span) => span.name === 'query Dashboard', 'the operation span');
    expect(operation).toMatchObject({ parentSpanId: '', kind: 2, serviceName: 'gateway-under-test' });
    expect(operation.attributes).toMatchObject({ 'graphql.operation.type': 'query', 'graphql.operation.name': 'Dashboard', 'graphql.transport': 'http' });
    expect(children(spans, operation).map((span) => span.name).sort()).toEqual(['graphql.execute', 'graphql.parse', 'graphql.validate']);

    const upstream = spans.filter((span) => span.name.startsWith('upstream '));
    expect(upstreamRequests).toBeGreaterThan(0);
    expect(upstream).toHaveLength(upstreamRequests);
    for (const span of upstream) {
      expect(descendsFrom(spans, span, operation), span.name).toBe(true);
      expect(span.kind).toBe(3);
      expect(span.attributes).toMatchObject({ 'http.request.method': 'GET', 'http.response.status_code': 200, 'upstream.retries': 0, 'upstream.breaker.state': 'closed' });
    }
    // Each upstream request carried the traceparent of its own span.
    expect(journal.map((entry) => entry.headers.traceparent?.split('-')[2]).sort()).toEqual(upstream.map((span) => span.spanId).sort());
    expect(new Set(journal.map((entry) => entry.operation))).toEqual(new Set(upstream.map((span) => span.attributes['upstream.operation'])));

    const batches = spans.filter((span) => span.name.startsWith('loader '));
    expect(batches.length).toBeGreaterThan(0);
    for (const batch of batches) {
      expect(batch.attributes['loader.keys']).toBeGreaterThan(0);
      expect(batch.attributes['loader.upstream_requests']).toBe(children(spans, batch).filter((span) => span.name.startsWith('upstream ')).length);
    }
    // The dashboard's 50 VMs' hosts are one batch, of every distinct host.
    expect(batches.some((batch) => batch.attributes['loader.type'] === 'host' && Number(batch.attributes['loader.keys']) > 1)).toBe(true);
  });

  it("a client's traceparent becomes the operation's parent; a malformed one is ignored", async () => {
    const gateway = await startTraced();
    await gateway.gql('query Named { vmInstances(first: 1) { nodes { uuid } } }', {}, { traceparent: `00-${CLIENT_TRACE_ID}-${CLIENT_SPAN_ID}-01` });
    await gateway.gql('query Forged { vmInstances(first: 1) { nodes { uuid } } }', {}, { traceparent: `00-${'0'.repeat(32)}-${CLIENT_SPAN_ID}-01` });
    await gateway.gql('query Garbage { vmInstances(first: 1) { nodes { uuid } } }', {}, { traceparent: 'x'.repeat(300) });
    const journal = [...gateway.simulator.journal()];
    await gateway.stop();

    const named = only(receiver.spans, (span) => span.name === 'query Named', 'the operation under the client trace');
    expect(named).toMatchObject({ traceId: CLIENT_TRACE_ID, parentSpanId: CLIENT_SPAN_ID });
    const read = only(receiver.spans, (span) => span.traceId === CLIENT_TRACE_ID && span.name.startsWith('upstream '), 'its upstream read');
    expect(journal.some((entry) => entry.headers.traceparent === `00-${CLIENT_TRACE_ID}-${read.spanId}-01`)).toBe(true);

    for (const name of ['query Forged', 'query Garbage']) {
      const span = only(receiver.spans, (candidate) => candidate.name === name, name);
      expect(span.parentSpanId).toBe('');
      expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(span.traceId).not.toBe('0'.repeat(32));
    }
  });

  it("a mutation's trace links to its job's webhook span; the publication is under the webhook; the log line carries its trace", async () => {
    const gateway = await startTraced();
    const response = await gateway.gql<{ updateHostNqn: { job: { id: string; status: string } } }>(UPDATE_NQN, {
      input: { uuid: connectedHost(gateway.simulator), nqn: nqn('71') },
    });
    const job = response.data!.updateHostNqn.job;
    expect(job.status).toBe('SUCCEEDED');
    await gateway.stop();

    const spans = receiver.spans;
    const mutation = only(spans, (span) => span.name === 'mutation Update', 'the mutation');
    const submit = only(spans, (span) => span.name === 'job.submit', 'the submit');
    expect(submit.traceId).toBe(mutation.traceId);
    expect(descendsFrom(spans, submit, mutation)).toBe(true);
    expect(submit.attributes).toMatchObject({ 'job.id': job.id, 'job.operation': 'updateHostNqn' });
    expect(children(spans, submit).map((span) => span.attributes['upstream.operation'])).toEqual(['UpdateHostNqn']);

    const webhook = only(spans, (span) => span.name === 'job.webhook', 'the webhook');
    expect(webhook.traceId).not.toBe(mutation.traceId);
    expect(webhook.links).toEqual([{ traceId: mutation.traceId, spanId: submit.spanId, attributes: { 'job.link': 'submit' } }]);
    expect(webhook.attributes).toMatchObject({ 'job.id': job.id, 'job.status': 'SUCCEEDED' });
    expect(children(spans, webhook).map((span) => span.name)).toEqual(['job.publish']);

    const finished = gateway.logs.find((line) => line.msg === 'job finished' && line.job === job.id);
    expect(finished).toMatchObject({ via: 'webhook', trace_id: webhook.traceId, span_id: webhook.spanId });
  });

  it('a job whose webhook is lost is polled in a trace linked to the mutation, the poll request under it', async () => {
    const gateway = await startTraced({ jobPollAfterMs: 50 });
    gateway.simulator.configure({ dropWebhooks: true });
    const response = await gateway.gql<{ updateHostNqn: { job: { id: string; status: string } } }>(UPDATE_NQN, {
      input: { uuid: connectedHost(gateway.simulator), nqn: nqn('72') },
    });
    expect(response.data!.updateHostNqn.job.status).toBe('SUCCEEDED');
    await gateway.stop();

    const spans = receiver.spans;
    const submit = only(spans, (span) => span.name === 'job.submit', 'the submit');
    const polls = spans.filter((span) => span.name === 'job.poll');
    expect(polls.length).toBeGreaterThan(0);
    for (const poll of polls) {
      expect(poll.links.map((link) => [link.traceId, link.spanId])).toEqual([[submit.traceId, submit.spanId]]);
      expect(children(spans, poll).filter((span) => span.name === 'upstream PollJob')).toHaveLength(1);
    }
    const last = polls.find((poll) => poll.attributes['job.status'] === 'SUCCEEDED');
    expect(last, 'the poll that finished the job').toBeDefined();
    expect(children(spans, last!).map((span) => span.name).sort()).toEqual(['job.publish', 'upstream PollJob']);
  });

  it('operations over graphql-ws and SSE are traced too, a graphql-ws one under the traceparent of its connection', async () => {
    const gateway = await startTraced();
    const query = 'query Small { vmInstances(first: 2) { nodes { uuid } } }';
    const ws = await subscribeWs(gateway.url, query, {}, { ...gateway.headers, traceparent: `00-${CLIENT_TRACE_ID}-${CLIENT_SPAN_ID}-01` });
    await ws.completed;
    await ws.close();
    const sse = await subscribeSse(gateway.url, query, {}, gateway.headers);
    await sse.completed;
    expect([...ws.results, ...sse.results].map((result) => result.errors)).toEqual([undefined, undefined]);
    await gateway.stop();

    const operations = receiver.spans.filter((span) => span.name === 'query Small');
    expect(operations.map((span) => span.attributes['graphql.transport']).sort()).toEqual(['graphql-ws', 'sse']);
    const overWs = operations.find((span) => span.attributes['graphql.transport'] === 'graphql-ws')!;
    expect(overWs).toMatchObject({ traceId: CLIENT_TRACE_ID, parentSpanId: CLIENT_SPAN_ID });
    for (const operation of operations) {
      expect(receiver.spans.filter((span) => span.name.startsWith('upstream ') && descendsFrom(receiver.spans, span, operation))).toHaveLength(1);
    }
  });

  it('a graphql-ws operation refused before it ran (admission, subscription limits) ends its span with the error', async () => {
    const gateway = await startTraced(
      { maxConcurrentOperations: 1, maxQueuedOperations: 0, admissionTargetUtilization: 0, maxSubscriptionsPerCredential: 1 },
      { latencyMs: 400 },
    );
    // One query at a time and none waiting: the second arrives while the first waits on the upstream.
    const slow = 'query Slow { vmInstances(first: 1) { nodes { uuid } } }';
    const running = await subscribeWs(gateway.url, slow, {}, gateway.headers);
    await sleep(150);
    const shed = await subscribeWs(gateway.url, slow, {}, gateway.headers);
    await Promise.all([running.completed, shed.completed]);
    // One subscription per credential: the second is refused.
    const events = 'subscription Events { jobEvents { id } }';
    const open = await subscribeWs(gateway.url, events, {}, gateway.headers);
    await sleep(150);
    const overLimit = await subscribeWs(gateway.url, events, {}, gateway.headers);
    await overLimit.completed;
    expect(running.results.map((result) => result.errors)).toEqual([undefined]);
    expect(shed.results.flatMap((result) => result.errors ?? []).map((error) => error.extensions?.code)).toEqual(['OVERLOADED']);
    expect(overLimit.results.flatMap((result) => result.errors ?? []).map((error) => error.extensions?.code)).toEqual(['TOO_MANY_SUBSCRIPTIONS']);
    await Promise.all([running.close(), shed.close(), open.close(), overLimit.close()]);
    await gateway.stop();

    const overWs = receiver.spans.filter((span) => span.attributes['graphql.transport'] === 'graphql-ws');
    const failed = overWs.filter((span) => span.statusCode === 2);
    expect(failed.map((span) => [span.name, span.attributes['error.type']]).sort()).toEqual([
      ['query Slow', 'OVERLOADED'],
      ['subscription Events', 'TOO_MANY_SUBSCRIPTIONS'],
    ]);
    // Every operation span ended (the receiver only gets ended spans): the two that ran and the two refused.
    expect(overWs.map((span) => span.name).sort()).toEqual(['query Slow', 'query Slow', 'subscription Events', 'subscription Events']);
  });

  it("the change feed's polls are traced: each tick a root span, its upstream requests under it, no credential in it", async () => {
    const gateway = await startTraced({ livePollMs: 200 });
    const live = await subscribeWs(gateway.url, 'query Watched @live { vmInstances(first: 2) { nodes { uuid } } }', {}, gateway.headers);
    await live.waitFor(1);
    await sleep(700);
    await live.close();
    await gateway.stop();

    const ticks = receiver.spans.filter((span) => span.name === 'live.feed.tick');
    expect(ticks.length).toBeGreaterThanOrEqual(2);
    for (const tick of ticks) {
      expect(tick.parentSpanId).toBe('');
      const upstream = children(receiver.spans, tick).filter((span) => span.name.startsWith('upstream '));
      expect(upstream.length).toBeGreaterThanOrEqual(1);
      expect(tick.attributes['upstream.requests']).toBe(upstream.length);
      expect(tick.attributes['live.collections']).toEqual(['vmInstance']);
      expect(JSON.stringify(tick.attributes)).not.toContain(gateway.simulator.credentials.session);
      expect(JSON.stringify(tick.attributes)).not.toContain(gateway.simulator.credentials.token);
    }
  });

  it('a retried upstream call is one span counting its retries; a call the open breaker refused is a span saying so, with no request', async () => {
    // The simulator's fault injection draws twice per faulty request (whether, and which fault).
    let faultyDraws = 2;
    const random = (): number => (faultyDraws > 0 ? (faultyDraws--, 0.1) : 0.9);
    const gateway = await startTraced({ upstreamBreakerThreshold: 1, responseCacheTtlMs: 0 }, { faultRate: 0.5, random });
    const query = 'query One { vmInstances(first: 1) { nodes { uuid } } }';
    expect((await gateway.gql(query)).errors).toBeUndefined();
    // Every attempt of the next call fails (the first and both retries): the breaker opens.
    faultyDraws = 6;
    expect(errorCodes(await gateway.gql(query))).toEqual(['UPSTREAM_UNAVAILABLE']);
    const requestsBefore = gateway.simulator.stats().total;
    expect(errorCodes(await gateway.gql(query))).toEqual(['UPSTREAM_UNAVAILABLE']);
    expect(gateway.simulator.stats().total).toBe(requestsBefore);
    await gateway.stop();

    const calls = receiver.spans.filter((span) => span.name === 'upstream CursorQuery');
    expect(calls.map((span) => [span.attributes['upstream.retries'], span.attributes['upstream.breaker.state'], span.attributes['http.response.status_code'] ?? null, span.statusCode])).toEqual([
      [1, 'closed', 200, 0],
      [2, 'closed', expect.anything(), 2],
      [0, 'open', null, 2],
    ]);
    expect(calls[2]!.attributes['error.type']).toBe('UPSTREAM_UNAVAILABLE');
  });

  it('an operation refused at validation ends its span with the error, and makes no upstream span', async () => {
    const gateway = await startTraced();
    await gateway.gql('query Wrong { noSuchField }');
    await gateway.stop();
    const operation = only(receiver.spans, (span) => span.traceId !== '' && children(receiver.spans, span).some((child) => child.name === 'graphql.validate'), 'the operation');
    expect(operation.statusCode).toBe(2);
    expect(receiver.spans.filter((span) => span.name.startsWith('upstream '))).toHaveLength(0);
  });
});

describe('OpenTelemetry traces with Redis, two replicas', () => {
  it("a job started on replica A whose webhook lands on replica B: B's webhook span links to A's mutation", async () => {
    const redis = await startRedis();
    const simulator = createSimulator({ asyncDelayMs: 5 });
    const simulatorUrl = await simulator.start(0, '127.0.0.1');
    const portB = await freePort();
    const urlB = `http://127.0.0.1:${portB}`;
    const replica = (name: string, port: number) =>
      createApp(
        {
          ...defaultConfig,
          port,
          host: '127.0.0.1',
          upstreamUrl: simulatorUrl,
          redisUrl: redis.url,
          publicUrl: urlB,
          otelExporterOtlpEndpoint: receiver.endpoint,
          otelServiceName: name,
        },
        { logger: pino({ level: 'silent' }) },
      );
    const a = replica('replica-a', 0);
    const b = replica('replica-b', portB);
    try {
      const urlA = await a.start();
      await b.start();
      const response = await fetch(`${urlA}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...credentialHeaders(simulator.credentials) },
        body: JSON.stringify({ query: UPDATE_NQN, variables: { input: { uuid: connectedHost(simulator), nqn: nqn('73') } } }),
      });
      const body = (await response.json()) as { data: { updateHostNqn: { job: { id: string; status: string } } } };
      expect(body.data.updateHostNqn.job.status).toBe('SUCCEEDED');
    } finally {
      await a.stop();
      await b.stop();
      await simulator.stop();
      await redis.stop();
    }
    const submit = only(receiver.spans, (span) => span.name === 'job.submit', 'the submit');
    expect(submit.serviceName).toBe('replica-a');
    const webhook = only(receiver.spans, (span) => span.name === 'job.webhook', 'the webhook');
    expect(webhook.serviceName).toBe('replica-b');
    expect(webhook.links.map((link) => [link.traceId, link.spanId])).toEqual([[submit.traceId, submit.spanId]]);
  });
});

describe('tracing off', () => {
  it('is the default: no traceparent goes upstream', async () => {
    const harness = await startHarness();
    try {
      harness.resetStats();
      await harness.gql('query { vmInstances(first: 1) { nodes { uuid } } }', {}, { ...harness.headers, traceparent: `00-${CLIENT_TRACE_ID}-${CLIENT_SPAN_ID}-01` });
      const journal = harness.simulator.journal();
      expect(journal.length).toBeGreaterThan(0);
      expect(journal.filter((entry) => entry.headers.traceparent !== undefined)).toEqual([]);
    } finally {
      await harness.close();
    }
    expect(receiver.spans).toEqual([]);
  });

  it('turns on with an OTLP endpoint or an exporter, and stays off with OTEL_SDK_DISABLED or the none exporter', () => {
    expect(tracingEnabled(loadConfig({}))).toBe(false);
    expect(tracingEnabled(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }))).toBe(true);
    expect(tracingEnabled(loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }))).toBe(true);
    expect(tracingEnabled(loadConfig({ OTEL_TRACES_EXPORTER: 'otlp' }))).toBe(true);
    expect(tracingEnabled(loadConfig({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }))).toBe(false);
    expect(tracingEnabled(loadConfig({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }))).toBe(false);
    expect(() => loadConfig({ OTEL_TRACES_SAMPLER: 'jaeger_remote' })).toThrow(/OTEL_TRACES_SAMPLER/);
  });
});
