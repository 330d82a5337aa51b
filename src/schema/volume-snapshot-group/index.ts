/**
 * Volume snapshot groups: the type and its snapshot references, the queries
 * (QueryVolumeSnapshotGroup) and the writes (create, delete, update).
 */
import './types.js';
import './queries.js';
import './mutations.js';

export { SnapshotGroupDeletionResultRef } from './mutations.js';
export { snapshotGroupListArgs } from './queries.js';
export { VolumeSnapshotGroupRef, volumeSnapshotGroups, VolumeSnapshotRefType } from './types.js';
