/** VM instances (spec: Endpoints, "VM instances"). Four writes share `PUT vm-instances/{uuid}/actions`; the action key selects one. */
import { bodyParam, defineOperation, pathParam, shapedParam } from './define.js';
import { EMPTY_RESULT, answersInventory, decodeItems } from './results.js';

export const GetVmAttachableDataVolume = defineOperation('GetVmAttachableDataVolume', 'GET vm-instances/{vmInstanceUuid}/data-volume-candidates', {
  since: '0.6',
  decode: (body, decoder) => decodeItems(body, 'inventories', decoder.volume),
});

const DEPRECATED_FOR_VOLUME_MIGRATION_AOS = 'Deprecated by the upstream: use `volumeMigrationAOs`.';

export const PrimaryStorageMigrateVm = defineOperation('PrimaryStorageMigrateVm', 'PUT vm-instances/{vmInstanceUuid}/actions', {
  since: '2.6.0',
  actionKey: 'primaryStorageMigrateVm',
  params: {
    vmInstanceUuid: pathParam('uuid', 'The VM to migrate.', { since: '2.6.0' }),
    dstPrimaryStorageUuid: bodyParam('uuid', 'Destination primary storage of the root volume (and of every volume `volumeMigrationAOs` gives none).', { since: '2.6.0' }),
    withDataVolumes: bodyParam('bool', 'Whether the data volumes migrate too; deprecated.', { deprecated: DEPRECATED_FOR_VOLUME_MIGRATION_AOS, since: '2.6.0' }),
    withSnapshots: bodyParam('bool', 'Whether the snapshots migrate too; deprecated: set `withSnapshots` per `volumeMigrationAOs` item.', {
      deprecated: 'Deprecated by the upstream: use `withSnapshots` of each `volumeMigrationAOs` item.',
      since: '2.6.0',
    }),
    dstHostUuid: bodyParam('uuid', 'Host the VM should run on after the migration.', { since: '3.10.0' }),
    strategy: bodyParam('text', 'Migration strategy (allowed values not shown by the spec).', { since: '3.14.34' }),
    downTime: bodyParam('int', 'Allowed downtime of the migration (unit not shown by the spec).', { since: '3.16.21' }),
    bandwidth: bodyParam('long', 'Overall migration storage rate limit in MB/s.', { since: '3.17.11' }),
    volumeMigrationAOs: shapedParam('body', { since: '5.1.0' }),
    enableMigrationTls: bodyParam('bool', 'Whether the migration traffic is encrypted with TLS.', { since: '5.0.0' }),
  },
  decode: answersInventory('vmInstance'),
});

