/**
 * CBT task write operations: create, delete, enable, disable, and NBD export of tracked volumes.
 */
import { randomBytes } from 'node:crypto';
import type { CbtTask, VmInstance, Volume } from '../model.js';
import type { SimulatorStore } from '../store.js';
import { CBT_TASK_WIRE, VOLUME_WIRE } from '../wire.js';
import { invalidArgument } from './arguments.js';
import {
  LIVE_VM_STATES,
  find,
  findEach,
  inventoryResult,
  newNamedRecord,
  notFound,
  notFoundThrow,
  operationFailed,
  requireVmState,
  wrongVmState,
  type Result,
  type WriteContext,
} from './context.js';

/** The port the NBD protocol registers; exports count up from it. */
const NBD_BASE_PORT = 10809;

export function createCbtTask(context: WriteContext): Result {
  const { args, store, tenant } = context;
  const resourceUuids = args.texts('resourceUuids') ?? [];
  if (resourceUuids.length === 0) throw invalidArgument('resourceUuids must name the VM or its volumes');
  findEach(context, 'tag', 'tagUuids');
  const namedVmUuid = args.text('vmInstanceUuid');
  const vms = new Map<string, VmInstance>();
  const volumes: Volume[] = [];
  for (const uuid of resourceUuids) {
    const vm = store.vms.get(tenant.id, uuid);
    if (vm !== undefined) {
      vms.set(vm.uuid, vm);
      continue;
    }
    const volume = store.volumes.get(tenant.id, uuid) ?? notFoundThrow('VmInstance or Volume', uuid);
    if (volume.vmInstanceUuid === null) throw invalidArgument(`volume[uuid:${uuid}] is not attached to a VM`);
    volumes.push(volume);
  }
  if (namedVmUuid !== undefined) vms.set(namedVmUuid, find(context, 'vm', namedVmUuid));
  for (const volume of volumes) {
    if (volume.vmInstanceUuid !== null && !vms.has(volume.vmInstanceUuid)) {
      vms.set(volume.vmInstanceUuid, find(context, 'vm', volume.vmInstanceUuid));
    }
  }
  const [vm, ...others] = vms.values();
  if (vm === undefined || others.length > 0) throw invalidArgument('a CBT task tracks exactly one VM: resourceUuids name several');
  requireVmState(vm, 'track changed blocks of', LIVE_VM_STATES);
  const existing = store.cbtTasks.by('vmInstanceUuid', vm.uuid, tenant.id)[0];
  if (existing !== undefined) throw invalidArgument(`vm[uuid:${vm.uuid}] already belongs to CBT task[uuid:${existing.uuid}]`);
  const tracked = resourceUuids.includes(vm.uuid) ? store.volumesOfVm(vm) : volumes;
  const task = store.cbtTasks.insert({
    ...newNamedRecord(context),
    status: 'Created',
    taskType: args.required('taskType'),
    vmInstanceUuid: vm.uuid,
    volumeUuids: tracked.map((volume) => volume.uuid),
    bitmapName: null,
    exportedVolumeUuids: new Set(),
  });
  return inventoryResult(store.wire.write(CBT_TASK_WIRE, task));
}

export function deleteCbtTask(context: WriteContext): Result {
  const { args, store } = context;
  const task = find(context, 'cbtTask', args.required('uuid'));
  const forced = args.flag('force') === true || args.text('deleteMode') === 'Enforcing';
  if ((task.status === 'Running' || task.status === 'Starting') && !forced) {
    throw operationFailed(`CBT task[uuid:${task.uuid}] is ${task.status}; delete it with force or deleteMode=Enforcing`);
  }
  store.cbtTasks.delete(task.uuid);
  return {};
}

export function disableCbtTask(context: WriteContext): Result {
  const { args, store, now } = context;
  const task = find(context, 'cbtTask', args.required('uuid'));
  task.exportedVolumeUuids.clear();
  store.cbtTasks.update(task, { status: 'Stopped', lastOpDate: now });
  return inventoryResult(store.wire.write(CBT_TASK_WIRE, task));
}

export function enableCbtTask(context: WriteContext): Result {
  const { args, store, now } = context;
  const task = find(context, 'cbtTask', args.required('uuid'));
  const vm = store.vms.get(task.tenantId, task.vmInstanceUuid);
  if (vm === undefined || !LIVE_VM_STATES.includes(vm.state)) {
    store.cbtTasks.update(task, { status: 'Failed', lastOpDate: now });
    throw vm === undefined ? notFound('VmInstance', task.vmInstanceUuid) : wrongVmState(vm, 'enable change block tracking of', LIVE_VM_STATES);
  }
  const bitmapName = args.text('bitmapName') ?? task.bitmapName ?? `cbt-${task.uuid.slice(0, 12)}`;
  store.cbtTasks.update(task, { status: 'Running', bitmapName, lastOpDate: now });
  const volumeCbtBackupInfos = trackedVolumes(store, task).map((volume) => ({
    volumeUuid: volume.uuid,
    volumeName: volume.name,
    installPath: volume.installPath,
    bitmapName,
  }));
  return { ...inventoryResult(store.wire.write(CBT_TASK_WIRE, task)), volumeCbtBackupInfos };
}

function trackedVolumes(store: SimulatorStore, task: CbtTask): Volume[] {
  return task.volumeUuids.flatMap((uuid) => store.volumes.get(task.tenantId, uuid) ?? []);
}

export function exportNbdVolumes(context: WriteContext): Result {
  const { args, store, tenant, now } = context;
  const vm = find(context, 'vm', args.required('vmInstanceUuid'));
  const volumes = (args.texts('volumeUuids') ?? []).map((uuid) => find(context, 'volume', uuid));
  if (volumes.length === 0) throw invalidArgument('volumeUuids must name at least one volume');
  for (const volume of volumes) {
    if (volume.vmInstanceUuid !== vm.uuid) throw invalidArgument(`volume[uuid:${volume.uuid}] is not attached to vm[uuid:${vm.uuid}]`);
  }
  requireVmState(vm, 'export NBD volumes of', ['Stopped']);
  const task = store.cbtTasks.by('vmInstanceUuid', vm.uuid, tenant.id)[0];
  if (task === undefined) throw operationFailed(`vm[uuid:${vm.uuid}] has no CBT task`);
  const force = args.flag('force') === true;
  const exported = volumes.find((volume) => task.exportedVolumeUuids.has(volume.uuid));
  if (exported !== undefined && !force) {
    throw operationFailed(`volume[uuid:${exported.uuid}] is already exported; export it again with force`);
  }
  const hostUuid = vm.hostUuid ?? vm.lastHostUuid;
  const host = hostUuid === null ? undefined : store.hosts.get(tenant.id, hostUuid);
  if (host === undefined) throw operationFailed(`vm[uuid:${vm.uuid}] has no host to serve NBD exports from`);
  const bitmapName = task.bitmapName ?? `cbt-${task.uuid.slice(0, 12)}`;
  const mode = task.status === 'Running' ? 'incremental' : 'full';
  const volumeInfos = volumes.map((volume, index) => {
    task.exportedVolumeUuids.add(volume.uuid);
    return {
      volume: store.wire.write(VOLUME_WIRE, volume),
      bitmapBase64: randomBytes(16).toString('base64'),
      target: `${volume.uuid}-${bitmapName}`,
      nbdPort: NBD_BASE_PORT + index,
      nbdServer: host.managementIp,
      mode,
      bitmapName,
    };
  });
  store.cbtTasks.update(task, { lastOpDate: now });
  return { volumeInfos };
}
