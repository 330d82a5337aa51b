/**
 * Volume snapshot groups: VolumeSnapshotGroupInventory read through QueryVolumeSnapshotGroup,
 * with the VM they were taken of and, for each snapshot reference, the volume it snapshots.
 */
import { builder } from '../builder.js';
import type { GatewayContext } from '../context.js';
import type { SnapshotGroupDeletionResultRecord, VolumeSnapshotGroupRecord, VolumeSnapshotRefRecord } from '../upstream/records.js';
import { CreateVolumeSnapshotGroup, DeleteVolumeSnapshotGroup, UpdateVolumeSnapshotGroup } from '../upstream/operations/index.js';
import { DeleteMode } from './kit/delete-mode.js';
import { UpstreamErrorRef } from './kit/errors.js';
import { loadByUuid, queryFamily } from './kit/families.js';
import { defineListQuery } from './kit/list-query.js';
import { defineWriteMutation, type PayloadSource, type ResultReader } from './kit/mutation-kit.js';
import { backedBy, reads } from './kit/record-fields.js';
import { VmInstanceRef } from './vm-instance/index.js';
import { VolumeRef } from './volume.js';

/** Snapshot groups, read through QueryVolumeSnapshotGroup (also by `VmInstance.snapshotGroups`). */
export const volumeSnapshotGroups = queryFamily('volumeSnapshotGroups');

