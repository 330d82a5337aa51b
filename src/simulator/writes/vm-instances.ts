/**
 * VM instance write operations: storage migration, boot volume, recovery, NIC driver, NIC
 * detach, SSH key removal, destruction, and creation from a volume snapshot group.
 */
import { randomBytes } from 'node:crypto';
import type {
  Host,
  L3Network,
  PrimaryStorage,
  VmInstance,
  VmNic,
  VmState,
  Volume,
  VolumeSnapshotGroup,
  VolumeSnapshotRef,
} from '../model.js';
import { addVolume, buildVmNic, installPathOf } from '../builders.js';
import type { SimulatorStore } from '../store.js';
import { VM_NIC_WIRE, VM_WIRE } from '../wire.js';
import { invalidArgument, isUuid } from './arguments.js';
import {
  LIVE_VM_STATES,
  find,
  findEach,
  inventoryResult,
  newNamedRecord,
  newUuid,
  notFoundThrow,
  operationFailed,
  randomUuid,
  requireConnectedHost,
  requireVmState,
  type Result,
  type WriteContext,
} from './context.js';

const GIB = 1024 ** 3;

export function primaryStorageMigrateVm(context: WriteContext): Result {
  const { args, store, now } = context;
  const vm = find(context, 'vm', args.required('vmInstanceUuid'));
  const bandwidth = args.integer('bandwidth');
  if (bandwidth !== undefined && bandwidth <= 0) throw invalidArgument('bandwidth must be a positive number of MB/s');
  const downTime = args.integer('downTime');
  if (downTime !== undefined && downTime < 0) throw invalidArgument('downTime must not be negative');
  const plan = migrationPlan(context, vm);
  const dstHostUuid = args.text('dstHostUuid');
  const dstHost = dstHostUuid === undefined ? undefined : find(context, 'host', dstHostUuid);
  if (dstHost !== undefined && dstHost.zoneUuid !== vm.zoneUuid) {
    throw invalidArgument(`host[uuid:${dstHost.uuid}] is not in the VM's zone`);
  }
  requireVmState(vm, 'migrate the storage of', ['Stopped']);
  const needed = new Map<PrimaryStorage, number>();
  for (const { volume, destination } of plan) needed.set(destination, (needed.get(destination) ?? 0) + volume.actualSize);
  for (const [destination, bytes] of needed) {
    if (destination.availableCapacity < bytes) {
      throw operationFailed(`primary storage[uuid:${destination.uuid}] has ${destination.availableCapacity} bytes free, ${bytes} needed`);
    }
  }
  for (const { volume, destination } of plan) {
    const source = store.primaryStorages.get(volume.tenantId, volume.primaryStorageUuid);
    if (source !== undefined) adjustCapacity(source, volume.actualSize);
    adjustCapacity(destination, -volume.actualSize);
    store.volumes.update(volume, {
      primaryStorageUuid: destination.uuid,
      installPath: installPathOf(destination, volume.uuid),
      lastOpDate: now,
    });
  }
  store.vms.update(vm, {
    ...(dstHost === undefined ? {} : { lastHostUuid: dstHost.uuid, clusterUuid: dstHost.clusterUuid }),
    lastOpDate: now,
  });
  return inventoryResult(store.wire.write(VM_WIRE, vm));
}

