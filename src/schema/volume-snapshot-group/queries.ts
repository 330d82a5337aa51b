/**
 * Snapshot group queries: `volumeSnapshotGroups` and `volumeSnapshotGroup(uuid)`
 * (QueryVolumeSnapshotGroup).
 */
import { defineListQuery } from '../kit/list-query.js';
import { VolumeSnapshotGroupConnection, VolumeSnapshotGroupRef, volumeSnapshotGroups } from './types.js';

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

