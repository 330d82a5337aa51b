/**
 * What the upstream may send that this API does not expect, and what a client sees of it: one
 * malformed reference item is null with an error at its own index (never the whole page). A value
 * outside an enum's set answers its fallback: `kit/enum-fallback.test.ts`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';

describe('a malformed reference item', () => {
  let harness: Harness;
  let tenantId: string;

  beforeAll(async () => {
    harness = await startHarness();
    tenantId = harness.simulator.credentials.tenantId;
  });

  afterAll(async () => {
    await harness.close();
  });

  it('in a LUN\'s host mappings nulls only itself: the page, the LUN and the other mappings answer', async () => {
    const lun = [...harness.simulator.store.luns.list(tenantId)].find((candidate) => candidate.scsiLunHostRefs.length > 1)!;
    const ref = lun.scsiLunHostRefs[0]!;
    const hostUuid = ref.hostUuid;
    ref.hostUuid = null as never;
    try {
      const response = await harness.gql<{ fiberChannelLuns: { nodes: { uuid: string; scsiLunHostRefs: ({ hostUuid: string } | null)[]; hosts: { uuid: string }[] }[] } }>(
        '{ fiberChannelLuns(first: 100) { nodes { uuid scsiLunHostRefs { hostUuid } hosts { uuid } } } }',
      );
      const nodes = response.data!.fiberChannelLuns.nodes;
      const index = nodes.findIndex((node) => node.uuid === lun.uuid);
      const answered = nodes[index]!;
      expect(answered.scsiLunHostRefs[0]).toBeNull();
      expect(answered.scsiLunHostRefs.slice(1)).toEqual(lun.scsiLunHostRefs.slice(1).map((other) => ({ hostUuid: other.hostUuid })));
      expect(answered.hosts.map((host) => host.uuid).sort()).toEqual(lun.scsiLunHostRefs.slice(1).map((other) => other.hostUuid).sort());
      expect(response.errors).toEqual([
        expect.objectContaining({ path: ['fiberChannelLuns', 'nodes', index, 'scsiLunHostRefs', 0], extensions: expect.objectContaining({ code: 'UPSTREAM_PROTOCOL_ERROR' }) }),
      ]);
      expect(nodes.length).toBe([...harness.simulator.store.luns.list(tenantId)].length);
    } finally {
      ref.hostUuid = hostUuid;
    }
  });

  it('in a snapshot group\'s references nulls only itself', async () => {
    const group = [...harness.simulator.store.snapshotGroups.list(tenantId)].find((candidate) => candidate.volumeSnapshotRefs.length > 1)!;
    const ref = group.volumeSnapshotRefs[1]!;
    const snapshotUuid = ref.volumeSnapshotUuid;
    ref.volumeSnapshotUuid = undefined as never;
    try {
      const response = await harness.gql<{ volumeSnapshotGroups: { nodes: { uuid: string; volumeSnapshotRefs: ({ volumeSnapshotUuid: string } | null)[] }[] } }>(
        '{ volumeSnapshotGroups(first: 100) { nodes { uuid volumeSnapshotRefs { volumeSnapshotUuid } } } }',
      );
      const nodes = response.data!.volumeSnapshotGroups.nodes;
      const index = nodes.findIndex((node) => node.uuid === group.uuid);
      expect(nodes[index]!.volumeSnapshotRefs[1]).toBeNull();
      expect(nodes[index]!.volumeSnapshotRefs[0]).toEqual({ volumeSnapshotUuid: group.volumeSnapshotRefs[0]!.volumeSnapshotUuid });
      expect(response.errors).toEqual([expect.objectContaining({ path: ['volumeSnapshotGroups', 'nodes', index, 'volumeSnapshotRefs', 1] })]);
    } finally {
      ref.volumeSnapshotUuid = snapshotUuid;
    }
  });
});

describe('one record the gateway cannot read', () => {
  let harness: Harness;
  let tenantId: string;

  beforeAll(async () => {
    harness = await startHarness();
    tenantId = harness.simulator.credentials.tenantId;
  });

  afterAll(async () => {
    await harness.close();
  });

  type Vm = { id: string; uuid: string; name: string | null; cpuNum: number | null };
  type Page = { vmInstances: { nodes: (Vm | null)[]; edges: ({ cursor: string; node: Vm | null } | null)[] } };
  const PAGE = 'query Page($after: String) { vmInstances(first: 6, after: $after) { nodes { id uuid name cpuNum } edges { cursor node { uuid } } } }';
  /** The same page read before a record breaks, under another name so that no cached answer serves the read after. */
  const BEFORE = PAGE.replace('query Page', 'query Before');

  /** Makes the simulator's VM `uuid` send a `cpuNum` no decoder reads, until `restore()`. */
  function breakVm(uuid: string): { restore(): void } {
    const vm = [...harness.simulator.store.vms.list(tenantId)].find((candidate) => candidate.uuid === uuid)! as unknown as { cpuNum: unknown };
    const before = vm.cpuNum;
    vm.cpuNum = { not: 'a number' };
    return { restore: () => void (vm.cpuNum = before) };
  }

  it('in a page of six leaves the five others and one error at its own path, its edge cursor still valid', async () => {
    const whole = await harness.gql<Page>(BEFORE);
    const before = whole.data!.vmInstances.nodes as Vm[];
    expect(before).toHaveLength(6);
    const broken = breakVm(before[1]!.uuid);
    try {
      const response = await harness.gql<Page>(PAGE);
      const { nodes, edges } = response.data!.vmInstances;
      expect(nodes).toEqual([before[0], null, ...before.slice(2)]);
      expect(edges.map((edge) => edge?.node?.uuid ?? null)).toEqual([before[0]!.uuid, null, ...before.slice(2).map((vm) => vm.uuid)]);
      expect(response.errors?.map((error) => error.path)).toEqual([
        ['vmInstances', 'nodes', 1],
        ['vmInstances', 'edges', 1, 'node'],
      ]);
      expect(response.errors?.map((error) => error.extensions?.code)).toEqual(['UPSTREAM_PROTOCOL_ERROR', 'UPSTREAM_PROTOCOL_ERROR']);
      expect(response.errors?.[0]?.message).toContain('cpuNum');

      // The cursors around the null item page on as a fresh walk does.
      const afterNull = await harness.gql<Page>(PAGE, { after: edges[1]!.cursor });
      expect(afterNull.errors).toBeUndefined();
      expect(afterNull.data!.vmInstances.nodes[0]?.uuid).toBe(before[2]!.uuid);
      const fromFirst = await harness.gql<Page>(PAGE, { after: edges[0]!.cursor });
      expect(fromFirst.data!.vmInstances.nodes[0]).toBeNull();
      expect(fromFirst.data!.vmInstances.nodes[1]?.uuid).toBe(before[2]!.uuid);
    } finally {
      broken.restore();
    }
  });

  it('in nodes(ids:) nulls only its own slot', async () => {
    const whole = await harness.gql<Page>(BEFORE);
    const [first, second, third] = whole.data!.vmInstances.nodes as Vm[];
    const broken = breakVm(second!.uuid);
    try {
      const response = await harness.gql<{ nodes: ({ uuid: string; cpuNum: number | null } | null)[] }>(
        'query Nodes($ids: [ID!]!) { nodes(ids: $ids) { ... on VmInstance { uuid cpuNum } } }',
        { ids: [first!.id, second!.id, third!.id] },
      );
      expect(response.data!.nodes).toEqual([{ uuid: first!.uuid, cpuNum: first!.cpuNum }, null, { uuid: third!.uuid, cpuNum: third!.cpuNum }]);
      expect(response.errors?.map((error) => [error.path, error.extensions?.code])).toEqual([[['nodes', 1], 'UPSTREAM_PROTOCOL_ERROR']]);
    } finally {
      broken.restore();
    }
  });

  it('in a VM\'s embedded NICs nulls only that NIC: the VM and its other NICs answer', async () => {
    const vm = [...harness.simulator.store.vms.list(tenantId)].find((candidate) => candidate.vmNics.length > 1)!;
    const nic = vm.vmNics[0]! as unknown as { deviceId: unknown };
    const before = nic.deviceId;
    nic.deviceId = 'first';
    try {
      const response = await harness.gql<{ vmInstances: { nodes: ({ uuid: string; nics: ({ uuid: string; deviceId: number | null } | null)[] } | null)[] } }>(
        `{ vmInstances(first: 1, filter: { uuids: ["${vm.uuid}"] }) { nodes { uuid nics { uuid deviceId } } } }`,
      );
      const answered = response.data!.vmInstances.nodes[0]!;
      expect(answered.uuid).toBe(vm.uuid);
      expect(answered.nics[0]).toBeNull();
      expect(answered.nics.slice(1).map((item) => item?.uuid)).toEqual(vm.vmNics.slice(1).map((item) => item.uuid));
      expect(response.errors?.map((error) => [error.path, error.extensions?.code])).toEqual([[['vmInstances', 'nodes', 0, 'nics', 0], 'UPSTREAM_PROTOCOL_ERROR']]);
    } finally {
      nic.deviceId = before;
    }
  });
});
