/**
 * The simulator answers pages from indexes (a sorted index per order, equality indexes for related
 * records): these check that every answer is the one a scan and sort of the whole estate gives,
 * before and after writes and churn, and that a page examines about what it returns.
 */
import { describe, expect, it } from 'vitest';
import { createChurn } from '../../src/simulator/churn.js';
import { CursorService } from '../../src/simulator/cursor.js';
import { deriveTenants, generateEstate } from '../../src/simulator/estate/index.js';
import type { VmInstance } from '../../src/simulator/model.js';
import { compareKeys, compileConditions, keyOf, parseFilter, parseResourceQuery, runResourceQuery } from '../../src/simulator/query.js';
import { matchRead } from '../../src/simulator/reads.js';
import { SimulatorStore } from '../../src/simulator/store.js';
import { HBA_WIRE, VM_WIRE } from '../../src/simulator/wire.js';

function estate(vms: number, hosts: number): SimulatorStore {
  const store = new SimulatorStore();
  generateEstate(store, 7, { vms, hosts }, deriveTenants(7));
  return store;
}

/** Every VM uuid the cursor family walks, page after page. */
function walk(cursors: CursorService, tenantId: string, params: Record<string, string | string[]>): { uuids: string[]; total: number } {
  const query = new URLSearchParams({ resourceType: 'vm', pageSize: '7' });
  for (const [name, value] of Object.entries(params)) for (const one of [value].flat()) query.append(name, one);
  let page = cursors.query(query, tenantId);
  const uuids = page.items.map((item) => String(item.uuid));
  const total = page.total;
  while (page.nextCursor !== null) {
    page = cursors.next(new URLSearchParams({ cursor: page.nextCursor }), tenantId);
    uuids.push(...page.items.map((item) => String(item.uuid)));
  }
  return { uuids, total };
}

/** What a scan of every VM and a full sort answer. */
function bruteForce(store: SimulatorStore, tenantId: string, params: Record<string, string | string[]>): { uuids: string[]; total: number } {
  const sort = typeof params.sort === 'string' ? params.sort : 'createDate';
  const sign = params.order === 'desc' ? -1 : 1;
  const predicate = compileConditions([params.filter ?? []].flat().map(parseFilter), VM_WIRE.queryable, store.timeZone);
  const matches = [...store.vms.all()].filter((vm) => vm.tenantId === tenantId && predicate(vm));
  matches.sort((a, b) => sign * compareKeys(keyOf(a, sort), keyOf(b, sort)) || compareKeys(a.uuid, b.uuid));
  return { uuids: matches.map((vm) => vm.uuid), total: matches.length };
}

function queriesOf(store: SimulatorStore, tenantId: string): Record<string, string | string[]>[] {
  const vms = [...store.vms.list(tenantId)];
  const host = vms.find((vm) => vm.hostUuid !== null)?.hostUuid ?? '';
  const named = vms.slice(3, 12).map((vm) => vm.uuid);
  return [
    {},
    { order: 'desc' },
    { sort: 'name' },
    { sort: 'state', order: 'desc' },
    { sort: 'cpuNum', order: 'desc', filter: 'state:eq:Running' },
    { sort: 'lastOpDate', filter: `hostUuid:eq:${host}` },
    { sort: 'memorySize', order: 'desc', filter: [`uuid:in:${named.join(',')}`, 'state:ne:Destroyed'] },
    { sort: 'hostUuid', filter: 'name:like:web%' },
  ];
}

function expectSameAnswers(store: SimulatorStore, cursors: CursorService): void {
  for (const tenant of store.tenants) {
    for (const params of queriesOf(store, tenant.id)) {
      expect(walk(cursors, tenant.id, params), JSON.stringify(params)).toEqual(bruteForce(store, tenant.id, params));
    }
  }
}

