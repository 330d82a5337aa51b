import { afterEach, describe, expect, it } from 'vitest';
import { loadSimulatorSettings } from '../../src/config/index.js';

const parseChurnSpec = (text: string | undefined) => loadSimulatorSettings({ SIM_CHURN: text }).churn;
import { parseTimestamp } from '../../src/simulator/format.js';
import { createSimulator, type Simulator } from '../../src/simulator/server.js';
import { eventually } from '../support/process.js';

let simulator: Simulator | undefined;

afterEach(async () => {
  await simulator?.stop();
  simulator = undefined;
});

async function start(options: Parameters<typeof createSimulator>[0] = {}): Promise<Simulator> {
  simulator = createSimulator({ seed: 9, hosts: 4, vms: 30, ...options });
  await simulator.start(0);
  return simulator;
}

async function churn(sim: Simulator, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${sim.url}/__sim/churn`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
}

interface Item {
  uuid: string;
  state?: string;
  status?: string;
  lastOpDate: string;
}

async function cursorQuery(sim: Simulator, query: string, token = sim.credentials.token): Promise<{ items: Item[]; total: number }> {
  const response = await fetch(`${sim.url}/api/v1/resources/cursor-query?${query}`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as { items: Item[]; total: number };
}

/** The newest `lastOpDate` text of a resource type, as a reader would take its watermark. */
async function newest(sim: Simulator, resourceType: string): Promise<string> {
  const page = await cursorQuery(sim, `resourceType=${resourceType}&sort=lastOpDate&order=desc&pageSize=1`);
  return page.items[0]!.lastOpDate;
}

describe('SIM_CHURN', () => {
  it('reads a rate and the tenants it applies to, and refuses anything else', () => {
    expect(parseChurnSpec(undefined)).toEqual({ rate: 0, tenants: 'all' });
    expect(parseChurnSpec('5')).toEqual({ rate: 5, tenants: 'all' });
    expect(parseChurnSpec('0.5@second')).toEqual({ rate: 0.5, tenants: 'second' });
    for (const bad of ['fast', '-1', '5@third', '20000']) expect(() => parseChurnSpec(bad)).toThrow(/SIM_CHURN/);
  });

  it('leaves the estate still when off (the default)', async () => {
    const sim = await start();
    const before = await cursorQuery(sim, 'resourceType=vm&pageSize=1000');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await cursorQuery(sim, 'resourceType=vm&pageSize=1000')).toEqual(before);
  });

  it('a VM state change is found by lastOpDate>… on the cursor family, with a fresh lastOpDate', async () => {
    const sim = await start();
    const watermark = await newest(sim, 'vm');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const answer = (await (await churn(sim, { kind: 'vmState' })).json()) as { changes: { uuid: string; record: string }[] };
    expect(answer.changes).toHaveLength(1);
    const [change] = answer.changes;
    expect(change!.record).toBe('vmInstance');
    const changed = await cursorQuery(sim, `resourceType=vm&filter=${encodeURIComponent(`lastOpDate:gt:${watermark}`)}`);
    expect(changed.items.map((item) => item.uuid)).toEqual([change!.uuid]);
    expect(Math.abs(parseTimestamp(changed.items[0]!.lastOpDate)!.getTime() - Date.now())).toBeLessThan(5000);
  });

  it('a host status flip is found by lastOpDate>… and its status flips', async () => {
    const sim = await start();
    const watermark = await newest(sim, 'host');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const before = new Map((await cursorQuery(sim, 'resourceType=host')).items.map((host) => [host.uuid, host.status]));
    const { changes } = (await (await churn(sim, { kind: 'hostStatus' })).json()) as { changes: { uuid: string }[] };
    const changed = await cursorQuery(sim, `resourceType=host&filter=${encodeURIComponent(`lastOpDate:gt:${watermark}`)}`);
    expect(changed.items.map((item) => item.uuid)).toEqual([changes[0]!.uuid]);
    expect(changed.items[0]!.status).not.toBe(before.get(changes[0]!.uuid));
  });

  it('changes the record it is told to', async () => {
    const sim = await start();
    const vm = [...sim.store.vms.list(sim.credentials.tenantId)].find((candidate) => candidate.state === 'Running')!;
    const { changes } = (await (await churn(sim, { kind: 'vmState', uuid: vm.uuid })).json()) as { changes: { uuid: string }[] };
    expect(changes.map((change) => change.uuid)).toEqual([vm.uuid]);
    expect(sim.store.vms.get(sim.credentials.tenantId, vm.uuid)!.state).toBe('Stopped');
  });

  it('creations and removals change the total; a removed VM is answered no more, nor its volumes', async () => {
    const sim = await start();
    const { total } = await cursorQuery(sim, 'resourceType=vm&pageSize=1');
    const created = (await (await churn(sim, { kind: 'vmCreate', count: 2 })).json()) as { changes: { uuid: string }[] };
    expect((await cursorQuery(sim, 'resourceType=vm&pageSize=1')).total).toBe(total + 2);
    const newVm = created.changes[0]!.uuid;
    const rootVolumes = await cursorQuery(sim, `resourceType=volume&filter=vmInstanceUuid:eq:${newVm}`);
    expect(rootVolumes.items).toHaveLength(1);

    const removed = (await (await churn(sim, { kind: 'vmDelete', count: 3 })).json()) as { changes: { uuid: string }[] };
    expect((await cursorQuery(sim, 'resourceType=vm&pageSize=1')).total).toBe(total - 1);
    for (const { uuid } of removed.changes) {
      expect((await cursorQuery(sim, `resourceType=vm&filter=uuid:eq:${uuid}`)).items).toEqual([]);
      expect((await cursorQuery(sim, `resourceType=volume&filter=vmInstanceUuid:eq:${uuid}`)).items).toEqual([]);
    }
  });

  it('changes on the timer at the configured rate, only in the tenants asked for', async () => {
    const sim = await start({ churn: { rate: 20, tenants: 'first' } });
    const secondBefore = await cursorQuery(sim, 'resourceType=vm&pageSize=1000', sim.credentials.second.token);
    const firstWatermark = await newest(sim, 'vm');
    await eventually(async () => {
      const changed = await cursorQuery(sim, `resourceType=vm&filter=${encodeURIComponent(`lastOpDate:gt:${firstWatermark}`)}`);
      return changed.items.length > 3;
    }, 'VMs changed by the timer', 200, 100);
    expect(await cursorQuery(sim, 'resourceType=vm&pageSize=1000', sim.credentials.second.token)).toEqual(secondBefore);

    // Rate 0 stops it.
    expect((await churn(sim, { rate: 0 })).status).toBe(200);
    const still = await cursorQuery(sim, 'resourceType=vm&pageSize=1000');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await cursorQuery(sim, 'resourceType=vm&pageSize=1000')).toEqual(still);
  });

  it('a resource-family query answers lastOpDate>… too', async () => {
    const sim = await start();
    const all = (await (await fetch(`${sim.url}/svc/v1/cbt-task?sort=-lastOpDate&limit=1`, { headers: { authorization: `OAuth ${sim.credentials.session}` } })).json()) as {
      inventories: Item[];
    };
    const watermark = all.inventories[0]!.lastOpDate;
    const newer = (await (
      await fetch(`${sim.url}/svc/v1/cbt-task?q=${encodeURIComponent(`lastOpDate>${watermark}`)}`, { headers: { authorization: `OAuth ${sim.credentials.session}` } })
    ).json()) as { inventories: Item[] };
    expect(newer.inventories).toEqual([]);
  });

  it('refuses a malformed control request', async () => {
    const sim = await start();
    expect((await churn(sim, { kind: 'explode' })).status).toBe(400);
    expect((await churn(sim, { tenant: 'third' })).status).toBe(400);
    expect((await churn(sim, { count: 1e9 })).status).toBe(400);
    expect((await churn(sim, { rate: -1 })).status).toBe(400);
    expect((await churn(sim, { kind: 'vmState', uuid: '../../etc' })).status).toBe(400);
    // Another tenant's VM is not the first tenant's to change.
    const theirs = sim.store.vms.list(sim.credentials.second.tenantId).next().value!;
    expect(((await (await churn(sim, { kind: 'vmDelete', uuid: theirs.uuid })).json()) as { changes: unknown[] }).changes).toEqual([]);
    expect(sim.store.vms.get(sim.credentials.second.tenantId, theirs.uuid)).toBeDefined();
  });
});
