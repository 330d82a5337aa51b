/**
 * Volumes: the allVolumes item of VmInstanceInventory, read on its own through the
 * cursor family (resourceType `volume`), with the VM it is attached to and the VM it was last
 * attached to.
 */
import { recordEnums } from './kit/enums.js';
import { ResourceState } from './common-enums.js';
import { entityByUuid } from './kit/federation.js';
import { anyOf, defineListQuery, equals, NAME_AND_DATE_ORDER_FIELDS, NAME_CONTAINS_FILTER, uuidsFilter } from './kit/list-query.js';
import { backedBy, exposeRecordEnums, exposeRecordFields, follows } from './kit/record-fields.js';
import { VmInstanceRef, VolumeRef, volumes } from './node-refs.js';

export { VolumeRef } from './node-refs.js';

export const { VolumeStatus, VolumeFormat, VolumeType } = recordEnums('volume', {
  VolumeStatus: {
    field: 'status',
    description: 'Whether a volume can be used. Since 3.17.13.',
    values: { Ready: 'The volume exists on its storage and can be used (`Ready`).' },
  },
  VolumeFormat: {
    field: 'format',
    description: 'The disk format of a volume. Since 3.17.13.',
    values: { qcow2: 'QEMU copy-on-write (`qcow2`).', raw: 'A raw image (`raw`), e.g. on Ceph.' },
  },
  VolumeType: {
    field: 'type',
    description: 'Whether a volume is a VM\'s boot disk or a data disk. Since 3.17.13.',
    values: { Root: 'The boot disk of its VM (`Root`).', Data: 'A data disk (`Data`).' },
  },
});

VolumeRef.implement({
  description: 'A root or data volume (allVolumes item of VmInstanceInventory; also the attachable data volume record, which carries a subset of the fields). Since 3.17.13.',
  extensions: backedBy('volume'),
  fields: (t) => ({
    ...exposeRecordFields(t, 'volume', 'uuid', 'name', 'description', 'primaryStorageUuid', 'vmInstanceUuid'),
    vmInstance: follows(t, 'vmInstanceUuid', VmInstanceRef, 'VM the volume is attached to (`vmInstanceUuid`); null when detached. Also null when it cannot be read (with an error). Since 3.17.13.'),
    ...exposeRecordFields(t, 'volume', 'diskOfferingUuid', 'rootImageUuid', 'installPath'),
    ...exposeRecordEnums(t, 'volume', VolumeType, 'type'),
    ...exposeRecordEnums(t, 'volume', VolumeFormat, 'format'),
    ...exposeRecordEnums(t, 'volume', ResourceState, 'state'),
    ...exposeRecordEnums(t, 'volume', VolumeStatus, 'status'),
    ...exposeRecordFields(t, 'volume', 'volumeQos', 'lastVmInstanceUuid'),
    lastVmInstance: follows(t, 'lastVmInstanceUuid', VmInstanceRef, 'VM the volume was last attached to (`lastVmInstanceUuid`). Null when it cannot be read (with an error). Since 3.17.13.'),
    ...exposeRecordFields(t, 'volume', 'size', 'actualSize', 'deviceId', 'isShareable', 'encrypted', 'lastDetachDate', 'createDate', 'lastOpDate'),
  }),
});

// A Federation entity: other subgraphs reference it by uuid (or id), `_entities` loads it like a page does.
entityByUuid(VolumeRef, 'Volume');

defineListQuery({
  record: 'volume',
  family: volumes,
  naming: { a: 'a volume', plural: 'volumes' },
  list: {
    name: 'volumes',
    description: 'Volumes, read through the cursor family (CursorQuery / CursorNext, resourceType `volume`).',
  },
  one: {
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
      diskOfferingUuid: equals('Only volumes created from this disk offering.'),
      type: equals('Only volumes of this type.', VolumeType),
      typeIn: anyOf('type', 'Only volumes of one of these types.', VolumeType),
      format: equals('Only volumes of this format, e.g. `QCOW2`.', VolumeFormat),
      state: equals('Only volumes in this state, e.g. `ENABLED`.', ResourceState),
      stateIn: anyOf('state', 'Only volumes in one of these states.', ResourceState),
      status: equals('Only volumes with this status, e.g. `READY`.', VolumeStatus),
      statusIn: anyOf('status', 'Only volumes with one of these statuses.', VolumeStatus),
    },
  },
  order: {
    fields: {
      ...NAME_AND_DATE_ORDER_FIELDS,
      size: 'Virtual size.',
      actualSize: 'Space actually used.',
    },
  },
});
