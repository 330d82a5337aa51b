/**
 * Record builders shared by the estate generator and the write handlers, so a NIC or a snapshot
 * ref made by CreateVmInstanceFromVolumeSnapshotGroup has exactly the shape of a generated one.
 * Randomness stays with the callers (seeded for the estate, crypto for writes).
 */
import type { L3Network, PrimaryStorage, VmNic, Volume, VolumeSnapshotRef } from './model.js';
import type { SimulatorStore } from './store.js';

/** An IPv4 address as a number, or null when `text` is not one. */
export function parseIpv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255)) return null;
  return parts.reduce((value, part) => value * 256 + Number(part), 0);
}

export interface VmNicSeed {
  uuid: string;
  usedIpUuid: string;
  vmInstanceUuid: string;
  l3: L3Network;
  deviceId: number;
  ip: string;
  mac: string;
  driverType: string;
  /** Suffix of `internalName` (`vnic<N>.<deviceId>`). */
  internalNumber: number;
  createDate: Date;
  lastOpDate: Date;
}

/**
 * True for about `share` of all uuids, decided by the uuid alone: the estate's optional fields
 * take a value in some records and not others without drawing from the seeded dice, so adding one
 * leaves every other generated value as it was.
 */
export function uuidShare(uuid: string, share: number, salt = 0): boolean {
  const digit = Number.parseInt(uuid.charAt(salt % uuid.length), 16);
  return Number.isFinite(digit) && digit < Math.round(share * 16);
}

/** A VM NIC on `l3` with its one used IP. */
export function buildVmNic(seed: VmNicSeed): VmNic {
  const { l3, createDate, lastOpDate } = seed;
  return {
    uuid: seed.uuid,
    vmInstanceUuid: seed.vmInstanceUuid,
    l3NetworkUuid: l3.uuid,
    ip: seed.ip,
    mac: seed.mac,
    hypervisorType: 'KVM',
    netmask: l3.netmask,
    gateway: l3.gateway,
    // The real service keeps free text here (e.g. what configured the NIC); some NICs carry some.
    metaData: uuidShare(seed.uuid, 0.4) ? `{"configuredBy":"cloud-init","seq":${seed.deviceId}}` : null,
    driverType: seed.driverType,
    internalName: `vnic${seed.internalNumber}.${seed.deviceId}`,
    type: 'VNic',
    state: 'enable',
    ipVersion: 4,
    deviceId: seed.deviceId,
    usedIpUuid: seed.usedIpUuid,
    usedIps: [
      {
        uuid: seed.usedIpUuid,
        ipRangeUuid: l3.ipRangeUuid,
        l3NetworkUuid: l3.uuid,
        ip: seed.ip,
        netmask: l3.netmask,
        gateway: l3.gateway,
        usedFor: 'Application',
        vmNicUuid: seed.uuid,
        ipVersion: 4,
        ipInLong: parseIpv4(seed.ip),
        createDate,
        lastOpDate,
      },
    ],
    createDate,
    lastOpDate,
  };
}

/** The ref of the snapshot a group took of `volume` (device order `index`). */
export function buildSnapshotRef(
  volume: Volume,
  index: number,
  groupUuid: string,
  snapshot: { uuid: string; deleted: boolean; createDate: Date; lastOpDate: Date },
): VolumeSnapshotRef {
  return {
    volumeSnapshotUuid: snapshot.uuid,
    volumeUuid: volume.uuid,
    volumeName: volume.name,
    volumeType: volume.type,
    volumeSnapshotInstallPath: `${volume.installPath.replace(/\.qcow2$/, '')}@snap-${groupUuid.slice(0, 8)}`,
    volumeSnapshotName: `group-snapshot-${groupUuid.slice(0, 8)}-${index}`,
    deviceId: volume.deviceId ?? index,
    snapshotDeleted: snapshot.deleted,
    createDate: snapshot.createDate,
    lastOpDate: snapshot.lastOpDate,
  };
}

/** Where a volume's file lives on `storage` (the path shapes of the service's storage types). */
export function installPathOf(storage: PrimaryStorage, volumeUuid: string): string {
  switch (storage.type) {
    case 'Ceph':
      return `ceph://pool-${storage.uuid.slice(0, 8)}/${volumeUuid}`;
    case 'SharedBlock':
      return `sharedblock://${storage.uuid}/${volumeUuid}`;
    default:
      return `/opt/zstack/nfsprimarystorage/prim-${storage.uuid}/${volumeUuid}.qcow2`;
  }
}

export interface VolumeSeed {
  uuid: string;
  tenantId: string;
  vmInstanceUuid: string | null;
  storage: PrimaryStorage;
  /** Device order on its VM; 0 is the root volume. */
  deviceId: number | null;
  root: boolean;
  description: string | null;
  diskOfferingUuid: string | null;
  rootImageUuid: string | null;
  size: number;
  actualSize: number;
  isShareable: boolean;
  encrypted: boolean;
  createDate: Date;
  lastOpDate: Date;
}

/**
 * A volume on `seed.storage`, attached to `seed.vmInstanceUuid` when given, added to the store's
 * volume table (a VM's volumes are read from there, not from the VM).
 */
export function addVolume(store: SimulatorStore, seed: VolumeSeed): Volume {
  const { uuid, vmInstanceUuid, storage, root } = seed;
  // Some data volumes were detached once (and attached again, or left free) and some have QoS
  // limits; root volumes are never detached.
  const detachedOnce = !root && uuidShare(uuid, 0.4, 1);
  const lastDetachDate = detachedOnce
    ? // Whole seconds, as the upstream's timestamp text shows them.
      new Date(Math.floor((seed.createDate.getTime() + seed.lastOpDate.getTime()) / 2000) * 1000)
    : null;
  return store.volumes.insert({
    uuid,
    tenantId: seed.tenantId,
    name: root ? `ROOT-for-${vmInstanceUuid?.slice(0, 8) ?? 'free'}` : `data-${uuid.slice(0, 8)}`,
    description: seed.description,
    primaryStorageUuid: storage.uuid,
    vmInstanceUuid,
    diskOfferingUuid: seed.diskOfferingUuid,
    rootImageUuid: seed.rootImageUuid,
    installPath: installPathOf(storage, uuid),
    type: root ? 'Root' : 'Data',
    format: storage.type === 'Ceph' ? 'raw' : 'qcow2',
    state: 'Enabled',
    status: 'Ready',
    volumeQos: !root && uuidShare(uuid, 0.3, 2) ? '{"totalBandwidth":104857600,"totalIops":2000}' : null,
    lastVmInstanceUuid: vmInstanceUuid,
    size: seed.size,
    actualSize: seed.actualSize,
    deviceId: seed.deviceId,
    isShareable: seed.isShareable,
    lastDetachDate,
    encrypted: seed.encrypted,
    createDate: seed.createDate,
    lastOpDate: seed.lastOpDate,
  });
}
