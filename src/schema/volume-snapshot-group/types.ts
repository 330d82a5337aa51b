/**
 * The `VolumeSnapshotGroup` type (VolumeSnapshotGroupInventory, read through
 * QueryVolumeSnapshotGroup) with the VM it was taken of and, for each snapshot reference, the
 * volume it snapshots.
 */
import { builder } from '../../builder.js';
import type { VolumeSnapshotRefRecord } from '../../upstream/records.js';
import { nodeByUuid, resourceFamily } from '../kit/families.js';
import { entityByUuid } from '../kit/federation.js';
import { backedBy, embeddedList, exposeRecordEnums, exposeRecordFields, follows } from '../kit/record-fields.js';
import { VmInstanceRef, VolumeRef } from '../node-refs.js';
import { VolumeType } from '../volume.js';

/** Snapshot groups, read through QueryVolumeSnapshotGroup (also by `VmInstance.snapshotGroups`). */
export const volumeSnapshotGroups = resourceFamily('volumeSnapshotGroups');

export const VolumeSnapshotGroupRef = builder.loadableNodeRef('VolumeSnapshotGroup', nodeByUuid(volumeSnapshotGroups, 'VolumeSnapshotGroup'));

VolumeSnapshotGroupRef.implement({
  description: 'Snapshots of all volumes of one VM taken together (VolumeSnapshotGroupInventory). Since 3.6.0.',
  extensions: backedBy('volumeSnapshotGroup'),
  fields: (t) => ({
    ...exposeRecordFields(t, 'volumeSnapshotGroup', 'uuid', 'name', 'description', 'snapshotCount', 'vmInstanceUuid'),
    vmInstance: follows(t, 'vmInstanceUuid', VmInstanceRef, 'VM whose volumes were snapshotted (`vmInstanceUuid`). Null when it cannot be read (with an error). Since 3.6.0.'),
    ...exposeRecordFields(t, 'volumeSnapshotGroup', 'createDate', 'lastOpDate'),
    volumeSnapshotRefs: embeddedList(t, 'volumeSnapshotRefs', VolumeSnapshotRefType, 'One reference per volume snapshot of the group; one the upstream sent malformed is null with an error at its index. Since 3.6.0.'),
  }),
});

export const VolumeSnapshotRefType = builder.objectRef<VolumeSnapshotRefRecord>('VolumeSnapshotRef');

VolumeSnapshotRefType.implement({
  description: 'One volume snapshot of a snapshot group (volumeSnapshotRefs item). Since 3.6.0.',
  extensions: backedBy('volumeSnapshotRef'),
  fields: (t) => ({
    ...exposeRecordFields(t, 'volumeSnapshotRef', 'volumeSnapshotUuid', 'volumeSnapshotGroupUuid', 'volumeUuid'),
    volume: follows(t, 'volumeUuid', VolumeRef, 'Volume the snapshot was taken of (`volumeUuid`); null when it no longer exists or cannot be read (with an error). Since 3.6.0.'),
    ...exposeRecordFields(t, 'volumeSnapshotRef', 'volumeName'),
    ...exposeRecordEnums(t, 'volumeSnapshotRef', VolumeType, 'volumeType'),
    ...exposeRecordFields(t, 'volumeSnapshotRef',
      'volumeSnapshotInstallPath', 'volumeSnapshotName', 'deviceId', 'snapshotDeleted', 'createDate',
      'lastOpDate',
    ),
  }),
});

// A Federation entity: other subgraphs reference it by uuid (or id), `_entities` loads it like a page does.
entityByUuid(VolumeSnapshotGroupRef, 'VolumeSnapshotGroup');
