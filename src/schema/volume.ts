/**
 * Volumes: the allVolumes item of VmInstanceInventory, read on its own through the generic
 * cursor family (resourceType `volume`), with the VM it is attached to and the VM it was last
 * attached to.
 */
import { builder } from '../builder.js';
import type { GatewayContext } from '../context.js';
import type { VolumeRecord } from '../upstream/records.js';
import type { CursorFilter } from '../upstream/types.js';
import { addContainsFilter, addEqualsFilter, addInFilter, OrderDirection } from './common.js';
import { pageArgs, resolveCursorConnection } from './connections.js';
import { loadCursorRecordsWhereIn, matchByKey, notFound } from './loading.js';
import { backedBy, reads } from './record-fields.js';
import { VmInstanceRef } from './vm-instance.js';

/** Loads volumes by uuid: one CursorQuery (`filter=uuid:in:...`) per batch. */
async function loadVolumes(uuids: string[], context: GatewayContext): Promise<(VolumeRecord | Error)[]> {
  const records = await loadCursorRecordsWhereIn(context, 'volume', 'uuid', uuids);
  return matchByKey(uuids, records, (volume) => volume.uuid, (uuid) => notFound('Volume', uuid));
}

export const VolumeRef = builder.loadableNodeRef('Volume', {
  id: { resolve: (volume) => volume.uuid },
  load: loadVolumes,
});

VolumeRef.implement({
  description: 'A root or data volume (allVolumes item of VmInstanceInventory; also the attachable data volume record, which carries a subset of the fields). Since 3.17.13.',
  extensions: backedBy('volume'),
  fields: (t) => ({
    uuid: t.expose('uuid', { type: 'Uuid', nullable: false, description: 'Identifier. Since 3.17.13.' }),
    name: t.exposeString('name', { description: 'Name. Since 3.17.13.' }),
    description: t.exposeString('description', { description: 'Description. Since 3.17.13.' }),
    primaryStorageUuid: t.expose('primaryStorageUuid', { type: 'Uuid', description: 'Primary storage holding the volume. Since 3.17.13.' }),
    vmInstanceUuid: t.expose('vmInstanceUuid', { type: 'Uuid', description: 'VM the volume is attached to; null when detached. Since 3.17.13.' }),
    vmInstance: t.field({
      type: VmInstanceRef,
      nullable: true,
      description: 'VM the volume is attached to (`vmInstanceUuid`); null when detached. Also null when it cannot be read (with an error). Since 3.17.13.',
      extensions: reads<VolumeRecord>('vmInstanceUuid'),
      resolve: (volume) => volume.vmInstanceUuid,
    }),
    diskOfferingUuid: t.expose('diskOfferingUuid', { type: 'Uuid', description: 'Disk offering the volume was created from. Since 3.17.13.' }),
    rootImageUuid: t.expose('rootImageUuid', { type: 'Uuid', description: 'Image a root volume was created from. Since 3.17.13.' }),
    installPath: t.exposeString('installPath', { description: 'Path of the volume on its primary storage. Since 3.17.13.' }),
    type: t.exposeString('type', { description: 'Volume type: `Root` or `Data`. Since 3.17.13.' }),
    format: t.exposeString('format', { description: 'Disk format, e.g. `qcow2`. Since 3.17.13.' }),
    state: t.exposeString('state', { description: 'Volume state; `Enabled` is seen, other values are open. Since 3.17.13.' }),
    status: t.exposeString('status', { description: 'Volume status; `Ready` is seen, other values are open. Since 3.17.13.' }),
    volumeQos: t.exposeString('volumeQos', { description: 'QoS settings of the volume. Since 3.17.13.' }),
    lastVmInstanceUuid: t.expose('lastVmInstanceUuid', { type: 'Uuid', description: 'VM the volume was last attached to. Since 3.17.13.' }),
    lastVmInstance: t.field({
      type: VmInstanceRef,
      nullable: true,
      description: 'VM the volume was last attached to (`lastVmInstanceUuid`). Null when it cannot be read (with an error). Since 3.17.13.',
      extensions: reads<VolumeRecord>('lastVmInstanceUuid'),
      resolve: (volume) => volume.lastVmInstanceUuid,
    }),
    size: t.expose('size', { type: 'Long', description: 'Virtual size in bytes. Since 3.17.13.' }),
    actualSize: t.expose('actualSize', { type: 'Long', description: 'Space actually used on the primary storage, in bytes. Since 3.17.13.' }),
    deviceId: t.exposeInt('deviceId', { description: 'Device order in the VM (0 is the boot volume); null when detached. Since 3.17.13.' }),
    isShareable: t.exposeBoolean('isShareable', { description: 'Whether several VMs may attach the volume. Since 3.17.13.' }),
    encrypted: t.exposeBoolean('encrypted', { description: 'Whether the volume is encrypted. Since 5.1.0.' }),
    lastDetachDate: t.expose('lastDetachDate', { type: 'DateTime', description: 'When the volume was last detached. Since 3.17.13.' }),
    createDate: t.expose('createDate', { type: 'DateTime', description: 'Creation time. Since 3.17.13.' }),
    lastOpDate: t.expose('lastOpDate', { type: 'DateTime', description: 'Last update time. Since 3.17.13.' }),
  }),
});

