/**
 * DeleteDirectory.
 */
import { find, operationFailed, type Result, type WriteContext } from './context.js';

export function deleteDirectory(context: WriteContext): Result {
  const { args, store, tenant } = context;
  const uuid = args.required('uuid');
  const directory = find(context, 'directory', uuid);
  const children = store.directories.by('parentUuid', directory.uuid, tenant.id);
  if (children.length > 0 && args.text('deleteMode') !== 'Enforcing') {
    throw operationFailed(`directory[uuid:${uuid}] has ${children.length} sub-directories; delete them first or use deleteMode=Enforcing`);
  }
  const pending = [directory.uuid];
  while (pending.length > 0) {
    const next = pending.pop() as string;
    for (const child of store.directories.by('parentUuid', next, tenant.id)) pending.push(child.uuid);
    store.directories.delete(next);
  }
  return {};
}
