import { DASHBOARD_QUERY as DASHBOARD } from '../../bench/dashboard.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';


interface DashboardData {
  vmInstances: {
    totalCount: number;
    nodes: {
      uuid: string;
      host: { uuid: string; hbaDevices: { totalCount: number } | null } | null;
      rootVolume: { uuid: string } | null;
      volumes: { uuid: string }[];
      snapshotGroups: { totalCount: number } | null;
    }[];
  };
}

/**
 * What kind of upstream request a journal entry is: the operation plus what it selects by
 * (`CursorQuery vm by hostUuid`, `QueryVolumeSnapshotGroup by vmInstanceUuid`, ...).
 */
function requestKind(entry: { operation: string; query: string }): string {
  const params = new URLSearchParams(entry.query);
  const resourceType = params.get('resourceType');
  const by = [
    ...params.getAll('filter').map((filter) => filter.split(':')[0]),
    ...params.getAll('q').map((condition) => /^[A-Za-z]+/.exec(condition)?.[0]),
  ];
  return [entry.operation, resourceType, by.length > 0 ? `by ${by.join(',')}` : null].filter(Boolean).join(' ');
}

/** Runs a query and answers the upstream requests it cost: in total, by operation and by kind. */
async function cost<T>(harness: Harness, query: string, variables?: Record<string, unknown>) {
  harness.resetStats();
  const response = await harness.gql<T>(query, variables);
  expect(response.errors).toBeUndefined();
  const stats = harness.simulator.stats();
  const kinds: Record<string, number> = {};
  for (const entry of harness.simulator.journal()) kinds[requestKind(entry)] = (kinds[requestKind(entry)] ?? 0) + 1;
  return { data: response.data!, total: stats.total, byOperation: stats.byOperation, kinds };
}

