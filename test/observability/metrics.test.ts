/**
 * Operations: `/metrics` in Prometheus text that moves with the traffic, `/healthz`, the request
 * id (taken or made, echoed, sent upstream, on the log lines), all against a real gateway and
 * simulator over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { defaultConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/observability/logging.js';
import { createSimulator, type Simulator } from '../../src/simulator/server.js';
import { credentialHeaders, type GraphQLResponse } from '../support/harness.js';
import { eventually } from '../support/process.js';
import { freePort, startRedis } from '../support/redis.js';
import { subscribeWs } from '../support/subscriptions.js';

type Samples = Map<string, number>;

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*\})? (-?[0-9.eE+-]+|[+-]?[Ii]nf|[Nn]a[Nn])( -?\d+)?$/;

/** Parses the Prometheus text format strictly: every line is a HELP, a TYPE or a sample of a declared family. */
function parsePrometheus(text: string): Samples {
  const types = new Map<string, string>();
  const samples: Samples = new Map();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) {
      types.set(type[1]!, type[2]!);
      continue;
    }
    if (/^# HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*$/.test(line)) continue;
    const sample = SAMPLE.exec(line);
    if (!sample) throw new Error(`not Prometheus text: ${JSON.stringify(line)}`);
    const name = sample[1]!;
    const family = [name, name.replace(/_(bucket|sum|count|total|created)$/, '')].find((candidate) => types.has(candidate));
    if (!family) throw new Error(`sample of an undeclared metric: ${line}`);
    samples.set(`${name}${sample[2] ?? ''}`, Number(sample[3]));
  }
  return samples;
}

/** Sum of the samples of `name` whose labels include every pair of `labels`. */
function total(samples: Samples, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const [key, value] of samples) {
    if (key !== name && !key.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([label, wanted]) => key.includes(`${label}="${wanted}"`))) sum += value;
  }
  return sum;
}