/** Which volume goes to which primary storage: the root volume, plus data volumes asked for. */
function migrationPlan(context: WriteContext, vm: VmInstance): { volume: Volume; destination: PrimaryStorage }[] {
  const { args, store } = context;
  const overallUuid = args.text('dstPrimaryStorageUuid');
  const overall = overallUuid === undefined ? undefined : find(context, 'primaryStorage', overallUuid);
  const targets = new Map<string, PrimaryStorage>();
  const attached = store.volumesOfVm(vm);
  if (overall !== undefined) targets.set(vm.rootVolumeUuid, overall);
  if (overall !== undefined && args.flag('withDataVolumes') === true) {
    for (const volume of attached) if (volume.type === 'Data') targets.set(volume.uuid, overall);
  }
  for (const item of args.objects('volumeMigrationAOs') ?? []) {
    const { volumeUuid, dstPrimaryStorageUuid, withSnapshots } = item;
    if (!isUuid(volumeUuid)) throw invalidArgument('each volumeMigrationAOs item needs a volumeUuid');
    if (dstPrimaryStorageUuid !== undefined && !isUuid(dstPrimaryStorageUuid)) {
      throw invalidArgument(`volumeMigrationAOs: dstPrimaryStorageUuid[${String(dstPrimaryStorageUuid)}] is not a uuid`);
    }
    if (withSnapshots !== undefined && typeof withSnapshots !== 'boolean') {
      throw invalidArgument('volumeMigrationAOs: withSnapshots must be a boolean');
    }
    const destination = dstPrimaryStorageUuid === undefined ? overall : find(context, 'primaryStorage', dstPrimaryStorageUuid);
    if (destination === undefined) throw invalidArgument(`volumeMigrationAOs: no destination for volume[uuid:${volumeUuid}]`);
    targets.set(volumeUuid, destination);
  }
  if (targets.size === 0) throw invalidArgument('give dstPrimaryStorageUuid or volumeMigrationAOs');
  return [...targets].map(([volumeUuid, destination]) => {
    const volume = find(context, 'volume', volumeUuid);
    if (volume.vmInstanceUuid !== vm.uuid) throw invalidArgument(`volume[uuid:${volumeUuid}] is not attached to vm[uuid:${vm.uuid}]`);
    if (volume.primaryStorageUuid === destination.uuid) {
      throw invalidArgument(`volume[uuid:${volumeUuid}] is already on primary storage[uuid:${destination.uuid}]`);
    }
    if (destination.zoneUuid !== vm.zoneUuid) {
      throw invalidArgument(`primary storage[uuid:${destination.uuid}] is not in the VM's zone`);
    }
    return { volume, destination };
  });
}

function adjustCapacity(storage: PrimaryStorage, bytes: number): void {
  storage.availableCapacity = clamp(storage.availableCapacity + bytes, 0, storage.totalCapacity);
  storage.availablePhysicalCapacity = clamp(storage.availablePhysicalCapacity + bytes, 0, storage.totalPhysicalCapacity);
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}


export function setVmBootVolume(context: WriteContext): Result {
  const { args, store, now } = context;
  const vm = find(context, 'vm', args.required('vmInstanceUuid'));
  const volume = find(context, 'volume', args.required('volumeUuid'));
  if (volume.vmInstanceUuid !== vm.uuid) throw invalidArgument(`volume[uuid:${volume.uuid}] is not attached to vm[uuid:${vm.uuid}]`);
  requireVmState(vm, 'set the boot volume of', LIVE_VM_STATES);
  const current = store.volumesOfVm(vm).find((candidate) => candidate.deviceId === 0);
  if (current !== volume) {
    if (current !== undefined) store.volumes.update(current, { deviceId: volume.deviceId, lastOpDate: now });
    store.volumes.update(volume, { deviceId: 0, lastOpDate: now });
  }
  store.vms.update(vm, { lastOpDate: now });
  return inventoryResult(store.wire.write(VM_WIRE, vm));
}

export function recoverVmInstance(context: WriteContext): Result {
  const { args, store, now } = context;
  const vm = find(context, 'vm', args.required('uuid'));
  requireVmState(vm, 'recover', ['Destroyed']);
  store.vms.update(vm, { state: 'Stopped', lastOpDate: now });
  return inventoryResult(store.wire.write(VM_WIRE, vm));
}

export function updateVmNicDriver(context: WriteContext): Result {
  const { args, store, tenant, now } = context;
  const vm = find(context, 'vm', args.required('vmInstanceUuid'));
  const nicUuid = args.required('vmNicUuid');
  const found = store.findVmNic(tenant.id, nicUuid) ?? notFoundThrow('VmNic', nicUuid);
  if (found.vm !== vm) throw invalidArgument(`vm nic[uuid:${nicUuid}] does not belong to vm[uuid:${vm.uuid}]`);
  requireVmState(vm, 'change a NIC driver of', LIVE_VM_STATES);
  found.nic.driverType = args.required('driverType');
  found.nic.lastOpDate = now;
  store.vms.update(vm, { lastOpDate: now });
  return inventoryResult(store.wire.write(VM_NIC_WIRE, found.nic));
}

export function detachL3NetworkFromVm(context: WriteContext): Result {
  const { args, store, tenant, now } = context;
  const nicUuid = args.required('vmNicUuid');
  const { vm, nic } = store.findVmNic(tenant.id, nicUuid) ?? notFoundThrow('VmNic', nicUuid);
  requireVmState(vm, 'detach a network from', LIVE_VM_STATES);
  const vmNics = vm.vmNics.filter((candidate) => candidate !== nic);
  const defaultL3NetworkUuid =
    vm.defaultL3NetworkUuid === nic.l3NetworkUuid && !vmNics.some((other) => other.l3NetworkUuid === nic.l3NetworkUuid)
      ? (vmNics[0]?.l3NetworkUuid ?? null)
      : vm.defaultL3NetworkUuid;
  store.vms.update(vm, { vmNics, defaultL3NetworkUuid, lastOpDate: now });
  return inventoryResult(store.wire.write(VM_WIRE, vm));
}

