/** Volume snapshot groups (spec: Endpoints, "Volume snapshot groups", since 3.6.0; the query is in `queries.ts`). */
import { bodyParam, defineOperation, pathParam } from './define.js';
import { answersInventory } from './results.js';

/** Volume snapshot groups came with 3.6.0: every operation below and each of its parameters. */
const since = '3.6.0';

export const CreateVolumeSnapshotGroup = defineOperation('CreateVolumeSnapshotGroup', 'POST volume-snapshots/group', {
  since,
  params: {
    rootVolumeUuid: bodyParam('uuid', 'Root volume of the VM whose volumes are snapshotted.', { required: true, since }),
    name: bodyParam('text', 'Name of the group.', { required: true, since }),
    description: bodyParam('text', 'Description of the group.', { since }),
    resourceUuid: bodyParam('uuid', 'Uuid the new group should get, instead of a generated one.', { since }),
    tagUuids: bodyParam('uuids', 'Tags to attach to the new group.', { since }),
  },
  decode: answersInventory('volumeSnapshotGroup'),
});

export const DeleteVolumeSnapshotGroup = defineOperation('DeleteVolumeSnapshotGroup', 'DELETE volume-snapshots/group/{uuid}', {
  since,
  // "listed as body, sent on the path query"
  params: { uuid: pathParam('uuid', 'The group.', { since }), deleteMode: 'query' },
  decode: (body, decoder) => ({ results: decoder.list(body.results ?? [], 'results', decoder.snapshotGroupDeletionResult) }),
});

export const UpdateVolumeSnapshotGroup = defineOperation('UpdateVolumeSnapshotGroup', 'PUT volume-snapshots/group/{uuid}/actions', {
  since,
  actionKey: 'updateVolumeSnapshotGroup',
  params: {
    uuid: pathParam('uuid', 'The group.', { since }),
    name: bodyParam('text', 'New name; left unchanged when not given.', { since }),
    description: bodyParam('text', 'New description; left unchanged when not given.', { since }),
  },
  decode: answersInventory('volumeSnapshotGroup'),
});
