/**
 * The simulator's `/__sim/*` control surface (`src/simulator/http/control.ts`) and what it reads
 * and sets: the request counts and journal (`journal.ts`), fault injection (`faults.ts`) and more
 * sessions of a tenant.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../../src/simulator/server.js';

let simulator: Simulator;

function resourceFamily(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${simulator.url}${path}`, {
    ...init,
    headers: { authorization: `OAuth ${simulator.credentials.session}`, ...(init.headers as Record<string, string>) },
  });
}

function cursorQuery(query: string): Promise<Response> {
  return fetch(`${simulator.url}/api/v1/resources/cursor-query?${query}`, {
    headers: { authorization: `Bearer ${simulator.credentials.token}` },
  });
}

async function control(path: string, body?: unknown): Promise<Response> {
  return fetch(`${simulator.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
}

beforeAll(async () => {
  simulator = createSimulator({ seed: 5, hosts: 4, vms: 20 });
  await simulator.start(0);
});

afterAll(async () => {
  await simulator.stop();
});

beforeEach(async () => {
  await control('/__sim/config', { latencyMs: 0, faultRate: 0 });
  expect((await control('/__sim/reset', {})).status).toBe(200);
});

describe('request counts and journal', () => {
  it('counts API requests by the spec operation names, and not control requests', async () => {
    for (let i = 0; i < 3; i++) await (await resourceFamily('/svc/v1/cbt-task')).text();
    await (await resourceFamily('/svc/v1/storage-devices/fiber-channel/luns')).text();
    const first = (await (await cursorQuery('resourceType=vm&pageSize=5')).json()) as { nextCursor: string };
    await (
      await fetch(`${simulator.url}/api/v1/resources/cursor-next?cursor=${encodeURIComponent(first.nextCursor)}`, {
        headers: { authorization: `Bearer ${simulator.credentials.token}` },
      })
    ).text();
    await (await fetch(`${simulator.url}/svc/v1/api-jobs/${'0'.repeat(32)}`)).text();
    const host = simulator.store.hosts.list(simulator.credentials.tenantId).next().value!;
    await (
      await resourceFamily(`/svc/v1/hosts/nqn/${host.uuid}/actions`, {
        method: 'PUT',
        body: JSON.stringify({ updateHostNqn: { nqn: 'nqn.2014-08.org.nvmexpress:uuid:test' } }),
        headers: { 'content-type': 'application/json' },
      })
    ).text();
    const stats = (await (await control('/__sim/stats')).json()) as { total: number; byOperation: Record<string, number> };
    expect(stats).toEqual({
      total: 8,
      byOperation: {
        QueryCbtTask: 3,
        QueryFiberChannelLun: 1,
        CursorQuery: 1,
        CursorNext: 1,
        PollJob: 1,
        UpdateHostNqn: 1,
      },
    });
    expect(simulator.stats()).toEqual(stats);
  });

  it('reset zeroes the counts and clears the journal', async () => {
    await (await resourceFamily('/svc/v1/cbt-task')).text();
    expect(simulator.stats().total).toBe(1);
    expect(simulator.journal().length).toBe(1);
    const reset = await control('/__sim/reset', {});
    expect(reset.status).toBe(200);
    expect(simulator.stats()).toEqual({ total: 0, byOperation: {} });
    const journal = (await (await control('/__sim/requests')).json()) as { requests: unknown[] };
    expect(journal.requests).toEqual([]);
  });

  it('journals operation, method, path, query, the tracked headers and the body', async () => {
    const vm = simulator.store.vms.list(simulator.credentials.tenantId).next().value!;
    const jobUuid = 'ab'.repeat(16);
    await (
      await resourceFamily(`/svc/v1/vm-instances/${vm.uuid}/actions`, {
        method: 'PUT',
        body: JSON.stringify({ recoverVmInstance: {} }),
        headers: {
          'content-type': 'application/json',
          'x-job-uuid': jobUuid,
          'x-web-hook': 'http://127.0.0.1:9/hook',
          'x-request-id': 'req-1',
        },
      })
    ).text();
    await (await resourceFamily('/svc/v1/cbt-task?q=status=Running&limit=5')).text();
    const { requests } = (await (await control('/__sim/requests')).json()) as { requests: Record<string, unknown>[] };
    expect(requests).toHaveLength(2);
    const narrowed = (await (await control('/__sim/requests?operation=QueryCbtTask')).json()) as { requests: Record<string, unknown>[] };
    expect(narrowed.requests).toEqual([requests[1]]);
    expect(requests[0]).toEqual({
      operation: 'RecoverVmInstance',
      method: 'PUT',
      path: `/svc/v1/vm-instances/${vm.uuid}/actions`,
      query: '',
      headers: {
        'x-job-uuid': jobUuid,
        'x-web-hook': 'http://127.0.0.1:9/hook',
        'x-request-id': 'req-1',
        authorization: `OAuth ${simulator.credentials.session}`,
      },
      body: { recoverVmInstance: {} },
    });
    expect(requests[1]).toMatchObject({ operation: 'QueryCbtTask', method: 'GET', query: 'q=status=Running&limit=5', body: null });
  });

  it('keeps at most the configured number of journal entries', async () => {
    const small = createSimulator({ seed: 1, hosts: 2, vms: 5, journalLimit: 3 });
    await small.start(0);
    try {
      for (let i = 0; i < 5; i++) {
        await (
          await fetch(`${small.url}/svc/v1/cbt-task?limit=${i}`, { headers: { authorization: `OAuth ${small.credentials.session}` } })
        ).text();
      }
      expect(small.journal().map((entry) => entry.query)).toEqual(['limit=2', 'limit=3', 'limit=4']);
      expect(small.stats().total).toBe(5);
    } finally {
      await small.stop();
    }
  });
});

describe('fault injection', () => {
  it('with faultRate 1 every API request fails: 503 plain text or a dropped connection', async () => {
    const configured = await control('/__sim/config', { faultRate: 1 });
    expect(configured.status).toBe(200);
    expect(((await configured.json()) as { faultRate: number }).faultRate).toBe(1);
    let unavailable = 0;
    let dropped = 0;
    for (let i = 0; i < 24; i++) {
      try {
        const response = await resourceFamily('/svc/v1/cbt-task');
        expect(response.status).toBe(503);
        expect(await response.text()).toBe('Service Unavailable');
        unavailable++;
      } catch {
        dropped++;
      }
    }
    expect(unavailable + dropped).toBe(24);
    expect(unavailable).toBeGreaterThan(0);
    expect(dropped).toBeGreaterThan(0);
    // Control routes are never faulted, and the failed requests were still counted.
    const stats = (await (await control('/__sim/stats')).json()) as { byOperation: Record<string, number> };
    expect(stats.byOperation.QueryCbtTask).toBe(24);
  });

  it('faultRate 0 restores normal answers', async () => {
    simulator.configure({ faultRate: 1 });
    simulator.configure({ faultRate: 0 });
    expect((await resourceFamily('/svc/v1/cbt-task')).status).toBe(200);
  });

  it('latencyMs delays every API answer by at least that long', async () => {
    await control('/__sim/config', { latencyMs: 150 });
    const started = performance.now();
    const response = await resourceFamily('/svc/v1/cbt-task');
    const elapsed = performance.now() - started;
    expect(response.status).toBe(200);
    expect(elapsed).toBeGreaterThanOrEqual(145);
  });

  it('rejects an invalid configuration with 400 and keeps the old one', async () => {
    for (const body of [{ faultRate: 2 }, { latencyMs: -1 }, { dropWebhooks: 'yes' }, { holdJobs: 1 }, { asyncDelayMs: 'slow' }]) {
      const response = await control('/__sim/config', body);
      expect(response.status, JSON.stringify(body)).toBe(400);
    }
    expect(simulator.config()).toMatchObject({ faultRate: 0, latencyMs: 0 });
    const applied = await control('/__sim/config', { asyncDelayMs: 5, dropWebhooks: true });
    expect((await applied.json()) as unknown).toEqual({ latencyMs: 0, faultRate: 0, asyncDelayMs: 5, dropWebhooks: true, holdJobs: false });
    await control('/__sim/config', { asyncDelayMs: 50, dropWebhooks: false });
  });

  it('answers 404 for an unknown control route', async () => {
    expect((await control('/__sim/nothing')).status).toBe(404);
    expect((await control('/__sim/stats', {})).status).toBe(405);
  });
});

describe('POST /__sim/sessions', () => {
  /** Every VM of the tenant whose bearer token this is, as the cursor family answers them. */
  async function vmsOf(token: string): Promise<unknown> {
    const response = await fetch(`${simulator.url}/api/v1/resources/cursor-query?resourceType=vm&pageSize=1000`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    return response.json();
  }

  it('adds sessions and tokens of one tenant, each accepted by its family, none of another tenant', async () => {
    const response = await control('/__sim/sessions', { count: 3, tenant: 'second' });
    const { credentials } = (await response.json()) as { credentials: { session: string; token: string; tenantId: string }[] };
    expect(credentials).toHaveLength(3);
    expect(new Set(credentials.map((credential) => credential.session)).size).toBe(3);
    const theirs = await vmsOf(simulator.credentials.second.token);
    for (const credential of credentials) {
      expect(credential.tenantId).toBe(simulator.credentials.second.tenantId);
      expect(await vmsOf(credential.token)).toEqual(theirs);
      const resourceAnswer = await fetch(`${simulator.url}/svc/v1/cbt-task`, { headers: { authorization: `OAuth ${credential.session}` } });
      expect(resourceAnswer.status).toBe(200);
    }
    expect((await control('/__sim/sessions', { count: 1e6 })).status).toBe(400);
  });
});
