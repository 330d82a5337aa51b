/**
 * What the upstream may send that this API does not expect, and what a client sees of it: one
 * malformed reference item is null with an error at its own index (never the whole page). A value
 * outside an enum's set answers its fallback: `enum-fallback.test.ts`.
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
