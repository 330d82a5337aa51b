import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VmInstance } from '../../src/simulator/model.js';
import { createSimulator, type Simulator } from '../../src/simulator/server.js';

const UUID = /^[0-9a-f]{32}$/;
const TIMESTAMP = /^(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{1,2}, \d{4} (1[0-2]|[1-9]):[0-5]\d:[0-5]\d (AM|PM)$/;

interface Page {
  items: Record<string, unknown>[];
  total: number;
  nextCursor: string | null;
  hasMore: boolean;
}

interface Answer {
  status: number;
  text: string;
  json: Record<string, unknown>;
}

let simulator: Simulator;
let tenantId: string;
let secondTenantId: string;

async function call(path: string, token: string | null = simulator.credentials.token, tenant?: string): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (tenant !== undefined) headers['x-tenant-id'] = tenant;
  const response = await fetch(`${simulator.url}${path}`, { headers });
  const text = await response.text();
  let json: Record<string, unknown> = {};
  if ((response.headers.get('content-type') ?? '').startsWith('application/json')) json = JSON.parse(text) as Record<string, unknown>;
  return { status: response.status, text, json };
}

async function page(path: string, token?: string): Promise<Page> {
  const answer = await call(path, token);
  expect(answer.status, answer.text).toBe(200);
  const body = answer.json as unknown as Page;
  expect(Object.keys(body).sort()).toEqual(['hasMore', 'items', 'nextCursor', 'total']);
  expect(body.hasMore).toBe(body.nextCursor !== null);
  return body;
}

/** Walks a query to its end; `between` runs after each page. */
async function walk(query: string, between?: (pageIndex: number) => void, token?: string): Promise<{ items: Record<string, unknown>[]; totals: number[] }> {
  const items: Record<string, unknown>[] = [];
  const totals: number[] = [];
  let current = await page(`/api/v1/resources/cursor-query?${query}`, token);
  for (let index = 0; ; index++) {
    items.push(...current.items);
    totals.push(current.total);
    if (!current.hasMore) break;
    between?.(index);
    current = await page(`/api/v1/resources/cursor-next?cursor=${encodeURIComponent(current.nextCursor!)}`, token);
  }
  return { items, totals };
}

function uuidsOf(items: Record<string, unknown>[]): string[] {
  return items.map((item) => item.uuid as string);
}

beforeAll(async () => {
  simulator = createSimulator({ seed: 11, hosts: 12, vms: 150, cursorTtlMs: 60_000 });
  await simulator.start(0);
  tenantId = simulator.credentials.tenantId;
  secondTenantId = simulator.credentials.second.tenantId;
});

afterAll(async () => {
  await simulator.stop();
});

describe('full cursor walks', () => {
  it.each([
    ['vm', () => simulator.store.vms.count(tenantId)],
    ['host', () => simulator.store.hosts.count(tenantId)],
    ['volume', () => simulator.store.volumes.count(tenantId)],
  ])('a %s walk returns every record exactly once and as many as total', async (resourceType, count) => {
    const { items, totals } = await walk(`resourceType=${resourceType}&pageSize=7`);
    const uuids = uuidsOf(items);
    expect(new Set(uuids).size).toBe(uuids.length);
    expect(uuids.length).toBe(count());
    expect(totals.every((total) => total === count())).toBe(true);
    for (const uuid of uuids) expect(uuid).toMatch(UUID);
    // Default order: createDate ascending, ties by uuid.
    const store = simulator.store;
    const table = resourceType === 'vm' ? store.vms : resourceType === 'host' ? store.hosts : store.volumes;
    const times = uuids.map((uuid) => table.get(tenantId, uuid)!.createDate.getTime());
    for (let i = 1; i < times.length; i++) expect(times[i]!).toBeGreaterThanOrEqual(times[i - 1]!);
  });

  it('a page of pageSize items with no pageSize given holds 20', async () => {
    const first = await page('/api/v1/resources/cursor-query?resourceType=vm');
    expect(first.items.length).toBe(20);
    expect(first.hasMore).toBe(true);
  });

  it('walks in descending name order when asked', async () => {
    const { items } = await walk('resourceType=vm&sort=name&order=desc&pageSize=50');
    const names = items.map((item) => item.name as string);
    expect(names).toEqual([...names].sort().reverse());
  });

  it('VM items carry vmNics, allVolumes and vmCdRoms with spec timestamps', async () => {
    const first = await page('/api/v1/resources/cursor-query?resourceType=vm&pageSize=30');
    for (const vm of first.items) {
      expect(vm.uuid).toMatch(UUID);
      expect(vm.createDate).toMatch(TIMESTAMP);
      expect(vm.type).toBe('UserVm');
      expect(vm.hypervisorType).toBe('KVM');
      expect(['Running', 'Stopped', 'Destroyed']).toContain(vm.state);
      const volumes = vm.allVolumes as Record<string, unknown>[];
      expect(volumes.map((volume) => volume.uuid)).toContain(vm.rootVolumeUuid);
      expect(volumes[0]!.deviceId).toBe(0);
      for (const nic of vm.vmNics as Record<string, unknown>[]) {
        expect(['virtio', 'e1000', 'rtl8139']).toContain(nic.driverType);
        expect(nic.state).toBe('enable');
        expect((nic.usedIps as unknown[]).length).toBeGreaterThan(0);
      }
      expect(Array.isArray(vm.vmCdRoms)).toBe(true);
    }
  });
});

