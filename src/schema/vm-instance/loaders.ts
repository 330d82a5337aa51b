/**
 * How VMs are read: the cursor family (resourceType `vm`) by keys, the VMs of each host and the
 * snapshot groups of each VM as per-request batches, and each VM's attachable data volumes.
 */
import type { GatewayContext } from '../../context.js';
import { GetVmAttachableDataVolume } from '../../upstream/operations/index.js';
import type { VolumeRecord } from '../../upstream/records.js';
import { cursorFamily } from '../kit/families.js';
import { childrenLoader, groupByKey, type ChildQuery } from '../kit/loading.js';
import { volumeSnapshotGroups } from '../volume-snapshot-group/index.js';

export const vmInstances = cursorFamily('vm');

/** The snapshot groups of every VM in the batch meeting `query`: one QueryVolumeSnapshotGroup (`vmInstanceUuid?=...`). */
async function loadSnapshotGroupsOfVms(vmUuids: readonly string[], query: ChildQuery, context: GatewayContext) {
  const groups = await volumeSnapshotGroups.whereIn(context, 'vmInstanceUuid', vmUuids, query);
  return groupByKey(vmUuids, groups, (group) => group.vmInstanceUuid);
}

/** The VMs on every host of the batch meeting `query`: one CursorQuery (`filter=hostUuid:in:...`) plus CursorNext while more. */
async function loadVmsOfHosts(hostUuids: readonly string[], query: ChildQuery, context: GatewayContext) {
  const vms = await vmInstances.whereIn(context, 'hostUuid', hostUuids, query);
  return groupByKey(hostUuids, vms, (vm) => vm.hostUuid);
}

// The snapshot groups of each VM and the VMs of each host, per request, whatever page of them a
// field asks for: the field cuts its page from the whole list, so one batch serves every alias.
// (Pothos' `t.loadable({ byPath: true })` made a loader per field path instead, and on each call
// an async wrapper, the field's path as a string, and graphql-jit's resolve info: 4% of what a
// dashboard allocated, for its 50 VMs' snapshot groups.)
export const snapshotGroupsOfVm = childrenLoader(loadSnapshotGroupsOfVms);
export const vmsOfHost = childrenLoader(loadVmsOfHosts);

export async function loadAttachableDataVolumes(vmUuids: string[], context: GatewayContext): Promise<(VolumeRecord[] | Error)[]> {
  const session = context.session;
  session.requireCredential('resource');
  // The spec has no batch form of GetVmAttachableDataVolume: one request per distinct VM.
  return Promise.all(
    vmUuids.map((uuid) =>
      session
        .read(GetVmAttachableDataVolume, { vmInstanceUuid: uuid })
        .catch((error: unknown) => (error instanceof Error ? error : new Error(String(error)))),
    ),
  );
}
