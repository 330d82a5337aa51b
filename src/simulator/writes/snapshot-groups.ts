/**
 * Volume snapshot group write operations: create, delete (per-snapshot results) and update.
 */
import { buildSnapshotRef } from '../builders.js';
import { errorCode } from '../errors.js';
import { SNAPSHOT_GROUP_WIRE } from '../wire.js';
import { invalidArgument } from './arguments.js';
import { LIVE_VM_STATES, find, findEach, inventoryResult, newNamedRecord, newUuid, randomUuid, requireVmState, type Result, type WriteContext } from './context.js';

export function createVolumeSnapshotGroup(context: WriteContext): Result {
  const { args, store, now } = context;
  const root = find(context, 'volume', args.required('rootVolumeUuid'));
  findEach(context, 'tag', 'tagUuids');
  if (root.type !== 'Root' || root.vmInstanceUuid === null) {
    throw invalidArgument(`volume[uuid:${root.uuid}] is not the root volume of a VM`);
  }
  const vm = find(context, 'vm', root.vmInstanceUuid);
  requireVmState(vm, 'snapshot', LIVE_VM_STATES);
  const groupUuid = newUuid(store, args.text('resourceUuid'));
  const refs = store
    .volumesOfVm(vm)
    .map((volume, index) => buildSnapshotRef(volume, index, groupUuid, { uuid: randomUuid(), deleted: false, createDate: now, lastOpDate: now }));
  const group = store.snapshotGroups.insert({
    ...newNamedRecord(context, groupUuid),
    snapshotCount: refs.length,
    vmInstanceUuid: vm.uuid,
    volumeSnapshotRefs: refs,
  });
  return inventoryResult(store.wire.write(SNAPSHOT_GROUP_WIRE, group));
}

export function deleteVolumeSnapshotGroup(context: WriteContext): Result {
  const { args, store } = context;
  const group = find(context, 'snapshotGroup', args.required('uuid'));
  const results = group.volumeSnapshotRefs.map((ref) =>
    ref.snapshotDeleted
      ? {
          snapshotUuid: ref.volumeSnapshotUuid,
          volumeUuid: ref.volumeUuid,
          success: false,
          error: errorCode('SYS.1001', 'An internal error happened in system', `snapshot[uuid:${ref.volumeSnapshotUuid}] was already deleted`),
        }
      : { snapshotUuid: ref.volumeSnapshotUuid, volumeUuid: ref.volumeUuid, success: true },
  );
  store.snapshotGroups.delete(group.uuid);
  return { success: true, results };
}

export function updateVolumeSnapshotGroup(context: WriteContext): Result {
  const { args, store, now } = context;
  const group = find(context, 'snapshotGroup', args.required('uuid'));
  const name = args.text('name');
  if (name !== undefined && name.trim() === '') throw invalidArgument('name must not be empty');
  const description = args.text('description');
  store.snapshotGroups.update(group, {
    ...(name === undefined ? {} : { name }),
    ...(description === undefined ? {} : { description }),
    lastOpDate: now,
  });
  return inventoryResult(store.wire.write(SNAPSHOT_GROUP_WIRE, group));
}
