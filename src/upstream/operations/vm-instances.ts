/** VM instances (spec: Endpoints, "VM instances"). Four writes share `PUT vm-instances/{uuid}/actions`; the action key selects one. */
import { defineOperation } from './define.js';
import { EMPTY_RESULT, decodeItems, inventoryOf } from './results.js';

export const GetVmAttachableDataVolume = defineOperation({
  name: 'GetVmAttachableDataVolume',
  method: 'GET',
  family: 'resource',
  path: 'vm-instances/{vmInstanceUuid}/data-volume-candidates',
  params: {},
  decode: (body, decoder) => decodeItems(body, 'inventories', decoder.volume),
});

export const PrimaryStorageMigrateVm = defineOperation({
  name: 'PrimaryStorageMigrateVm',
  method: 'PUT',
  family: 'resource',
  path: 'vm-instances/{vmInstanceUuid}/actions',
  actionKey: 'primaryStorageMigrateVm',
  params: {
    dstPrimaryStorageUuid: 'body',
    withDataVolumes: 'body',
    withSnapshots: 'body',
    dstHostUuid: 'body',
    strategy: 'body',
    downTime: 'body',
    bandwidth: 'body',
    volumeMigrationAOs: 'body',
    enableMigrationTls: 'body',
  },
  decode: (body, decoder) => ({ inventory: inventoryOf(body, decoder.vmInstance) }),
});

export const CreateVmInstanceFromVolumeSnapshotGroup = defineOperation({
  name: 'CreateVmInstanceFromVolumeSnapshotGroup',
  method: 'POST',
  family: 'resource',
  path: 'vm-instances/from/volume-snapshots/group/{volumeSnapshotGroupUuid}',
  params: {
    name: 'body',
    description: 'body',
    instanceOfferingUuid: 'body',
    zoneUuid: 'body',
    clusterUuid: 'body',
    hostUuid: 'body',
    primaryStorageUuidForRootVolume: 'body',
    defaultL3NetworkUuid: 'body',
    resourceUuid: 'body',
    cpuNum: 'body',
    memorySize: 'body',
    l3NetworkUuids: 'body',
    type: 'body',
    strategy: 'body',
    tagUuids: 'body',
    rootVolumeSystemTags: 'body',
    dataVolumeSystemTags: 'body',
    reservedMemorySize: 'body',
    vmNicParams: 'body',
    resetTpm: 'body',
    volumeSnapshotEncryptions: 'body',
    vmEncryption: 'body',
  },
  decode: (body, decoder) => ({ inventory: inventoryOf(body, decoder.vmInstance) }),
});

export const DetachL3NetworkFromVm = defineOperation({
  name: 'DetachL3NetworkFromVm',
  method: 'DELETE',
  family: 'resource',
  path: 'vm-instances/nics/{vmNicUuid}',
  params: {},
  decode: (body, decoder) => ({ inventory: inventoryOf(body, decoder.vmInstance) }),
});

export const DeleteVmSshKey = defineOperation({
  name: 'DeleteVmSshKey',
  method: 'DELETE',
  family: 'resource',
  path: 'vm-instances/{uuid}/ssh-keys',
  params: {},
  // "a VM record may appear in `inventory`"
  decode: (body, decoder) => ({ inventory: inventoryOf(body, decoder.vmInstance) }),
});

export const SetVmBootVolume = defineOperation({
  name: 'SetVmBootVolume',
  method: 'PUT',
  family: 'resource',
  path: 'vm-instances/{vmInstanceUuid}/actions',
  actionKey: 'setVmBootVolume',
  params: { volumeUuid: 'body' },
  decode: (body, decoder) => ({ inventory: inventoryOf(body, decoder.vmInstance) }),
});

export const RecoverVmInstance = defineOperation({
  name: 'RecoverVmInstance',
  method: 'PUT',
  family: 'resource',
  path: 'vm-instances/{uuid}/actions',
  actionKey: 'recoverVmInstance',
  params: {},
  decode: (body, decoder) => ({ inventory: inventoryOf(body, decoder.vmInstance) }),
});

export const UpdateVmNicDriver = defineOperation({
  name: 'UpdateVmNicDriver',
  method: 'PUT',
  family: 'resource',
  path: 'vm-instances/{vmInstanceUuid}/actions',
  actionKey: 'updateVmNicDriver',
  // The spec lists vmNicUuid as url, but it is "carried inside the action object".
  params: { vmNicUuid: 'body', driverType: 'body' },
  decode: (body, decoder) => ({ inventory: inventoryOf(body, (value, path) => decoder.vmNic(value, path)) }),
});

export const DestroyVmInstance = defineOperation({
  name: 'DestroyVmInstance',
  method: 'DELETE',
  family: 'resource',
  path: 'vm-instances/{uuid}',
  params: { deleteMode: 'body' },
  decode: () => EMPTY_RESULT,
});
