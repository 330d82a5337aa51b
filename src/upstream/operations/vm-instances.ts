/** VM instances (spec: Endpoints, "VM instances"). Four writes share `PUT vm-instances/{uuid}/actions`; the action key selects one. */
import { defineOperation, inBody } from './define.js';
import { EMPTY_RESULT, decodeItems, inventoryOf } from './results.js';

export const GetVmAttachableDataVolume = defineOperation('GetVmAttachableDataVolume', 'GET vm-instances/{vmInstanceUuid}/data-volume-candidates', {
  decode: (body, decoder) => decodeItems(body, 'inventories', decoder.volume),
});

export const PrimaryStorageMigrateVm = defineOperation('PrimaryStorageMigrateVm', 'PUT vm-instances/{vmInstanceUuid}/actions', {
  actionKey: 'primaryStorageMigrateVm',
  params: inBody(
    'dstPrimaryStorageUuid', 'withDataVolumes', 'withSnapshots', 'dstHostUuid', 'strategy', 'downTime', 'bandwidth',
    'volumeMigrationAOs', 'enableMigrationTls',
  ),
  decode: (body, decoder) => ({ inventory: inventoryOf(body, decoder.vmInstance) }),
});

export const CreateVmInstanceFromVolumeSnapshotGroup = defineOperation('CreateVmInstanceFromVolumeSnapshotGroup', 'POST vm-instances/from/volume-snapshots/group/{volumeSnapshotGroupUuid}', {
  params: inBody(
    'name', 'description', 'instanceOfferingUuid', 'zoneUuid', 'clusterUuid', 'hostUuid', 'primaryStorageUuidForRootVolume',
    'defaultL3NetworkUuid', 'resourceUuid', 'cpuNum', 'memorySize', 'l3NetworkUuids', 'type', 'strategy', 'tagUuids',
    'rootVolumeSystemTags', 'dataVolumeSystemTags', 'reservedMemorySize', 'vmNicParams', 'resetTpm', 'volumeSnapshotEncryptions',
    'vmEncryption',
  ),
  decode: (body, decoder) => ({ inventory: inventoryOf(body, decoder.vmInstance) }),
});

export const DetachL3NetworkFromVm = defineOperation('DetachL3NetworkFromVm', 'DELETE vm-instances/nics/{vmNicUuid}', {
  decode: (body, decoder) => ({ inventory: inventoryOf(body, decoder.vmInstance) }),
});

export const DeleteVmSshKey = defineOperation('DeleteVmSshKey', 'DELETE vm-instances/{uuid}/ssh-keys', {
  // "a VM record may appear in `inventory`"
  decode: (body, decoder) => ({ inventory: inventoryOf(body, decoder.vmInstance) }),
});

export const SetVmBootVolume = defineOperation('SetVmBootVolume', 'PUT vm-instances/{vmInstanceUuid}/actions', {
  actionKey: 'setVmBootVolume',
  params: { volumeUuid: 'body' },
  decode: (body, decoder) => ({ inventory: inventoryOf(body, decoder.vmInstance) }),
});

export const RecoverVmInstance = defineOperation('RecoverVmInstance', 'PUT vm-instances/{uuid}/actions', {
  actionKey: 'recoverVmInstance',
  decode: (body, decoder) => ({ inventory: inventoryOf(body, decoder.vmInstance) }),
});

export const UpdateVmNicDriver = defineOperation('UpdateVmNicDriver', 'PUT vm-instances/{vmInstanceUuid}/actions', {
  actionKey: 'updateVmNicDriver',
  // The spec lists vmNicUuid as url, but it is "carried inside the action object".
  params: { vmNicUuid: 'body', driverType: 'body' },
  decode: (body, decoder) => ({ inventory: inventoryOf(body, decoder.vmNic) }),
});

export const DestroyVmInstance = defineOperation('DestroyVmInstance', 'DELETE vm-instances/{uuid}', {
  params: { deleteMode: 'body' },
  decode: () => EMPTY_RESULT,
});