export const CreateVmInstanceFromVolumeSnapshotGroup = defineOperation('CreateVmInstanceFromVolumeSnapshotGroup', 'POST vm-instances/from/volume-snapshots/group/{volumeSnapshotGroupUuid}', {
  since: '3.11.0',
  params: {
    volumeSnapshotGroupUuid: pathParam('uuid', 'The snapshot group to create the VM from.', { since: '3.11.0' }),
    name: bodyParam('text', 'Name of the new VM.', { required: true, since: '3.11.0' }),
    description: bodyParam('text', 'Description of the new VM.', { since: '3.11.0' }),
    instanceOfferingUuid: bodyParam('uuid', 'Instance offering (CPU/memory template) of the new VM.', { since: '3.11.0' }),
    zoneUuid: bodyParam('uuid', 'Zone to create the VM in.', { since: '3.11.0' }),
    clusterUuid: bodyParam('uuid', 'Cluster to create the VM in.', { since: '3.11.0' }),
    hostUuid: bodyParam('uuid', 'Host to create the VM on.', { since: '3.11.0' }),
    primaryStorageUuidForRootVolume: bodyParam('uuid', 'Primary storage of the new root volume.', { since: '3.11.0' }),
    defaultL3NetworkUuid: bodyParam('uuid', 'Default L3 network of the new VM (one of `l3NetworkUuids`).', { since: '3.11.0' }),
    resourceUuid: bodyParam('uuid', 'Uuid the new VM should get, instead of a generated one.', { since: '3.11.0' }),
    cpuNum: bodyParam('int', 'CPU count of the new VM.', { since: '3.11.0' }),
    memorySize: bodyParam('long', 'Memory size of the new VM, in bytes.', { since: '3.11.0' }),
    l3NetworkUuids: bodyParam('uuids', 'L3 networks the new VM gets a NIC on.', { since: '3.11.0' }),
    type: 'body',
    strategy: 'body',
    tagUuids: bodyParam('uuids', 'Tags to attach to the new VM.', { since: '3.11.0' }),
    rootVolumeSystemTags: bodyParam('texts', 'System tags of the new root volume.', { since: '3.11.0' }),
    dataVolumeSystemTags: 'body',
    reservedMemorySize: bodyParam('long', 'Memory reserved for the new VM, in bytes.', { since: '3.17.21' }),
    vmNicParams: bodyParam('text', 'NIC parameters of the new VM, as the upstream\'s text.', { since: '4.10.10' }),
    resetTpm: bodyParam('bool', 'Whether the TPM state is reset.', { since: '5.0.0' }),
    volumeSnapshotEncryptions: shapedParam('body', { since: '5.1.0' }),
    vmEncryption: bodyParam('bool', 'Whether the new VM is encrypted.', { since: '5.1.0' }),
  },
  decode: answersInventory('vmInstance'),
});

export const DetachL3NetworkFromVm = defineOperation('DetachL3NetworkFromVm', 'DELETE vm-instances/nics/{vmNicUuid}', {
  since: '0.6',
  params: { vmNicUuid: pathParam('uuid', 'The NIC whose network is detached from its VM.', { since: '0.6' }) },
  decode: answersInventory('vmInstance'),
});

export const DeleteVmSshKey = defineOperation('DeleteVmSshKey', 'DELETE vm-instances/{uuid}/ssh-keys', {
  since: '0.6',
  params: { uuid: pathParam('uuid', 'The VM (the spec lists it as optional, but it is a path segment, so the gateway requires it).', { since: '0.6' }) },
  // "a VM record may appear in `inventory`"
  decode: answersInventory('vmInstance'),
});

export const SetVmBootVolume = defineOperation('SetVmBootVolume', 'PUT vm-instances/{vmInstanceUuid}/actions', {
  since: '3.12.0',
  actionKey: 'setVmBootVolume',
  params: {
    vmInstanceUuid: pathParam('uuid', 'The VM.', { since: '3.12.0' }),
    volumeUuid: bodyParam('uuid', 'The volume to boot from; it must be attached to the VM.', { required: true, since: '3.12.0' }),
  },
  decode: answersInventory('vmInstance'),
});

export const RecoverVmInstance = defineOperation('RecoverVmInstance', 'PUT vm-instances/{uuid}/actions', {
  since: '0.6',
  actionKey: 'recoverVmInstance',
  params: { uuid: pathParam('uuid', 'The destroyed VM.', { since: '0.6' }) },
  decode: answersInventory('vmInstance'),
});

export const UpdateVmNicDriver = defineOperation('UpdateVmNicDriver', 'PUT vm-instances/{vmInstanceUuid}/actions', {
  since: '3.9.0',
  actionKey: 'updateVmNicDriver',
  // The spec lists vmNicUuid as url, but it is "carried inside the action object".
  params: {
    vmInstanceUuid: pathParam('uuid', 'The VM.', { since: '3.9.0' }),
    vmNicUuid: bodyParam('uuid', 'The NIC of that VM (sent inside the action object).', { required: true, since: '3.9.0' }),
    driverType: 'body',
  },
  decode: answersInventory('vmNic'),
});

export const DestroyVmInstance = defineOperation('DestroyVmInstance', 'DELETE vm-instances/{uuid}', {
  since: '0.6',
  params: { uuid: pathParam('uuid', 'The VM.', { since: '0.6' }), deleteMode: 'body' },
  decode: () => EMPTY_RESULT,
});
