/**
 * Upstream faults as the simulator injects them (half 503 plain text, half dropped connections):
 * reads answer data or typed errors, never crash or hang; writes are never sent twice; the circuit
 * breaker opens while the upstream fails and closes once it is back.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { defaultConfig } from '../../src/config/index.js';
import { createSimulator, type Simulator } from '../../src/simulator/server.js';
import { CircuitBreaker } from '../../src/upstream/breaker.js';
import { OriginLimiter, QueueFullError } from '../../src/upstream/limiter.js';
import { errorCodes, startHarness, type GraphQLResponse, type Harness } from '../support/harness.js';

/** Codes a client may get for an upstream fault. */
const FAULT_CODES = new Set(['UPSTREAM_UNAVAILABLE', 'UPSTREAM_TIMEOUT', 'UPSTREAM_PROTOCOL_ERROR']);

const READS = [
  '{ hosts(first: 5) { totalCount nodes { name vmInstances(first: 3) { totalCount nodes { name } } } } }',
  '{ vmInstances(first: 10) { nodes { name host { name } rootVolume { name } snapshotGroups(first: 2) { totalCount } } } }',
  '{ cbtTasks(first: 5) { totalCount nodes { name } } volumeSnapshotGroups(first: 5) { totalCount } }',
  '{ hbaDevices(first: 5) { nodes { portName host { name } } } fiberChannelLuns(first: 3) { totalCount } }',
];

/** Every error is typed with a fault code, and the answer keeps whatever data did arrive. */
function expectDataOrTypedErrors(response: GraphQLResponse): void {
  expect(response.status).toBe(200);
  for (const error of response.errors ?? []) {
    expect(FAULT_CODES, JSON.stringify(error)).toContain(error.extensions?.code);
  }
  // Partial data: the response always has a data object (a failed top-level field is null in it).
  expect(response.data).toBeTypeOf('object');
}

describe('reads and writes under upstream faults', () => {
  let harness: Harness;

  beforeAll(async () => {
    // A breaker that never opens and no response cache: these tests are about each call's own fate.
    harness = await startHarness({ config: { upstreamBreakerThreshold: 1_000_000, responseCacheTtlMs: 0 } });
  });

  afterEach(() => {
    harness.simulator.configure({ faultRate: 0, latencyMs: 0 });
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('answers every read with data or typed errors and partial data, at a 30% fault rate', async () => {
    harness.simulator.configure({ faultRate: 0.3, latencyMs: 1 });
    const responses: GraphQLResponse[] = [];
    for (let round = 0; round < 10; round++) {
      responses.push(...(await Promise.all(READS.map((query) => harness.gql(query)))));
    }
    for (const response of responses) expectDataOrTypedErrors(response);
    // Retries of idempotent GETs hide most faults: most answers are complete.
    expect(responses.filter((response) => response.errors === undefined).length).toBeGreaterThan(responses.length / 2);
    // The gateway still serves normally once the upstream is healthy.
    harness.simulator.configure({ faultRate: 0 });
    const healthy = await harness.gql(READS[0]!);
    expect(healthy.errors).toBeUndefined();
  });

  it('answers every read with typed errors when the upstream fails every request', async () => {
    harness.simulator.configure({ faultRate: 1 });
    const responses = await Promise.all(READS.map((query) => harness.gql(query)));
    for (const response of responses) {
      expectDataOrTypedErrors(response);
      expect(errorCodes(response)).toContain('UPSTREAM_UNAVAILABLE');
    }
  });

  it('sends each write exactly once, whatever the faults, and answers each with a payload or a typed error', async () => {
    const hosts = await harness.gql<{ hosts: { nodes: { uuid: string; status: string }[] } }>(
      '{ hosts(first: 50) { nodes { uuid status } } }',
    );
    const host = hosts.data!.hosts.nodes.find((candidate) => candidate.status === 'CONNECTED')!;
    harness.simulator.configure({ faultRate: 0.5 });
    harness.resetStats();
    const mutation = /* GraphQL */ `
      mutation ($input: UpdateHostNqnInput!) {
        updateHostNqn(input: $input) { error { code } job { id status } }
      }
    `;
    const attempts = 20;
    const responses: GraphQLResponse<{ updateHostNqn: { error: { code: string } | null; job: { id: string; status: string } | null } | null }>[] = [];
    for (let i = 0; i < attempts; i++) {
      responses.push(await harness.gql(mutation, { input: { uuid: host.uuid, nqn: `nqn.2014-08.org.example:fault-${i}`, async: true } }));
    }
    for (const response of responses) {
      expect(response.status).toBe(200);
      for (const error of response.errors ?? []) expect(FAULT_CODES).toContain(error.extensions?.code);
      if (response.errors === undefined) expect(response.data?.updateHostNqn?.job?.id).toMatch(/^[0-9a-f]{32}$/);
    }
    // Every mutation reached the upstream once: no write was retried, faulted or not.
    expect(harness.simulator.stats().byOperation.UpdateHostNqn).toBe(attempts);
    const jobUuids = harness.simulator
      .journal()
      .filter((entry) => entry.operation === 'UpdateHostNqn')
      .map((entry) => entry.headers['x-job-uuid']);
    expect(new Set(jobUuids).size).toBe(attempts);
  });
});

/**
 * A front for the simulator that passes reads through but drops the connection of every write
 * after the simulator accepted it: the worst fault for a write, since the upstream runs it while
 * the gateway hears nothing.
 */
function startLosingFront(target: string): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(req.headers)) {
          if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name)) headers[name] = value;
        }
        const method = req.method ?? 'GET';
        const answer = await fetch(`${target}${req.url ?? '/'}`, { method, headers, body: method === 'GET' ? undefined : Buffer.concat(chunks) });
        const body = Buffer.from(await answer.arrayBuffer());
        if (method !== 'GET') {
          req.socket.destroy();
          return;
        }
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' }).end(body);
      })().catch(() => req.socket.destroy());
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

