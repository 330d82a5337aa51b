import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VolumeSnapshotGroup } from '../../../src/simulator/model.js';
import { enumValue, iso } from '../../support/expected.js';
import { errorCodes, startHarness, type Harness } from '../../support/harness.js';

function expectedGroup(group: VolumeSnapshotGroup): Record<string, unknown> {
  return {
    uuid: group.uuid,
    name: group.name,
    description: group.description,
    snapshotCount: group.snapshotCount,
    vmInstanceUuid: group.vmInstanceUuid,
    createDate: iso(group.createDate),
    lastOpDate: iso(group.lastOpDate),
    volumeSnapshotRefs: group.volumeSnapshotRefs.map((ref) => ({
      volumeSnapshotUuid: ref.volumeSnapshotUuid,
      volumeSnapshotGroupUuid: group.uuid,
      volumeUuid: ref.volumeUuid,
      volumeName: ref.volumeName,
      volumeType: enumValue(ref.volumeType),
      volumeSnapshotInstallPath: ref.volumeSnapshotInstallPath,
      volumeSnapshotName: ref.volumeSnapshotName,
      deviceId: ref.deviceId,
      snapshotDeleted: ref.snapshotDeleted,
      createDate: iso(ref.createDate),
      lastOpDate: iso(ref.lastOpDate),
    })),
  };
}

const GROUP_FIELDS = /* GraphQL */ `
  uuid name description snapshotCount vmInstanceUuid createDate lastOpDate
  volumeSnapshotRefs { volumeSnapshotUuid volumeSnapshotGroupUuid volumeUuid volumeName volumeType
    volumeSnapshotInstallPath volumeSnapshotName deviceId snapshotDeleted createDate lastOpDate }
`;