export function deleteVmSshKey(context: WriteContext): Result {
  const { args, store, now } = context;
  const vm = find(context, 'vm', args.required('uuid'));
  requireVmState(vm, 'delete the SSH key of', LIVE_VM_STATES);
  store.vms.update(vm, { sshKey: null, lastOpDate: now });
  return inventoryResult(store.wire.write(VM_WIRE, vm));
}

export function destroyVmInstance(context: WriteContext): Result {
  const { args, store, now } = context;
  const vm = find(context, 'vm', args.required('uuid'));
  // Destroying a destroyed VM succeeds and changes nothing, as upstream.
  if (vm.state !== 'Destroyed') {
    store.vms.update(vm, {
      state: 'Destroyed',
      hostUuid: null,
      lastHostUuid: vm.hostUuid ?? vm.lastHostUuid,
      lastOpDate: now,
    });
  }
  return {};
}

export function createVmInstanceFromVolumeSnapshotGroup(context: WriteContext): Result {
  const { args, store, tenant, now } = context;
  const group = find(context, 'snapshotGroup', args.required('volumeSnapshotGroupUuid'));
  const offeringUuid = args.text('instanceOfferingUuid');
  const offering = offeringUuid === undefined ? undefined : find(context, 'instanceOffering', offeringUuid);
  findEach(context, 'tag', 'tagUuids');
  requireSnapshotsOf(context, group);
  const source = store.vms.get(tenant.id, group.vmInstanceUuid);
  const placement = placeNewVm(context, source);
  const cpuNum = args.integer('cpuNum') ?? offering?.cpuNum ?? source?.cpuNum ?? 1;
  const memorySize = args.integer('memorySize') ?? offering?.memorySize ?? source?.memorySize ?? GIB;
  if (cpuNum <= 0) throw invalidArgument('cpuNum must be positive');
  if (memorySize <= 0) throw invalidArgument('memorySize must be positive');
  const rootRef = group.volumeSnapshotRefs.find((ref) => ref.volumeType === 'Root');
  if (rootRef === undefined || rootRef.snapshotDeleted) {
    throw operationFailed(`volume snapshot group[uuid:${group.uuid}] has no root volume snapshot left`);
  }
  const rootStorageUuid = args.text('primaryStorageUuidForRootVolume');
  const rootStorage =
    rootStorageUuid === undefined ? storageOfSnapshot(context, rootRef, placement.zoneUuid) : find(context, 'primaryStorage', rootStorageUuid);
  if (rootStorage.zoneUuid !== placement.zoneUuid) {
    throw invalidArgument(`primary storage[uuid:${rootStorage.uuid}] is not in zone[uuid:${placement.zoneUuid}]`);
  }
  const l3Networks = networksOfNewVm(context, source, placement.zoneUuid);
  const askedDefault = args.text('defaultL3NetworkUuid');
  const defaultL3NetworkUuid = askedDefault === undefined ? (l3Networks[0]?.uuid ?? null) : find(context, 'l3Network', askedDefault).uuid;
  if (defaultL3NetworkUuid !== null && !l3Networks.some((l3) => l3.uuid === defaultL3NetworkUuid)) {
    throw invalidArgument(`defaultL3NetworkUuid[${defaultL3NetworkUuid}] is not among l3NetworkUuids`);
  }
  const vmUuid = newUuid(store, args.text('resourceUuid'));
  const encrypted = args.flag('vmEncryption') === true;
  const state: VmState = (args.text('strategy') ?? 'InstantStart') === 'InstantStart' ? 'Running' : 'Stopped';
  const root = createVolumeFromSnapshot(context, rootRef, vmUuid, rootStorage, encrypted);
  for (const ref of group.volumeSnapshotRefs) {
    if (ref === rootRef || ref.snapshotDeleted || ref.volumeType === 'Root') continue;
    createVolumeFromSnapshot(context, ref, vmUuid, storageOfSnapshot(context, ref, placement.zoneUuid, rootStorage), encrypted);
  }
  const vm: VmInstance = {
    ...newNamedRecord(context, vmUuid),
    zoneUuid: placement.zoneUuid,
    clusterUuid: placement.clusterUuid,
    imageUuid: source?.imageUuid ?? null,
    hostUuid: state === 'Running' ? (placement.host?.uuid ?? null) : null,
    lastHostUuid: placement.host?.uuid ?? null,
    instanceOfferingUuid: offering?.uuid ?? source?.instanceOfferingUuid ?? null,
    rootVolumeUuid: root.uuid,
    defaultL3NetworkUuid,
    platform: source?.platform ?? 'Linux',
    architecture: source?.architecture ?? placement.host?.architecture ?? 'x86_64',
    type: args.text('type') ?? 'UserVm',
    hypervisorType: 'KVM',
    memorySize,
    cpuNum,
    cpuSpeed: 0,
    allocatorStrategy: 'LastHostPreferredAllocatorStrategy',
    state,
    guestOsType: source?.guestOsType ?? null,
    sshKey: null,
    vmNics: [],
    vmCdRoms: [],
  };
  vm.vmNics = l3Networks.map((l3, deviceId) => newVmNic(store, vm, l3, deviceId, now));
  store.vms.insert(vm);
  return inventoryResult(store.wire.write(VM_WIRE, vm));
}