describe('a write whose answer is lost on the way back', () => {
  let simulator: Simulator;
  let front: { server: Server; url: string };
  let app: App;

  beforeAll(async () => {
    simulator = createSimulator({ asyncDelayMs: 5 });
    front = await startLosingFront(await simulator.start(0, '127.0.0.1'));
    app = createApp({ ...defaultConfig, port: 0, host: '127.0.0.1', upstreamUrl: front.url, jobPollAfterMs: 100 }, { logger: pino({ level: 'silent' }) });
    await app.start();
  });

  afterAll(async () => {
    await app?.stop();
    await new Promise((resolve) => front?.server.close(resolve));
    await simulator?.stop();
  });

  it('is not given up: the gateway waits for the job the upstream ran, sent once, and returns its result', async () => {
    const tenant = simulator.credentials.tenantId;
    const host = [...simulator.store.hosts.list(tenant)].find((candidate) => candidate.status === 'Connected')!;
    const response = await fetch(`${app.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `OAuth ${simulator.credentials.session}` },
      body: JSON.stringify({
        query: 'mutation ($input: UpdateHostNqnInput!) { updateHostNqn(input: $input) { error { code } job { status } } }',
        variables: { input: { uuid: host.uuid, nqn: 'nqn.2014-08.org.example:answer-lost' } },
      }),
    });
    const body = (await response.json()) as GraphQLResponse<{ updateHostNqn: { error: unknown; job: { status: string } } }>;
    expect(body.errors).toBeUndefined();
    expect(body.data?.updateHostNqn).toEqual({ error: null, job: { status: 'SUCCEEDED' } });
    expect(simulator.store.hosts.get(tenant, host.uuid)?.nqn).toBe('nqn.2014-08.org.example:answer-lost');
    expect(simulator.stats().byOperation.UpdateHostNqn).toBe(1);
  });
});

describe('a client that hangs up', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({ config: { responseCacheTtlMs: 0 } });
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('cancels its reads: the upstream hears nothing more once it is gone, and the gateway keeps serving', async () => {
    // Each upstream answer takes 300 ms: the client hangs up while the first one (the page of
    // VMs) is on its way, before the gateway could ask for hosts, HBAs and snapshot groups.
    harness.simulator.configure({ latencyMs: 300 });
    harness.simulator.resetStats();
    const hangUp = new AbortController();
    const abandoned = fetch(`${harness.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...harness.headers },
      body: JSON.stringify({
        query: '{ vmInstances(first: 20) { nodes { name host { name hbaDevices(first: 2) { totalCount } } snapshotGroups(first: 2) { totalCount } } } }',
      }),
      signal: hangUp.signal,
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    hangUp.abort();
    await expect(abandoned).rejects.toThrow();
    // Long enough for the page to have arrived and the next level of reads to have gone out.
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect(harness.simulator.journal().map((entry) => entry.operation)).toEqual(['CursorQuery']);

    harness.simulator.configure({ latencyMs: 0 });
    const next = await harness.gql('{ vmInstances(first: 2) { nodes { name host { name } } } }');
    expect(next.errors).toBeUndefined();
    expect(next.data?.vmInstances).toMatchObject({ nodes: [{ name: expect.any(String) }, { name: expect.any(String) }] });
  });
});

describe('the circuit breaker', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({ config: { upstreamBreakerThreshold: 3, upstreamBreakerOpenMs: 300, responseCacheTtlMs: 0 } });
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('opens while the upstream fails, fails fast without calling it, and closes once a probe succeeds', async () => {
    const query = '{ hosts(first: 1) { totalCount } }';
    harness.simulator.configure({ faultRate: 1 });
    // Failing calls in a row open the breaker: from then on a query costs the upstream nothing.
    await expect
      .poll(
        async () => {
          harness.resetStats();
          const response = await harness.gql(query);
          return { codes: response.errors?.map((error) => error.extensions?.code), upstream: harness.upstreamRequests() };
        },
        { timeout: 20_000, interval: 10 },
      )
      .toEqual({ codes: ['UPSTREAM_UNAVAILABLE'], upstream: 0 });
    const health = await fetch(`${harness.url}/healthz`);
    const healthText = await health.text();
    expect(health.status).toBe(200);
    // Open, or already half-open on a loaded machine: the upstream is down either way.
    expect(JSON.parse(healthText)).toMatchObject({ dependencies: { upstream: 'down' }, breaker: expect.stringMatching(/^(open|half-open)$/) });
    // Open, but not where: /healthz answers anyone, and the upstream's address is not theirs.
    expect(healthText).not.toContain(new URL(harness.simulator.url).host);
    // The upstream is everyone's: this replica stays ready.
    expect((await fetch(`${harness.url}/readyz`)).status).toBe(200);

    // The upstream comes back: after the open period one probe goes through and closes it.
    harness.simulator.configure({ faultRate: 0 });
    await expect
      .poll(async () => (await harness.gql(query)).errors === undefined, { timeout: 20_000, interval: 50 })
      .toBe(true);
    const after = (await (await fetch(`${harness.url}/healthz`)).json()) as { breaker?: unknown };
    expect(after.breaker).toBeUndefined();
  });
});

