/**
 * The workloads of a tenant's generated estate: VMs with their volumes, NICs and CD-ROMs, free
 * volumes, volume snapshot groups and CBT tasks (and the LUNs a few VMs use directly).
 */
import type { CbtTaskStatus, L3Network, PrimaryStorage, VmCdRom, VmInstance, VmNic, VmState, Volume, VolumeSnapshotRef } from '../model.js';
import { addVolume, buildSnapshotRef, buildVmNic, uuidShare } from '../builders.js';
import { GIB, VM_CPUS, VM_MEMORY_GIB, type TenantDraft } from './draft.js';

const VM_ROLES = ['web', 'app', 'db', 'cache', 'api', 'worker', 'mq', 'lb', 'ci', 'mon'];

const GUEST_OS: readonly { platform: string; guestOsType: string }[] = [
  { platform: 'Linux', guestOsType: 'CentOS 7' },
  { platform: 'Linux', guestOsType: 'Ubuntu 22.04' },
  { platform: 'Linux', guestOsType: 'Rocky Linux 9' },
  { platform: 'Linux', guestOsType: 'Debian 12' },
  { platform: 'Windows', guestOsType: 'Windows Server 2019' },
  { platform: 'Windows', guestOsType: 'Windows Server 2022' },
  { platform: 'Other', guestOsType: 'FreeBSD 13' },
];

const NIC_DRIVERS = ['virtio', 'virtio', 'virtio', 'e1000', 'rtl8139'];

const CBT_STATUSES: readonly CbtTaskStatus[] = ['Created', 'Starting', 'Running', 'Running', 'Stopped', 'Failed'];

export function buildVm(draft: TenantDraft, roleCounters: Map<string, number>): void {
  const { dice, tenant, store } = draft;
  const host = dice.pick(draft.hosts);
  const l3s = draft.l3ByZone.get(host.zoneUuid) ?? [];
  const storages = draft.storagesByCluster.get(host.clusterUuid) ?? [];
  const role = dice.pick(VM_ROLES);
  const ordinal = (roleCounters.get(role) ?? 0) + 1;
  roleCounters.set(role, ordinal);
  const os = dice.pick(GUEST_OS);
  const state: VmState = host.status === 'Disconnected' || dice.chance(0.15) ? 'Stopped' : 'Running';
  const times = draft.times(host.createDate.getTime());
  const uuid = dice.uuid();
  const imageUuid = dice.uuid();
  const rootStorage = dice.pick(storages);
  const root = drawVolume(draft, uuid, rootStorage, 0, times.createDate, imageUuid);
  const vm: VmInstance = {
    uuid,
    tenantId: tenant.id,
    name: `${role}-${String(ordinal).padStart(3, '0')}`,
    description: dice.chance(0.3) ? `${role} tier` : null,
    zoneUuid: host.zoneUuid,
    clusterUuid: host.clusterUuid,
    imageUuid,
    hostUuid: state === 'Running' ? host.uuid : null,
    lastHostUuid: host.uuid,
    // Still drawn, so that the rest of a seed's estate stays what it was before offerings were
    // records; replaced below by the offering of the VM's size.
    instanceOfferingUuid: dice.uuid(),
    rootVolumeUuid: root.uuid,
    defaultL3NetworkUuid: null,
    platform: os.platform,
    architecture: host.architecture,
    type: 'UserVm',
    hypervisorType: 'KVM',
    memorySize: dice.pick(VM_MEMORY_GIB) * GIB,
    cpuNum: dice.pick(VM_CPUS),
    cpuSpeed: 0,
    allocatorStrategy: 'LastHostPreferredAllocatorStrategy',
    state,
    guestOsType: os.guestOsType,
    sshKey: os.platform === 'Linux' && dice.chance(0.5) ? `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${dice.hex(32)}` : null,
    vmNics: [],
    vmCdRoms: [],
    ...times,
  };
  vm.instanceOfferingUuid = draft.offerings.get(`${vm.cpuNum}/${vm.memorySize}`)?.uuid ?? null;
  const dataVolumes = dice.pick([0, 0, 1, 1, 2]);
  for (let d = 1; d <= dataVolumes; d++) drawVolume(draft, uuid, dice.pick(storages), d, times.createDate, null);
  const nicCount = dice.chance(0.25) ? 2 : 1;
  for (let n = 0; n < nicCount; n++) vm.vmNics.push(drawVmNic(draft, vm, l3s[n] ?? (l3s[0] as L3Network), n));
  vm.defaultL3NetworkUuid = vm.vmNics[0]?.l3NetworkUuid ?? null;
  if (dice.chance(0.3)) vm.vmCdRoms.push(drawCdRom(draft, vm));
  store.vms.insert(vm);
  draft.vms.push(vm);
}

function drawVolume(
  draft: TenantDraft,
  vmUuid: string | null,
  storage: PrimaryStorage,
  deviceId: number | null,
  after: Date,
  rootImageUuid: string | null,
): Volume {
  const { dice, tenant, store } = draft;
  const uuid = dice.uuid();
  const root = deviceId === 0;
  const size = root ? dice.pick([40, 50, 80, 100]) * GIB : dice.pick([100, 200, 500, 1024]) * GIB;
  const times = draft.times(after.getTime());
  return addVolume(store, {
    uuid,
    tenantId: tenant.id,
    vmInstanceUuid: vmUuid,
    storage,
    deviceId,
    root,
    description: !root && uuidShare(uuid, 0.5, 3) ? 'Application data disk' : null,
    diskOfferingUuid: root ? null : dice.uuid(),
    rootImageUuid,
    size,
    actualSize: Math.floor(size * (0.05 + dice.next() * 0.7)),
    isShareable: !root && dice.chance(0.05),
    encrypted: dice.chance(0.15),
    ...times,
  });
}

