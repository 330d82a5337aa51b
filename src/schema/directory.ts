/**
 * Directories: the `Directory` node (read through the cursor family, resourceType `directory`)
 * and DeleteDirectory. The spec gives directories no query of the resource family and the
 * contract lists no directory query field, so a directory is reached by its global id alone:
 * the one `deleteDirectory` answers, which `node(id:)` resolves and a client cache evicts.
 */
import { builder } from '../builder.js';
import { DeleteDirectory } from '../upstream/operations/index.js';
import { directory } from '../upstream/records.js';
import { cursorFamily, nodeByUuid } from './kit/families.js';
import { defineWriteMutation, removesNamedRecord } from './kit/mutation-kit.js';
import { recordEnum } from './kit/enums.js';
import { exposeRecordEnums, exposeRecordFields } from './kit/record-fields.js';

const directories = cursorFamily('directory');

export const DirectoryType = recordEnum('DirectoryType', {
  record: 'directory',
  field: 'type',
  description: 'The kind of resources a directory holds. Since 4.6.0.',
  values: { vminstance: { name: 'VM_INSTANCE', description: 'VM instances (`vminstance`).' } },
});

export const DirectoryRef = builder.loadableNode('Directory', {
  description: 'A directory that organizes resources into a tree (cursor family, resourceType `directory`). Since 4.6.0.',
  extensions: { since: directory.since },
  ...nodeByUuid(directories, 'Directory'),
  fields: (t) => ({
    ...exposeRecordFields(t, 'directory', 'uuid', 'name', 'groupName', 'parentUuid', 'zoneUuid', 'createDate', 'lastOpDate'),
    ...exposeRecordEnums(t, 'directory', DirectoryType, 'type'),
  }),
});

defineWriteMutation({
  name: 'deleteDirectory',
  operation: DeleteDirectory,
  description:
    'Deletes a directory (DeleteDirectory: `DELETE delete/directory`); one with sub-directories needs `deleteMode: ENFORCING`, which deletes the whole subtree. Since 4.6.0.',
  ...removesNamedRecord('Directory', 'directory'),
});
