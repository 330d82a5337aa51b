/**
 * Volume snapshot groups: VolumeSnapshotGroupInventory read through QueryVolumeSnapshotGroup,
 * with the VM they were taken of and, for each snapshot reference, the volume it snapshots.
 */
import { builder } from '../builder.js';
import type { GatewayContext } from '../context.js';
import type { SnapshotGroupDeletionResultRecord, VolumeSnapshotGroupRecord, VolumeSnapshotRefRecord } from '../upstream/records.js';
import type { QueryCondition } from '../upstream/types.js';
import { DeleteMode, OrderDirection } from './common.js';
import { pageArgs, resolveQueryConnection } from './connections.js';
import { UpstreamErrorRef } from './errors.js';
import { loadQueryRecordsWhereIn, matchByKey, notFound } from './loading.js';
import { defineWriteMutation, resultOf, type PayloadSource } from './mutation-kit.js';
import { addContainsCondition, addEqualsCondition, addInCondition } from './query-conditions.js';
import { backedBy, reads } from './record-fields.js';
import { VmInstanceRef } from './vm-instance.js';
import { VolumeRef } from './volume.js';

/** Loads snapshot groups by uuid: one QueryVolumeSnapshotGroup (`uuid?=...`) per batch. */
async function loadVolumeSnapshotGroups(uuids: string[], context: GatewayContext): Promise<(VolumeSnapshotGroupRecord | Error)[]> {
  const records = await loadQueryRecordsWhereIn(context, 'volumeSnapshotGroups', 'uuid', uuids);
  return matchByKey(uuids, records, (group) => group.uuid, (uuid) => notFound('VolumeSnapshotGroup', uuid));
}

