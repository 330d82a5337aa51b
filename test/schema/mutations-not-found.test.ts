/**
 * A write that names a record the estate does not have is refused as the real service refuses it
 * (503 `SYS.1003`), and the refusal reaches `userErrors` as `NOT_FOUND` at the input field that
 * named it, for every uuid every write takes. Nothing is created or changed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordKind } from '../../src/simulator/model.js';
import type { SimulatorStore } from '../../src/simulator/store.js';
import { startHarness, type Harness } from '../support/harness.js';

/** Every table of the simulator, to compare the whole estate before and after a refused write. */
const KINDS: readonly RecordKind[] = [
  'zone', 'cluster', 'primaryStorage', 'l3Network', 'instanceOffering', 'tag', 'host', 'bonding', 'hostNic', 'blockDevice',
  'sensor', 'hba', 'lun', 'vm', 'volume', 'snapshotGroup', 'cbtTask', 'snsPlatform', 'snsEndpoint', 'snsEmail', 'directory',
];

function estateOf(store: SimulatorStore): string {
  const tables = KINDS.map((kind) => [kind, [...store.table(kind).all()]]);
  return JSON.stringify(tables, (_key, value: unknown) => (value instanceof Set ? [...(value as Set<unknown>)] : value));
}

/** A uuid no record has, different for each field so that the refusal can only name that one. */
function missing(field: string): string {
  let hash = 0;
  for (const char of field) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) >>> 0;
  return `${hash.toString(16).padStart(8, '0')}${'e'.repeat(24)}`;
}

interface Case {
  mutation: string;
  /** A valid input but for `field`, which the case replaces with a uuid nothing has. */
  input: () => Record<string, unknown>;
  /** The input field (`name`) or list item (`name.index`) given the missing uuid. */
  field: string;
}

let harness: Harness;
let store: SimulatorStore;
let tenantId: string;

beforeAll(async () => {
  harness = await startHarness();
  store = harness.simulator.store;
  tenantId = store.tenants[0]!.id;
});

afterAll(async () => {
  await harness.close();
});

function first<T>(records: Iterable<T>, accept: (record: T) => boolean = () => true): T {
  for (const record of records) if (accept(record)) return record;
  throw new Error('the estate has no such record');
}

const vm = () => first(store.vms.list(tenantId), (candidate) => candidate.state !== 'Destroyed' && candidate.vmNics.length > 0);
const rootVolume = () => store.volumesOfVm(vm())[0]!;
const otherStorage = () => first(store.primaryStorages.list(tenantId), (storage) => storage.zoneUuid === vm().zoneUuid && storage.uuid !== rootVolume().primaryStorageUuid);
const group = () =>
  first(store.snapshotGroups.list(tenantId), (candidate) => store.vms.get(tenantId, candidate.vmInstanceUuid) !== undefined && candidate.volumeSnapshotRefs.every((ref) => !ref.snapshotDeleted));
const sourceOf = () => store.vms.get(tenantId, group().vmInstanceUuid)!;
const task = () => first(store.cbtTasks.list(tenantId));
const tag = () => first(store.tags.list(tenantId)).uuid;
const offering = () => first(store.instanceOfferings.list(tenantId)).uuid;

