/**
 * Volumes: the allVolumes item of VmInstanceInventory, read on its own through the generic
 * cursor family (resourceType `volume`), with the VM it is attached to and the VM it was last
 * attached to.
 */
import { builder } from '../builder.js';
import type { VolumeRecord } from '../upstream/records.js';
import { cursorFamily, nodeByUuid } from './kit/families.js';
import { entityByUuid } from './kit/federation.js';
import { defineListQuery, equals, NAME_AND_DATE_ORDER_FIELDS, NAME_CONTAINS_FILTER, uuidsFilter } from './kit/list-query.js';
import { backedBy, exposeRecordFields, follows } from './kit/record-fields.js';
import { VmInstanceRef } from './vm-instance/index.js';

const volumes = cursorFamily('volume');

export const VolumeRef = builder.loadableNodeRef('Volume', {
  ...nodeByUuid(volumes, 'Volume'),
});

VolumeRef.implement({
  description: 'A root or data volume (allVolumes item of VmInstanceInventory; also the attachable data volume record, which carries a subset of the fields). Since 3.17.13.',
  extensions: backedBy('volume'),
  fields: (t) => ({
    ...exposeRecordFields(t, 'volume', 'uuid', 'name', 'description', 'primaryStorageUuid', 'vmInstanceUuid'),
    vmInstance: t.field({
      ...follows<VolumeRecord>('vmInstanceUuid'),
      type: VmInstanceRef,
      description: 'VM the volume is attached to (`vmInstanceUuid`); null when detached. Also null when it cannot be read (with an error). Since 3.17.13.',
    }),
    ...exposeRecordFields(t, 'volume',
      'diskOfferingUuid', 'rootImageUuid', 'installPath', 'type', 'format', 'state', 'status', 'volumeQos', 'lastVmInstanceUuid',
    ),
    lastVmInstance: t.field({
      ...follows<VolumeRecord>('lastVmInstanceUuid'),
      type: VmInstanceRef,
      description: 'VM the volume was last attached to (`lastVmInstanceUuid`). Null when it cannot be read (with an error). Since 3.17.13.',
    }),
    ...exposeRecordFields(t, 'volume', 'size', 'actualSize', 'deviceId', 'isShareable', 'encrypted', 'lastDetachDate', 'createDate', 'lastOpDate'),
  }),
});

// A Federation entity: other subgraphs reference it by uuid (or id), `_entities` loads it like a page does.
entityByUuid(VolumeRef, 'Volume');

export const VolumeConnection = builder.connectionObject({ type: VolumeRef, name: 'VolumeConnection' });

defineListQuery({
  typeName: 'Volume',
  record: 'volume',
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
      vmInstanceUuid: equals('Only volumes attached to this VM.'),
      primaryStorageUuid: equals('Only volumes on this primary storage.'),
      type: equals('Only volumes of this type: `Root` or `Data`.'),
      format: equals('Only volumes of this format, e.g. `qcow2`.'),
      state: equals('Only volumes in this state, e.g. `Enabled`.'),
      status: equals('Only volumes with this status, e.g. `Ready`.'),
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
