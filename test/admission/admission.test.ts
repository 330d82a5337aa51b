/**
 * Admission control: operations beyond the limit wait first come first served, beyond the queue
 * they are refused with 503 OVERLOADED, and the limit follows the event loop's utilization.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { AdmissionControl, OverloadedError } from '../../src/admission/admission-control.js';
import { createAdmission } from '../../src/admission/admission-control.js';
import { errorCodes, startHarness, type GraphQLResponse, type Harness } from '../support/harness.js';
import { eventually } from '../support/process.js';

/** Settles pending promise callbacks. */
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('AdmissionControl', () => {
  it('runs up to the limit, queues the next ones in arrival order and refuses beyond the queue; a release counts once', async () => {
    const control = new AdmissionControl({ maxConcurrentOperations: 2, maxQueuedOperations: 2 });
    const order: string[] = [];
    const releaseFirst = await control.acquire();
    const releaseSecond = await control.acquire();
    const third = control.acquire().then((release) => order.push('third') && release);
    const fourth = control.acquire().then((release) => order.push('fourth') && release);
    await expect(control.acquire()).rejects.toBeInstanceOf(OverloadedError);
    expect(control.snapshot()).toEqual({ limit: 2, active: 2, queued: 2 });

    releaseFirst();
    releaseFirst();
    await third;
    expect(order).toEqual(['third']);
    expect(control.snapshot()).toEqual({ limit: 2, active: 2, queued: 1 });
    releaseSecond();
    await fourth;
    expect(order).toEqual(['third', 'fourth']);
    expect(control.snapshot()).toEqual({ limit: 2, active: 2, queued: 0 });
  });

  it('drops a waiting operation whose client hangs up', async () => {
    const control = new AdmissionControl({ maxConcurrentOperations: 1, maxQueuedOperations: 5 });
    await control.acquire();
    const hangUp = new AbortController();
    const waiting = control.acquire(hangUp.signal);
    hangUp.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
    expect(control.snapshot()).toEqual({ limit: 1, active: 1, queued: 0 });
  });

  it('shrinks the limit while the event loop is saturated, down to the floor, and grows it back only while operations wait', async () => {
    const control = new AdmissionControl({ maxConcurrentOperations: 20, min: 2, maxQueuedOperations: 100 });
    const limits: number[] = [];
    for (let i = 0; i < 16; i++) {
      control.adjust(0.97, 0.9);
      limits.push(control.limit);
    }
    expect(limits).toEqual([18, 16, 14, 12, 10, 9, 8, 7, 6, 5, 4, 3, 2, 2, 2, 2]);

    // A loop with room and nobody waiting: the limit is not binding, so it stays where it is.
    control.adjust(0.5, 0.9);
    expect(control.limit).toBe(2);

    // Two running, three waiting: each calm interval raises the limit and admits the waiting ones.
    await control.acquire();
    await control.acquire();
    const waiting = [control.acquire(), control.acquire(), control.acquire()];
    control.adjust(0.5, 0.9);
    expect(control.snapshot()).toEqual({ limit: 3, active: 3, queued: 2 });
    control.adjust(0.5, 0.9);
    control.adjust(0.5, 0.9);
    expect(control.snapshot()).toEqual({ limit: 5, active: 5, queued: 0 });
    await Promise.all(waiting);
    // The queue emptied during that interval, so the next calm one does not grow the limit further.
    control.adjust(0.5, 0.9);
    expect(control.limit).toBe(5);
    for (let i = 0; i < 30; i++) {
      void control.acquire();
      control.adjust(0.5, 0.9);
    }
    expect(control.limit).toBe(20);
  });
});

