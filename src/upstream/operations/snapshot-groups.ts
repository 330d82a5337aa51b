/** Volume snapshot groups (spec: Endpoints, "Volume snapshot groups", since 3.6.0; the query is in `queries.ts`). */
import { bodyParam, defineOperation, pathParam } from './define.js';
import { inventoryOf } from './results.js';

export const CreateVolumeSnapshotGroup = defineOperation('CreateVolumeSnapshotGroup', 'POST volume-snapshots/group', {
  since: '3.6.0',
  params: {
    rootVolumeUuid: bodyParam('uuid', 'Root volume of the VM whose volumes are snapshotted.', { required: true, since: '3.6.0' }),
    name: bodyParam('text', 'Name of the group.', { required: true, since: '3.6.0' }),
    description: bodyParam('text', 'Description of the group.', { since: '3.6.0' }),
    resourceUuid: bodyParam('uuid', 'Uuid the new group should get, instead of a generated one.', { since: '3.6.0' }),
    tagUuids: bodyParam('uuids', 'Tags to attach to the new group.', { since: '3.6.0' }),
  },
  decode: (body, decoder) => ({ inventory: inventoryOf(body, decoder.volumeSnapshotGroup) }),
});

export const DeleteVolumeSnapshotGroup = defineOperation('DeleteVolumeSnapshotGroup', 'DELETE volume-snapshots/group/{uuid}', {
  since: '3.6.0',
  // "listed as body, sent on the path query"
  params: { uuid: pathParam('uuid', 'The group.', { since: '3.6.0' }), deleteMode: 'query' },
  decode: (body, decoder) => ({ results: decoder.list(body.results ?? [], 'results', decoder.snapshotGroupDeletionResult) }),
});

export const UpdateVolumeSnapshotGroup = defineOperation('UpdateVolumeSnapshotGroup', 'PUT volume-snapshots/group/{uuid}/actions', {
  since: '3.6.0',
  actionKey: 'updateVolumeSnapshotGroup',
  params: {
    uuid: pathParam('uuid', 'The group.', { since: '3.6.0' }),
    name: bodyParam('text', 'New name; left unchanged when not given.', { since: '3.6.0' }),
    description: bodyParam('text', 'New description; left unchanged when not given.', { since: '3.6.0' }),
  },
  decode: (body, decoder) => ({ inventory: inventoryOf(body, decoder.volumeSnapshotGroup) }),
});
