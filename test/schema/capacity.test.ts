import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrimaryStorage } from '../../src/simulator/model.js';
import { errorCodes, startHarness, type Harness } from '../support/harness.js';

interface Capacity {
  totalCapacity: number;
  availableCapacity: number;
  totalPhysicalCapacity: number;
  availablePhysicalCapacity: number;
}

const QUERY = `query ($zoneUuids: [Uuid!], $clusterUuids: [Uuid!], $primaryStorageUuids: [Uuid!], $all: Boolean) {
  primaryStorageCapacity(zoneUuids: $zoneUuids, clusterUuids: $clusterUuids, primaryStorageUuids: $primaryStorageUuids, all: $all) {
    totalCapacity availableCapacity totalPhysicalCapacity availablePhysicalCapacity
  }
}`;

function sum(storages: readonly PrimaryStorage[]): Capacity {
  const total: Capacity = { totalCapacity: 0, availableCapacity: 0, totalPhysicalCapacity: 0, availablePhysicalCapacity: 0 };
  for (const storage of storages) {
    total.totalCapacity += storage.totalCapacity;
    total.availableCapacity += storage.availableCapacity;
    total.totalPhysicalCapacity += storage.totalPhysicalCapacity;
    total.availablePhysicalCapacity += storage.availablePhysicalCapacity;
  }
  return total;
}

describe('primaryStorageCapacity', () => {
  let harness: Harness;
  let tenantId: string;

  beforeAll(async () => {
    harness = await startHarness();
    tenantId = harness.simulator.store.tenants[0]!.id;
  });

  afterAll(async () => {
    await harness.close();
  });

  const storages = () => [...harness.simulator.store.primaryStorages.list(tenantId)];

  it('all: true sums every primary storage of the caller, exactly, as Long', async () => {
    harness.resetStats();
    const response = await harness.gql<{ primaryStorageCapacity: Capacity }>(QUERY, { all: true });
    expect(response.errors).toBeUndefined();
    const expected = sum(storages());
    expect(expected.totalCapacity).toBeGreaterThan(2 ** 32);
    expect(response.data!.primaryStorageCapacity).toEqual(expected);
    expect(harness.simulator.stats().byOperation).toEqual({ GetPrimaryStorageCapacity: 1 });
  });

  it('selects by zone, by cluster and by primary storage uuid', async () => {
    const all = storages();
    const zoneUuid = all[0]!.zoneUuid;
    const byZone = await harness.gql<{ primaryStorageCapacity: Capacity }>(QUERY, { zoneUuids: [zoneUuid] });
    expect(byZone.data!.primaryStorageCapacity).toEqual(sum(all.filter((storage) => storage.zoneUuid === zoneUuid)));

    const clusterUuid = all[0]!.clusterUuids[0]!;
    const byCluster = await harness.gql<{ primaryStorageCapacity: Capacity }>(QUERY, { clusterUuids: [clusterUuid] });
    expect(byCluster.data!.primaryStorageCapacity).toEqual(sum(all.filter((storage) => storage.clusterUuids.includes(clusterUuid))));

    const chosen = [all[0]!, all[all.length - 1]!];
    const byUuid = await harness.gql<{ primaryStorageCapacity: Capacity }>(QUERY, { primaryStorageUuids: chosen.map((storage) => storage.uuid) });
    expect(byUuid.data!.primaryStorageCapacity).toEqual(sum(chosen));
    expect(byUuid.data!.primaryStorageCapacity).not.toEqual(sum(all));
  });

  it('a call that selects nothing is null with the upstream ErrorCode', async () => {
    const response = await harness.gql<{ primaryStorageCapacity: null }>(QUERY, {});
    expect(response.data!.primaryStorageCapacity).toBeNull();
    expect(response.errors?.[0]?.extensions?.upstream).toMatchObject({ code: 'SYS.1007' });
  });

  it('the second tenant gets the sums of its own storages', async () => {
    const secondTenantId = harness.simulator.store.tenants[1]!.id;
    const response = await harness.gql<{ primaryStorageCapacity: Capacity }>(QUERY, { all: true }, harness.secondHeaders);
    const expected = sum([...harness.simulator.store.primaryStorages.list(secondTenantId)]);
    expect(response.data!.primaryStorageCapacity).toEqual(expected);
    expect(expected).not.toEqual(sum(storages()));

    const foreign = await harness.gql<{ primaryStorageCapacity: Capacity }>(QUERY, { primaryStorageUuids: [storages()[0]!.uuid] }, harness.secondHeaders);
    expect(foreign.data!.primaryStorageCapacity).toEqual(sum([]));
  });

  it('without Authorization it is UNAUTHENTICATED, and a malformed Uuid is rejected, both with no upstream request', async () => {
    harness.resetStats();
    const { authorization: _omitted, ...cursorOnly } = harness.headers;
    const unauthenticated = await harness.gql(QUERY, { all: true }, cursorOnly);
    expect(errorCodes(unauthenticated)).toEqual(['UNAUTHENTICATED']);
    const malformed = await harness.gql(QUERY, { zoneUuids: ['not-a-uuid'] });
    expect(errorCodes(malformed)).toContain('BAD_USER_INPUT');
    expect(harness.upstreamRequests()).toBe(0);
  });
});
