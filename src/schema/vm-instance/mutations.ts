/**
 * The spec's VM instance writes as mutations: migrate to another primary storage, create from a
 * snapshot group, detach a network, delete the SSH key, set the boot volume, recover, change a
 * NIC's driver, destroy.
 */
import { builder } from '../../builder.js';
import {
  CreateVmInstanceFromVolumeSnapshotGroup,
  DeleteVmSshKey,
  DestroyVmInstance,
  DetachL3NetworkFromVm,
  PrimaryStorageMigrateVm,
  RecoverVmInstance,
  SetVmBootVolume,
  UpdateVmNicDriver,
  paramRelease,
} from '../../upstream/operations/index.js';
import { DeleteMode } from '../kit/delete-mode.js';
import { closedSetEnum } from '../kit/enums.js';
import { embeddedId } from '../kit/embedded-ids.js';
import { defineWriteMutation, deletedRecordFields, resultInventory, writtenUuid } from '../kit/mutation-kit.js';
import { NicDriverType, VmNicRef } from './embedded.js';
import { VmInstanceRef } from '../node-refs.js';
import { VmInstanceType } from './types.js';

export const VmCreateStrategy = closedSetEnum('VmCreateStrategy', {
  description: 'Whether a new VM is started (`strategy` of CreateVmInstanceFromVolumeSnapshotGroup).',
  since: paramRelease(CreateVmInstanceFromVolumeSnapshotGroup, CreateVmInstanceFromVolumeSnapshotGroup.params.strategy),
  values: {
    InstantStart: '`InstantStart` (the upstream\'s default): the VM is started once created.',
    CreateStopped: '`CreateStopped`: the VM is created and left stopped.',
  },
});

const VolumeMigrationAO = builder.inputType('VolumeMigrationAO', {
  extensions: { since: paramRelease(PrimaryStorageMigrateVm, PrimaryStorageMigrateVm.params.volumeMigrationAOs) },
  description: 'Where one volume of the VM goes (a `volumeMigrationAOs` item of PrimaryStorageMigrateVm). Since 5.1.0.',
  fields: (t) => ({
    volumeUuid: t.field({ type: 'Uuid', required: true, description: 'The volume to migrate (attached to the VM). Since 5.1.0.' }),
    dstPrimaryStorageUuid: t.field({
      type: 'Uuid',
      description: 'Destination primary storage of this volume; when left out, the operation\'s `dstPrimaryStorageUuid`. Since 5.1.0.',
    }),
    withSnapshots: t.boolean({ description: 'Whether the volume\'s snapshots migrate with it. Since 5.1.0.' }),
  }),
});

const DataVolumeSystemTags = builder.inputType('DataVolumeSystemTags', {
  extensions: { since: paramRelease(CreateVmInstanceFromVolumeSnapshotGroup, CreateVmInstanceFromVolumeSnapshotGroup.params.dataVolumeSystemTags) },
  description:
    'System tags for the data volume made from one snapshot (an entry of the `dataVolumeSystemTags` Map, keyed by snapshot uuid). Since 3.11.0.',
  fields: (t) => ({
    snapshotUuid: t.field({ type: 'Uuid', required: true, description: 'The group\'s volume snapshot the data volume is made from. Since 3.11.0.' }),
    systemTags: t.stringList({ required: true, description: 'System tags of that data volume. Since 3.11.0.' }),
  }),
});

const VolumeSnapshotEncryption = builder.inputType('VolumeSnapshotEncryption', {
  extensions: { since: paramRelease(CreateVmInstanceFromVolumeSnapshotGroup, CreateVmInstanceFromVolumeSnapshotGroup.params.volumeSnapshotEncryptions) },
  description:
    'Whether the volume made from one snapshot is encrypted (a `volumeSnapshotEncryptions` item, sent as `{volumeSnapshotUuid, encrypted}`). Since 5.1.0.',
  fields: (t) => ({
    volumeSnapshotUuid: t.field({ type: 'Uuid', required: true, description: 'The group\'s volume snapshot. Since 5.1.0.' }),
    encrypted: t.boolean({ required: true, description: 'Whether the volume made from it is encrypted. Since 5.1.0.' }),
  }),
});

/** Drops the absent fields of an input object, as the kit does for top-level parameters. */
function withoutAbsent(item: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(item).filter(([, value]) => value !== undefined && value !== null));
}

