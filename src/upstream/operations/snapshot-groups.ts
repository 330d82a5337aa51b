/** Volume snapshot groups (spec: Endpoints, "Volume snapshot groups", since 3.6.0; the query is in `queries.ts`). */
import { defineOperation } from './define.js';
import { inventoryOf } from './results.js';

export const CreateVolumeSnapshotGroup = defineOperation({
  name: 'CreateVolumeSnapshotGroup',
  method: 'POST',
  family: 'resource',
  path: 'volume-snapshots/group',
  params: { rootVolumeUuid: 'body', name: 'body', description: 'body', resourceUuid: 'body', tagUuids: 'body' },
  decode: (body, decoder) => ({ inventory: inventoryOf(body, decoder.volumeSnapshotGroup) }),
});

export const DeleteVolumeSnapshotGroup = defineOperation({
  name: 'DeleteVolumeSnapshotGroup',
  method: 'DELETE',
  family: 'resource',
  path: 'volume-snapshots/group/{uuid}',
  // "listed as body, sent on the path query"
  params: { deleteMode: 'query' },
  decode: (body, decoder) => ({ results: decoder.list(body.results ?? [], 'results', decoder.snapshotGroupDeletionResult) }),
});

export const UpdateVolumeSnapshotGroup = defineOperation({
  name: 'UpdateVolumeSnapshotGroup',
  method: 'PUT',
  family: 'resource',
  path: 'volume-snapshots/group/{uuid}/actions',
  actionKey: 'updateVolumeSnapshotGroup',
  params: { name: 'body', description: 'body' },
  decode: (body, decoder) => ({ inventory: inventoryOf(body, decoder.volumeSnapshotGroup) }),
});