export const VolumeSnapshotGroupRef = builder.loadableNodeRef('VolumeSnapshotGroup', {
  id: { resolve: (group) => group.uuid },
  load: loadVolumeSnapshotGroups,
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

const VolumeSnapshotGroupFilter = builder.inputType('VolumeSnapshotGroupFilter', {
  description: 'Conditions on snapshot groups (sent as `q=` conditions); all given conditions must hold.',
  fields: (t) => ({
    uuids: t.field({ type: ['Uuid'], description: 'Only these groups.' }),
    vmInstanceUuid: t.field({ type: 'Uuid', description: 'Only groups taken of this VM.' }),
    nameContains: t.string({ description: 'Name contains this text.' }),
  }),
});

const VolumeSnapshotGroupOrderField = builder.enumType('VolumeSnapshotGroupOrderField', {
  description: 'Fields snapshot groups can be sorted by.',
  values: {
    CREATE_DATE: { value: 'createDate', description: 'Creation time.' },
    LAST_OP_DATE: { value: 'lastOpDate', description: 'Last update time.' },
    NAME: { value: 'name', description: 'Name.' },
    SNAPSHOT_COUNT: { value: 'snapshotCount', description: 'Number of snapshots.' },
  } as const,
});

const VolumeSnapshotGroupOrder = builder.inputType('VolumeSnapshotGroupOrder', {
  description: 'Order of a snapshot group connection.',
  fields: (t) => ({
    field: t.field({ type: VolumeSnapshotGroupOrderField, required: true, description: 'Sort key.' }),
    direction: t.field({ type: OrderDirection, defaultValue: 'asc', description: 'Direction. Default ASC.' }),
  }),
});

export const VolumeSnapshotGroupConnection = builder.connectionObject({
  type: VolumeSnapshotGroupRef,
  name: 'VolumeSnapshotGroupConnection',
});

/** The `q=` conditions of a snapshot group filter. */
function toConditions(
  filter: { uuids?: readonly string[] | null; vmInstanceUuid?: string | null; nameContains?: string | null } | null | undefined,
): QueryCondition[] {
  const conditions: QueryCondition[] = [];
  addInCondition(conditions, 'uuid', filter?.uuids);
  addEqualsCondition(conditions, 'vmInstanceUuid', filter?.vmInstanceUuid);
  addContainsCondition(conditions, 'name', filter?.nameContains);
  return conditions;
}

builder.queryFields((t) => ({
  volumeSnapshotGroups: t.field({
    type: VolumeSnapshotGroupConnection,
    nullable: true,
    description: 'Volume snapshot groups (QueryVolumeSnapshotGroup). Null when they cannot be read (with an error): no `Authorization` sent (`UNAUTHENTICATED`) or the upstream failing; the other fields of the query still answer. Since 3.6.0.',
    args: {
      ...pageArgs,
      filter: t.arg({ type: VolumeSnapshotGroupFilter, description: 'Conditions the groups must meet.' }),
      orderBy: t.arg({ type: VolumeSnapshotGroupOrder, description: 'Sort order. Default: the upstream\'s order.' }),
    },
    resolve: (_root, args, context) =>
      resolveQueryConnection(context, {
        collection: 'volumeSnapshotGroups',
        first: args.first,
        after: args.after,
        conditions: toConditions(args.filter),
        sort: args.orderBy ? { field: args.orderBy.field, direction: args.orderBy.direction ?? 'asc' } : undefined,
      }),
  }),
  volumeSnapshotGroup: t.field({
    type: VolumeSnapshotGroupRef,
    nullable: true,
    description: 'One snapshot group by uuid; null when it does not exist (with a `NOT_FOUND` error) or cannot be read (with the error that stopped it, e.g. `UNAUTHENTICATED`). Since 3.6.0.',
    args: { uuid: t.arg({ type: 'Uuid', required: true, description: 'The group\'s uuid.' }) },
    resolve: (_root, args) => args.uuid,
  }),
}));

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

/** The snapshot group of a success body's `inventory`, or null (running, failed, or no inventory). */
function resultingGroup(source: PayloadSource, context: GatewayContext): VolumeSnapshotGroupRecord | null {
  const inventory = resultOf(source)?.inventory;
  return inventory ? context.upstream.decoder.volumeSnapshotGroup(inventory, 'inventory') : null;
}

defineWriteMutation({
  name: 'createVolumeSnapshotGroup',
  operation: 'CreateVolumeSnapshotGroup',
  description:
    'Snapshots all volumes of the VM a root volume belongs to, together, as one group (CreateVolumeSnapshotGroup: `POST volume-snapshots/group`). Since 3.6.0.',
  inputFields: (t) => ({
    rootVolumeUuid: t.field({ type: 'Uuid', required: true, description: 'Root volume of the VM whose volumes are snapshotted. Since 3.6.0.' }),
    name: t.string({ required: true, description: 'Name of the group. Since 3.6.0.' }),
    description: t.string({ description: 'Description of the group. Since 3.6.0.' }),
    resourceUuid: t.field({ type: 'Uuid', description: 'Uuid the new group should get, instead of a generated one. Since 3.6.0.' }),
    tagUuids: t.field({ type: ['Uuid'], description: 'Tags to attach to the new group. Since 3.6.0.' }),
  }),
  request: (input) => ({
    method: 'POST',
    path: 'volume-snapshots/group',
    params: {
      rootVolumeUuid: input.rootVolumeUuid,
      name: input.name,
      description: input.description,
      resourceUuid: input.resourceUuid,
      tagUuids: input.tagUuids,
    },
  }),
  payloadFields: (t) => ({
    volumeSnapshotGroup: t.field({
      type: VolumeSnapshotGroupRef,
      nullable: true,
      description: 'The new group with one snapshot reference per volume; null until the job succeeded. Since 3.6.0.',
      resolve: (source, _args, context) => resultingGroup(source, context),
    }),
  }),
  // The VM's snapshot groups (a connection) gain one; snapshots take primary storage space.
  touches: { types: ['VolumeSnapshotGroup'], uuids: () => [], everyRecordOf: ['PrimaryStorageCapacity'] },
});

defineWriteMutation({
  name: 'deleteVolumeSnapshotGroup',
  operation: 'DeleteVolumeSnapshotGroup',
  description:
    'Deletes a snapshot group and its snapshots, reporting each snapshot\'s outcome (DeleteVolumeSnapshotGroup: `DELETE volume-snapshots/group/{uuid}?deleteMode=`). Since 3.6.0.',
  inputFields: (t) => ({
    uuid: t.field({ type: 'Uuid', required: true, description: 'The group. Since 3.6.0.' }),
    deleteMode: t.field({
      type: DeleteMode,
      description: 'How dependants are treated (sent on the query string); the upstream\'s default is `Permissive`. Since 3.6.0.',
    }),
  }),
  request: (input) => ({
    method: 'DELETE',
    path: `volume-snapshots/group/${input.uuid}`,
    query: { deleteMode: input.deleteMode ?? undefined },
  }),
  payloadFields: (t) => ({
    results: t.field({
      type: [SnapshotGroupDeletionResultRef],
      nullable: true,
      description: 'One outcome per snapshot of the group; null until the job succeeded. Since 3.6.0.',
      resolve: (source, _args, context) => {
        const result = resultOf(source);
        if (!result) return null;
        return context.upstream.decoder.list(result.results ?? [], 'results', context.upstream.decoder.snapshotGroupDeletionResult);
      },
    }),
  }),
  // The VM's snapshot groups (a connection) lose one; the space of its snapshots is freed.
  touches: { types: ['VolumeSnapshotGroup'], uuids: (input) => [input.uuid], everyRecordOf: ['PrimaryStorageCapacity'] },
});

defineWriteMutation({
  name: 'updateVolumeSnapshotGroup',
  operation: 'UpdateVolumeSnapshotGroup',
  description:
    'Renames a snapshot group or changes its description (UpdateVolumeSnapshotGroup: `PUT volume-snapshots/group/{uuid}/actions`, action `updateVolumeSnapshotGroup`). Since 3.6.0.',
  inputFields: (t) => ({
    uuid: t.field({ type: 'Uuid', required: true, description: 'The group. Since 3.6.0.' }),
    name: t.string({ description: 'New name; left unchanged when not given. Since 3.6.0.' }),
    description: t.string({ description: 'New description; left unchanged when not given. Since 3.6.0.' }),
  }),
  request: (input) => ({
    method: 'PUT',
    path: `volume-snapshots/group/${input.uuid}/actions`,
    actionKey: 'updateVolumeSnapshotGroup',
    params: { name: input.name, description: input.description },
  }),
  payloadFields: (t) => ({
    volumeSnapshotGroup: t.field({
      type: VolumeSnapshotGroupRef,
      nullable: true,
      description: 'The group with its new name and description; null until the job succeeded. Since 3.6.0.',
      resolve: (source, _args, context) => resultingGroup(source, context),
    }),
  }),
  touches: { types: ['VolumeSnapshotGroup'], uuids: (input) => [input.uuid] },
});
