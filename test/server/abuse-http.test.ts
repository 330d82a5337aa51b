/**
 * Attacks on the gateway's server itself (issue 19), each bounded in count and time, over
 * loopback: stalled requests, webhook bodies from strangers, large aliased mutations, and secrets
 * in logs. The gateway runs as its own process so its RSS is its own, not the test runner's; the
 * simulator stays here, so what it keeps of the attack does not count against the gateway.
 */
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig, loadConfig } from '../../src/config/index.js';
import { createSimulator, type Simulator } from '../../src/simulator/server.js';
import { credentialHeaders, errorCodes, type GraphQLResponse } from '../support/harness.js';
import { eventually, spawnGateway, type GatewayProcess } from '../support/process.js';
import { subscribeSse, subscribeWs } from '../support/subscriptions.js';

/** The timeouts the gateway runs with here: short, so each attack is cut within seconds. */
const HEADERS_TIMEOUT_MS = 1_000;
const BODY_IDLE_TIMEOUT_MS = 1_000;
const REQUEST_TIMEOUT_MS = 4_000;

const MIB = 1024 * 1024;

/** The gateway process's resident memory, in MB. */
function rssMb(gateway: GatewayProcess): number {
  const status = readFileSync(`/proc/${gateway.child.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) / 1024;
}

interface RawAnswer {
  /** The status line's code, or null when the connection closed without an answer. */
  status: number | null;
  /** Milliseconds from the request's first byte until the server closed the connection. */
  closedAfterMs: number;
}

/**
 * Sends `head` (and `body`, if any) on a fresh connection, then nothing more; resolves when the
 * server closes the connection, or with `closedAfterMs: Infinity` after `giveUpMs`.
 */
function stalledRequest(port: number, head: string, body: Buffer | null, giveUpMs: number): { socket: Socket; answer: Promise<RawAnswer> } {
  const socket = connect(port, '127.0.0.1');
  const startedAt = Date.now();
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  socket.on('error', () => undefined);
  socket.write(head);
  if (body) socket.write(body);
  const answer = new Promise<RawAnswer>((resolve) => {
    const status = (): number | null => {
      const match = /^HTTP\/1\.1 (\d{3})/.exec(received);
      return match ? Number(match[1]) : null;
    };
    const timer = setTimeout(() => {
      resolve({ status: status(), closedAfterMs: Infinity });
      socket.destroy();
    }, giveUpMs);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve({ status: status(), closedAfterMs: Date.now() - startedAt });
    });
  });
  return { socket, answer };
}

function postHead(path: string, contentLength: number): string {
  return `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${contentLength}\r\n\r\n`;
}

describe('server limits under attack', () => {
  let simulator: Simulator;
  let simulatorUrl: string;
  let gateway: GatewayProcess;
  let port: number;

  /** A gateway process of its own, for the attacks whose RSS is measured: no earlier attack's heap to hide in. */
  function startGateway(env: Record<string, string> = {}): Promise<GatewayProcess> {
    return spawnGateway({
      ...env,
      PORT: '0',
      UPSTREAM_URL: simulatorUrl,
      HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      BODY_IDLE_TIMEOUT_MS: String(BODY_IDLE_TIMEOUT_MS),
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      // No cached answers and no budgets in the way of the attacks.
      RESPONSE_CACHE_TTL_MS: '0',
      COST_BUDGET: '0',
      LOG_LEVEL: 'info',
    });
  }

  beforeAll(async () => {
    simulator = createSimulator({ asyncDelayMs: 5 });
    simulatorUrl = await simulator.start(0, '127.0.0.1');
    gateway = await startGateway();
    port = Number(new URL(gateway.url).port);
  });

  afterAll(async () => {
    await gateway?.kill('SIGKILL');
    await simulator?.stop();
  });

  async function gql<T = Record<string, unknown>>(
    query: string,
    variables: Record<string, unknown>,
    headers: Record<string, string>,
    target: GatewayProcess = gateway,
  ): Promise<GraphQLResponse<T>> {
    const response = await fetch(`${target.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', ...headers },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.status, ...((await response.json()) as Omit<GraphQLResponse<T>, 'status'>) };
  }

  function connectedHost(): string {
    const host = [...simulator.store.hosts.list(simulator.credentials.tenantId)].find((candidate) => candidate.status === 'Connected');
    if (!host) throw new Error('the estate has no connected host');
    return host.uuid;
  }

  /** A running job of the first tenant (webhooks dropped, so it stays running), with its webhook path. */
  async function runningJob(): Promise<{ id: string; webhookPath: string }> {
    simulator.configure({ dropWebhooks: true, asyncDelayMs: 60_000 });
    const started = await gql<{ updateHostNqn: { job: { id: string } } }>(
      'mutation($input: UpdateHostNqnInput!) { updateHostNqn(input: $input) { job { id } } }',
      { input: { uuid: connectedHost(), nqn: 'nqn.2014-08.org.nvmexpress:uuid:00000505-0000-4000-8000-000000000000', async: true } },
      credentialHeaders(simulator.credentials),
    );
    const id = started.data!.updateHostNqn.job.id;
    const webHook = simulator.journal().find((entry) => entry.headers['x-job-uuid'] === id)?.headers['x-web-hook'];
    if (!webHook) throw new Error('the job was sent without a webhook');
    return { id, webhookPath: new URL(webHook).pathname };
  }

  it('defaults every request timeout well under a minute', () => {
    expect(defaultConfig).toMatchObject({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, bodyIdleTimeoutMs: 10_000, keepAliveTimeoutMs: 5_000 });
    expect(loadConfig({}).requestTimeoutMs).toBeLessThan(60_000);
    expect(loadConfig({ REQUEST_TIMEOUT_MS: '2000', HEADERS_TIMEOUT_MS: '1000' })).toMatchObject({ requestTimeoutMs: 2_000, headersTimeoutMs: 1_000 });
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: '2000', HEADERS_TIMEOUT_MS: '3000' })).toThrow('HEADERS_TIMEOUT_MS (3000) must not exceed REQUEST_TIMEOUT_MS (2000)');
  });

  it('cuts a connection whose headers, body or body pace stall, with 408, within its timeout, and leaves SSE and WebSocket streams open', async () => {
    const credentials = credentialHeaders(simulator.credentials);
    const sse = await subscribeSse<{ jobEvents: { id: string } }>(gateway.url, 'subscription { jobEvents { id } }', {}, credentials);
    const ws = await subscribeWs<{ jobEvents: { id: string } }>(gateway.url, 'subscription { jobEvents { id } }', {}, { Authorization: credentials.authorization });

    const headers = stalledRequest(port, 'POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\n', null, 10_000);
    const body = stalledRequest(port, postHead('/graphql', MIB), Buffer.alloc(MIB / 2, 32), 10_000);
    // One byte every 200 ms: never idle, but the whole request would take 58 hours.
    const trickle = stalledRequest(port, postHead('/graphql', MIB), Buffer.alloc(1, 32), 10_000);
    const drip = setInterval(() => trickle.socket.write(' '), 200);
    const [headersCut, bodyCut, trickleCut] = await Promise.all([headers.answer, body.answer, trickle.answer]);
    clearInterval(drip);

    // node:http checks its two timeouts every quarter of the shorter one; a body's pause is checked as often.
    expect(headersCut.status).toBe(408);
    expect(headersCut.closedAfterMs).toBeLessThan(HEADERS_TIMEOUT_MS * 1.5 + 500);
    expect(bodyCut.status).toBe(408);
    expect(bodyCut.closedAfterMs).toBeGreaterThanOrEqual(BODY_IDLE_TIMEOUT_MS);
    expect(bodyCut.closedAfterMs).toBeLessThan(BODY_IDLE_TIMEOUT_MS * 1.5 + 500);
    expect(trickleCut.status).toBe(408);
    expect(trickleCut.closedAfterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS);
    expect(trickleCut.closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS * 1.25 + 500);

    // The streams opened before the attack have outlived every timeout and still deliver.
    await new Promise((resolve) => setTimeout(resolve, BODY_IDLE_TIMEOUT_MS * 2));
    simulator.configure({ dropWebhooks: false, asyncDelayMs: 5 });
    const done = await gql<{ updateHostNqn: { job: { id: string } } }>(
      'mutation($input: UpdateHostNqnInput!) { updateHostNqn(input: $input) { job { id } } }',
      { input: { uuid: connectedHost(), nqn: 'nqn.2014-08.org.nvmexpress:uuid:00000606-0000-4000-8000-000000000000' } },
      credentials,
    );
    const id = done.data!.updateHostNqn.job.id;
    await Promise.all([sse.waitFor(1), ws.waitFor(1)]);
    expect(sse.results).toEqual([{ data: { jobEvents: { id } } }]);
    expect(ws.results).toEqual([{ data: { jobEvents: { id } } }]);
    await Promise.all([sse.close(), ws.close()]);
  });

  it('lets a normal caller run while stalled bodies fill the admission limit', async () => {
    // A fixed limit of 2 operations at once, and 5 connections stalling their bodies.
    const target = await startGateway({ MAX_CONCURRENT_OPERATIONS: '2', ADMISSION_TARGET_UTILIZATION: '0' });
    try {
      const targetPort = Number(new URL(target.url).port);
      const stalled = Array.from({ length: 5 }, () => stalledRequest(targetPort, postHead('/graphql', 64 * 1024), Buffer.alloc(32 * 1024, 32), 10_000));
      let cut = 0;
      for (const request of stalled) void request.answer.then(() => (cut += 1));
      await new Promise((resolve) => setTimeout(resolve, 200));
      const answer = await gql<{ hosts: { totalCount: number } }>('{ hosts(first: 1) { totalCount } }', {}, credentialHeaders(simulator.credentials), target);
      expect(answer.data?.hosts.totalCount).toBeGreaterThan(0);
      // Answered while every stalled body still held its connection: it did not wait for their cut.
      expect(cut).toBe(0);
      expect((await Promise.all(stalled.map((request) => request.answer))).map((result) => result.status)).toEqual([408, 408, 408, 408, 408]);
    } finally {
      await target.kill('SIGKILL');
    }
  });

  it('answers a webhook for an unknown job 404, and one with a wrong secret 403, before a byte of its body arrives', async () => {
    const { id } = await runningJob();
    // Each declares a 1 MiB body and sends none: only the path can have decided the answer.
    const unknown = stalledRequest(port, postHead(`/webhooks/jobs/${'f'.repeat(32)}/anything`, MIB), null, 10_000);
    const wrongSecret = stalledRequest(port, postHead(`/webhooks/jobs/${id}/not-the-secret`, MIB), null, 10_000);
    const [unknownAnswer, wrongSecretAnswer] = await Promise.all([unknown.answer, wrongSecret.answer]);
    expect(unknownAnswer.status).toBe(404);
    expect(wrongSecretAnswer.status).toBe(403);
    // Answered and closed before the body could even have been declared idle.
    expect(unknownAnswer.closedAfterMs).toBeLessThan(BODY_IDLE_TIMEOUT_MS);
    expect(wrongSecretAnswer.closedAfterMs).toBeLessThan(BODY_IDLE_TIMEOUT_MS);
  });

  it('never writes a webhook secret to its log, also when a delivery breaks mid-body or stalls', async () => {
    const { webhookPath } = await runningJob();
    const secret = webhookPath.split('/').pop()!;
    const logged = gateway.output().length;
    // A delivery that breaks mid-body...
    const head = postHead(webhookPath, 1000).replace('\r\n\r\n', `\r\nX-Job-Uuid: ${webhookPath.split('/')[3]}\r\nX-Job-Success: true\r\n\r\n`);
    const broken = connect(port, '127.0.0.1');
    broken.on('error', () => undefined);
    broken.write(`${head}{"inventory":`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    broken.destroy();
    // ...and one that stalls until it is cut.
    const stalled = stalledRequest(port, head, Buffer.from('{"inv'), 10_000);
    expect((await stalled.answer).status).toBe(408);
    await eventually(() => gateway.output().slice(logged).includes('request body stalled'), 'the stalled delivery logged');
    await eventually(() => gateway.output().slice(logged).includes('"level":50'), 'the broken delivery logged');

    const log = gateway.output().slice(logged);
    expect(log).toContain('/webhooks/jobs/');
    expect(log).toContain('[redacted]');
    expect(gateway.output()).not.toContain(secret);
    expect(await (await fetch(`${gateway.url}/metrics`)).text()).not.toContain(secret);
  });

  it('holds under +100 MB of RSS while 300 connections stall 1 MiB bodies, ten waves of 30', async () => {
    const target = await startGateway();
    try {
      const targetPort = Number(new URL(target.url).port);
      const before = rssMb(target);
      let peak = before;
      for (let wave = 0; wave < 10; wave += 1) {
        const requests = Array.from({ length: 30 }, () =>
          stalledRequest(targetPort, postHead('/graphql', MIB), Buffer.alloc(MIB - 1024, 32), REQUEST_TIMEOUT_MS + 1_000),
        );
        const answers = await Promise.all(requests.map((request) => request.answer));
        peak = Math.max(peak, rssMb(target));
        for (const request of requests) request.socket.destroy();
        // Every wave is cut once its bodies pause (before: held for 325 s)...
        expect(Math.max(...answers.map((answer) => answer.closedAfterMs))).toBeLessThan(REQUEST_TIMEOUT_MS);
      }
      const growth = rssMb(target) - before;
      // ...so one wave's memory is reused by the next instead of piling up (before: +300 MB).
      expect(peak - before).toBeLessThan(100);
      expect(growth).toBeLessThan(100);
    } finally {
      await target.kill('SIGKILL');
    }
  }, 60_000);

  it('refuses 30 aliased mutations with BAD_USER_INPUT and no upstream call, and keeps under +100 MB of 900 KB userTags sent in 100 mutations', async () => {
    simulator.configure({ dropWebhooks: false, asyncDelayMs: 5 });
    const userTags = Array.from({ length: 900 }, (_, index) => `tag-${index}-${'x'.repeat(994)}`);
    const aliased = (count: number): string =>
      `mutation($input: UpdateHostNqnInput!) { ${Array.from({ length: count }, (_, index) => `m${index}: updateHostNqn(input: $input) { job { id } }`).join(' ')} }`;
    const input = { uuid: connectedHost(), nqn: 'nqn.2014-08.org.nvmexpress:uuid:00000707-0000-4000-8000-000000000000', userTags, async: true };
    const invented = { authorization: `OAuth ${'0'.repeat(32)}` };
    // No per-address budget: every invented credential's first write reaches the upstream.
    const target = await startGateway({ UNVERIFIED_CALLS_PER_ADDRESS: '0' });
    try {
      simulator.resetStats();
      const refused = await gql(aliased(30), { input }, invented, target);
      expect(errorCodes(refused)).toEqual(['BAD_USER_INPUT']);
      expect(refused.errors?.[0]?.extensions).toMatchObject({ limit: 10, found: 30 });
      expect(refused.status).toBe(400);
      // (The other gateway of this suite may still be polling its running jobs.)
      expect(simulator.stats().byOperation.UpdateHostNqn ?? 0).toBe(0);

      const before = rssMb(target);
      // The attack (30 aliases, five times), then the most a request may hold (10), five
      // times with a credential the upstream rejects and five times with one it accepts.
      for (let round = 0; round < 5; round += 1) expect(errorCodes(await gql(aliased(30), { input }, invented, target))).toEqual(['BAD_USER_INPUT']);
      for (let round = 0; round < 5; round += 1) expect((await gql(aliased(10), { input }, invented, target)).status).toBe(200);
      // A write the upstream refused has no job to follow: it is forgotten once answered.
      const another = { authorization: `OAuth ${'1'.repeat(32)}` };
      const refusedWrite = await gql<{ m0: { job: { id: string; status: string } } }>(aliased(1), { input }, another, target);
      const forgotten = await gql('query($id: ID!) { job(id: $id) { status } }', { id: refusedWrite.data!.m0.job.id }, another, target);
      expect(forgotten.data).toEqual({ job: null });
      const accepted: string[] = [];
      for (let round = 0; round < 5; round += 1) {
        const answer = await gql<Record<string, { job: { id: string } }>>(aliased(10), { input }, credentialHeaders(simulator.credentials), target);
        accepted.push(...Object.values(answer.data ?? {}).map((payload) => payload.job.id));
      }
      expect(accepted).toHaveLength(50);
      const growth = rssMb(target) - before;
      expect(growth).toBeLessThan(100);
    } finally {
      await target.kill('SIGKILL');
    }
  }, 60_000);
});
