/**
 * How VMs are read beyond their uuid (their family and loader are in `node-refs.ts`): the VMs of
 * each host and the snapshot groups of each VM as per-request batches, and each VM's attachable
 * data volumes.
 */
import type { GatewayContext } from '../../context.js';
import { GetVmAttachableDataVolume } from '../../upstream/operations/index.js';
import type { VolumeRecord } from '../../upstream/records.js';
import type { Readable, UnreadableRecord } from '../../upstream/wire.js';
import { unreadableRecordError } from '../kit/errors.js';
import { childrenLoader, groupByField, type ChildQuery } from '../kit/loading.js';
import { vmInstances, VolumeRef } from '../node-refs.js';
import { volumeSnapshotGroups } from '../volume-snapshot-group/index.js';

/** The snapshot groups of every VM in the batch meeting `query`: one QueryVolumeSnapshotGroup (`vmInstanceUuid?=...`). */
async function loadSnapshotGroupsOfVms(vmUuids: readonly string[], query: ChildQuery, context: GatewayContext) {
  const groups = await volumeSnapshotGroups.whereIn(context, 'vmInstanceUuid', vmUuids, query);
  return groupByField(vmUuids, groups, 'vmInstanceUuid');
}

/** The VMs on every host of the batch meeting `query`: one CursorQuery (`filter=hostUuid:in:...`) plus CursorNext while more. */
async function loadVmsOfHosts(hostUuids: readonly string[], query: ChildQuery, context: GatewayContext) {
  const vms = await vmInstances.whereIn(context, 'hostUuid', hostUuids, query);
  return groupByField(hostUuids, vms, 'hostUuid');
}

// The snapshot groups of each VM and the VMs of each host, per request, whatever page of them a
// field asks for: the field cuts its page from the whole list, so one batch serves every alias.
// (Pothos' `t.loadable({ byPath: true })` made a loader per field path instead, and on each call
// an async wrapper, the field's path as a string, and graphql-jit's resolve info: 4% of what a
// dashboard allocated, for its 50 VMs' snapshot groups.)
export const snapshotGroupsOfVm = childrenLoader(loadSnapshotGroupsOfVms);
export const vmsOfHost = childrenLoader(loadVmsOfHosts);

/**
 * The data volumes each VM of the batch could attach, each the whole volume `node(id:)` answers.
 * GetVmAttachableDataVolume (one request per distinct VM: the spec has no batch form) names the
 * candidates, whose records carry only a subset of a volume's fields; a client's normalized cache
 * would merge those nulls over the volume's values shown elsewhere. So the candidates of every VM
 * of the batch are read again by uuid in one load of the volume loader (one CursorQuery per
 * `maxBatchSize` distinct volumes, shared with every other volume of the request). A candidate
 * gone in between is left out; one the upstream sent unreadable, and that names no uuid, is its
 * error in its slot.
 */
export async function loadAttachableDataVolumes(vmUuids: string[], context: GatewayContext): Promise<(VolumeRecord[] | Error)[]> {
  const session = context.session;
  session.requireCredential('resource');
  const candidates = await Promise.all(
    vmUuids.map((uuid) =>
      session
        .read(GetVmAttachableDataVolume, { vmInstanceUuid: uuid })
        .catch((error: unknown) => (error instanceof Error ? error : new Error(String(error)))),
    ),
  );
  const uuidOf = (candidate: Readable<VolumeRecord>): string | null => candidate.uuid;
  const wanted = [...new Set(candidates.flatMap((list) => (list instanceof Error ? [] : list.flatMap((candidate) => uuidOf(candidate) ?? []))))];
  // One loadMany for every VM of the batch: loads made as each VM's answer arrives would each be a batch of their own.
  const loaded = wanted.length === 0 ? [] : await VolumeRef.getDataloader(context).loadMany(wanted);
  const byUuid = new Map(wanted.map((uuid, index) => [uuid, loaded[index]]));
  return candidates.map((list) => {
    if (list instanceof Error) return list;
    const volumes: (VolumeRecord | Error)[] = [];
    for (const candidate of list) {
      const uuid = uuidOf(candidate);
      if (uuid === null) {
        volumes.push(unreadableRecordError(candidate as UnreadableRecord));
        continue;
      }
      const volume = byUuid.get(uuid);
      if (volume instanceof Error && isNotFound(volume)) continue;
      if (volume !== undefined) volumes.push(volume as VolumeRecord | Error);
    }
    // An Error in a list slot is that item's field error in every engine; Pothos types items as values only.
    return volumes as VolumeRecord[];
  });
}

function isNotFound(error: Error): boolean {
  return (error as { extensions?: { code?: unknown } }).extensions?.code === 'NOT_FOUND';
}