describe('createAdmission', () => {
  /** One turn of the event loop that keeps it running code for 5 ms first. */
  function busyTurn(): Promise<void> {
    const end = performance.now() + 5;
    while (performance.now() < end);
    return new Promise((resolve) => setImmediate(resolve));
  }

  it('measures the event loop: a saturated loop shrinks the limit to its floor, an idle one lets waiting operations in', async () => {
    const admission = createAdmission({ maxConcurrentOperations: 64, min: 4, maxQueuedOperations: 10, admissionTargetUtilization: 0.9, intervalMs: 20 });
    const { control } = admission;
    try {
      // An idle loop with nobody waiting: several intervals pass and the limit stays.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(control.limit).toBe(64);

      const deadline = Date.now() + 10_000;
      while (control.limit > 4 && Date.now() < deadline) await busyTurn();
      expect(control.limit).toBe(4);

      // Four running and three waiting on an idle loop: the limit grows until all three run.
      const releases = await Promise.all([control.acquire(), control.acquire(), control.acquire(), control.acquire()]);
      const waiting = [control.acquire(), control.acquire(), control.acquire()];
      expect(control.snapshot()).toEqual({ limit: 4, active: 4, queued: 3 });
      await eventually(() => control.snapshot().queued === 0, 'the waiting operations to be admitted', 1_000, 10);
      expect(control.snapshot()).toMatchObject({ active: 7, queued: 0 });
      expect(control.limit).toBeGreaterThanOrEqual(7);
      for (const release of [...releases, ...(await Promise.all(waiting))]) release();
    } finally {
      admission.close();
    }
  });
});

describe('ADMISSION_TARGET_UTILIZATION', () => {
  it('is a share from 0 to 1, 0.9 when unset', () => {
    expect(loadConfig({}).admissionTargetUtilization).toBe(0.9);
    expect(loadConfig({ ADMISSION_TARGET_UTILIZATION: '0.75' }).admissionTargetUtilization).toBe(0.75);
    expect(loadConfig({ ADMISSION_TARGET_UTILIZATION: '0' }).admissionTargetUtilization).toBe(0);
    for (const wrong of ['90', '-0.1', 'busy']) {
      expect(() => loadConfig({ ADMISSION_TARGET_UTILIZATION: wrong })).toThrow(ConfigError);
      expect(() => loadConfig({ ADMISSION_TARGET_UTILIZATION: wrong })).toThrow(`ADMISSION_TARGET_UTILIZATION must be a number from 0 to 1, got "${wrong}"`);
    }
  });
});

describe('admission over HTTP', () => {
  let harness: Harness;

  beforeAll(async () => {
    // One operation at a time, one waiting, a fixed limit: the queue is easy to fill on purpose.
    harness = await startHarness({
      config: { maxConcurrentOperations: 1, maxQueuedOperations: 1, admissionTargetUtilization: 0, responseCacheTtlMs: 0 },
    });
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('lets one operation wait its turn and refuses the next with 503 OVERLOADED and Retry-After', async () => {
    harness.simulator.configure({ latencyMs: 300 });
    const query = '{ vmInstances(first: 1) { nodes { name } } }';
    const running = harness.gql(query);
    await tick();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const waiting = harness.gql(query);
    await new Promise((resolve) => setTimeout(resolve, 50));

    const refused = await fetch(`${harness.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...harness.headers },
      body: JSON.stringify({ query }),
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    const body = (await refused.json()) as Omit<GraphQLResponse, 'status'>;
    expect(errorCodes(body)).toEqual(['OVERLOADED']);

    // Both earlier operations are answered in full, the waiting one after the running one.
    for (const response of await Promise.all([running, waiting])) {
      expect(response.errors).toBeUndefined();
      expect(response.data).toMatchObject({ vmInstances: { nodes: [{ name: expect.any(String) }] } });
    }
    harness.simulator.configure({ latencyMs: 0 });
    const metrics = await (await fetch(`${harness.url}/metrics`)).text();
    expect(metrics).toMatch(/^gateway_operations_shed_total 1$/m);
    expect(metrics).toMatch(/^gateway_operations_running 0$/m);
    expect(metrics).toMatch(/^gateway_admission_limit 1$/m);
    // Once the queue is free again, the next operation runs.
    expect((await harness.gql(query)).errors).toBeUndefined();
  });
});