defineWriteMutation({
  name: 'primaryStorageMigrateVm',
  operation: PrimaryStorageMigrateVm,
  description:
    'Moves a stopped VM\'s root volume, and the data volumes named, to another primary storage (PrimaryStorageMigrateVm: `PUT vm-instances/{vmInstanceUuid}/actions`, action `primaryStorageMigrateVm`). Since 2.6.0.',
  inputFields: (t) => ({
    volumeMigrationAOs: t.field({
      type: [VolumeMigrationAO],
      description: 'Per-volume destinations: which volumes migrate, where, and with their snapshots or not. Since 5.1.0.',
    }),
  }),
  params: (input) => ({ volumeMigrationAOs: input.volumeMigrationAOs?.map(withoutAbsent) }),
  payloadFields: (t, result) => ({
    vmInstance: t.field({
      type: VmInstanceRef,
      nullable: true,
      description: 'The VM after the migration, its volumes on their new storage; null until the job succeeded. Since 2.6.0.',
      resolve: resultInventory(result),
    }),
  }),
  // The root volume moves too (found in the answer's inventory), and both storages' capacity changes.
  touches: {
    types: ['VmInstance', 'Volume'],
    uuids: (input) => [input.vmInstanceUuid, ...(input.volumeMigrationAOs ?? []).map((item) => item.volumeUuid)],
    everyRecordOf: ['PrimaryStorageCapacity'],
  },
});

defineWriteMutation({
  name: 'createVmInstanceFromVolumeSnapshotGroup',
  operation: CreateVmInstanceFromVolumeSnapshotGroup,
  description:
    'Creates a VM whose root and data volumes are made from the snapshots of a volume snapshot group (CreateVmInstanceFromVolumeSnapshotGroup: `POST vm-instances/from/volume-snapshots/group/{volumeSnapshotGroupUuid}`). Since 3.11.0.',
  inputFields: (t) => ({
    type: t.field({ type: VmInstanceType, description: 'Kind of VM: `UserVm` or `ApplianceVm`. Since 3.11.0.' }),
    strategy: t.field({ type: VmCreateStrategy, description: 'Start the VM once created (`InstantStart`, default) or not (`CreateStopped`). Since 3.11.0.' }),
    dataVolumeSystemTags: t.field({
      type: [DataVolumeSystemTags],
      description: 'System tags of each new data volume, by the snapshot it is made from (sent as the spec\'s Map keyed by snapshot uuid). Since 3.11.0.',
    }),
    volumeSnapshotEncryptions: t.field({
      type: [VolumeSnapshotEncryption],
      description: 'Whether the volume made from each snapshot is encrypted (snapshot uuid to encrypted flag). Since 5.1.0.',
    }),
  }),
  params: ({ dataVolumeSystemTags, volumeSnapshotEncryptions }) => ({
    // The spec's Map keyed by snapshot uuid, which GraphQL input cannot spell.
    dataVolumeSystemTags: dataVolumeSystemTags
      ? Object.fromEntries(dataVolumeSystemTags.map((entry) => [entry.snapshotUuid, entry.systemTags]))
      : undefined,
    volumeSnapshotEncryptions: volumeSnapshotEncryptions?.map(({ volumeSnapshotUuid, encrypted }) => ({ volumeSnapshotUuid, encrypted })),
  }),
  payloadFields: (t, result) => ({
    vmInstance: t.field({
      type: VmInstanceRef,
      nullable: true,
      description: 'The new VM; null until the job succeeded. Since 3.11.0.',
      resolve: resultInventory(result),
    }),
  }),
  // New VM and volumes: the lists of both change, and the volumes take primary storage space.
  touches: { types: ['VmInstance', 'Volume'], uuids: () => [], everyRecordOf: ['PrimaryStorageCapacity'] },
});

defineWriteMutation({
  name: 'detachL3NetworkFromVm',
  operation: DetachL3NetworkFromVm,
  description:
    'Detaches the network of a NIC from its VM, removing the NIC (DetachL3NetworkFromVm: `DELETE vm-instances/nics/{vmNicUuid}`). Since 0.6.',
  payloadFields: (t, result) => ({
    vmInstance: t.field({
      type: VmInstanceRef,
      nullable: true,
      description: 'The VM without the NIC; null until the job succeeded. Since 0.6.',
      resolve: resultInventory(result),
    }),
    // The NIC goes with its network; its global id names its VM, which the answer's inventory gives.
    ...deletedRecordFields(t, 'VmNic', 'NIC', (source, context) => {
      const vm = result(source, context)?.inventory;
      const uuid = source.input.vmNicUuid;
      return vm && typeof uuid === 'string' ? { uuid, localId: embeddedId(vm.uuid, uuid) } : null;
    }),
  }),
  // The VM, named by the answer's inventory, loses the NIC and its IPs.
  touches: { types: ['VmInstance', 'VmNic', 'UsedIp'], uuids: (input) => [input.vmNicUuid] },
});

