/** Volume snapshot groups (spec: Endpoints, "Volume snapshot groups", since 3.6.0; the query is in `queries.ts`). */
import { defineOperation, inBody } from './define.js';
import { inventoryOf } from './results.js';

export const CreateVolumeSnapshotGroup = defineOperation('CreateVolumeSnapshotGroup', 'POST volume-snapshots/group', {
  params: inBody('rootVolumeUuid', 'name', 'description', 'resourceUuid', 'tagUuids'),
  decode: (body, decoder) => ({ inventory: inventoryOf(body, decoder.volumeSnapshotGroup) }),
});

export const DeleteVolumeSnapshotGroup = defineOperation('DeleteVolumeSnapshotGroup', 'DELETE volume-snapshots/group/{uuid}', {
  // "listed as body, sent on the path query"
  params: { deleteMode: 'query' },
  decode: (body, decoder) => ({ results: decoder.list(body.results ?? [], 'results', decoder.snapshotGroupDeletionResult) }),
});

export const UpdateVolumeSnapshotGroup = defineOperation('UpdateVolumeSnapshotGroup', 'PUT volume-snapshots/group/{uuid}/actions', {
  actionKey: 'updateVolumeSnapshotGroup',
  params: { name: 'body', description: 'body' },
  decode: (body, decoder) => ({ inventory: inventoryOf(body, decoder.volumeSnapshotGroup) }),
});