describe('VolumeSnapshotGroup', () => {
  let harness: Harness;
  let tenantId: string;

  beforeAll(async () => {
    harness = await startHarness();
    tenantId = harness.simulator.credentials.tenantId;
  });

  afterAll(async () => {
    await harness.close();
  });

  const store = () => harness.simulator.store;

  it('volumeSnapshotGroup(uuid) returns the inventory with its refs, VM and each ref\'s volume', async () => {
    const group = [...store().snapshotGroups.list(tenantId)].find((candidate) => candidate.volumeSnapshotRefs.length > 1)!;
    const vm = store().vms.get(tenantId, group.vmInstanceUuid)!;
    const response = await harness.gql<{
      volumeSnapshotGroup: Record<string, unknown> & {
        id: string;
        vmInstance: { uuid: string; name: string };
        refsWithVolumes: { volume: { uuid: string; name: string; type: string } | null }[];
      };
    }>(
      `query ($uuid: Uuid!) { volumeSnapshotGroup(uuid: $uuid) { id ${GROUP_FIELDS}
        vmInstance { uuid name } refsWithVolumes: volumeSnapshotRefs { volume { uuid name type } } } }`,
      { uuid: group.uuid },
    );
    expect(response.errors).toBeUndefined();
    const { id, vmInstance, refsWithVolumes, ...fields } = response.data!.volumeSnapshotGroup;
    expect(typeof id).toBe('string');
    expect(fields).toEqual(expectedGroup(group));
    expect(vmInstance).toEqual({ uuid: vm.uuid, name: vm.name });
    expect(refsWithVolumes).toEqual(
      group.volumeSnapshotRefs.map((ref) => {
        const volume = store().volumes.get(tenantId, ref.volumeUuid)!;
        return { volume: { uuid: volume.uuid, name: volume.name, type: enumValue(volume.type) } };
      }),
    );

    const node = await harness.gql<{ node: { __typename: string; uuid: string } }>(
      'query ($id: ID!) { node(id: $id) { __typename ... on VolumeSnapshotGroup { uuid } } }',
      { id },
    );
    expect(node.data!.node).toEqual({ __typename: 'VolumeSnapshotGroup', uuid: group.uuid });
  });

  it('volumeSnapshotGroups pages every group once and filters by uuids, VM and name', async () => {
    const groups = [...store().snapshotGroups.list(tenantId)];
    const seen: Record<string, unknown>[] = [];
    let after: string | null = null;
    for (;;) {
      const response: { data?: { volumeSnapshotGroups: { totalCount: number; pageInfo: { hasNextPage: boolean; endCursor: string }; nodes: Record<string, unknown>[] } } | null } =
        await harness.gql(
          `query ($after: String) { volumeSnapshotGroups(first: 3, after: $after) { totalCount pageInfo { hasNextPage endCursor } nodes { ${GROUP_FIELDS} } } }`,
          { after },
        );
      const page = response.data!.volumeSnapshotGroups;
      expect(page.totalCount).toBe(groups.length);
      seen.push(...page.nodes);
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(seen.map((group) => group.uuid).sort()).toEqual(groups.map((group) => group.uuid).sort());
    for (const group of groups) expect(seen.find((candidate) => candidate.uuid === group.uuid)).toEqual(expectedGroup(group));

    const vmUuid = groups[0]!.vmInstanceUuid;
    const ofVm = await harness.gql<{ volumeSnapshotGroups: { totalCount: number; nodes: { uuid: string; vmInstanceUuid: string }[] } }>(
      `{ volumeSnapshotGroups(first: 100, filter: { vmInstanceUuid: "${vmUuid}" }) { totalCount nodes { uuid vmInstanceUuid } } }`,
    );
    const expectedOfVm = groups.filter((group) => group.vmInstanceUuid === vmUuid).map((group) => group.uuid).sort();
    expect(ofVm.data!.volumeSnapshotGroups.totalCount).toBe(expectedOfVm.length);
    expect(ofVm.data!.volumeSnapshotGroups.nodes.map((group) => group.uuid).sort()).toEqual(expectedOfVm);

    const picked = [groups[1]!.uuid, groups[2]!.uuid];
    const byUuids = await harness.gql<{ volumeSnapshotGroups: { nodes: { uuid: string }[] } }>(
      'query ($uuids: [Uuid!]) { volumeSnapshotGroups(filter: { uuids: $uuids }) { nodes { uuid } } }',
      { uuids: picked },
    );
    expect(byUuids.data!.volumeSnapshotGroups.nodes.map((group) => group.uuid).sort()).toEqual([...picked].sort());

    const fragment = groups[0]!.name.slice(0, 6);
    const byName = await harness.gql<{ volumeSnapshotGroups: { totalCount: number; nodes: { name: string }[] } }>(
      `{ volumeSnapshotGroups(first: 100, filter: { nameContains: "${fragment}" }) { totalCount nodes { name } } }`,
    );
    expect(byName.data!.volumeSnapshotGroups.totalCount).toBe(groups.filter((group) => group.name.includes(fragment)).length);
    expect(byName.data!.volumeSnapshotGroups.nodes.every((group) => group.name.includes(fragment))).toBe(true);

    const ordered = await harness.gql<{ volumeSnapshotGroups: { nodes: { name: string }[] } }>(
      '{ volumeSnapshotGroups(first: 100, orderBy: { field: NAME, direction: DESC }) { nodes { name } } }',
    );
    const names = ordered.data!.volumeSnapshotGroups.nodes.map((group) => group.name);
    expect(names).toHaveLength(groups.length);
    expect(names[0]).toBe([...groups.map((group) => group.name)].sort().at(-1));
  });

  it('answers NOT_FOUND for an unknown group, and hides another tenant\'s groups', async () => {
    const missing = await harness.gql<{ volumeSnapshotGroup: null }>(`{ volumeSnapshotGroup(uuid: "${'ef'.repeat(16)}") { name } }`);
    expect(missing.data?.volumeSnapshotGroup).toBeNull();
    expect(errorCodes(missing)).toEqual(['NOT_FOUND']);

    const group = [...store().snapshotGroups.list(tenantId)][0]!;
    const foreign = await harness.gql(`{ volumeSnapshotGroup(uuid: "${group.uuid}") { name } }`, undefined, harness.secondHeaders);
    expect(errorCodes(foreign)).toEqual(['NOT_FOUND']);
    const secondCount = store().snapshotGroups.count(harness.simulator.credentials.second.tenantId);
    const list = await harness.gql<{ volumeSnapshotGroups: { totalCount: number } }>(
      '{ volumeSnapshotGroups { totalCount } }',
      undefined,
      harness.secondHeaders,
    );
    expect(list.data!.volumeSnapshotGroups.totalCount).toBe(secondCount);
  });

  it('fails without the resource credential as UNAUTHENTICATED, with no upstream request', async () => {
    harness.resetStats();
    const cursorOnly = { 'x-resources-authorization': harness.headers['x-resources-authorization']! };
    const response = await harness.gql('{ volumeSnapshotGroups { totalCount } }', undefined, cursorOnly);
    expect(errorCodes(response)).toEqual(['UNAUTHENTICATED']);
    expect(harness.upstreamRequests()).toBe(0);
  });

  it('keeps the group when a snapshot ref\'s volume is gone', async () => {
    const group = [...store().snapshotGroups.list(tenantId)].find((candidate) => candidate.volumeSnapshotRefs.length > 1)!;
    const [goneRef, keptRef] = group.volumeSnapshotRefs;
    const gone = store().volumes.get(tenantId, goneRef!.volumeUuid)!;
    store().volumes.delete(gone.uuid);
    try {
      const response = await harness.gql<{ volumeSnapshotGroup: { name: string; volumeSnapshotRefs: { volumeUuid: string; volume: { uuid: string } | null }[] } }>(
        `{ volumeSnapshotGroup(uuid: "${group.uuid}") { name volumeSnapshotRefs { volumeUuid volume { uuid } } } }`,
      );
      expect(response.data!.volumeSnapshotGroup.name).toBe(group.name);
      const refs = response.data!.volumeSnapshotGroup.volumeSnapshotRefs;
      expect(refs[0]).toEqual({ volumeUuid: gone.uuid, volume: null });
      expect(refs[1]).toEqual({ volumeUuid: keptRef!.volumeUuid, volume: { uuid: keptRef!.volumeUuid } });
      expect(errorCodes(response)).toEqual(['NOT_FOUND']);
      expect(response.errors![0]!.path).toEqual(['volumeSnapshotGroup', 'volumeSnapshotRefs', 0, 'volume']);
    } finally {
      store().volumes.insert(gone);
    }
  });
});
