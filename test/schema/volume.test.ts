import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VolumeSnapshotGroup } from '../../src/simulator/model.js';
import { enumValue, expectedVolume, iso, VOLUME_FIELDS } from '../support/expected.js';
import { errorCodes, startHarness, type Harness } from '../support/harness.js';


function byCreation<T extends { createDate: Date; uuid: string }>(a: T, b: T): number {
  return a.createDate.getTime() - b.createDate.getTime() || (a.uuid < b.uuid ? -1 : 1);
}


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

describe('Volume', () => {
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

  it('volume(uuid) returns every allVolumes field, with its VM and last VM', async () => {
    const volumes = [...store().volumes.list(tenantId)];
    const attached = volumes.find((volume) => volume.vmInstanceUuid !== null && volume.type === 'Data')!;
    const detached = volumes.find((volume) => volume.vmInstanceUuid === null)!;
    const encrypted = volumes.find((volume) => volume.encrypted);
    for (const volume of [attached, detached, ...(encrypted ? [encrypted] : [])]) {
      const response = await harness.gql<{ volume: Record<string, unknown> & { id: string; vmInstance: { uuid: string; name: string } | null; lastVmInstance: { uuid: string } | null } }>(
        `query ($uuid: Uuid!) { volume(uuid: $uuid) { id ${VOLUME_FIELDS} vmInstance { uuid name } lastVmInstance { uuid } } }`,
        { uuid: volume.uuid },
      );
      expect(response.errors).toBeUndefined();
      const { id, vmInstance, lastVmInstance, ...fields } = response.data!.volume;
      expect(typeof id).toBe('string');
      expect(fields).toEqual(expectedVolume(volume));
      const vm = volume.vmInstanceUuid ? store().vms.get(tenantId, volume.vmInstanceUuid)! : null;
      expect(vmInstance).toEqual(vm ? { uuid: vm.uuid, name: vm.name } : null);
      expect(lastVmInstance).toEqual(volume.lastVmInstanceUuid ? { uuid: volume.lastVmInstanceUuid } : null);
    }
  });

  it('volumes walks every volume of the tenant once, and filters and orders', async () => {
    const expected = [...store().volumes.list(tenantId)].sort(byCreation).map((volume) => volume.uuid);
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const response: { data?: { volumes: { totalCount: number; pageInfo: { hasNextPage: boolean; endCursor: string }; nodes: { uuid: string }[] } } | null } =
        await harness.gql(
          'query ($after: String) { volumes(first: 100, after: $after) { totalCount pageInfo { hasNextPage endCursor } nodes { uuid } } }',
          { after },
        );
      const page = response.data!.volumes;
      expect(page.totalCount).toBe(expected.length);
      seen.push(...page.nodes.map((node) => node.uuid));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(seen).toEqual(expected);

    const vm = [...store().vms.list(tenantId)][0]!;
    const ofVm = await harness.gql<{ volumes: { totalCount: number; nodes: { uuid: string }[] } }>(
      `{ volumes(filter: { vmInstanceUuid: "${vm.uuid}" }) { totalCount nodes { uuid } } }`,
    );
    expect(ofVm.data!.volumes.nodes.map((volume) => volume.uuid).sort()).toEqual(store().volumesOfVm(vm).map((volume) => volume.uuid).sort());

    const roots = [...store().volumes.list(tenantId)].filter((volume) => volume.type === 'Root');
    const rootPage = await harness.gql<{ volumes: { totalCount: number; nodes: { type: string; size: number }[] } }>(
      '{ volumes(first: 100, filter: { type: ROOT }, orderBy: { field: SIZE, direction: DESC }) { totalCount nodes { type size } } }',
    );
    expect(rootPage.data!.volumes.totalCount).toBe(roots.length);
    const sizes = rootPage.data!.volumes.nodes.map((volume) => volume.size);
    expect(rootPage.data!.volumes.nodes.every((volume) => volume.type === 'ROOT')).toBe(true);
    expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
    expect(sizes[0]).toBe(Math.max(...roots.map((volume) => volume.size)));
  });

  it('answers NOT_FOUND for an unknown volume and rejects first: 1000', async () => {
    const missing = await harness.gql<{ volume: null }>(`{ volume(uuid: "${'cd'.repeat(16)}") { name } }`);
    expect(missing.data?.volume).toBeNull();
    expect(errorCodes(missing)).toEqual(['NOT_FOUND']);
    harness.resetStats();
    const tooMany = await harness.gql('{ volumes(first: 1000) { totalCount } }');
    expect(errorCodes(tooMany)).toEqual(['BAD_USER_INPUT']);
    expect(harness.upstreamRequests()).toBe(0);
  });
});

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
