/**
 * Snapshot group queries: `volumeSnapshotGroups` and `volumeSnapshotGroup(uuid)`
 * (QueryVolumeSnapshotGroup).
 */
import { defineListQuery, equals, NAME_AND_DATE_ORDER_FIELDS, NAME_CONTAINS_FILTER, uuidsFilter } from '../kit/list-query.js';
import { VolumeSnapshotGroupRef, volumeSnapshotGroups } from './types.js';

/** `filter` and `orderBy` of every snapshot group connection: `volumeSnapshotGroups` and `VmInstance.snapshotGroups`. */
export const snapshotGroupListArgs = defineListQuery({
  record: 'volumeSnapshotGroup',
  family: volumeSnapshotGroups,
  naming: { a: 'a snapshot group', plural: 'snapshot groups' },
  since: '3.6.0',
  list: {
    name: 'volumeSnapshotGroups',
    description: 'Volume snapshot groups (QueryVolumeSnapshotGroup).',
  },
  one: {
    type: VolumeSnapshotGroupRef,
    noun: 'snapshot group',
    argDescription: 'The group\'s uuid.',
  },
  filter: {
    description: 'Conditions on snapshot groups (sent as `q=` conditions); all given conditions must hold.',
    argDescription: 'Conditions the groups must meet.',
    fields: {
      uuids: uuidsFilter('groups'),
      vmInstanceUuid: equals('Only groups taken of this VM.'),
      nameContains: NAME_CONTAINS_FILTER,
    },
  },
  order: {
    argDescription: 'Sort order. Default: the upstream\'s order.',
    fields: {
      ...NAME_AND_DATE_ORDER_FIELDS,
      snapshotCount: 'Number of snapshots.',
    },
  },
});

