/**
 * The job webhook route as a plugin alone in a yoga of its own, called through `yoga.fetch`, with
 * the real job manager and its store: a delivery finishes the job once, anything else is refused.
 */
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/index.js';
import { createMemoryJobEvents } from '../../src/jobs/event-log.js';
import { createJobPubSub } from '../../src/jobs/events.js';
import { createJobManager, type JobManager } from '../../src/jobs/manager.js';
import { createMemoryJobStore, type JobRecord, type JobStore } from '../../src/jobs/store.js';
import { useJobWebhook } from '../../src/jobs/use-job-webhook.js';
import { schema } from '../../src/schema/index.js';
import type { UpstreamClient } from '../../src/upstream/types.js';
import { createTestUpstreamClient } from '../support/upstream-client.js';

const logger = pino({ level: 'silent' });

function yogaWith(plugin: Plugin): YogaServerInstance<Record<string, unknown>, Record<string, unknown>> {
  return createYoga({ schema, logging: false, plugins: [plugin] });
}

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