describe('CircuitBreaker', () => {
  function clock() {
    let now = 1_000;
    return { now: () => now, advance: (ms: number) => (now += ms) };
  }

  it('opens after the threshold of failures in a row, and a success in between resets the count', () => {
    const time = clock();
    const breaker = new CircuitBreaker('http://upstream', { failureThreshold: 3, openMs: 1000, now: time.now });
    const fail = () => {
      const admission = breaker.admit();
      if (!admission.admitted) throw new Error('not admitted');
      admission.ticket.failure();
    };
    fail();
    fail();
    const success = breaker.admit();
    if (success.admitted) success.ticket.success();
    fail();
    fail();
    expect(breaker.snapshot().state).toBe('closed');
    fail();
    expect(breaker.snapshot().state).toBe('open');
    expect(breaker.admit()).toEqual({ admitted: false, retryAfterMs: 1000 });
  });

  it('lets one probe through when half-open: its failure reopens, its success closes', () => {
    const time = clock();
    const breaker = new CircuitBreaker('http://upstream', { failureThreshold: 1, openMs: 1000, now: time.now });
    const first = breaker.admit();
    if (first.admitted) first.ticket.failure();
    time.advance(1000);
    const probe = breaker.admit();
    expect(probe.admitted).toBe(true);
    // Only one probe at a time.
    expect(breaker.admit().admitted).toBe(false);
    if (probe.admitted) probe.ticket.failure();
    expect(breaker.snapshot().state).toBe('open');
    time.advance(1000);
    const second = breaker.admit();
    if (second.admitted) second.ticket.success();
    expect(breaker.snapshot().state).toBe('closed');
    expect(breaker.admit().admitted).toBe(true);
  });

  it('does not count a released call (the caller gave up) either way', () => {
    const breaker = new CircuitBreaker('http://upstream', { failureThreshold: 1, openMs: 1000 });
    const call = breaker.admit();
    if (call.admitted) {
      call.ticket.release();
      call.ticket.failure();
    }
    expect(breaker.snapshot()).toMatchObject({ state: 'closed', consecutiveFailures: 0 });
  });
});

describe('OriginLimiter', () => {
  it('caps calls in flight per origin, queues a bounded number and refuses the rest', async () => {
    const limiter = new OriginLimiter({ maxConcurrent: 2, maxQueued: 1 });
    const a = await limiter.acquire('http://a');
    const b = await limiter.acquire('http://a');
    // Another origin has its own slots.
    const other = await limiter.acquire('http://b');
    let thirdAcquired = false;
    const third = limiter.acquire('http://a').then((release) => {
      thirdAcquired = true;
      return release;
    });
    await expect(limiter.acquire('http://a')).rejects.toBeInstanceOf(QueueFullError);
    expect(limiter.snapshot()['http://a']).toEqual({ active: 2, waiting: 1 });
    expect(thirdAcquired).toBe(false);
    a();
    const releaseThird = await third;
    expect(limiter.snapshot()['http://a']).toEqual({ active: 2, waiting: 0 });
    b();
    releaseThird();
    other();
    expect(limiter.snapshot()).toEqual({ 'http://a': { active: 0, waiting: 0 }, 'http://b': { active: 0, waiting: 0 } });
  });

  it('drops a waiting call whose deadline passes', async () => {
    const limiter = new OriginLimiter({ maxConcurrent: 1, maxQueued: 5 });
    const held = await limiter.acquire('http://a');
    const deadline = new AbortController();
    const waiting = limiter.acquire('http://a', deadline.signal);
    deadline.abort(new Error('deadline'));
    await expect(waiting).rejects.toThrow('deadline');
    expect(limiter.snapshot()['http://a']).toEqual({ active: 1, waiting: 0 });
    held();
  });
});