export const VolumeSnapshotGroupRef = builder.loadableNodeRef('VolumeSnapshotGroup', {
  id: { resolve: (group: VolumeSnapshotGroupRecord) => group.uuid },
  // One QueryVolumeSnapshotGroup (`uuid?=...`) per batch.
  load: loadByUuid(volumeSnapshotGroups, 'VolumeSnapshotGroup'),
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
      type: VmInstanceRef,
      nullable: true,
      description: 'VM whose volumes were snapshotted (`vmInstanceUuid`). Null when it cannot be read (with an error). Since 3.6.0.',
      extensions: reads<VolumeSnapshotGroupRecord>('vmInstanceUuid'),
      resolve: (group) => group.vmInstanceUuid,
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
      type: VolumeRef,
      nullable: true,
      description: 'Volume the snapshot was taken of (`volumeUuid`); null when it no longer exists or cannot be read (with an error). Since 3.6.0.',
      extensions: reads<VolumeSnapshotRefRecord>('volumeUuid'),
      resolve: (ref) => ref.volumeUuid,
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

defineListQuery({
  typeName: 'VolumeSnapshotGroup',
  family: volumeSnapshotGroups,
  connection: VolumeSnapshotGroupConnection,
  list: {
    name: 'volumeSnapshotGroups',
    description:
      'Volume snapshot groups (QueryVolumeSnapshotGroup). Null when they cannot be read (with an error): no `Authorization` sent (`UNAUTHENTICATED`) or the upstream failing; the other fields of the query still answer. Since 3.6.0.',
  },
  one: {
    name: 'volumeSnapshotGroup',
    type: VolumeSnapshotGroupRef,
    description:
      'One snapshot group by uuid; null when it does not exist (with a `NOT_FOUND` error) or cannot be read (with the error that stopped it, e.g. `UNAUTHENTICATED`). Since 3.6.0.',
    argDescription: 'The group\'s uuid.',
  },
  filter: {
    description: 'Conditions on snapshot groups (sent as `q=` conditions); all given conditions must hold.',
    argDescription: 'Conditions the groups must meet.',
    fields: {
      uuids: { field: 'uuid', op: 'in', type: ['Uuid'], description: 'Only these groups.' },
      vmInstanceUuid: { field: 'vmInstanceUuid', op: 'eq', type: 'Uuid', description: 'Only groups taken of this VM.' },
      nameContains: { field: 'name', op: 'contains', type: 'String', description: 'Name contains this text.' },
    },
  },
  order: {
    fieldsDescription: 'Fields snapshot groups can be sorted by.',
    description: 'Order of a snapshot group connection.',
    argDescription: 'Sort order. Default: the upstream\'s order.',
    fields: {
      CREATE_DATE: { value: 'createDate', description: 'Creation time.' },
      LAST_OP_DATE: { value: 'lastOpDate', description: 'Last update time.' },
      NAME: { value: 'name', description: 'Name.' },
      SNAPSHOT_COUNT: { value: 'snapshotCount', description: 'Number of snapshots.' },
    },
  },
});

// ---------------------------------------------------------------------------------------------
// Mutations: the spec's volume snapshot group writes

export const SnapshotGroupDeletionResultRef = builder.objectRef<SnapshotGroupDeletionResultRecord>('SnapshotGroupDeletionResult');

SnapshotGroupDeletionResultRef.implement({
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

/** The payload field's resolver of the group a write answered with in `inventory`; null while running, after a failure, or with no inventory. */
function resultingGroup(result: ResultReader<{ inventory: VolumeSnapshotGroupRecord | null }>) {
  return (source: PayloadSource, _args: unknown, context: GatewayContext): VolumeSnapshotGroupRecord | null =>
    result(source, context)?.inventory ?? null;
}

defineWriteMutation({
  name: 'createVolumeSnapshotGroup',
  operation: CreateVolumeSnapshotGroup,
  description:
    'Snapshots all volumes of the VM a root volume belongs to, together, as one group (CreateVolumeSnapshotGroup: `POST volume-snapshots/group`). Since 3.6.0.',
  inputFields: (t) => ({
    rootVolumeUuid: t.field({ type: 'Uuid', required: true, description: 'Root volume of the VM whose volumes are snapshotted. Since 3.6.0.' }),
    name: t.string({ required: true, description: 'Name of the group. Since 3.6.0.' }),
    description: t.string({ description: 'Description of the group. Since 3.6.0.' }),
    resourceUuid: t.field({ type: 'Uuid', description: 'Uuid the new group should get, instead of a generated one. Since 3.6.0.' }),
    tagUuids: t.field({ type: ['Uuid'], description: 'Tags to attach to the new group. Since 3.6.0.' }),
  }),
  params: (input) => ({
    rootVolumeUuid: input.rootVolumeUuid,
    name: input.name,
    description: input.description,
    resourceUuid: input.resourceUuid,
    tagUuids: input.tagUuids,
  }),
  payloadFields: (t, result) => ({
    volumeSnapshotGroup: t.field({
      type: VolumeSnapshotGroupRef,
      nullable: true,
      description: 'The new group with one snapshot reference per volume; null until the job succeeded. Since 3.6.0.',
      resolve: resultingGroup(result),
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
    uuid: t.field({ type: 'Uuid', required: true, description: 'The group. Since 3.6.0.' }),
    deleteMode: t.field({
      type: DeleteMode,
      description: 'How dependants are treated (sent on the query string); the upstream\'s default is `Permissive`. Since 3.6.0.',
    }),
  }),
  params: (input) => ({ uuid: input.uuid, deleteMode: input.deleteMode }),
  payloadFields: (t, result) => ({
    results: t.field({
      type: [SnapshotGroupDeletionResultRef],
      nullable: true,
      description: 'One outcome per snapshot of the group; null until the job succeeded. Since 3.6.0.',
      resolve: (source, _args, context) => result(source, context)?.results ?? null,
    }),
  }),
  // The VM's snapshot groups (a connection) lose one; the space of its snapshots is freed.
  touches: { types: ['VolumeSnapshotGroup'], uuids: (input) => [input.uuid], everyRecordOf: ['PrimaryStorageCapacity'] },
});

defineWriteMutation({
  name: 'updateVolumeSnapshotGroup',
  operation: UpdateVolumeSnapshotGroup,
  description:
    'Renames a snapshot group or changes its description (UpdateVolumeSnapshotGroup: `PUT volume-snapshots/group/{uuid}/actions`, action `updateVolumeSnapshotGroup`). Since 3.6.0.',
  inputFields: (t) => ({
    uuid: t.field({ type: 'Uuid', required: true, description: 'The group. Since 3.6.0.' }),
    name: t.string({ description: 'New name; left unchanged when not given. Since 3.6.0.' }),
    description: t.string({ description: 'New description; left unchanged when not given. Since 3.6.0.' }),
  }),
  params: (input) => ({ uuid: input.uuid, name: input.name, description: input.description }),
  payloadFields: (t, result) => ({
    volumeSnapshotGroup: t.field({
      type: VolumeSnapshotGroupRef,
      nullable: true,
      description: 'The group with its new name and description; null until the job succeeded. Since 3.6.0.',
      resolve: resultingGroup(result),
    }),
  }),
  touches: { types: ['VolumeSnapshotGroup'], uuids: (input) => [input.uuid] },
});
