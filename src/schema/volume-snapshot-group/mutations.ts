/**
 * The spec's volume snapshot group writes as mutations: create, delete (with each snapshot's
 * outcome), update.
 */
import { builder } from '../../builder.js';
import { CreateVolumeSnapshotGroup, DeleteVolumeSnapshotGroup, UpdateVolumeSnapshotGroup } from '../../upstream/operations/index.js';
import { snapshotGroupDeletionResult, type SnapshotGroupDeletionResultRecord } from '../../upstream/records.js';
import { DeleteMode } from '../kit/delete-mode.js';
import { UpstreamErrorRef } from '../kit/errors.js';
import { defineWriteMutation, deletedRecordFields, removedByInput, resultInventory } from '../kit/mutation-kit.js';
import { VolumeSnapshotGroupRef } from './types.js';

export const SnapshotGroupDeletionResultRef = builder.objectRef<SnapshotGroupDeletionResultRecord>('SnapshotGroupDeletionResult');

SnapshotGroupDeletionResultRef.implement({
  extensions: { since: snapshotGroupDeletionResult.since },
  description: 'What became of one snapshot of a deleted group (a `results` item of DeleteVolumeSnapshotGroup). Since 3.6.0.',
  fields: (t) => ({
    snapshotUuid: t.expose('snapshotUuid', { type: 'Uuid', description: 'The volume snapshot. Since 3.6.0.' }),
    volumeUuid: t.expose('volumeUuid', { type: 'Uuid', description: 'The volume the snapshot was taken of. Since 3.6.0.' }),
    success: t.exposeBoolean('success', { nullable: false, description: 'Whether this snapshot was deleted. Since 3.6.0.' }),
    error: t.field({
      type: UpstreamErrorRef,
      nullable: true,
      description: 'Why this snapshot was not deleted (e.g. `SYS.1001` for an internal error); null on success. Since 3.6.0.',
      resolve: (result) => result.error,
    }),
  }),
});

defineWriteMutation({
  name: 'createVolumeSnapshotGroup',
  operation: CreateVolumeSnapshotGroup,
  description:
    'Snapshots all volumes of the VM a root volume belongs to, together, as one group (CreateVolumeSnapshotGroup: `POST volume-snapshots/group`). Since 3.6.0.',
  payloadFields: (t, result) => ({
    volumeSnapshotGroup: t.field({
      type: VolumeSnapshotGroupRef,
      nullable: true,
      description: 'The new group with one snapshot reference per volume; null until the job succeeded. Since 3.6.0.',
      resolve: resultInventory(result),
    }),
  }),
  // The VM's snapshot groups (a connection) gain one; snapshots take primary storage space.
  touches: { types: ['VolumeSnapshotGroup'], uuids: () => [], everyRecordOf: ['PrimaryStorageCapacity'] },
});

defineWriteMutation({
  name: 'deleteVolumeSnapshotGroup',
  operation: DeleteVolumeSnapshotGroup,
  description:
    'Deletes a snapshot group and its snapshots, reporting each snapshot\'s outcome (DeleteVolumeSnapshotGroup: `DELETE volume-snapshots/group/{uuid}?deleteMode=`). Since 3.6.0.',
  inputFields: (t) => ({
    deleteMode: t.field({
      type: DeleteMode,
      description: 'How dependants are treated (sent on the query string); the upstream\'s default is `Permissive`. Since 3.6.0.',
    }),
  }),
  payloadFields: (t, result) => ({
    results: t.field({
      type: [SnapshotGroupDeletionResultRef],
      nullable: true,
      description: 'One outcome per snapshot of the group; null until the job succeeded. Since 3.6.0.',
      resolve: (source, _args, context) => result(source, context)?.results ?? null,
    }),
    ...deletedRecordFields(t, 'VolumeSnapshotGroup', 'snapshot group', removedByInput('uuid')),
  }),
  // The VM's snapshot groups (a connection) lose one; the space of its snapshots is freed.
  touches: { types: ['VolumeSnapshotGroup'], uuids: (input) => [input.uuid], everyRecordOf: ['PrimaryStorageCapacity'] },
});

defineWriteMutation({
  name: 'updateVolumeSnapshotGroup',
  operation: UpdateVolumeSnapshotGroup,
  description:
    'Renames a snapshot group or changes its description (UpdateVolumeSnapshotGroup: `PUT volume-snapshots/group/{uuid}/actions`, action `updateVolumeSnapshotGroup`). Since 3.6.0.',
  payloadFields: (t, result) => ({
    volumeSnapshotGroup: t.field({
      type: VolumeSnapshotGroupRef,
      nullable: true,
      description: 'The group with its new name and description; null until the job succeeded. Since 3.6.0.',
      resolve: resultInventory(result),
    }),
  }),
  touches: { types: ['VolumeSnapshotGroup'], uuids: (input) => [input.uuid] },
});
