import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator/server.js';
import { eventually } from '../support/process.js';

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
    for (const body of [{ faultRate: 2 }, { latencyMs: -1 }, { dropWebhooks: 'yes' }, { asyncDelayMs: 'slow' }]) {
      const response = await control('/__sim/config', body);
      expect(response.status, JSON.stringify(body)).toBe(400);
    }
    expect(simulator.config()).toMatchObject({ faultRate: 0, latencyMs: 0 });
    const applied = await control('/__sim/config', { asyncDelayMs: 5, dropWebhooks: true });
    expect((await applied.json()) as unknown).toEqual({ latencyMs: 0, faultRate: 0, asyncDelayMs: 5, dropWebhooks: true });
    await control('/__sim/config', { asyncDelayMs: 50, dropWebhooks: false });
  });

  it('answers 404 for an unknown control route', async () => {
    expect((await control('/__sim/nothing')).status).toBe(404);
    expect((await control('/__sim/stats', {})).status).toBe(405);
  });
});

describe('estate size', () => {
  it('generates and serves an estate of 10,000 VMs', async () => {
    const large = createSimulator({ seed: 42, hosts: 40, vms: 10_000 });
    await large.start(0);
    try {
      const tenant = large.credentials.tenantId;
      expect(large.store.vms.count(tenant)).toBe(10_000);
      expect(large.store.vms.count(large.credentials.second.tenantId)).toBe(1_000);
      const response = await fetch(`${large.url}/api/v1/resources/cursor-query?resourceType=vm&pageSize=1000`, {
        headers: { authorization: `Bearer ${large.credentials.token}` },
      });
      const body = (await response.json()) as { items: unknown[]; total: number };
      expect(body.total).toBe(10_000);
      expect(body.items).toHaveLength(1000);
      for (const vm of large.store.vms.list(tenant)) {
        const host = vm.hostUuid === null ? undefined : large.store.hosts.get(tenant, vm.hostUuid);
        if (vm.hostUuid !== null) expect(host?.clusterUuid).toBe(vm.clusterUuid);
        expect(large.store.volumes.get(tenant, vm.rootVolumeUuid)?.vmInstanceUuid).toBe(vm.uuid);
      }
    } finally {
      await large.stop();
    }
  });
});

describe('npm run simulator', () => {
  it('prints one JSON line with the url and both tenants’ credentials, and serves them (cursors living SIM_CURSOR_TTL_MS)', async () => {
    const child = spawn('npx', ['tsx', 'src/simulator/main.ts'], {
      env: { ...process.env, PORT: '0', SIM_VMS: '30', SIM_SESSION: 'fe'.repeat(16), SIM_CURSOR_TTL_MS: '300' },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so that SIGTERM reaches npx, tsx and the simulator alike.
      detached: true,
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let url = '';
    try {
      const line = await new Promise<string>((resolve, reject) => {
        const lines = createInterface({ input: child.stdout });
        lines.once('line', resolve);
        child.once('exit', (code) => reject(new Error(`simulator exited with ${String(code)}`)));
      });
      const printed = JSON.parse(line) as Record<string, unknown>;
      url = printed.url as string;
      expect(Object.keys(printed).sort()).toEqual(['second', 'session', 'tenantId', 'token', 'url']);
      expect(printed.session).toBe('fe'.repeat(16));
      expect(printed.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const second = printed.second as Record<string, unknown>;
      expect(Object.keys(second).sort()).toEqual(['session', 'tenantId', 'token']);
      expect(second.tenantId).not.toBe(printed.tenantId);

      const response = await fetch(`${printed.url as string}/api/v1/resources/cursor-query?resourceType=vm`, {
        headers: { authorization: `Bearer ${printed.token as string}`, 'x-tenant-id': printed.tenantId as string },
      });
      expect(response.status).toBe(200);
      const page = (await response.json()) as { total: number; nextCursor: string };
      expect(page.total).toBe(30);
      // SIM_CURSOR_TTL_MS: its cursors expire after 300 ms.
      await new Promise((resolve) => setTimeout(resolve, 400));
      const expired = await fetch(`${printed.url as string}/api/v1/resources/cursor-next?cursor=${page.nextCursor}`, {
        headers: { authorization: `Bearer ${printed.token as string}`, 'x-tenant-id': printed.tenantId as string },
      });
      expect(expired.status).toBe(400);
      expect(await expired.text()).toMatch(/expired/);
      const resource = await fetch(`${printed.url as string}/svc/v1/cbt-task`, {
        headers: { authorization: `OAuth ${second.session as string}` },
      });
      expect(resource.status).toBe(200);
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
    }
    await exited;
    // The simulator itself (not just npx) must stop: its port stops answering (npx may exit a
    // moment before the node process it ran has closed its server).
    await eventually(
      () =>
        fetch(`${url}/__sim/stats`).then(
          async (response) => (await response.arrayBuffer(), false),
          () => true,
        ),
      'the simulator to stop answering after SIGTERM',
      100,
    );
  });
});
