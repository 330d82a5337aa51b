/**
 * Directories: DeleteDirectory. The spec gives directories no query of the resource API, and
 * the contract lists no directory query field, so only the write is exposed.
 */
import { DeleteDirectory } from '../upstream/operations/index.js';
import { DeleteMode } from './kit/delete-mode.js';
import { defineWriteMutation } from './kit/mutation-kit.js';

defineWriteMutation({
  name: 'deleteDirectory',
  operation: DeleteDirectory,
  description:
    'Deletes a directory (DeleteDirectory: `DELETE delete/directory`); one with sub-directories needs `deleteMode: ENFORCING`, which deletes the whole subtree. Since 4.6.0.',
  inputFields: (t) => ({
    deleteMode: t.field({ type: DeleteMode, description: 'How strictly to delete; the upstream default is `PERMISSIVE`. Since 4.6.0.' }),
  }),
  payloadFields: (t, result) => ({
    deletedDirectoryUuid: t.field({
      type: 'Uuid',
      nullable: true,
      description: 'The uuid of the deleted directory (the upstream answers `{}`); null until the job succeeded. Since 4.6.0.',
      resolve: (source, _args, context) => (result(source, context) ? String(source.input.uuid) : null),
    }),
  }),
  // No field of the gateway reads directories: nothing cached can hold one.
  touches: { types: [], uuids: (input) => [input.uuid] },
});
