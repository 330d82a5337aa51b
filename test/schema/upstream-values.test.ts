/**
 * What the upstream may send that this API does not expect, and what a client sees of it: a value
 * outside a closed set is null with an error carrying the value (never silently null), and one
 * malformed reference item is null with an error at its own index (never the whole page).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type GraphQLResponse, type Harness } from '../support/harness.js';

describe('values the upstream sends from outside a closed set', () => {
  let harness: Harness;
  let tenantId: string;

  beforeAll(async () => {
    harness = await startHarness();
    tenantId = harness.simulator.credentials.tenantId;
  });

  afterAll(async () => {
    await harness.close();
  });

  /** The errors of `response` with an `UNRECOGNIZED_ENUM_VALUE` code, by path. */
  function unrecognized(response: GraphQLResponse<unknown>): Record<string, unknown>[] {
    return (response.errors ?? []).filter((error) => error.extensions?.code === 'UNRECOGNIZED_ENUM_VALUE').map((error) => ({ path: error.path, ...error.extensions }));
  }

  it('a host monitor status the spec does not list is null with an error carrying the raw value; no value is null without one', async () => {
    const hosts = [...harness.simulator.store.hosts.list(tenantId)];
    const [odd, blank] = hosts;
    odd!.cpuStatus = 'Degraded' as never;
    blank!.memoryStatus = null as never;
    try {
      const response = await harness.gql<{ hosts: { nodes: { uuid: string; cpuStatus: string | null; memoryStatus: string | null }[] } }>(
        '{ hosts(first: 100) { nodes { uuid cpuStatus memoryStatus } } }',
      );
      const nodes = response.data!.hosts.nodes;
      const oddIndex = nodes.findIndex((node) => node.uuid === odd!.uuid);
      expect(nodes[oddIndex]!.cpuStatus).toBeNull();
      expect(nodes.find((node) => node.uuid === blank!.uuid)!.memoryStatus).toBeNull();
      // One error, for the value the API does not know; the absent one is plain null.
      expect(unrecognized(response)).toEqual([
        { path: ['hosts', 'nodes', oddIndex, 'cpuStatus'], code: 'UNRECOGNIZED_ENUM_VALUE', enum: 'HwMonitorStatus', value: 'Degraded' },
      ]);
      expect(response.errors).toHaveLength(1);
      expect(response.errors![0]!.message).toContain('"Degraded"');
      // The other hosts answer as usual.
      expect(nodes.filter((node, index) => index !== oddIndex && node.uuid !== blank!.uuid).every((node) => node.cpuStatus !== null)).toBe(true);
    } finally {
      odd!.cpuStatus = 'Normal';
      blank!.memoryStatus = 'Normal';
    }
  });

  it.each([
    ['a VM type', 'vms', 'type', 'Container', '{ vmInstances(first: 100) { nodes { uuid type } } }', 'VmInstanceType', 'vmInstances'],
    ['a VM architecture', 'vms', 'architecture', 'riscv64', '{ vmInstances(first: 100) { nodes { uuid architecture } } }', 'CpuArchitecture', 'vmInstances'],
    ['an SNS endpoint type', 'snsEndpoints', 'type', 'DingTalk', '{ snsApplicationEndpoints(first: 100) { nodes { uuid type } } }', 'SnsEndpointType', 'snsApplicationEndpoints'],
    ['a CBT task status', 'cbtTasks', 'status', 'Paused', '{ cbtTasks(first: 100) { nodes { uuid status } } }', 'CbtTaskStatus', 'cbtTasks'],
    ['a volume type', 'volumes', 'type', 'Cache', '{ volumes(first: 100) { nodes { uuid type } } }', 'VolumeType', 'volumes'],
  ] as const)('%s the API does not know is visible as an error with its value', async (_case, table, field, value, query, enumName, root) => {
    const records = [...(harness.simulator.store[table] as { list(tenant: string): Iterable<Record<string, unknown> & { uuid: string }> }).list(tenantId)];
    const record = records[0]!;
    const before = record[field];
    record[field] = value;
    try {
      const response = await harness.gql<Record<string, { nodes: { uuid: string }[] }>>(query);
      const index = response.data![root]!.nodes.findIndex((node) => node.uuid === record.uuid);
      expect(index).toBeGreaterThanOrEqual(0);
      expect(unrecognized(response)).toEqual([{ path: [root, 'nodes', index, field], code: 'UNRECOGNIZED_ENUM_VALUE', enum: enumName, value }]);
    } finally {
      record[field] = before;
    }
  });
});

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
