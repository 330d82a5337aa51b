/**
 * The `VolumeSnapshotGroup` type (VolumeSnapshotGroupInventory, read through
 * QueryVolumeSnapshotGroup) with the VM it was taken of and, for each snapshot reference, the
 * volume it snapshots.
 */
import { builder } from '../../builder.js';
import type { VolumeSnapshotGroupRecord, VolumeSnapshotRefRecord } from '../../upstream/records.js';
import { nodeByUuid, queryFamily } from '../kit/families.js';
import { backedBy, follows, reads } from '../kit/record-fields.js';
import { VmInstanceRef } from '../vm-instance/index.js';
import { VolumeRef } from '../volume.js';

/** Snapshot groups, read through QueryVolumeSnapshotGroup (also by `VmInstance.snapshotGroups`). */
export const volumeSnapshotGroups = queryFamily('volumeSnapshotGroups');

export const VolumeSnapshotGroupRef = builder.loadableNodeRef('VolumeSnapshotGroup', {
  ...nodeByUuid(volumeSnapshotGroups, 'VolumeSnapshotGroup'),
});

VolumeSnapshotGroupRef.implement({
  description: 'Snapshots of all volumes of one VM taken together (VolumeSnapshotGroupInventory). Since 3.6.0.',
  extensions: backedBy('volumeSnapshotGroup'),
  fields: (t) => ({
    uuid: t.expose('uuid', { type: 'Uuid', nullable: false, description: 'Identifier. Since 3.6.0.' }),
    name: t.exposeString('name', { description: 'Name. Since 3.6.0.' }),
    description: t.exposeString('description', { description: 'Description. Since 3.6.0.' }),
    snapshotCount: t.exposeInt('snapshotCount', { description: 'How many snapshots the group holds. Since 3.6.0.' }),
    vmInstanceUuid: t.expose('vmInstanceUuid', { type: 'Uuid', description: 'VM whose volumes were snapshotted. Since 3.6.0.' }),
    vmInstance: t.field({
      ...follows<VolumeSnapshotGroupRecord>('vmInstanceUuid'),
      type: VmInstanceRef,
      description: 'VM whose volumes were snapshotted (`vmInstanceUuid`). Null when it cannot be read (with an error). Since 3.6.0.',
    }),
    createDate: t.expose('createDate', { type: 'DateTime', description: 'Creation time. Since 3.6.0.' }),
    lastOpDate: t.expose('lastOpDate', { type: 'DateTime', description: 'Last update time. Since 3.6.0.' }),
    volumeSnapshotRefs: t.field({
      type: [VolumeSnapshotRefType],
      nullable: false,
      description: 'One reference per volume snapshot of the group. Since 3.6.0.',
      extensions: reads<VolumeSnapshotGroupRecord>('volumeSnapshotRefs'),
      resolve: (group) => group.volumeSnapshotRefs,
    }),
  }),
});

export const VolumeSnapshotRefType = builder.objectRef<VolumeSnapshotRefRecord>('VolumeSnapshotRef');

VolumeSnapshotRefType.implement({
  description: 'One volume snapshot of a snapshot group (volumeSnapshotRefs item). Since 3.6.0.',
  extensions: backedBy('volumeSnapshotRef'),
  fields: (t) => ({
    volumeSnapshotUuid: t.field({
      type: 'Uuid',
      nullable: false,
      description: 'The volume snapshot. Since 3.6.0.',
      extensions: reads<VolumeSnapshotRefRecord>('volumeSnapshotUuid'),
      resolve: (ref) => ref.volumeSnapshotUuid,
    }),
    volumeSnapshotGroupUuid: t.expose('volumeSnapshotGroupUuid', { type: 'Uuid', description: 'Group the snapshot belongs to. Since 3.6.0.' }),
    volumeUuid: t.expose('volumeUuid', { type: 'Uuid', description: 'Volume the snapshot was taken of. Since 3.6.0.' }),
    volume: t.field({
      ...follows<VolumeSnapshotRefRecord>('volumeUuid'),
      type: VolumeRef,
      description: 'Volume the snapshot was taken of (`volumeUuid`); null when it no longer exists or cannot be read (with an error). Since 3.6.0.',
    }),
    volumeName: t.exposeString('volumeName', { description: 'Name of the volume when the snapshot was taken. Since 3.6.0.' }),
    volumeType: t.exposeString('volumeType', { description: 'Type of the volume: `Root` or `Data`. Since 3.6.0.' }),
    volumeSnapshotInstallPath: t.exposeString('volumeSnapshotInstallPath', { description: 'Path of the snapshot on its storage. Since 3.6.0.' }),
    volumeSnapshotName: t.exposeString('volumeSnapshotName', { description: 'Name of the snapshot. Since 3.6.0.' }),
    deviceId: t.exposeInt('deviceId', { description: 'Device order of the volume when the snapshot was taken. Since 3.6.0.' }),
    snapshotDeleted: t.exposeBoolean('snapshotDeleted', { description: 'Whether the snapshot has since been deleted. Since 3.6.0.' }),
    createDate: t.expose('createDate', { type: 'DateTime', description: 'Creation time. Since 3.6.0.' }),
    lastOpDate: t.expose('lastOpDate', { type: 'DateTime', description: 'Last update time. Since 3.6.0.' }),
  }),
});

export const VolumeSnapshotGroupConnection = builder.connectionObject({
  type: VolumeSnapshotGroupRef,
  name: 'VolumeSnapshotGroupConnection',
});

