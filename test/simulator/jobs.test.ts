import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { JobAnswer, JobRunner, JobRunnerOptions, SubmitJob } from '../../src/simulator/contracts.js';
import { SimError, errorCode } from '../../src/simulator/errors.js';
import type { Tenant } from '../../src/simulator/model.js';
import { createJobRunner } from '../../src/simulator/jobs.js';
import { createSimulator, type Simulator } from '../../src/simulator/server.js';

const tenant: Tenant = { id: 'tenant-a', accountUuid: 'a'.repeat(32), session: 'b'.repeat(32), token: 'token' };

interface ReceivedHook {
  headers: IncomingHttpHeaders;
  body: unknown;
  text: string;
}

/** A webhook receiver on port 0 that answers each push with the next of `statuses` (then 200). */
async function startReceiver(statuses: number[] = []): Promise<{ url: string; hooks: ReceivedHook[]; server: Server }> {
  const hooks: ReceivedHook[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      hooks.push({ headers: req.headers, body: JSON.parse(text), text });
      res.statusCode = statuses.shift() ?? 200;
      res.end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, hooks, server };
}

async function until<T>(probe: () => T | undefined, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function jsonOf(answer: JobAnswer): Record<string, unknown> {
  if (!('json' in answer)) throw new Error(`expected JSON, got ${answer.status} ${answer.text}`);
  return answer.json;
}

function submission(overrides: Partial<SubmitJob> = {}): SubmitJob {
  return {
    jobUuidHeader: undefined,
    webHook: undefined,
    operation: 'UpdateHostNqn',
    tenant,
    run: () => ({ success: true, inventory: { uuid: 'c'.repeat(32) } }),
    ...overrides,
  };
}

describe('the job runner', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  function runner(overrides: Partial<JobRunnerOptions> = {}): JobRunner {
    const jobs = createJobRunner({
      baseUrl: () => 'http://sim.test',
      asyncDelayMs: () => 5,
      dropWebhooks: () => false,
      webhookRetryMs: () => 10,
      ...overrides,
    });
    cleanup.push(() => jobs.close());
    return jobs;
  }

  async function receiver(statuses: number[] = []) {
    const started = await startReceiver(statuses);
    cleanup.push(async () => {
      started.server.close();
      await once(started.server, 'close');
    });
    return started;
  }

  function uuidOf(answer: JobAnswer): string {
    const location = jsonOf(answer).location as string;
    return location.slice(location.lastIndexOf('/') + 1);
  }

  it('answers 202 with a polling location and apiTimeout, then 202 {} until the job is done and 200 with its result', async () => {
    const jobs = runner({ asyncDelayMs: () => 30 });
    const answer = jobs.submit(submission());
    expect(answer.status).toBe(202);
    const json = jsonOf(answer);
    expect(json.apiTimeout).toBe(1_800_000);
    expect(json.location).toMatch(/^http:\/\/sim\.test\/svc\/v1\/api-jobs\/[0-9a-f]{32}$/);
    const uuid = uuidOf(answer);
    expect(jobs.poll(uuid)).toEqual({ status: 202, json: {} });
    const done = await until(() => {
      const polled = jobs.poll(uuid);
      return polled.status === 202 ? undefined : polled;
    });
    expect(done).toEqual({ status: 200, json: { success: true, inventory: { uuid: 'c'.repeat(32) } } });
  });

  it('reports a SimError as 503 {error} and any other exception as SYS.1000', async () => {
    const jobs = runner();
    const notFound = errorCode('SYS.1003', 'Resource not found');
    const failed = uuidOf(jobs.submit(submission({ run: () => { throw new SimError(notFound); } })));
    const crashed = uuidOf(jobs.submit(submission({ run: () => { throw new TypeError('boom'); } })));
    const first = await until(() => (jobs.poll(failed).status === 202 ? undefined : jobs.poll(failed)));
    expect(first).toEqual({ status: 503, json: { error: notFound } });
    const second = await until(() => (jobs.poll(crashed).status === 202 ? undefined : jobs.poll(crashed)));
    expect(second.status).toBe(503);
    expect(jsonOf(second)).toMatchObject({ error: { code: 'SYS.1000', details: 'boom' } });
  });

  it('honours X-Job-UUID, rejects a malformed one and a reused one with 400 text', async () => {
    const jobs = runner();
    const chosen = 'ABCDEF0123456789abcdef0123456789';
    const answer = jobs.submit(submission({ jobUuidHeader: chosen }));
    expect(answer.status).toBe(202);
    expect(jsonOf(answer).location).toBe(`http://sim.test/svc/v1/api-jobs/${chosen.toLowerCase()}`);
    expect(jobs.submit(submission({ jobUuidHeader: 'not-a-uuid' }))).toMatchObject({ status: 400, text: expect.stringContaining('X-Job-UUID') });
    expect(jobs.submit(submission({ jobUuidHeader: 'a'.repeat(31) })).status).toBe(400);
    expect(jobs.submit(submission({ jobUuidHeader: chosen }))).toMatchObject({ status: 400, text: expect.stringContaining('Duplicate job uuid') });
    await until(() => (jobs.poll(chosen).status === 200 ? true : undefined));
    // Still a duplicate once finished.
    expect(jobs.submit(submission({ jobUuidHeader: chosen.toLowerCase() })).status).toBe(400);
  });

  it('calls start at once when the job is accepted, never for a rejected submission', () => {
    const jobs = runner({ asyncDelayMs: () => 1000 });
    const started: string[] = [];
    jobs.submit(submission({ jobUuidHeader: 'a'.repeat(32), start: () => started.push('first') }));
    jobs.submit(submission({ jobUuidHeader: 'a'.repeat(32), start: () => started.push('duplicate') }));
    jobs.submit(submission({ jobUuidHeader: 'bad', start: () => started.push('malformed') }));
    const answer = jobs.submit(submission({ start: () => { throw new Error('ignored'); } }));
    expect(started).toEqual(['first']);
    expect(answer.status).toBe(202);
  });

  it('answers 404 text for an unknown job and for one older than the TTL', async () => {
    const jobs = runner({ jobTtlMs: 150 });
    expect(jobs.poll('f'.repeat(32))).toMatchObject({ status: 404, text: expect.any(String) });
    const uuid = uuidOf(jobs.submit(submission()));
    await until(() => (jobs.poll(uuid).status === 200 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(jobs.poll(uuid).status).toBe(404);
  });

  it('pushes the result to the webhook with X-Job-UUID, X-Job-Success and the poll body', async () => {
    const jobs = runner();
    const hook = await receiver();
    const jobUuid = '0123456789abcdef0123456789ABCDEF';
    jobs.submit(submission({ jobUuidHeader: jobUuid, webHook: hook.url }));
    const [received] = await until(() => (hook.hooks.length > 0 ? hook.hooks : undefined));
    expect(received?.headers['x-job-uuid']).toBe(jobUuid);
    expect(received?.headers['x-job-success']).toBe('true');
    expect(received?.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(received?.body).toEqual({ success: true, inventory: { uuid: 'c'.repeat(32) } });
    // The receiver sees the push a moment before the runner records the answer.
    await until(() => (jobs.deliveries.length > 0 ? true : undefined));
    expect(jobs.deliveries).toEqual([
      { jobUuid: jobUuid.toLowerCase(), url: hook.url, success: true, attempt: 1, answeredStatus: 200 },
    ]);
  });

  it('pushes a failure as {error} with X-Job-Success false', async () => {
    const jobs = runner();
    const hook = await receiver();
    const failure = errorCode('SYS.1006', 'Operation failed', undefined, errorCode('VM.1010', 'Wrong VM state'));
    jobs.submit(submission({ webHook: hook.url, run: () => { throw new SimError(failure); } }));
    const [received] = await until(() => (hook.hooks.length > 0 ? hook.hooks : undefined));
    expect(received?.headers['x-job-success']).toBe('false');
    expect(received?.body).toEqual({ error: failure });
  });

  it('retries a receiver that answers 500 until it accepts, after webhookRetryMs', async () => {
    const jobs = runner({ webhookRetryMs: () => 20 });
    const hook = await receiver([500, 502]);
    jobs.submit(submission({ webHook: hook.url }));
    await until(() => (hook.hooks.length >= 3 ? true : undefined));
    await until(() => (jobs.deliveries.length >= 3 ? true : undefined));
    expect(jobs.deliveries.map((d) => [d.attempt, d.answeredStatus])).toEqual([[1, 500], [2, 502], [3, 200]]);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(hook.hooks).toHaveLength(3);
  });

  it('gives up after the configured retries and records an unreachable receiver as null', async () => {
    const jobs = runner({ webhookRetries: 2, webhookRetryMs: () => 5 });
    const hook = await receiver();
    hook.server.close();
    await once(hook.server, 'close');
    jobs.submit(submission({ webHook: hook.url }));
    await until(() => (jobs.deliveries.length >= 3 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(jobs.deliveries.map((d) => [d.attempt, d.answeredStatus])).toEqual([[1, null], [2, null], [3, null]]);
  });

  it('delivers nothing when webhooks are dropped, while polling still answers', async () => {
    const jobs = runner({ dropWebhooks: () => true });
    const hook = await receiver();
    const uuid = uuidOf(jobs.submit(submission({ webHook: hook.url })));
    const done = await until(() => (jobs.poll(uuid).status === 200 ? jobs.poll(uuid) : undefined));
    expect(jsonOf(done)).toMatchObject({ success: true });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(hook.hooks).toHaveLength(0);
    expect(jobs.deliveries).toHaveLength(0);
  });

  it('close() stops pending retries', async () => {
    const jobs = runner({ webhookRetryMs: () => 30 });
    const hook = await receiver([500, 500, 500]);
    jobs.submit(submission({ webHook: hook.url }));
    await until(() => (jobs.deliveries.length >= 1 ? true : undefined));
    await jobs.close();
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(hook.hooks).toHaveLength(1);
  });
});

describe('jobs over the simulator HTTP server', () => {
  let sim: Simulator;
  const receivers: Server[] = [];

  afterEach(async () => {
    await sim.stop();
    for (const server of receivers.splice(0)) {
      server.close();
      await once(server, 'close');
    }
  });

  async function start(options: Parameters<typeof createSimulator>[0] = {}): Promise<void> {
    sim = createSimulator({ seed: 3, hosts: 4, vms: 20, asyncDelayMs: 5, webhookRetryMs: 20, ...options });
    await sim.start(0);
  }

  async function httpReceiver(statuses: number[] = []) {
    const started = await startReceiver(statuses);
    receivers.push(started.server);
    return started;
  }

  function firstVm() {
    const vm = [...sim.store.vms.list(sim.credentials.tenantId)].find((candidate) => candidate.state === 'Running');
    if (vm === undefined) throw new Error('no running VM');
    return vm;
  }

  /** DestroyVmInstance of a running VM: succeeds with `{}`. */
  function destroy(uuid: string, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(`${sim.url}/svc/v1/vm-instances/${uuid}`, {
      method: 'DELETE',
      headers: { authorization: `OAuth ${sim.credentials.session}`, ...headers },
    });
  }

  /** RecoverVmInstance of a running VM: fails with VM.1010. */
  function recover(uuid: string, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(`${sim.url}/svc/v1/vm-instances/${uuid}/actions`, {
      method: 'PUT',
      headers: { authorization: `OAuth ${sim.credentials.session}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ recoverVmInstance: {} }),
    });
  }

  async function pollUntilFinal(location: string): Promise<{ status: number; text: string }> {
    const deadline = Date.now() + 5000;
    for (;;) {
      const response = await fetch(location);
      const text = await response.text();
      if (response.status !== 202) return { status: response.status, text };
      expect(JSON.parse(text)).toEqual({});
      if (Date.now() > deadline) throw new Error('job never finished');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  it('answers 202 {location, apiTimeout}, polls 202 {} while running and 200 with the result, without a credential', async () => {
    await start({ asyncDelayMs: 400 });
    const vm = firstVm();
    const answer = await destroy(vm.uuid);
    expect(answer.status).toBe(202);
    expect(answer.headers.get('location')).toBeNull();
    const body = (await answer.json()) as { location: string; apiTimeout: number };
    expect(Object.keys(body).sort()).toEqual(['apiTimeout', 'location']);
    expect(body.apiTimeout).toBe(1_800_000);
    expect(body.location).toMatch(new RegExp(`^${sim.url}/svc/v1/api-jobs/[0-9a-f]{32}$`));
    const running = await fetch(body.location);
    expect(running.status).toBe(202);
    expect(await running.json()).toEqual({});
    expect(sim.store.vms.get(sim.credentials.tenantId, vm.uuid)?.state).toBe('Running');
    const final = await pollUntilFinal(body.location);
    expect(final).toEqual({ status: 200, text: '{}' });
    expect(sim.store.vms.get(sim.credentials.tenantId, vm.uuid)?.state).toBe('Destroyed');
  });

  it('answers a failed job 503 {error} and an unknown job 404 text', async () => {
    await start();
    const answer = await recover(firstVm().uuid);
    const { location } = (await answer.json()) as { location: string };
    const final = await pollUntilFinal(location);
    expect(final.status).toBe(503);
    expect(JSON.parse(final.text)).toMatchObject({ error: { code: 'SYS.1006', cause: { code: 'VM.1010' } } });
    const unknown = await fetch(`${sim.url}/svc/v1/api-jobs/${'e'.repeat(32)}`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/^text\/plain/);
  });

  it('honours X-Job-UUID, rejects a malformed one and a reused one with 400 text', async () => {
    await start();
    const vm = firstVm();
    const jobUuid = '00112233445566778899aabbccddeeff';
    const accepted = await destroy(vm.uuid, { 'x-job-uuid': jobUuid });
    expect(accepted.status).toBe(202);
    expect(((await accepted.json()) as { location: string }).location).toBe(`${sim.url}/svc/v1/api-jobs/${jobUuid}`);
    const malformed = await destroy(vm.uuid, { 'x-job-uuid': 'job-1' });
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await malformed.text()).toContain('X-Job-UUID');
    const reused = await destroy(vm.uuid, { 'x-job-uuid': jobUuid });
    expect(reused.status).toBe(400);
    expect(await reused.text()).toContain('Duplicate job uuid');
    expect((await pollUntilFinal(`${sim.url}/svc/v1/api-jobs/${jobUuid}`)).status).toBe(200);
  });

  it('pushes the result to X-Web-Hook with X-Job-UUID and X-Job-Success, byte for byte the poll body', async () => {
    await start();
    const hook = await httpReceiver();
    const group = [...sim.store.snapshotGroups.list(sim.credentials.tenantId)][0];
    if (group === undefined) throw new Error('no snapshot group');
    const jobUuid = 'abcdefabcdefabcdefabcdefabcdef01';
    const answer = await fetch(`${sim.url}/svc/v1/volume-snapshots/group/${group.uuid}/actions`, {
      method: 'PUT',
      headers: { authorization: `OAuth ${sim.credentials.session}`, 'content-type': 'application/json', 'x-job-uuid': jobUuid, 'x-web-hook': hook.url },
      body: JSON.stringify({ updateVolumeSnapshotGroup: { name: 'pushed' } }),
    });
    expect(answer.status).toBe(202);
    const [received] = await until(() => (hook.hooks.length > 0 ? hook.hooks : undefined));
    expect(received?.headers['x-job-uuid']).toBe(jobUuid);
    expect(received?.headers['x-job-success']).toBe('true');
    expect(received?.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(received?.body).toMatchObject({ success: true, inventory: { uuid: group.uuid, name: 'pushed' } });
    const polled = await pollUntilFinal(`${sim.url}/svc/v1/api-jobs/${jobUuid}`);
    expect(received?.text).toBe(polled.text);
    expect(received?.text).toMatch(/"snapshotCount":\d+\.0/);
  });

  it('pushes a failure as {error} with X-Job-Success false', async () => {
    await start();
    const hook = await httpReceiver();
    await recover(firstVm().uuid, { 'x-web-hook': hook.url });
    const [received] = await until(() => (hook.hooks.length > 0 ? hook.hooks : undefined));
    expect(received?.headers['x-job-success']).toBe('false');
    expect(received?.body).toMatchObject({ error: { code: 'SYS.1006', cause: { code: 'VM.1010' } } });
    expect(Object.keys(received?.body as object)).toEqual(['error']);
  });

  it('retries a receiver that answers 500 first', async () => {
    await start({ webhookRetryMs: 20 });
    const hook = await httpReceiver([500]);
    await destroy(firstVm().uuid, { 'x-web-hook': hook.url });
    await until(() => (sim.jobs.deliveries.length >= 2 ? true : undefined));
    expect(sim.jobs.deliveries.map((delivery) => [delivery.attempt, delivery.answeredStatus])).toEqual([[1, 500], [2, 200]]);
    expect(hook.hooks).toHaveLength(2);
    expect(hook.hooks[1]?.headers['x-job-uuid']).toBe(hook.hooks[0]?.headers['x-job-uuid']);
  });

  it('delivers nothing when webhooks are dropped, and polling still works', async () => {
    await start();
    const configured = await fetch(`${sim.url}/__sim/config`, { method: 'POST', body: JSON.stringify({ dropWebhooks: true }) });
    expect(configured.status).toBe(200);
    const hook = await httpReceiver();
    const answer = await destroy(firstVm().uuid, { 'x-web-hook': hook.url });
    const { location } = (await answer.json()) as { location: string };
    expect((await pollUntilFinal(location)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(hook.hooks).toHaveLength(0);
    expect(sim.jobs.deliveries).toHaveLength(0);
  });
  it('keeps jobs running while holdJobs is set, and finishes them, webhook and all, once it is cleared', async () => {
    await start();
    const control = (body: Record<string, unknown>) => fetch(`${sim.url}/__sim/config`, { method: 'POST', body: JSON.stringify(body) });
    expect((await control({ holdJobs: true })).status).toBe(200);
    const hook = await httpReceiver();
    const answer = await destroy(firstVm().uuid, { 'x-web-hook': hook.url });
    const { location } = (await answer.json()) as { location: string };
    // Well past asyncDelayMs (5 ms): still running, nothing pushed.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await fetch(location)).status).toBe(202);
    expect(hook.hooks).toHaveLength(0);
    expect((await (await control({ holdJobs: false })).json()) as unknown).toMatchObject({ holdJobs: false });
    expect((await fetch(location)).status).toBe(200);
    const [received] = await until(() => (hook.hooks.length > 0 ? hook.hooks : undefined));
    expect(received?.headers['x-job-success']).toBe('true');
  });
});