describe('indexed pages', () => {
  it('walks every order and filter exactly as a scan and sort of the estate does', () => {
    const store = estate(300, 6);
    expectSameAnswers(store, new CursorService(store));
  });

  it('still answers as a scan does after writes, creations, removals and churn', () => {
    const store = estate(300, 6);
    const cursors = new CursorService(store);
    expectSameAnswers(store, cursors);
    const [first] = store.tenants;
    const vms = [...store.vms.list(first!.id)];
    // Keys the sorted indexes hold change, records come and go, and a known uuid is written again.
    store.vms.update(vms[0]!, { name: 'aaa-renamed', state: 'Stopped', lastOpDate: new Date(0) });
    store.vms.update(vms[1]!, { cpuNum: 64, memorySize: 1, createDate: new Date(Date.UTC(2030, 0, 1)) });
    store.vms.delete(vms[2]!.uuid);
    const copy: VmInstance = { ...vms[3]!, uuid: 'f'.repeat(32), name: 'web-copy', createDate: vms[4]!.createDate };
    store.vms.insert(copy);
    store.vms.insert({ ...vms[5]!, name: 'web-replaced' });
    createChurn(store, 11, { rate: 0, tenants: 'all' }).apply({ tenant: 'first', count: 60 });
    expectSameAnswers(store, cursors);
  });

  it('examines one more record than the first page returns, whatever the estate holds', () => {
    for (const size of [200, 2000]) {
      const store = estate(size, 8);
      const cursors = new CursorService(store);
      const tenantId = store.tenants[0]!.id;
      const page = cursors.query(new URLSearchParams({ resourceType: 'vm', pageSize: '50' }), tenantId);
      expect(page.total).toBe(size);
      expect(cursors.visited).toBe(51);
      const next = cursors.next(new URLSearchParams({ cursor: page.nextCursor! }), tenantId);
      expect(next.items).toHaveLength(50);
      expect(cursors.visited).toBe(51);
      // A page of a few hosts' VMs reads only their VMs.
      const hosts = [...store.hosts.list(tenantId)].slice(0, 2).map((host) => host.uuid);
      const ofHosts = cursors.query(new URLSearchParams({ resourceType: 'vm', filter: `hostUuid:in:${hosts.join(',')}` }), tenantId);
      expect(cursors.visited).toBe(ofHosts.total);
    }
  });

  it("answers the resource family's related-record queries as a scan of the table does", () => {
    const store = estate(300, 6);
    const tenant = store.tenants[0]!;
    const hosts = [...store.hosts.list(tenant.id)].map((host) => host.uuid);
    const matched = matchRead('storage-devices/hba')!;
    for (const q of [`hostUuid?=${hosts.slice(0, 3).reverse().join(',')}`, `hostUuid=${hosts[1]}`, `hostUuid?=${hosts[0]},${hosts[0]}`]) {
      const extras: Record<string, string>[] = [{}, { sort: '-name' }, { limit: '2', start: '1', replyWithCount: 'true' }];
      for (const extra of extras) {
        const query = new URLSearchParams({ q, ...extra });
        const answer = matched.route.handle({ store, tenant, params: matched.params, query }) as { inventories: { uuid: string }[]; total?: number };
        const expected = runResourceQuery(store.hbas.list(tenant.id), parseResourceQuery(query, HBA_WIRE.queryable, store.timeZone));
        expect(answer.inventories.map((hba) => hba.uuid), `${q} ${JSON.stringify(extra)}`).toEqual(expected.items.map((hba) => hba.uuid));
        if (answer.total !== undefined) expect(answer.total).toBe(expected.total);
      }
    }
  });

  it("lists a VM's attachable data volumes in the order a scan of the volumes gives", () => {
    const store = estate(300, 6);
    const tenant = store.tenants[0]!;
    const matched = matchRead(`vm-instances/${'0'.repeat(32)}/data-volume-candidates`)!;
    let answered = 0;
    for (const vm of [...store.vms.list(tenant.id)].slice(0, 20)) {
      const params = { vmInstanceUuid: vm.uuid };
      const answer = matched.route.handle({ store, tenant, params, query: new URLSearchParams() }) as { inventories: { uuid: string }[] };
      const zoneStorages = new Set(store.primaryStorages.by('zoneUuid', vm.zoneUuid, tenant.id).map((storage) => storage.uuid));
      const expected = [...store.volumes.list(tenant.id)].filter(
        (volume) => volume.type === 'Data' && volume.vmInstanceUuid === null && volume.state === 'Enabled' && volume.status === 'Ready' && zoneStorages.has(volume.primaryStorageUuid),
      );
      expect(answer.inventories.map((volume) => volume.uuid)).toEqual(expected.map((volume) => volume.uuid));
      answered += expected.length;
    }
    expect(answered).toBeGreaterThan(1);
  });
});