describe('cursor stability under change', () => {
  it('records added or removed mid-walk neither repeat nor skip the records that stay', async () => {
    const store = simulator.store;
    const before = new Set([...store.vms.list(tenantId)].map((vm) => vm.uuid));
    const removed = new Set<string>();
    const added: VmInstance[] = [];
    let counter = 0;
    const { items } = await walk('resourceType=vm&pageSize=10', (index) => {
      const all = [...store.vms.list(tenantId)]
        .filter((vm) => before.has(vm.uuid))
        .sort((a, b) => a.createDate.getTime() - b.createDate.getTime());
      // Remove one original record from early (already served) and one from late (not yet served).
      for (const victim of [all[index], all[all.length - 1 - index]]) {
        if (victim === undefined || removed.has(victim.uuid)) continue;
        store.vms.delete(victim.uuid);
        removed.add(victim.uuid);
      }
      // Add one record at the very beginning and one at the very end of the order.
      for (const when of [Date.UTC(2000, 0, 1) + index, Date.UTC(2030, 0, 1) + index]) {
        const template = all[0]!;
        const clone: VmInstance = {
          ...template,
          uuid: (counter++).toString(16).padStart(32, 'c'),
          name: `added-${counter}`,
          createDate: new Date(when),
          vmNics: [],
          vmCdRoms: [],
        };
        store.vms.insert(clone);
        added.push(clone);
      }
    });
    const seen = uuidsOf(items);
    expect(new Set(seen).size).toBe(seen.length);
    const stayed = [...before].filter((uuid) => !removed.has(uuid));
    const seenSet = new Set(seen);
    for (const uuid of stayed) expect(seenSet.has(uuid), `skipped ${uuid}`).toBe(true);
    expect(removed.size).toBeGreaterThan(0);
    // Records added after the walk's position appear; those added before it do not.
    const late = added.filter((vm) => vm.createDate.getUTCFullYear() === 2030);
    for (const vm of late) expect(seenSet.has(vm.uuid)).toBe(true);
    for (const vm of added) store.vms.delete(vm.uuid);
  });
});

