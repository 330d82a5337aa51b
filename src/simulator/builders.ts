/**
 * Record builders shared by the estate generator and the write handlers, so a NIC or a snapshot
 * ref made by CreateVmInstanceFromVolumeSnapshotGroup has exactly the shape of a generated one.
 * Randomness stays with the callers (seeded for the estate, crypto for writes).
 */
import type { L3Network, VmNic, Volume, VolumeSnapshotRef } from './model.js';

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
    metaData: null,
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