defineWriteMutation({
  name: 'deleteVmSshKey',
  operation: DeleteVmSshKey,
  description: 'Removes the SSH key set on a VM (DeleteVmSshKey: `DELETE vm-instances/{uuid}/ssh-keys`). Since 0.6.',
  payloadFields: (t, result) => ({
    vmInstance: t.field({
      type: VmInstanceRef,
      nullable: true,
      description: 'The VM without its SSH key (the answer\'s `inventory`, else read afresh); null until the job succeeded. Since 0.6.',
      resolve: (source, _args, context) => result(source, context)?.inventory ?? writtenUuid(source, 'uuid'),
    }),
  }),
  touches: { types: ['VmInstance'], uuids: (input) => [input.uuid] },
});

defineWriteMutation({
  name: 'setVmBootVolume',
  operation: SetVmBootVolume,
  description:
    'Makes one of the VM\'s volumes its boot volume (SetVmBootVolume: `PUT vm-instances/{vmInstanceUuid}/actions`, action `setVmBootVolume`). Since 3.12.0.',
  payloadFields: (t, result) => ({
    vmInstance: t.field({
      type: VmInstanceRef,
      nullable: true,
      description: 'The VM, its boot volume first in `volumes`; null until the job succeeded. Since 3.12.0.',
      resolve: resultInventory(result),
    }),
  }),
  // The former boot volume changes device too; the answer's inventory names it.
  touches: { types: ['VmInstance', 'Volume'], uuids: (input) => [input.vmInstanceUuid, input.volumeUuid] },
});

defineWriteMutation({
  name: 'recoverVmInstance',
  operation: RecoverVmInstance,
  description:
    'Brings a destroyed VM back, stopped (RecoverVmInstance: `PUT vm-instances/{uuid}/actions`, action `recoverVmInstance`). Since 0.6.',
  payloadFields: (t, result) => ({
    vmInstance: t.field({
      type: VmInstanceRef,
      nullable: true,
      description: 'The recovered VM (state `Stopped`); null until the job succeeded. Since 0.6.',
      resolve: resultInventory(result),
    }),
  }),
  touches: { types: ['VmInstance'], uuids: (input) => [input.uuid] },
});

defineWriteMutation({
  name: 'updateVmNicDriver',
  operation: UpdateVmNicDriver,
  description:
    'Changes the emulated device model of a VM NIC (UpdateVmNicDriver: `PUT vm-instances/{vmInstanceUuid}/actions`, action `updateVmNicDriver`). Since 3.9.0.',
  inputFields: (t) => ({
    driverType: t.field({ type: NicDriverType, required: true, description: 'The new device model. Since 3.9.0.' }),
  }),
  payloadFields: (t, result) => ({
    vmNic: t.field({
      type: VmNicRef,
      nullable: true,
      description: 'The NIC with its new driver (the answer\'s VmNicInventory); null until the job succeeded. Since 3.9.0.',
      resolve: (source, _args, context) => {
        const nic = result(source, context)?.inventory;
        if (!nic) return null;
        return nic.vmInstanceUuid ? nic : { ...nic, vmInstanceUuid: writtenUuid(source, 'vmInstanceUuid') };
      },
    }),
    vmInstance: t.field({
      type: VmInstanceRef,
      nullable: true,
      description: 'The VM of the NIC, read afresh; null until the job succeeded. Since 3.9.0.',
      resolve: (source) => writtenUuid(source, 'vmInstanceUuid'),
    }),
  }),
  touches: { types: ['VmInstance', 'VmNic'], uuids: (input) => [input.vmInstanceUuid, input.vmNicUuid] },
});

defineWriteMutation({
  name: 'destroyVmInstance',
  operation: DestroyVmInstance,
  description:
    'Destroys a VM; it stays queryable in state `Destroyed` until expunged and `recoverVmInstance` can bring it back (DestroyVmInstance: `DELETE vm-instances/{uuid}`). Since 0.6.',
  inputFields: (t) => ({
    deleteMode: t.field({ type: DeleteMode, description: 'How dependants are treated; the upstream\'s default is `Permissive`. Since 0.6.' }),
  }),
  payloadFields: (t) => ({
    vmInstance: t.field({
      type: VmInstanceRef,
      nullable: true,
      description: 'The destroyed VM, read afresh (the upstream answers `{}`); null until the job succeeded. Since 0.6.',
      resolve: (source) => writtenUuid(source, 'uuid'),
    }),
  }),
  // Its host's list of VMs changes with it (a VmInstance connection).
  touches: { types: ['VmInstance'], uuids: (input) => [input.uuid] },
});
