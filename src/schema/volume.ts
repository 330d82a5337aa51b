/**
 * Volumes: the allVolumes item of VmInstanceInventory, read on its own through the generic
 * cursor family (resourceType `volume`), with the VM it is attached to and the VM it was last
 * attached to.
 */
import { builder } from '../builder.js';
import type { VolumeRecord } from '../upstream/records.js';
import { cursorFamily, nodeByUuid } from './kit/families.js';
import { defineListQuery, NAME_AND_DATE_ORDER_FIELDS, NAME_CONTAINS_FILTER, uuidsFilter } from './kit/list-query.js';
import { backedBy, follows } from './kit/record-fields.js';
import { VmInstanceRef } from './vm-instance/index.js';

const volumes = cursorFamily('volume');

export const VolumeRef = builder.loadableNodeRef('Volume', {
  ...nodeByUuid(volumes, 'Volume'),
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
      ...follows<VolumeRecord>('vmInstanceUuid'),
      type: VmInstanceRef,
      description: 'VM the volume is attached to (`vmInstanceUuid`); null when detached. Also null when it cannot be read (with an error). Since 3.17.13.',
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
      ...follows<VolumeRecord>('lastVmInstanceUuid'),
      type: VmInstanceRef,
      description: 'VM the volume was last attached to (`lastVmInstanceUuid`). Null when it cannot be read (with an error). Since 3.17.13.',
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

export const VolumeConnection = builder.connectionObject({ type: VolumeRef, name: 'VolumeConnection' });

defineListQuery({
  typeName: 'Volume',
  family: volumes,
  connection: VolumeConnection,
  naming: { a: 'a volume', plural: 'volumes' },
  list: {
    name: 'volumes',
    description: 'Volumes, read through the generic cursor family (CursorQuery / CursorNext, resourceType `volume`).',
  },
  one: {
    name: 'volume',
    type: VolumeRef,
    noun: 'volume',
    argDescription: 'The volume\'s uuid.',
  },
  filter: {
    argDescription: 'Conditions the volumes must meet.',
    fields: {
      uuids: uuidsFilter('volumes'),
      nameContains: NAME_CONTAINS_FILTER,
      vmInstanceUuid: { field: 'vmInstanceUuid', op: 'eq', type: 'Uuid', description: 'Only volumes attached to this VM.' },
      primaryStorageUuid: { field: 'primaryStorageUuid', op: 'eq', type: 'Uuid', description: 'Only volumes on this primary storage.' },
      type: { field: 'type', op: 'eq', type: 'String', description: 'Only volumes of this type: `Root` or `Data`.' },
      format: { field: 'format', op: 'eq', type: 'String', description: 'Only volumes of this format, e.g. `qcow2`.' },
      state: { field: 'state', op: 'eq', type: 'String', description: 'Only volumes in this state, e.g. `Enabled`.' },
      status: { field: 'status', op: 'eq', type: 'String', description: 'Only volumes with this status, e.g. `Ready`.' },
    },
  },
  order: {
    fields: {
      ...NAME_AND_DATE_ORDER_FIELDS,
      SIZE: { value: 'size', description: 'Virtual size.' },
      ACTUAL_SIZE: { value: 'actualSize', description: 'Space actually used.' },
    },
  },
});