const CASES: readonly Case[] = [
  { mutation: 'updateHostNqn', field: 'uuid', input: () => ({ uuid: '', nqn: 'nqn.2014-08.org.example:host' }) },
  { mutation: 'setIpOnHostNetworkBonding', field: 'bondingUuid', input: () => ({ bondingUuid: '' }) },
  { mutation: 'createCbtTask', field: 'resourceUuids.0', input: () => ({ name: 'x', taskType: 'VM', resourceUuids: [''] }) },
  { mutation: 'createCbtTask', field: 'vmInstanceUuid', input: () => ({ name: 'x', taskType: 'VM', resourceUuids: [rootVolume().uuid], vmInstanceUuid: '' }) },
  { mutation: 'createCbtTask', field: 'tagUuids.1', input: () => ({ name: 'x', taskType: 'VM', resourceUuids: [vm().uuid], tagUuids: [tag(), ''] }) },
  { mutation: 'deleteCbtTask', field: 'uuid', input: () => ({ uuid: '' }) },
  { mutation: 'disableCbtTask', field: 'uuid', input: () => ({ uuid: '' }) },
  { mutation: 'enableCbtTask', field: 'uuid', input: () => ({ uuid: '' }) },
  { mutation: 'exportNbdVolumes', field: 'vmInstanceUuid', input: () => ({ vmInstanceUuid: '', volumeUuids: [rootVolume().uuid] }) },
  { mutation: 'exportNbdVolumes', field: 'volumeUuids.0', input: () => ({ vmInstanceUuid: store.vms.get(tenantId, task().vmInstanceUuid)!.uuid, volumeUuids: [''] }) },
  { mutation: 'createVolumeSnapshotGroup', field: 'rootVolumeUuid', input: () => ({ rootVolumeUuid: '', name: 'x' }) },
  { mutation: 'createVolumeSnapshotGroup', field: 'tagUuids.0', input: () => ({ rootVolumeUuid: rootVolume().uuid, name: 'x', tagUuids: [''] }) },
  { mutation: 'deleteVolumeSnapshotGroup', field: 'uuid', input: () => ({ uuid: '' }) },
  { mutation: 'updateVolumeSnapshotGroup', field: 'uuid', input: () => ({ uuid: '', name: 'x' }) },
  { mutation: 'primaryStorageMigrateVm', field: 'vmInstanceUuid', input: () => ({ vmInstanceUuid: '', dstPrimaryStorageUuid: otherStorage().uuid }) },
  { mutation: 'primaryStorageMigrateVm', field: 'dstPrimaryStorageUuid', input: () => ({ vmInstanceUuid: vm().uuid, dstPrimaryStorageUuid: '' }) },
  { mutation: 'primaryStorageMigrateVm', field: 'dstHostUuid', input: () => ({ vmInstanceUuid: vm().uuid, dstPrimaryStorageUuid: otherStorage().uuid, dstHostUuid: '' }) },
  { mutation: 'setVmBootVolume', field: 'vmInstanceUuid', input: () => ({ vmInstanceUuid: '', volumeUuid: rootVolume().uuid }) },
  { mutation: 'setVmBootVolume', field: 'volumeUuid', input: () => ({ vmInstanceUuid: vm().uuid, volumeUuid: '' }) },
  { mutation: 'recoverVmInstance', field: 'uuid', input: () => ({ uuid: '' }) },
  { mutation: 'updateVmNicDriver', field: 'vmInstanceUuid', input: () => ({ vmInstanceUuid: '', vmNicUuid: vm().vmNics[0]!.uuid, driverType: 'VIRTIO' }) },
  { mutation: 'updateVmNicDriver', field: 'vmNicUuid', input: () => ({ vmInstanceUuid: vm().uuid, vmNicUuid: '', driverType: 'VIRTIO' }) },
  ...['volumeSnapshotGroupUuid', 'instanceOfferingUuid', 'zoneUuid', 'clusterUuid', 'hostUuid', 'primaryStorageUuidForRootVolume', 'defaultL3NetworkUuid'].map(
    (field): Case => ({ mutation: 'createVmInstanceFromVolumeSnapshotGroup', field, input: () => ({ volumeSnapshotGroupUuid: group().uuid, name: 'x', [field]: '' }) }),
  ),
  {
    mutation: 'createVmInstanceFromVolumeSnapshotGroup',
    field: 'l3NetworkUuids.1',
    input: () => ({ volumeSnapshotGroupUuid: group().uuid, name: 'x', l3NetworkUuids: [sourceOf().vmNics[0]!.l3NetworkUuid, ''] }),
  },
  {
    mutation: 'createVmInstanceFromVolumeSnapshotGroup',
    field: 'tagUuids.0',
    input: () => ({ volumeSnapshotGroupUuid: group().uuid, name: 'x', instanceOfferingUuid: offering(), tagUuids: [''] }),
  },
  { mutation: 'detachL3NetworkFromVm', field: 'vmNicUuid', input: () => ({ vmNicUuid: '' }) },
  { mutation: 'deleteVmSshKey', field: 'uuid', input: () => ({ uuid: '' }) },
  { mutation: 'destroyVmInstance', field: 'uuid', input: () => ({ uuid: '' }) },
  { mutation: 'deleteDirectory', field: 'uuid', input: () => ({ uuid: '' }) },
  { mutation: 'changeSnsApplicationPlatformState', field: 'uuid', input: () => ({ uuid: '', stateEvent: 'DISABLE' }) },
  { mutation: 'updateSnsHttpEndpoint', field: 'uuid', input: () => ({ uuid: '', name: 'x' }) },
  { mutation: 'removeSnsSmsReceiver', field: 'endpointUuid', input: () => ({ endpointUuid: '', phoneNumber: '+10000000000' }) },
];

/** `input` with the missing uuid put at `field` (`name` or `name.index`). */
function withMissing(input: Record<string, unknown>, field: string): Record<string, unknown> {
  const [name, index] = field.split('.') as [string, string | undefined];
  const uuid = missing(field);
  if (index === undefined) return { ...input, [name]: uuid };
  const list = [...(input[name] as unknown[])];
  list[Number(index)] = uuid;
  return { ...input, [name]: list };
}