describe('filters and resource types', () => {
  it('filters with eq, in, like, ne, gt', async () => {
    const vms = [...simulator.store.vms.list(tenantId)];
    const running = await walk('resourceType=vm&pageSize=1000&filter=state:eq:Running');
    expect(running.items.length).toBe(vms.filter((vm) => vm.state === 'Running').length);
    expect(running.items.every((vm) => vm.state === 'Running')).toBe(true);

    const inSet = await page('/api/v1/resources/cursor-query?resourceType=vm&pageSize=1000&filter=state:in:Running,Stopped');
    expect(inSet.total).toBe(vms.filter((vm) => vm.state === 'Running' || vm.state === 'Stopped').length);

    const web = await page(`/api/v1/resources/cursor-query?resourceType=vm&pageSize=1000&filter=${encodeURIComponent('name:like:web-%')}`);
    expect(web.total).toBe(vms.filter((vm) => vm.name.startsWith('web-')).length);
    expect(web.total).toBeGreaterThan(0);

    const both = await page(
      `/api/v1/resources/cursor-query?resourceType=vm&pageSize=1000&filter=state:ne:Running&filter=cpuNum:gt:2`,
    );
    expect(both.total).toBe(vms.filter((vm) => vm.state !== 'Running' && vm.cpuNum > 2).length);
  });

  it('filters on timestamps given as the service text (colons in the value)', async () => {
    const vms = [...simulator.store.vms.list(tenantId)];
    const pivot = vms[10]!;
    const text = simulator.store.wire.time(pivot.createDate);
    const later = await page(`/api/v1/resources/cursor-query?resourceType=vm&pageSize=1000&filter=${encodeURIComponent(`createDate:ge:${text}`)}`);
    expect(later.total).toBe(vms.filter((vm) => vm.createDate.getTime() >= pivot.createDate.getTime()).length);
  });

  it('serves SNS platforms, endpoints by type, and directories', async () => {
    const platforms = await walk('resourceType=sns-application-platform');
    expect(platforms.items.length).toBe(simulator.store.snsPlatforms.count(tenantId));
    for (const platform of platforms.items) expect(platform.state).toBe('Enabled');

    const endpoints = await walk('resourceType=sns-application-endpoint');
    const types = new Set(endpoints.items.map((endpoint) => endpoint.type));
    expect([...types].sort()).toEqual(['Email', 'HTTP', 'SMS']);
    for (const endpoint of endpoints.items) {
      expect(endpoint.platformUuid).toMatch(UUID);
      expect(endpoint).not.toHaveProperty('password');
      if (endpoint.type === 'HTTP') {
        expect(typeof endpoint.url).toBe('string');
        expect(typeof endpoint.username).toBe('string');
      } else {
        expect(endpoint).not.toHaveProperty('url');
      }
      if (endpoint.type === 'SMS') {
        const receivers = endpoint.receivers as { phoneNumber: string }[];
        expect(receivers.length).toBeGreaterThan(0);
        for (const receiver of receivers) expect(Object.keys(receiver)).toEqual(['phoneNumber']);
      } else {
        expect(endpoint).not.toHaveProperty('receivers');
      }
    }

    const directories = await walk('resourceType=directory');
    expect(directories.items.length).toBe(simulator.store.directories.count(tenantId));
    for (const directory of directories.items) {
      for (const key of Object.keys(directory)) {
        expect(['uuid', 'name', 'groupName', 'parentUuid', 'zoneUuid', 'type', 'createDate', 'lastOpDate']).toContain(key);
      }
      expect(directory.createDate).toMatch(TIMESTAMP);
    }
  });
});

