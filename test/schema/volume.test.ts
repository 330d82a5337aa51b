import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedVolume, VOLUME_FIELDS } from '../support/expected.js';
import { errorCodes, startHarness, type Harness } from '../support/harness.js';

function byCreation<T extends { createDate: Date; uuid: string }>(a: T, b: T): number {
  return a.createDate.getTime() - b.createDate.getTime() || (a.uuid < b.uuid ? -1 : 1);
}

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
