/**
 * The generated estate (`src/simulator/estate/`): a function of its seed and sizes, in which every
 * reference resolves, so that the demo, the tests and the bench read the same consistent world
 * whenever they start it.
 */
import { describe, expect, it } from 'vitest';
import { deriveTenants, generateEstate, secondTenantSize } from '../../../src/simulator/estate/index.js';
import type { Tenant } from '../../../src/simulator/model.js';
import { SimulatorStore } from '../../../src/simulator/store.js';

function estate(seed: number, hosts = 8, vms = 60): SimulatorStore {
  const store = new SimulatorStore();
  generateEstate(store, seed, { hosts, vms }, deriveTenants(seed));
  return store;
}

/** Every record of the store, table by table, as text (sets as lists). */
function dump(store: SimulatorStore): string {
  const tables = Object.entries(store).filter(([, value]) => typeof (value as { all?: unknown }).all === 'function');
  return JSON.stringify(
    tables.map(([name, table]) => [name, [...(table as { all(): Iterable<unknown> }).all()]]),
    (_key, value: unknown) => (value instanceof Set ? [...(value as Set<unknown>)] : value),
  );
}

describe('the generated estate', () => {
  it('is the same record for record for the same seed, and another for another seed', () => {
    expect(dump(estate(42))).toBe(dump(estate(42)));
    expect(dump(estate(43))).not.toBe(dump(estate(42)));
    expect(deriveTenants(42)).toEqual(deriveTenants(42));
    expect(deriveTenants(43)[0]?.session).not.toBe(deriveTenants(42)[0]?.session);
  });

  it('keeps fixed credentials where given and derives the rest from the seed', () => {
    const [first, second] = deriveTenants(42, { session: 'fixed-session' }, { tenantId: 'tenant-fixed' }) as [Tenant, Tenant];
    const [derivedFirst, derivedSecond] = deriveTenants(42) as [Tenant, Tenant];
    expect(first).toEqual({ ...derivedFirst, session: 'fixed-session' });
    expect(second).toEqual({ ...derivedSecond, id: 'tenant-fixed' });
  });

  it('gives the first tenant the size asked and the second a tenth, at least 2 hosts and 5 VMs', () => {
    const store = estate(42, 30, 200);
    const [first, second] = store.tenants as [Tenant, Tenant];
    expect(store.hosts.count(first.id)).toBe(30);
    expect(store.vms.count(first.id)).toBe(200);
    expect(store.hosts.count(second.id)).toBe(3);
    expect(store.vms.count(second.id)).toBe(20);
    expect(secondTenantSize({ hosts: 8, vms: 10 })).toEqual({ hosts: 2, vms: 5 });
  });

  it('resolves every reference inside the tenant that owns the record', () => {
    const store = estate(7, 12, 120);
    for (const tenant of store.tenants) {
      const vms = [...store.vms.list(tenant.id)];
      expect(vms.length).toBeGreaterThan(0);
      for (const vm of vms) {
        const host = store.hosts.get(tenant.id, vm.lastHostUuid ?? '');
        expect(host?.clusterUuid, `the last host of ${vm.name} is in its cluster`).toBe(vm.clusterUuid);
        expect(store.clusters.get(tenant.id, vm.clusterUuid)?.zoneUuid).toBe(vm.zoneUuid);
        if (vm.state === 'Running') expect(vm.hostUuid).toBe(vm.lastHostUuid);
        else expect(vm.hostUuid).toBeNull();
        const volumes = store.volumesOfVm(vm);
        expect(volumes[0]?.uuid, `the root volume of ${vm.name} is its first volume`).toBe(vm.rootVolumeUuid);
        expect(vm.instanceOfferingUuid === null ? undefined : store.instanceOfferings.get(tenant.id, vm.instanceOfferingUuid)).toMatchObject({ cpuNum: vm.cpuNum, memorySize: vm.memorySize });
        for (const nic of vm.vmNics) expect(store.l3Networks.get(tenant.id, nic.l3NetworkUuid)?.zoneUuid).toBe(vm.zoneUuid);
      }
      for (const group of store.snapshotGroups.list(tenant.id)) {
        const vm = store.vms.get(tenant.id, group.vmInstanceUuid ?? '');
        expect(vm, `the VM of snapshot group ${group.name}`).toBeDefined();
        const volumes = new Set(store.volumesOfVm(vm as NonNullable<typeof vm>).map((volume) => volume.uuid));
        for (const ref of group.volumeSnapshotRefs) expect(volumes.has(ref.volumeUuid), `${group.name} snapshots a volume of its VM`).toBe(true);
      }
      for (const email of store.snsEmails.list(tenant.id)) expect(store.snsEndpoints.get(tenant.id, email.endpointUuid)?.type).toBe('Email');
      for (const volume of store.volumes.list(tenant.id)) expect(store.primaryStorages.get(tenant.id, volume.primaryStorageUuid)).toBeDefined();
    }
  });
});