describe('invalid input', () => {
  it.each([
    ['pageSize=0', 'pageSize'],
    ['pageSize=5000', 'pageSize'],
    ['pageSize=ten', 'pageSize'],
    ['resourceType=spaceship', 'resourceType'],
    ['filter=state', 'filter'],
    ['filter=state:approx:Running', 'operator'],
    ['filter=nosuchfield:eq:1', 'unknown field'],
    ['filter=cpuNum:gt:many', 'number'],
    ['sort=nosuchfield', 'sort'],
    ['order=sideways', 'order'],
  ])('cursor-query with %s is a 400 plain text', async (query, message) => {
    const withType = query.startsWith('resourceType') ? query : `resourceType=vm&${query}`;
    const answer = await call(`/api/v1/resources/cursor-query?${withType}`);
    expect(answer.status).toBe(400);
    expect(answer.text).toContain(message);
  });

  it('rejects a garbage, tampered, or foreign cursor with a 400 naming the problem', async () => {
    const first = await page('/api/v1/resources/cursor-query?resourceType=vm&pageSize=5');
    const cursor = first.nextCursor!;
    const garbage = await call('/api/v1/resources/cursor-next?cursor=not-a-cursor');
    expect(garbage.status).toBe(400);
    expect(garbage.text).toMatch(/invalid cursor/);

    const [body, signature] = cursor.split('.') as [string, string];
    const state = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...state, t: secondTenantId })).toString('base64url');
    const tampered = await call(`/api/v1/resources/cursor-next?cursor=${encodeURIComponent(`${forged}.${signature}`)}`);
    expect(tampered.status).toBe(400);
    expect(tampered.text).toMatch(/signature/);

    const foreign = await call(
      `/api/v1/resources/cursor-next?cursor=${encodeURIComponent(cursor)}`,
      simulator.credentials.second.token,
    );
    expect(foreign.status).toBe(400);
    expect(foreign.text).toMatch(/another tenant/);

    const missing = await call('/api/v1/resources/cursor-next');
    expect(missing.status).toBe(400);
    const badSize = await call(`/api/v1/resources/cursor-next?cursor=${encodeURIComponent(cursor)}&pageSize=0`);
    expect(badSize.status).toBe(400);
    const good = await call(`/api/v1/resources/cursor-next?cursor=${encodeURIComponent(cursor)}&pageSize=3`);
    expect(good.status).toBe(200);
    expect((good.json.items as unknown[]).length).toBe(3);
  });

  it('rejects an expired cursor', async () => {
    const shortLived = createSimulator({ seed: 3, hosts: 2, vms: 10, cursorTtlMs: 1 });
    await shortLived.start(0);
    try {
      const headers = { authorization: `Bearer ${shortLived.credentials.token}` };
      const first = (await (
        await fetch(`${shortLived.url}/api/v1/resources/cursor-query?resourceType=vm&pageSize=2`, { headers })
      ).json()) as Page;
      expect(first.nextCursor).not.toBeNull();
      await new Promise((resolve) => setTimeout(resolve, 20));
      const next = await fetch(
        `${shortLived.url}/api/v1/resources/cursor-next?cursor=${encodeURIComponent(first.nextCursor!)}`,
        { headers },
      );
      expect(next.status).toBe(400);
      expect(await next.text()).toMatch(/expired/);
    } finally {
      await shortLived.stop();
    }
  });
});

describe('credentials and tenants', () => {
  it('a missing or unknown bearer token is 401 ID.1001', async () => {
    for (const token of [null, 'nope']) {
      const answer = await call('/api/v1/resources/cursor-query?resourceType=vm', token);
      expect(answer.status).toBe(401);
      expect((answer.json.error as Record<string, unknown>).code).toBe('ID.1001');
    }
  });

  it('an X-Tenant-ID other than the token tenant is 403 ID.1002; the matching one is accepted', async () => {
    const mismatched = await call('/api/v1/resources/cursor-query?resourceType=vm', simulator.credentials.token, secondTenantId);
    expect(mismatched.status).toBe(403);
    expect((mismatched.json.error as Record<string, unknown>).code).toBe('ID.1002');
    const matching = await call('/api/v1/resources/cursor-query?resourceType=vm', simulator.credentials.token, tenantId);
    expect(matching.status).toBe(200);
  });

  it("the second tenant's walks contain only its own records", async () => {
    for (const resourceType of ['vm', 'host', 'volume', 'sns-application-endpoint', 'directory']) {
      const { items } = await walk(`resourceType=${resourceType}&pageSize=100`, undefined, simulator.credentials.second.token);
      expect(items.length).toBeGreaterThan(0);
      for (const uuid of uuidsOf(items)) {
        expect(simulator.store.vms.get(tenantId, uuid)).toBeUndefined();
        expect(simulator.store.hosts.get(tenantId, uuid)).toBeUndefined();
        expect(simulator.store.volumes.get(tenantId, uuid)).toBeUndefined();
        expect(simulator.store.snsEndpoints.get(tenantId, uuid)).toBeUndefined();
        expect(simulator.store.directories.get(tenantId, uuid)).toBeUndefined();
      }
    }
    const vms = await walk('resourceType=vm&pageSize=100', undefined, simulator.credentials.second.token);
    expect(vms.items.length).toBe(simulator.store.vms.count(secondTenantId));
  });
});