/** The snapshots `volumeSnapshotEncryptions` and `dataVolumeSystemTags` name must be the group's (SYS.1003 otherwise). */
function requireSnapshotsOf({ args }: WriteContext, group: VolumeSnapshotGroup): void {
  const named = [
    ...(args.objects('volumeSnapshotEncryptions') ?? []).map((item) => item.volumeSnapshotUuid),
    ...Object.keys(args.map('dataVolumeSystemTags') ?? {}),
  ];
  for (const uuid of named) {
    if (!isUuid(uuid)) throw invalidArgument(`volumeSnapshotUuid[${String(uuid)}] is not a uuid`);
    if (!group.volumeSnapshotRefs.some((ref) => ref.volumeSnapshotUuid === uuid)) notFoundThrow('VolumeSnapshot', uuid);
  }
}

interface Placement {
  zoneUuid: string;
  clusterUuid: string;
  /** The host the VM runs on (InstantStart) or last ran on; undefined for a stopped VM placed nowhere yet. */
  host: Host | undefined;
}

/** Zone, cluster and host of a new VM: as asked, else where the snapshotted VM lives. */
function placeNewVm(context: WriteContext, source: VmInstance | undefined): Placement {
  const { args, store, tenant } = context;
  const hostUuid = args.text('hostUuid');
  const clusterUuid = args.text('clusterUuid');
  const zoneUuid = args.text('zoneUuid');
  const host = hostUuid === undefined ? undefined : find(context, 'host', hostUuid);
  const cluster = clusterUuid === undefined ? undefined : find(context, 'cluster', clusterUuid);
  const zone = zoneUuid === undefined ? undefined : find(context, 'zone', zoneUuid);
  if (host !== undefined && cluster !== undefined && host.clusterUuid !== cluster.uuid) {
    throw invalidArgument(`host[uuid:${host.uuid}] is not in cluster[uuid:${cluster.uuid}]`);
  }
  const finalCluster = cluster?.uuid ?? host?.clusterUuid ?? (zone === undefined || zone.uuid === source?.zoneUuid ? source?.clusterUuid : undefined);
  const clusterRecord = finalCluster === undefined ? undefined : store.clusters.get(tenant.id, finalCluster);
  const finalZone = zone?.uuid ?? clusterRecord?.zoneUuid ?? source?.zoneUuid;
  const firstCluster = finalZone === undefined ? undefined : store.clusters.by('zoneUuid', finalZone, tenant.id)[0];
  const placedCluster = clusterRecord ?? firstCluster;
  if (finalZone === undefined || placedCluster === undefined) {
    throw invalidArgument('give zoneUuid, clusterUuid or hostUuid: the snapshotted VM no longer says where to create the VM');
  }
  if (placedCluster.zoneUuid !== finalZone) {
    throw invalidArgument(`cluster[uuid:${placedCluster.uuid}] is not in zone[uuid:${finalZone}]`);
  }
  const strategy = args.text('strategy') ?? 'InstantStart';
  if (host !== undefined) {
    if (strategy === 'InstantStart') requireConnectedHost(host, 'start a VM');
    return { zoneUuid: finalZone, clusterUuid: placedCluster.uuid, host };
  }
  if (strategy !== 'InstantStart') return { zoneUuid: finalZone, clusterUuid: placedCluster.uuid, host: undefined };
  const hosts = store.hosts.by('clusterUuid', placedCluster.uuid, tenant.id).filter((candidate) => candidate.status === 'Connected');
  const preferred = hosts.find((candidate) => candidate.uuid === source?.lastHostUuid) ?? hosts[0];
  if (preferred === undefined) throw operationFailed(`no connected host in cluster[uuid:${placedCluster.uuid}] can start the VM`);
  return { zoneUuid: finalZone, clusterUuid: placedCluster.uuid, host: preferred };
}