describe('batching', () => {
  let small: Harness;
  let large: Harness;

  beforeAll(async () => {
    [small, large] = await Promise.all([
      startHarness({ simulator: { vms: 100, hosts: 8 } }),
      startHarness({ simulator: { vms: 5000, hosts: 40 } }),
    ]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([small?.close(), large?.close()]);
  });

  it('the dashboard costs the same upstream requests on 100 VMs as on 5,000, and at most 8', async () => {
    const onSmall = await cost<DashboardData>(small, DASHBOARD);
    const onLarge = await cost<DashboardData>(large, DASHBOARD);
    expect(onLarge.data.vmInstances.totalCount).toBe(large.simulator.store.vms.count(large.simulator.credentials.tenantId));
    expect(onLarge.data.vmInstances.nodes).toHaveLength(50);
    expect(onSmall.total).toBe(onLarge.total);
    expect(onSmall.byOperation).toEqual(onLarge.byOperation);
    expect(onLarge.total).toBeLessThanOrEqual(8);
    // One page of VMs, one batch of hosts, one of HBAs, one of snapshot groups; the root volume comes from allVolumes.
    expect(onLarge.byOperation).toEqual({ CursorQuery: 2, QueryHBADevice: 1, QueryVolumeSnapshotGroup: 1 });

    const store = large.simulator.store;
    const tenantId = large.simulator.credentials.tenantId;
    for (const node of onLarge.data.vmInstances.nodes) {
      const vm = store.vms.get(tenantId, node.uuid)!;
      expect(node.host?.uuid ?? null).toBe(vm.hostUuid);
      if (node.host) expect(node.host.hbaDevices?.totalCount).toBe(store.hbas.by('hostUuid', node.host.uuid, tenantId).length);
      expect(node.rootVolume?.uuid).toBe(vm.rootVolumeUuid);
      expect(node.volumes.map((volume) => volume.uuid)).toEqual(store.volumesOfVm(vm).map((volume) => volume.uuid));
      expect(node.snapshotGroups?.totalCount).toBe(store.snapshotGroups.by('vmInstanceUuid', vm.uuid, tenantId).length);
    }
  });

  it('a page of 100 VMs with every reference costs the same as a page of 10', async () => {
    const query = /* GraphQL */ `
      query ($first: Int) {
        vmInstances(first: $first) {
          nodes {
            name
            host { name vmInstances(first: 3) { totalCount nodes { name } } }
            lastHost { name }
            rootVolume { name vmInstance { name } lastVmInstance { name } }
            volumes { name vmInstance { name } }
            nics { vmInstance { name } usedIps { ip } }
            cdRoms { vmInstance { name } }
            snapshotGroups(first: 100) {
              nodes { name vmInstance { name } volumeSnapshotRefs { volumeName volume { name vmInstance { name } } } }
            }
          }
        }
      }
    `;
    const ten = await cost(large, query, { first: 10 });
    const hundred = await cost(large, query, { first: 100 });
    // Each kind of request is made at most once, however many VMs the page holds.
    for (const result of [ten, hundred]) {
      for (const count of Object.values(result.kinds)) expect(count).toBe(1);
    }
    expect(Object.keys(hundred.kinds)).toEqual(expect.arrayContaining(Object.keys(ten.kinds)));
    expect(hundred.kinds).toEqual({
      'CursorQuery vm': 1,
      'CursorQuery host by uuid': 1,
      'CursorQuery vm by hostUuid': 1,
      'QueryVolumeSnapshotGroup by vmInstanceUuid': 1,
      'CursorQuery volume by uuid': 1,
    });
  });

  it('Host.vmInstances loads the VMs of a whole page of hosts in one query', async () => {
    const query = 'query ($first: Int) { hosts(first: $first) { nodes { name vmInstances(first: 5) { totalCount nodes { name } } } } }';
    const few = await cost<{ hosts: { nodes: { vmInstances: { totalCount: number } }[] } }>(small, query, { first: 2 });
    const all = await cost<{ hosts: { nodes: { vmInstances: { totalCount: number } }[] } }>(small, query, { first: 8 });
    expect(few.byOperation).toEqual({ CursorQuery: 2 });
    expect(all.byOperation).toEqual({ CursorQuery: 2 });
    const sum = all.data.hosts.nodes.reduce((total, host) => total + host.vmInstances.totalCount, 0);
    const tenantId = small.simulator.credentials.tenantId;
    expect(sum).toBe([...small.simulator.store.vms.list(tenantId)].filter((vm) => vm.hostUuid !== null).length);
  });

  it('aliases of a list with different pages share one upstream query, each cut to its own page', async () => {
    type Groups = { totalCount: number; nodes: { uuid: string }[] };
    const query = '{ vmInstances(first: 100) { nodes { none: snapshotGroups(first: 0) { totalCount nodes { uuid } } all: snapshotGroups(first: 50) { totalCount nodes { uuid } } } } }';
    const read = await cost<{ vmInstances: { nodes: { none: Groups; all: Groups }[] } }>(small, query);
    expect(read.kinds['QueryVolumeSnapshotGroup by vmInstanceUuid']).toBe(1);
    const vms = read.data.vmInstances.nodes;
    // Some VM has groups, so the empty page shows the cut.
    expect(vms.some((vm) => vm.all.totalCount > 0)).toBe(true);
    for (const vm of vms) {
      expect(vm.none).toEqual({ totalCount: vm.all.totalCount, nodes: [] });
      expect(vm.all.nodes).toHaveLength(vm.all.totalCount);
    }
  });

  it('snapshot groups with their VMs and volumes cost the same for 5 groups as for 40', async () => {
    const query = /* GraphQL */ `
      query ($first: Int) {
        volumeSnapshotGroups(first: $first) {
          nodes { name vmInstance { name host { name } rootVolume { name } } volumeSnapshotRefs { volume { name } } }
        }
      }
    `;
    // 40 groups reference fewer volumes than one loader batch holds (`maxBatchSize`, 100): past
    // that, batches are split into chunks of 100 keys, one request each.
    const five = await cost(large, query, { first: 5 });
    const forty = await cost(large, query, { first: 40 });
    expect(forty.kinds).toEqual(five.kinds);
    expect(forty.kinds).toEqual({
      QueryVolumeSnapshotGroup: 1,
      'CursorQuery vm by uuid': 1,
      'CursorQuery host by uuid': 1,
      'CursorQuery volume by uuid': 1,
    });
  });

  it('node(id) lookups of many embedded records load their VMs in one batch', async () => {
    const response = await small.gql<{ vmInstances: { nodes: { nics: { id: string }[]; cdRoms: { id: string }[] }[] } }>(
      '{ vmInstances(first: 40) { nodes { nics { id } cdRoms { id } } } }',
    );
    const ids = response.data!.vmInstances.nodes.flatMap((vm) => [...vm.nics.map((nic) => nic.id), ...vm.cdRoms.map((cdRom) => cdRom.id)]);
    expect(ids.length).toBeGreaterThan(40);
    const lookup = await cost<{ nodes: ({ uuid: string } | null)[] }>(
      small,
      'query ($ids: [ID!]!) { nodes(ids: $ids) { ... on VmNic { uuid } ... on VmCdRom { uuid } } }',
      { ids },
    );
    expect(lookup.data.nodes.every((node) => node !== null)).toBe(true);
    expect(lookup.byOperation).toEqual({ CursorQuery: 1 });
  });

  it('attachableDataVolumes costs one GetVmAttachableDataVolume per distinct VM (the spec has no batch form)', async () => {
    const vms = [...small.simulator.store.vms.list(small.simulator.credentials.tenantId)].slice(0, 3);
    const query = `query ($a: Uuid!, $b: Uuid!, $c: Uuid!) {
      a: vmInstance(uuid: $a) { attachableDataVolumes { uuid } }
      b: vmInstance(uuid: $b) { attachableDataVolumes { uuid } }
      c: vmInstance(uuid: $c) { attachableDataVolumes { uuid } }
      again: vmInstance(uuid: $a) { attachableDataVolumes { uuid } }
    }`;
    const result = await cost(small, query, { a: vms[0]!.uuid, b: vms[1]!.uuid, c: vms[2]!.uuid });
    // One CursorQuery reads the VMs, one more every candidate volume whole (one id, one object).
    expect(result.byOperation).toEqual({ CursorQuery: 2, GetVmAttachableDataVolume: 3 });
  });
});