const VolumeFilter = builder.inputType('VolumeFilter', {
  description: 'Conditions on volumes; all given conditions must hold.',
  fields: (t) => ({
    uuids: t.field({ type: ['Uuid'], description: 'Only these volumes.' }),
    nameContains: t.string({ description: 'Name contains this text.' }),
    vmInstanceUuid: t.field({ type: 'Uuid', description: 'Only volumes attached to this VM.' }),
    primaryStorageUuid: t.field({ type: 'Uuid', description: 'Only volumes on this primary storage.' }),
    type: t.string({ description: 'Only volumes of this type: `Root` or `Data`.' }),
    format: t.string({ description: 'Only volumes of this format, e.g. `qcow2`.' }),
    state: t.string({ description: 'Only volumes in this state, e.g. `Enabled`.' }),
    status: t.string({ description: 'Only volumes with this status, e.g. `Ready`.' }),
  }),
});

const VolumeOrderField = builder.enumType('VolumeOrderField', {
  description: 'Fields volumes can be sorted by.',
  values: {
    CREATE_DATE: { value: 'createDate', description: 'Creation time.' },
    LAST_OP_DATE: { value: 'lastOpDate', description: 'Last update time.' },
    NAME: { value: 'name', description: 'Name.' },
    SIZE: { value: 'size', description: 'Virtual size.' },
    ACTUAL_SIZE: { value: 'actualSize', description: 'Space actually used.' },
  } as const,
});

const VolumeOrder = builder.inputType('VolumeOrder', {
  description: 'Order of a volume connection.',
  fields: (t) => ({
    field: t.field({ type: VolumeOrderField, required: true, description: 'Sort key.' }),
    direction: t.field({ type: OrderDirection, defaultValue: 'asc', description: 'Direction. Default ASC.' }),
  }),
});

export const VolumeConnection = builder.connectionObject({ type: VolumeRef, name: 'VolumeConnection' });

builder.queryFields((t) => ({
  volumes: t.field({
    type: VolumeConnection,
    nullable: true,
    description: 'Volumes, read through the generic cursor family (CursorQuery / CursorNext, resourceType `volume`). Null when they cannot be read (with an error): no `X-Resources-Authorization` sent (`UNAUTHENTICATED`) or the upstream failing; the other fields of the query still answer.',
    args: {
      ...pageArgs,
      filter: t.arg({ type: VolumeFilter, description: 'Conditions the volumes must meet.' }),
      orderBy: t.arg({ type: VolumeOrder, description: 'Sort order. Default: creation time, ascending.' }),
    },
    resolve: (_root, args, context) => {
      const filter: CursorFilter[] = [];
      addInFilter(filter, 'uuid', args.filter?.uuids);
      addContainsFilter(filter, 'name', args.filter?.nameContains);
      addEqualsFilter(filter, 'vmInstanceUuid', args.filter?.vmInstanceUuid);
      addEqualsFilter(filter, 'primaryStorageUuid', args.filter?.primaryStorageUuid);
      addEqualsFilter(filter, 'type', args.filter?.type);
      addEqualsFilter(filter, 'format', args.filter?.format);
      addEqualsFilter(filter, 'state', args.filter?.state);
      addEqualsFilter(filter, 'status', args.filter?.status);
      return resolveCursorConnection(context, {
        resourceType: 'volume',
        first: args.first,
        after: args.after,
        filter,
        sort: args.orderBy?.field,
        order: args.orderBy?.direction ?? undefined,
      });
    },
  }),
  volume: t.field({
    type: VolumeRef,
    nullable: true,
    description: 'One volume by uuid; null when it does not exist (with a `NOT_FOUND` error) or cannot be read (with the error that stopped it, e.g. `UNAUTHENTICATED`).',
    args: { uuid: t.arg({ type: 'Uuid', required: true, description: 'The volume\'s uuid.' }) },
    resolve: (_root, args) => args.uuid,
  }),
}));