/** Where a volume made from `ref` goes: the snapshotted volume's storage when it is in the zone. */
function storageOfSnapshot(
  context: WriteContext,
  ref: VolumeSnapshotRef,
  zoneUuid: string,
  fallback?: PrimaryStorage,
): PrimaryStorage {
  const { store, tenant } = context;
  const original = store.volumes.get(tenant.id, ref.volumeUuid);
  const storage = original === undefined ? undefined : store.primaryStorages.get(tenant.id, original.primaryStorageUuid);
  if (storage !== undefined && storage.zoneUuid === zoneUuid) return storage;
  if (fallback !== undefined) return fallback;
  const inZone = store.primaryStorages.by('zoneUuid', zoneUuid, tenant.id)[0];
  if (inZone === undefined) throw operationFailed(`no primary storage in zone[uuid:${zoneUuid}]`);
  return inZone;
}

function createVolumeFromSnapshot(
  context: WriteContext,
  ref: VolumeSnapshotRef,
  vmUuid: string,
  storage: PrimaryStorage,
  encrypted: boolean,
): Volume {
  const { store, tenant, now } = context;
  const original = store.volumes.get(tenant.id, ref.volumeUuid);
  const uuid = randomUuid();
  const root = ref.volumeType === 'Root';
  const size = original?.size ?? (root ? 40 : 100) * GIB;
  const actualSize = original?.actualSize ?? Math.floor(size / 10);
  adjustCapacity(storage, -actualSize);
  return addVolume(store, {
    uuid,
    tenantId: tenant.id,
    vmInstanceUuid: vmUuid,
    storage,
    deviceId: ref.deviceId,
    root,
    description: `from snapshot ${ref.volumeSnapshotUuid}`,
    diskOfferingUuid: original?.diskOfferingUuid ?? null,
    rootImageUuid: original?.rootImageUuid ?? null,
    size,
    actualSize,
    isShareable: false,
    encrypted: encrypted || (original?.encrypted ?? false),
    createDate: now,
    lastOpDate: now,
  });
}

/** The L3 networks of a new VM: as asked, else the snapshotted VM's, else the zone's first. */
function networksOfNewVm(context: WriteContext, source: VmInstance | undefined, zoneUuid: string): L3Network[] {
  const { args, store, tenant } = context;
  const asked = args.texts('l3NetworkUuids');
  const uuids =
    asked !== undefined && asked.length > 0
      ? asked
      : [...new Set(source?.zoneUuid === zoneUuid ? source.vmNics.map((nic) => nic.l3NetworkUuid) : [])];
  const networks = uuids.map((uuid) => find(context, 'l3Network', uuid));
  for (const l3 of networks) {
    if (l3.zoneUuid !== zoneUuid) throw invalidArgument(`l3 network[uuid:${l3.uuid}] is not in zone[uuid:${zoneUuid}]`);
  }
  if (networks.length > 0) return networks;
  const first = store.l3Networks.by('zoneUuid', zoneUuid, tenant.id)[0];
  return first === undefined ? [] : [first];
}

function newVmNic(store: SimulatorStore, vm: VmInstance, l3: L3Network, deviceId: number, now: Date): VmNic {
  return buildVmNic({
    uuid: randomUuid(),
    usedIpUuid: randomUuid(),
    vmInstanceUuid: vm.uuid,
    l3,
    deviceId,
    ip: freeIp(store, vm.tenantId, l3),
    mac: `fa:${randomBytes(5).toString('hex').replace(/(..)(?!$)/g, '$1:')}`,
    driverType: 'virtio',
    internalNumber: (randomBytes(2).readUInt16BE() % 9999) + 1,
    createDate: now,
    lastOpDate: now,
  });
}

/** The lowest address of the L3 network's range that no NIC of the tenant holds. */
function freeIp(store: SimulatorStore, tenantId: string, l3: L3Network): string {
  const taken = new Set<string>([l3.gateway]);
  for (const vm of store.vms.list(tenantId)) {
    for (const nic of vm.vmNics) if (nic.l3NetworkUuid === l3.uuid) taken.add(nic.ip);
  }
  // The estate numbers addresses `<prefix>.<n / 254>.<n % 254 + 1>`; follow the same walk.
  for (let n = 1; n < 254 * 256; n++) {
    const ip = `${l3.networkPrefix}.${Math.floor(n / 254)}.${(n % 254) + 1}`;
    if (!taken.has(ip)) return ip;
  }
  throw operationFailed(`l3 network[uuid:${l3.uuid}] has no free IP address`);
}
