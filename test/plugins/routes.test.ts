/**
 * The gateway's own HTTP routes as plugins, each alone in a yoga of its own and called through
 * `yoga.fetch`: no server, no socket, only the plugin and the real parts it talks to (the job
 * manager and its store, an upstream client against the simulator, a Prometheus registry).
 */
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import { pino } from 'pino';
import { Counter, Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { defaultConfig } from '../../src/config/index.js';
import { createMemoryJobEvents } from '../../src/jobs/event-log.js';
import { createJobPubSub } from '../../src/jobs/events.js';
import { createJobManager, type JobManager } from '../../src/jobs/manager.js';
import { createMemoryJobStore, type JobRecord, type JobStore } from '../../src/jobs/store.js';
import { useHealth } from '../../src/plugins/routes/use-health.js';
import { useJobWebhook } from '../../src/plugins/routes/use-job-webhook.js';
import { useMetricsRoute } from '../../src/plugins/routes/use-metrics-route.js';
import { createReadiness, useReadiness, type Readiness } from '../../src/plugins/routes/use-readiness.js';
import { createDependencyWatch } from '../../src/observability/dependencies.js';
import { schema } from '../../src/schema/index.js';
import { createSimulator, type Simulator } from '../../src/simulator/server.js';
import { GetHostSensors } from '../../src/upstream/operations/index.js';
import type { UpstreamClient } from '../../src/upstream/types.js';
import { createTestUpstreamClient } from '../support/upstream-client.js';

const logger = pino({ level: 'silent' });

function yogaWith(plugin: Plugin): YogaServerInstance<Record<string, unknown>, Record<string, unknown>> {
  return createYoga({ schema, logging: false, plugins: [plugin] });
}

describe('useHealth', () => {
  let simulator: Simulator;
  let upstream: UpstreamClient;

  beforeAll(async () => {
    simulator = createSimulator();
    const url = await simulator.start(0, '127.0.0.1');
    upstream = createTestUpstreamClient({ upstreamUrl: url, upstreamBreakerThreshold: 1, upstreamBreakerOpenMs: 60_000, retries: 0 });
  });

  afterAll(async () => {
    await upstream?.close();
    await simulator?.stop();
  });

  it('answers /healthz 200 as JSON with each dependency up, Redis only when there is one, and leaves other paths to yoga', async () => {
    const watch = createDependencyWatch({ upstream, logger });
    const yoga = yogaWith(useHealth({ dependencies: watch }));
    const health = await yoga.fetch('http://gateway/healthz');
    expect(health.status).toBe(200);
    expect(health.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await health.json()).toEqual({ status: 'ok', dependencies: { upstream: 'up' } });
    expect((await yoga.fetch('http://gateway/healthz/more')).status).toBe(404);
    const withRedis = yogaWith(useHealth({ dependencies: createDependencyWatch({ upstream, redis: { isReady: () => false }, logger }) }));
    const redisDown = await withRedis.fetch('http://gateway/healthz');
    expect(redisDown.status).toBe(200);
    expect(await redisDown.json()).toEqual({ status: 'ok', dependencies: { upstream: 'up', redis: 'down' } });
  });

  it('stays 200 once calls to the upstream failed, saying it is down with {"breaker":"open"}, and not where it is', async () => {
    // Nothing listens on port 9: the first refused call opens the breaker.
    const away = createTestUpstreamClient({ upstreamUrl: 'http://127.0.0.1:9', upstreamBreakerThreshold: 1, upstreamBreakerOpenMs: 60_000, retries: 0 });
    try {
      await expect(away.read({ authorization: `OAuth ${simulator.credentials.session}` }, GetHostSensors, { uuid: 'a'.repeat(32) })).rejects.toThrow();
      const yoga = yogaWith(useHealth({ dependencies: createDependencyWatch({ upstream: away, logger }) }));
      const answer = await yoga.fetch('http://gateway/healthz');
      const text = await answer.text();
      expect(answer.status).toBe(200);
      expect(JSON.parse(text)).toEqual({ status: 'ok', dependencies: { upstream: 'down' }, breaker: 'open' });
      expect(text).not.toContain('127.0.0.1');
    } finally {
      await away.close();
    }
  });

  it('learns that the upstream stopped answering from the ping a read of its state sends once the last is old, without a call of any request', async () => {
    const dead = createSimulator();
    const url = await dead.start(0, '127.0.0.1');
    const client = createTestUpstreamClient({ upstreamUrl: url, retries: 0 });
    const watch = createDependencyWatch({ upstream: client, intervalMs: 50, logger });
    watch.start();
    try {
      await dead.stop();
      await vi.waitFor(() => expect(watch.states()).toEqual({ upstream: false }), { timeout: 5_000, interval: 50 });
    } finally {
      watch.stop();
      await client.close();
    }
  });
});

describe('useReadiness', () => {
  const readinessYoga = (readiness: Readiness) => yogaWith(useReadiness({ readiness }));

  it('is 503 starting until the app has started, then 200 ready', async () => {
    const readiness = createReadiness(new AbortController().signal);
    const before = await readinessYoga(readiness).fetch('http://gateway/readyz');
    expect(before.status).toBe(503);
    expect(await before.json()).toEqual({ status: 'starting' });
    readiness.markStarted();
    const after = await readinessYoga(readiness).fetch('http://gateway/readyz');
    expect(after.status).toBe(200);
    expect(await after.json()).toEqual({ status: 'ready' });
  });

  it('answers draining once the app is stopping', async () => {
    const stopping = new AbortController();
    const readiness = createReadiness(stopping.signal);
    readiness.markStarted();
    stopping.abort();
    const draining = await readinessYoga(readiness).fetch('http://gateway/readyz');
    expect(draining.status).toBe(503);
    expect(await draining.json()).toEqual({ status: 'draining' });
  });
});

describe('useMetricsRoute', () => {
  it('answers /metrics with the registry\'s text exposition and content type', async () => {
    const registry = new Registry();
    new Counter({ name: 'probe_total', help: 'A counter of this test.', registers: [registry] }).inc(3);
    const answer = await yogaWith(useMetricsRoute({ registry, logger })).fetch('http://gateway/metrics');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe(registry.contentType);
    expect(await answer.text()).toContain('probe_total 3');
  });
});

describe('useJobWebhook', () => {
  let store: JobStore;
  let jobs: JobManager;
  let upstream: UpstreamClient;
  const answered: number[] = [];
  let yoga: ReturnType<typeof yogaWith>;

  beforeAll(() => {
    store = createMemoryJobStore({ ttlMs: defaultConfig.jobTtlMs });
    // The manager polls nobody here: every job is put in the store as running, and finished by its webhook.
    upstream = createTestUpstreamClient({ upstreamUrl: 'http://127.0.0.1:9' });
    jobs = createJobManager({ store, pubsub: createJobPubSub(), events: createMemoryJobEvents(100), upstream, publicUrl: () => 'http://gateway', jobLocation: (id) => `http://127.0.0.1:9/${id}`, logger, jobPollAfterMs: defaultConfig.jobPollAfterMs });
    yoga = yogaWith(useJobWebhook({ jobs, logger, maxDeliveryBytes: 1024, onAnswer: (status) => answered.push(status) }));
  });

  afterAll(async () => {
    await jobs.close();
    await store.close();
    await upstream.close();
  });

  let sequence = 0;
  async function runningJob(): Promise<JobRecord> {
    sequence += 1;
    const job: JobRecord = {
      id: sequence.toString(16).padStart(32, '0'),
      operation: 'updateHostNqn',
      owner: 'owner',
      secret: `secret-${sequence}`,
      location: null,
      status: 'RUNNING',
      createdAt: Date.now(),
      finishedAt: null,
      input: {},
      outcome: null,
    };
    await store.create(job);
    return job;
  }

  type Delivery = Omit<RequestInit, 'headers'> & { headers?: Record<string, string>; duplex?: 'half' };
  const deliver = (job: Pick<JobRecord, 'id' | 'secret'>, init: Delivery = {}) =>
    yoga.fetch(`http://gateway/webhooks/jobs/${job.id}/${job.secret}`, {
      method: 'POST',
      ...init,
      headers: { 'x-job-uuid': job.id, 'x-job-success': 'true', 'content-type': 'application/json', ...init.headers },
    });

  it('records a delivery once, and says so to a second one', async () => {
    const job = await runningJob();
    const first = await deliver(job, { body: '{"inventory": {"uuid": "x"}}' });
    expect([first.status, await first.text()]).toEqual([200, 'recorded']);
    expect(await store.get(job.id)).toMatchObject({ status: 'SUCCEEDED', outcome: { success: true, body: { inventory: { uuid: 'x' } } } });
    const second = await deliver(job, { body: '{"inventory": {"uuid": "y"}}' });
    expect([second.status, await second.text()]).toEqual([200, 'already recorded']);
  });

  it('refuses an unknown job 404, a wrong secret 403 and a GET 405, closing the connection, and counts each answer', async () => {
    const job = await runningJob();
    answered.length = 0;
    const unknown = await deliver({ id: 'f'.repeat(32), secret: job.secret }, { body: '{}' });
    const wrongSecret = await deliver({ id: job.id, secret: 'not-the-secret' }, { body: '{}' });
    const get = await yoga.fetch(`http://gateway/webhooks/jobs/${job.id}/${job.secret}`);
    expect([unknown.status, await unknown.text()]).toEqual([404, 'unknown job']);
    expect([wrongSecret.status, await wrongSecret.text()]).toEqual([403, 'wrong secret']);
    expect([get.status, await get.text()]).toEqual([405, 'POST only']);
    for (const refusal of [unknown, wrongSecret, get]) expect(refusal.headers.get('connection')).toBe('close');
    expect(answered).toEqual([404, 403, 405]);
    expect((await store.get(job.id))?.status).toBe('RUNNING');
  });

  it('refuses a garbage body 400 and leaves the job running', async () => {
    const job = await runningJob();
    const garbage = await deliver(job, { body: '{"inventory":' });
    expect([garbage.status, await garbage.text()]).toEqual([400, 'body is not JSON']);
    const noError = await deliver(job, { body: '{}', headers: { 'x-job-success': 'false' } });
    expect([noError.status, await noError.text()]).toEqual([400, 'a failure body carries {"error": ErrorCode}']);
    const otherJob = await deliver(job, { body: '{}', headers: { 'x-job-uuid': 'e'.repeat(32) } });
    expect(otherJob.status).toBe(400);
    expect((await store.get(job.id))?.status).toBe('RUNNING');
  });

  it('refuses a body over the limit 413, whether it declares its length or streams', async () => {
    const job = await runningJob();
    const declared = await deliver(job, { body: 'x'.repeat(2048) });
    expect([declared.status, await declared.text()]).toEqual([413, 'body too large']);
    // No Content-Length: the reading stops at the limit.
    const chunk = new TextEncoder().encode(`{"inventory": "${'x'.repeat(600)}`);
    const streamed = await deliver(job, {
      body: new ReadableStream({
        pull(controller) {
          controller.enqueue(chunk);
        },
      }),
      duplex: 'half',
    });
    expect([streamed.status, await streamed.text()]).toEqual([413, 'body too large']);
    expect((await store.get(job.id))?.status).toBe('RUNNING');
  });
});