describe('operations', () => {
  let simulator: Simulator;
  let app: App;
  let url: string;
  const logLines: Record<string, unknown>[] = [];
  let headers: Record<string, string>;

  beforeAll(async () => {
    simulator = createSimulator({ asyncDelayMs: 5 });
    const simulatorUrl = await simulator.start(0, '127.0.0.1');
    const logger = createLogger('info', { write: (line: string) => void logLines.push(JSON.parse(line) as Record<string, unknown>) });
    // The names the operator lets /metrics show; any other would count as `other`.
    const metricsOperationNames = ['Dashboard', 'NoCredentials'];
    app = createApp({ ...defaultConfig, port: 0, host: '127.0.0.1', upstreamUrl: simulatorUrl, jobPollAfterMs: 100, metricsOperationNames }, { logger });
    url = await app.start();
    headers = credentialHeaders(simulator.credentials);
  });

  afterAll(async () => {
    await app?.stop();
    await simulator?.stop();
  });

  async function scrape(): Promise<Samples> {
    const response = await fetch(`${url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return parsePrometheus(await response.text());
  }

  async function gql<T = Record<string, unknown>>(query: string, variables: Record<string, unknown> = {}, extra: Record<string, string> = headers): Promise<GraphQLResponse<T> & { requestId: string | null }> {
    const response = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', ...extra },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await response.json()) as Omit<GraphQLResponse<T>, 'status'>;
    return { status: response.status, requestId: response.headers.get('x-request-id'), ...body };
  }

  it('answers /healthz', async () => {
    const response = await fetch(`${url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok', dependencies: { upstream: 'up' } });
  });

  it('exports Prometheus text whose counters move with queries, upstream requests and DataLoader batches', async () => {
    const before = await scrape();
    const page = await gql<{ vmInstances: { nodes: { host: { name: string } | null }[] } }>(
      'query Dashboard { vmInstances(first: 5) { nodes { host { name } } } }',
    );
    expect(page.errors).toBeUndefined();
    const failed = await gql('query NoCredentials { hosts(first: 1) { totalCount } }', {}, {});
    expect(failed.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const after = await scrape();

    const moved = (name: string, labels: Record<string, string>): number => total(after, name, labels) - total(before, name, labels);
    expect(moved('gateway_graphql_operations_total', { operation_type: 'query', operation_name: 'Dashboard', root_field: 'vmInstances', result: 'success' })).toBe(1);
    expect(moved('gateway_graphql_operations_total', { operation_type: 'query', operation_name: 'NoCredentials', root_field: 'hosts', result: 'error' })).toBe(1);
    expect(moved('gateway_graphql_operation_duration_seconds_count', { operation_name: 'Dashboard' })).toBe(1);
    // The page of VMs, then one batch for all their hosts.
    expect(moved('gateway_upstream_requests_total', { operation: 'CursorQuery', method: 'GET', status: '200' })).toBe(2);
    expect(moved('gateway_upstream_request_duration_seconds_count', { operation: 'CursorQuery', status: '200' })).toBe(2);
    expect(moved('gateway_dataloader_batch_size_count', { loader: 'host' })).toBe(1);
    const hosts = new Set(page.data!.vmInstances.nodes.map((vm) => vm.host?.name).filter(Boolean)).size;
    expect(moved('gateway_dataloader_batch_size_sum', { loader: 'host' })).toBe(hosts);
    expect(total(after, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('counts jobs by status and webhook deliveries accepted and rejected', async () => {
    const before = await scrape();
    const tenant = simulator.credentials.tenantId;
    const host = [...simulator.store.hosts.list(tenant)].find((candidate) => candidate.status === 'Connected')!;
    const done = await gql<{ updateHostNqn: { job: { status: string } } }>(
      'mutation($input: UpdateHostNqnInput!) { updateHostNqn(input: $input) { job { status } } }',
      { input: { uuid: host.uuid, nqn: 'nqn.2014-08.org.nvmexpress:uuid:00000404-0000-4000-8000-000000000000' } },
    );
    expect(done.data?.updateHostNqn.job.status).toBe('SUCCEEDED');
    const forged = await fetch(`${url}/webhooks/jobs/${'f'.repeat(32)}/secret`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-job-uuid': 'f'.repeat(32), 'x-job-success': 'true' },
      body: '{}',
    });
    expect(forged.status).toBe(404);

    const after = await eventually(async () => {
      const samples = await scrape();
      return total(samples, 'gateway_webhook_deliveries_total', { result: 'accepted' }) > total(before, 'gateway_webhook_deliveries_total', { result: 'accepted' }) && samples;
    }, 'the accepted webhook to be counted');
    const moved = (name: string, labels: Record<string, string>): number => total(after, name, labels) - total(before, name, labels);
    expect(moved('gateway_jobs_total', { status: 'RUNNING' })).toBe(1);
    expect(moved('gateway_jobs_total', { status: 'SUCCEEDED' })).toBe(1);
    expect(moved('gateway_webhook_deliveries_total', { result: 'accepted', status: '200' })).toBe(1);
    expect(moved('gateway_webhook_deliveries_total', { result: 'rejected', status: '404' })).toBe(1);
    expect(moved('gateway_upstream_requests_total', { operation: 'UpdateHostNqn', status: '202' })).toBe(1);
  });

  it('gauges the event loop utilization since the last scrape, as the admission control reads it', async () => {
    await scrape();
    const end = performance.now() + 300;
    while (performance.now() < end);
    expect(total(await scrape(), 'gateway_event_loop_utilization')).toBeGreaterThan(0.5);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(total(await scrape(), 'gateway_event_loop_utilization')).toBeLessThan(0.5);
  });

  it('gauges open subscriptions', async () => {
    const gauge = async (): Promise<number> => total(await scrape(), 'gateway_subscriptions_open');
    const before = await gauge();
    const subscription = await subscribeWs(url, 'subscription Watch { jobEvents { id } }', {}, { Authorization: headers.authorization! });
    await eventually(async () => (await gauge()) === before + 1, 'the subscription to be counted open');
    await subscription.close();
    await eventually(async () => (await gauge()) === before, 'the closed subscription to be counted out');
  });

  it('counts the errors of the answers by code, and the operations the cost limits refused', async () => {
    const before = await scrape();
    const unauthenticated = await gql('{ hosts(first: 1) { totalCount } }', {}, {});
    expect(unauthenticated.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    // 100 hosts x 100 VMs x 100 snapshot groups: far above MAX_COST, refused before any upstream call.
    const tooCostly = await gql('{ hosts(first: 100) { nodes { vmInstances(first: 100) { nodes { snapshotGroups(first: 100) { nodes { name } } } } } } }');
    expect(tooCostly.errors?.[0]?.extensions?.code).toBe('MAX_COST_EXCEEDED');
    const invalid = await gql('{ noSuchField }');
    expect(invalid.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const after = await scrape();

    const moved = (name: string, labels: Record<string, string>): number => total(after, name, labels) - total(before, name, labels);
    expect(moved('gateway_graphql_errors_total', { code: 'UNAUTHENTICATED' })).toBe(1);
    expect(moved('gateway_graphql_errors_total', { code: 'MAX_COST_EXCEEDED' })).toBe(1);
    expect(moved('gateway_graphql_errors_total', { code: 'GRAPHQL_VALIDATION_FAILED' })).toBe(1);
    expect(moved('gateway_cost_refused_total', { code: 'MAX_COST_EXCEEDED' })).toBe(1);
  });

  it('counts the response cache\'s hits and misses', async () => {
    const before = await scrape();
    const query = '{ hosts(first: 4) { nodes { name } } }';
    expect((await gql(query)).errors).toBeUndefined();
    expect((await gql(query)).errors).toBeUndefined();
    const after = await scrape();
    const moved = (name: string, labels: Record<string, string>): number => total(after, name, labels) - total(before, name, labels);
    expect(moved('gateway_response_cache_lookups_total', { result: 'miss' })).toBe(1);
    expect(moved('gateway_response_cache_lookups_total', { result: 'hit' })).toBe(1);
  });

  it('gauges the jobs in flight and the age of the oldest', async () => {
    const gauges = async (): Promise<[number, number]> => {
      const samples = await scrape();
      return [total(samples, 'gateway_jobs_in_flight'), total(samples, 'gateway_jobs_oldest_in_flight_seconds')];
    };
    expect(await gauges()).toEqual([0, 0]);
    const tenant = simulator.credentials.tenantId;
    const host = [...simulator.store.hosts.list(tenant)].find((candidate) => candidate.status === 'Connected')!;
    simulator.configure({ holdJobs: true });
    try {
      const started = await gql<{ updateHostNqn: { job: { id: string; status: string } } }>(
        'mutation($input: UpdateHostNqnInput!) { updateHostNqn(input: $input) { job { id status } } }',
        { input: { uuid: host.uuid, nqn: 'nqn.2014-08.org.nvmexpress:uuid:00000405-0000-4000-8000-000000000000', async: true } },
      );
      expect(started.data?.updateHostNqn.job.status).toBe('RUNNING');
      await new Promise((resolve) => setTimeout(resolve, 300));
      const [inFlight, oldest] = await gauges();
      expect(inFlight).toBe(1);
      expect(oldest).toBeGreaterThan(0.2);
      simulator.configure({ holdJobs: false });
      await eventually(async () => (await gauges())[0] === 0, 'the finished job to leave the in-flight gauge', 100, 100);
      expect(await gauges()).toEqual([0, 0]);
    } finally {
      simulator.configure({ holdJobs: false });
    }
  });

  it('gauges readiness apart from the upstream: a replica whose upstream is dead stays ready, gateway_dependency_up says the upstream is down, and the breakers open', async () => {
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    // A call, so that the upstream's origin has a breaker to gauge even when this test runs alone.
    expect((await gql('{ hosts(first: 3) { nodes { uuid } } }')).errors).toBeUndefined();
    const here = await scrape();
    expect(total(here, 'gateway_ready')).toBe(1);
    expect(total(here, 'gateway_dependency_up', { dependency: 'upstream' })).toBe(1);
    expect(total(here, 'gateway_upstream_circuit_breakers', { state: 'closed' })).toBeGreaterThanOrEqual(1);
    expect(total(here, 'gateway_upstream_circuit_breakers', { state: 'open' })).toBe(0);
    // No Redis here: no Redis gauge to read.
    expect([...here.keys()].some((key) => key.startsWith('gateway_redis_connected') || key.includes('dependency="redis"'))).toBe(false);

    const dead = createApp(
      { ...defaultConfig, port: 0, host: '127.0.0.1', upstreamUrl: `http://127.0.0.1:${await freePort()}/`, upstreamBreakerThreshold: 1, upstreamBreakerOpenMs: 60_000 },
      { logger: createLogger('silent') },
    );
    const deadUrl = await dead.start();
    const deadSamples = async (): Promise<Samples> => parsePrometheus(await (await fetch(`${deadUrl}/metrics`)).text());
    try {
      // Its first background ping finds the upstream away; the replica stays ready all along.
      await eventually(async () => total(await deadSamples(), 'gateway_dependency_up', { dependency: 'upstream' }) === 0, 'the upstream reported down');
      expect((await fetch(`${deadUrl}/readyz`)).status).toBe(200);
      expect(total(await deadSamples(), 'gateway_ready')).toBe(1);
      const failed = await fetch(`${deadUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ query: '{ hosts(first: 1) { totalCount } }' }),
      });
      expect(((await failed.json()) as GraphQLResponse).errors?.[0]?.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
      const samples = await deadSamples();
      expect(total(samples, 'gateway_ready')).toBe(1);
      expect(total(samples, 'gateway_dependency_up', { dependency: 'upstream' })).toBe(0);
      expect(total(samples, 'gateway_upstream_circuit_breakers', { state: 'open' })).toBe(1);
      expect(total(samples, 'gateway_graphql_errors_total', { code: 'UPSTREAM_UNAVAILABLE' })).toBe(1);
    } finally {
      await dead.stop();
    }
  });

  it('gauges the Redis connections with REDIS_URL: 1 while connected, 0 once Redis is gone', async () => {
    const redis = await startRedis();
    const replica = createApp({ ...defaultConfig, port: 0, host: '127.0.0.1', upstreamUrl: simulator.url, redisUrl: redis.url }, { logger: createLogger('silent') });
    try {
      const replicaUrl = await replica.start();
      const connected = async (): Promise<number> => total(parsePrometheus(await (await fetch(`${replicaUrl}/metrics`)).text()), 'gateway_redis_connected');
      await eventually(async () => (await connected()) === 1, 'the Redis gauge to read 1');
      await redis.stop();
      await eventually(async () => (await connected()) === 0, 'the Redis gauge to read 0');
    } finally {
      await replica.stop();
      await redis.stop();
    }
  });

  it('takes the caller\'s X-Request-ID (or makes one), echoes it, sends it upstream and writes it on the log lines', async () => {
    // The upstream's calls for the queries, not the pings a scrape sends to learn whether it answers.
    const calls = () => simulator.journal().filter((entry) => !(entry.method === 'GET' && new URL(simulator.url).pathname === entry.path));
    simulator.resetStats();
    const given = await gql('{ hosts(first: 1) { totalCount } }', {}, { ...headers, 'x-request-id': 'trace-4242' });
    expect(given.requestId).toBe('trace-4242');
    expect(calls().map((entry) => entry.headers['x-request-id'])).toEqual(['trace-4242']);

    // (Each query differs from the others: a cached answer would make no upstream request.)
    const made = await gql('{ hosts(first: 2) { totalCount } }');
    expect(made.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(calls().map((entry) => entry.headers['x-request-id'])).toEqual(['trace-4242', made.requestId]);

    // A forged id cannot inject into the logs: it is replaced.
    const forged = await gql('{ hosts(first: 3) { totalCount } }', {}, { ...headers, 'x-request-id': 'a b\tc' });
    expect(forged.requestId).toMatch(/^[0-9a-f-]{36}$/);

    const rejected = await fetch(`${url}/webhooks/jobs/${'e'.repeat(32)}/secret`, { method: 'POST', headers: { 'x-request-id': 'hook-77' }, body: '{}' });
    expect(rejected.headers.get('x-request-id')).toBe('hook-77');
    expect(logLines).toContainEqual(expect.objectContaining({ reqId: 'hook-77', msg: 'webhook rejected', level: 40 }));
  });
});