interface Refused {
  status: string;
  userErrors: { field: string[] | null; code: string; upstream: { code: string } | null }[];
}

describe('a write naming a record that does not exist', () => {
  it('covers every mutation of the schema', async () => {
    const response = await harness.gql<{ __schema: { mutationType: { fields: { name: string }[] } } }>('{ __schema { mutationType { fields { name } } } }');
    const mutations = response.data!.__schema.mutationType.fields.map((field) => field.name);
    expect(new Set(CASES.map((testCase) => testCase.mutation))).toEqual(new Set(mutations));
  });

  it.each(CASES.map((testCase) => [`${testCase.mutation} ${testCase.field}`, testCase] as const))('%s: NOT_FOUND at that field, nothing created', async (_name, testCase) => {
    const before = estateOf(store);
    const inputType = `${testCase.mutation.charAt(0).toUpperCase()}${testCase.mutation.slice(1)}Input`;
    const input = withMissing(testCase.input(), testCase.field);
    const response = await harness.gql<Record<string, Refused>>(
      `mutation($input: ${inputType}!) { ${testCase.mutation}(input: $input) { status userErrors { field code upstream { code } } } }`,
      { input },
    );
    expect(response.errors).toBeUndefined();
    expect(response.data?.[testCase.mutation]).toEqual({
      status: 'FAILED',
      userErrors: [{ field: ['input', ...testCase.field.split('.')], code: 'NOT_FOUND', upstream: { code: 'SYS.1003' } }],
    });
    expect(estateOf(store)).toBe(before);
  });

  it('refuses snapshots that are not the group\'s, named inside list items, as NOT_FOUND with nothing created', async () => {
    const query =
      'mutation($input: CreateVmInstanceFromVolumeSnapshotGroupInput!) { createVmInstanceFromVolumeSnapshotGroup(input: $input) { status userErrors { code upstream { code details } } } }';
    for (const extra of [
      { volumeSnapshotEncryptions: [{ volumeSnapshotUuid: missing('encryption'), encrypted: true }] },
      { dataVolumeSystemTags: [{ snapshotUuid: missing('systemTags'), systemTags: ['x'] }] },
    ]) {
      const before = estateOf(store);
      const response = await harness.gql<Record<string, { status: string; userErrors: { code: string; upstream: { code: string; details: string } }[] }>>(query, {
        input: { volumeSnapshotGroupUuid: group().uuid, name: 'x', ...extra },
      });
      const payload = response.data?.createVmInstanceFromVolumeSnapshotGroup;
      expect(payload?.status).toBe('FAILED');
      expect(payload?.userErrors.map((error) => [error.code, error.upstream.code])).toEqual([['NOT_FOUND', 'SYS.1003']]);
      expect(payload?.userErrors[0]?.upstream.details).toMatch(/^VolumeSnapshot\[uuid:[0-9a-f]{32}\] is not found$/);
      expect(estateOf(store)).toBe(before);
    }
  });

  it('makes the VM when every record it names exists, of the size of the offering it names', async () => {
    const chosen = first(store.instanceOfferings.list(tenantId), (candidate) => candidate.cpuNum === 2 && candidate.memorySize === 4 * 1024 ** 3);
    const response = await harness.gql<{ createVmInstanceFromVolumeSnapshotGroup: { status: string; vmInstance: { cpuNum: number; memorySize: number; instanceOfferingUuid: string } } }>(
      'mutation($input: CreateVmInstanceFromVolumeSnapshotGroupInput!) { createVmInstanceFromVolumeSnapshotGroup(input: $input) { status vmInstance { cpuNum memorySize instanceOfferingUuid } } }',
      { input: { volumeSnapshotGroupUuid: group().uuid, name: 'from-offering', instanceOfferingUuid: chosen.uuid, tagUuids: [tag()], strategy: 'CREATE_STOPPED' } },
    );
    expect(response.errors).toBeUndefined();
    expect(response.data?.createVmInstanceFromVolumeSnapshotGroup).toEqual({
      status: 'SUCCEEDED',
      vmInstance: { cpuNum: 2, memorySize: 4 * 1024 ** 3, instanceOfferingUuid: chosen.uuid },
    });
  });
});

describe('the estate the writes are checked against', () => {
  it('holds the instance offering of every VM, of that VM\'s size', () => {
    for (const tenant of store.tenants) {
      for (const record of store.vms.list(tenant.id)) {
        const offeringOfVm = store.instanceOfferings.get(tenant.id, record.instanceOfferingUuid ?? '');
        expect(offeringOfVm, record.name).toBeDefined();
        expect({ cpuNum: offeringOfVm?.cpuNum, memorySize: offeringOfVm?.memorySize }).toEqual({ cpuNum: record.cpuNum, memorySize: record.memorySize });
      }
    }
  });
});