function drawVmNic(draft: TenantDraft, vm: VmInstance, l3: L3Network, deviceId: number): VmNic {
  const { dice } = draft;
  const hostPart = draft.nextIp++;
  return buildVmNic({
    uuid: dice.uuid(),
    usedIpUuid: dice.uuid(),
    vmInstanceUuid: vm.uuid,
    l3,
    deviceId,
    ip: `${l3.networkPrefix}.${Math.floor(hostPart / 254) % 256}.${(hostPart % 254) + 1}`,
    mac: dice.mac(),
    driverType: dice.pick(NIC_DRIVERS),
    internalNumber: dice.int(1, 9999),
    createDate: vm.createDate,
    lastOpDate: vm.lastOpDate,
  });
}

function drawCdRom(draft: TenantDraft, vm: VmInstance): VmCdRom {
  const { dice } = draft;
  const isoUuid = dice.uuid();
  return {
    uuid: dice.uuid(),
    vmInstanceUuid: vm.uuid,
    isoUuid,
    isoInstallPath: `/zstack_bs/iso/${isoUuid}.iso`,
    name: `vm-${vm.uuid.slice(0, 8)}-cdRom`,
    description: uuidShare(isoUuid, 0.5) ? 'Guest tools installation media' : null,
    deviceId: 0,
    createDate: vm.createDate,
    lastOpDate: vm.lastOpDate,
  };
}

export function buildFreeVolumes(draft: TenantDraft): void {
  const free = Math.max(3, Math.round(draft.size.vms / 10));
  for (let i = 0; i < free; i++) {
    const cluster = draft.dice.pick(draft.clusters);
    const storage = draft.dice.pick(draft.storagesByCluster.get(cluster.uuid) ?? draft.storages);
    drawVolume(draft, null, storage, null, cluster.createDate, null);
  }
}

export function buildSnapshotGroups(draft: TenantDraft): void {
  const { dice, tenant, store } = draft;
  const groups = Math.max(3, Math.round(draft.size.vms / 10));
  for (let g = 0; g < groups; g++) {
    const vm = dice.pick(draft.vms);
    const volumes = store.volumesOfVm(vm);
    const times = draft.times(vm.createDate.getTime());
    const groupUuid = dice.uuid();
    const refs = volumes.map((volume, index) =>
      buildSnapshotRef(volume, index, groupUuid, { uuid: dice.uuid(), deleted: index > 0 && dice.chance(0.1), ...times }),
    );
    store.snapshotGroups.insert({
      uuid: groupUuid,
      tenantId: tenant.id,
      name: `${vm.name}-snapshot-${g + 1}`,
      description: dice.chance(0.5) ? 'Scheduled consistency group' : null,
      snapshotCount: refs.length,
      vmInstanceUuid: vm.uuid,
      volumeSnapshotRefs: refs,
      ...times,
    });
  }
  ensureFailedDeletionItem(draft);
}

/**
 * Deleting a group answers a failed `results` item (with its `error`) for each snapshot already
 * deleted. Whatever the seed, some group has one next to a live one, so that answer is always
 * there to be read; decided after the draws, so no other generated value moves.
 */
function ensureFailedDeletionItem(draft: TenantDraft): void {
  const groups = [...draft.store.snapshotGroups.list(draft.tenant.id)];
  const mixed = (refs: readonly VolumeSnapshotRef[]): boolean => refs.some((ref) => ref.snapshotDeleted) && refs.some((ref) => !ref.snapshotDeleted);
  if (groups.some((group) => mixed(group.volumeSnapshotRefs))) return;
  const group = groups.find((candidate) => candidate.volumeSnapshotRefs.length > 1);
  if (group === undefined) return;
  const refs = group.volumeSnapshotRefs.map((ref, index, all) => (index === all.length - 1 ? { ...ref, snapshotDeleted: true } : ref));
  draft.store.snapshotGroups.update(group, { volumeSnapshotRefs: refs });
}

export function buildCbtTasks(draft: TenantDraft): void {
  const { dice, tenant, store } = draft;
  const tasks = Math.min(draft.vms.length, Math.max(3, Math.round(draft.size.vms / 20)));
  const taken = new Set<string>();
  for (let t = 0; t < tasks; t++) {
    const vm = dice.pick(draft.vms);
    if (taken.has(vm.uuid)) continue;
    taken.add(vm.uuid);
    store.cbtTasks.insert({
      uuid: dice.uuid(),
      tenantId: tenant.id,
      name: `cbt-${vm.name}`,
      description: dice.chance(0.3) ? 'Incremental backup tracking' : null,
      status: dice.pick(CBT_STATUSES),
      taskType: 'VM',
      vmInstanceUuid: vm.uuid,
      volumeUuids: store.volumesOfVm(vm).map((volume) => volume.uuid),
      bitmapName: null,
      exportedVolumeUuids: new Set(),
      ...draft.times(vm.createDate.getTime()),
    });
  }
  // A few VMs use FC LUNs directly.
  const luns = [...store.luns.list(tenant.id)];
  for (const lun of luns.slice(0, Math.ceil(luns.length / 3))) {
    const candidates = draft.vms.filter((vm) => lun.scsiLunHostRefs.some((ref) => ref.hostUuid === vm.lastHostUuid));
    if (candidates.length > 0) {
      lun.scsiLunVmInstanceRefs.push({ vmInstanceUuid: dice.pick(candidates).uuid, createDate: lun.lastOpDate });
    }
  }
}
