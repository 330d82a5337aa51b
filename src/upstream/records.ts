/**
 * Decoded upstream records: the spec's result structures after decoding.
 *
 * Decoding rules (applied by `decode.ts`, never by callers):
 * - Timestamp text (`Jan 5, 2024 3:04:05 PM`, in `UPSTREAM_TIMEZONE`) becomes a `Date`.
 * - Integers rendered as `1.0` become plain numbers; Long values are JS numbers (exact to 2^53-1).
 * - `interfaceType` spellings (`nomaster`/`noMaster`, `bondSlave`/`bondingSlave`) become one
 *   canonical spelling.
 * - A field the upstream omitted (it omits nulls) is `null`, never `undefined`.
 *
 * Field names are the spec's. This module knows nothing of GraphQL.
 */

/** 32 lowercase hexadecimal characters. */
export type Uuid = string;

/**
 * A Timestamp field: milliseconds since the epoch, the instant the upstream's text names in its
 * zone. Kept as a number rather than a `Date`: a page of 50 VMs carries about a thousand of them
 * and a query rarely selects one; the `DateTime` scalar writes it as ISO 8601 when it does.
 */
export type Instant = number;

/** The spec's ErrorCode structure, with its `cause` chain. */
export interface ErrorCodeRecord {
  code: string;
  description: string | null;
  details: string | null;
  elaboration: string | null;
  opaque: Record<string, unknown> | null;
  cause: ErrorCodeRecord | null;
  /** The real service may add these two; both optional. */
  location?: string | null;
  cost?: string | null;
}

export type HwMonitorStatus = 'Normal' | 'Error' | 'Unknown';

/** A VM NIC's emulated device model: the spec's closed set (`driverType`), in lower case. */
export type NicDriver = 'virtio' | 'e1000' | 'rtl8139';

export interface HostRecord {
  uuid: Uuid;
  zoneUuid: Uuid | null;
  clusterUuid: Uuid | null;
  name: string | null;
  description: string | null;
  managementIp: string | null;
  hypervisorType: string | null;
  state: string | null;
  status: string | null;
  totalCpuCapacity: number | null;
  availableCpuCapacity: number | null;
  totalMemoryCapacity: number | null;
  availableMemoryCapacity: number | null;
  cpuSockets: number | null;
  cpuNum: number | null;
  ipmiAddress: string | null;
  ipmiUsername: string | null;
  ipmiPowerStatus: string | null;
  ipmiPort: number | null;
  architecture: string | null;
  nqn: string | null;
  hostname: string | null;
  createDate: Instant | null;
  lastOpDate: Instant | null;
  cpuStatus: HwMonitorStatus | null;
  memoryStatus: HwMonitorStatus | null;
  diskStatus: HwMonitorStatus | null;
  nicStatus: HwMonitorStatus | null;
  gpuStatus: HwMonitorStatus | null;
  powerSupplyStatus: HwMonitorStatus | null;
  fanStatus: HwMonitorStatus | null;
  raidStatus: HwMonitorStatus | null;
  temperatureStatus: HwMonitorStatus | null;
}

/** Canonical interfaceType: `nomaster`/`noMaster` → noMaster, `bondSlave`/`bondingSlave` → bondingSlave. */
export type InterfaceType = 'noMaster' | 'bridgeSlave' | 'bondingSlave';

/**
 * A host NIC: a bond's slave or a plain NIC. One record serves the network facts record and the
 * bond inventory's slave record; fields only one of them carries are null in the other.
 */
export interface HostNicRecord {
  uuid: Uuid;
  hostUuid: Uuid | null;
  bondingUuid: Uuid | null;
  interfaceName: string | null;
  interfaceType: InterfaceType | null;
  mac: string | null;
  pciDeviceAddress: string | null;
  speed: number | null;
  slaveActive: boolean | null;
  carrierActive: boolean | null;
  ipAddresses: string[];
  createDate: Instant | null;
  lastOpDate: Instant | null;
  /** Bond inventory slave record only. */
  gateway: string | null;
  callBackIp: string | null;
  offloadStatus: string | null;
  description: string | null;
}

/** HostNetworkBondingInventory (since 4.7.0); network facts bondings carry a subset. */
export interface HostBondingRecord {
  uuid: Uuid;
  hostUuid: Uuid | null;
  bondingName: string | null;
  bondingType: string | null;
  speed: number | null;
  miimon: number | null;
  mode: string | null;
  xmitHashPolicy: string | null;
  miiStatus: string | null;
  mac: string | null;
  gateway: string | null;
  callBackIp: string | null;
  type: string | null;
  description: string | null;
  ipAddresses: string[];
  allSlavesActive: boolean | null;
  createDate: Instant | null;
  lastOpDate: Instant | null;
  slaves: HostNicRecord[];
}

/** GetHostNetworkFacts result (since 3.5.0). */
export interface HostNetworkFactsRecord {
  bondings: HostBondingRecord[];
  nics: HostNicRecord[];
}

/** FC HBA device (since 5.3.0). The spec types every field String; timestamps are still decoded. */
export interface HbaDeviceRecord {
  uuid: Uuid;
  name: string | null;
  hostUuid: Uuid | null;
  portName: string | null;
  portState: string | null;
  hbaType: string | null;
  speed: string | null;
  supportedSpeeds: string | null;
  symbolicName: string | null;
  supportedClasses: string | null;
  createDate: Instant | null;
  lastOpDate: Instant | null;
}

export interface ScsiLunHostRefRecord {
  scsiLunUuid: Uuid;
  hostUuid: Uuid;
  createDate: Instant | null;
  lastOpDate: Instant | null;
}

export interface ScsiLunVmInstanceRefRecord {
  scsiLunUuid: Uuid;
  vmInstanceUuid: Uuid;
  createDate: Instant | null;
}

/** Fibre-channel LUN (since 3.1.0). */
export interface FiberChannelLunRecord {
  uuid: Uuid;
  name: string | null;
  fiberChannelStorageUuid: Uuid | null;
  wwid: string | null;
  wwn: string | null;
  serial: string | null;
  vendor: string | null;
  model: string | null;
  type: string | null;
  path: string | null;
  size: number | null;
  state: string | null;
  createDate: Instant | null;
  lastOpDate: Instant | null;
  scsiLunHostRefs: ScsiLunHostRefRecord[];
  scsiLunVmInstanceRefs: ScsiLunVmInstanceRefRecord[];
}

export type CbtTaskStatus = 'Created' | 'Starting' | 'Running' | 'Stopped' | 'Failed';

export interface CbtTaskRecord {
  uuid: Uuid;
  name: string | null;
  description: string | null;
  createDate: Instant | null;
  lastOpDate: Instant | null;
  status: CbtTaskStatus | null;
}

export interface VolumeSnapshotRefRecord {
  volumeSnapshotUuid: Uuid;
  volumeSnapshotGroupUuid: Uuid | null;
  volumeUuid: Uuid | null;
  volumeName: string | null;
  volumeType: string | null;
  volumeSnapshotInstallPath: string | null;
  volumeSnapshotName: string | null;
  deviceId: number | null;
  snapshotDeleted: boolean | null;
  createDate: Instant | null;
  lastOpDate: Instant | null;
}

/** VolumeSnapshotGroupInventory (since 3.6.0). */
export interface VolumeSnapshotGroupRecord {
  uuid: Uuid;
  name: string | null;
  description: string | null;
  snapshotCount: number | null;
  vmInstanceUuid: Uuid | null;
  createDate: Instant | null;
  lastOpDate: Instant | null;
  volumeSnapshotRefs: VolumeSnapshotRefRecord[];
}

export interface UsedIpRecord {
  uuid: Uuid;
  /** The VM of the NIC the address is allocated to: not on the wire, the decoder takes it from the NIC or its VM. */
  vmInstanceUuid: Uuid | null;
  ipRangeUuid: Uuid | null;
  l3NetworkUuid: Uuid | null;
  ip: string | null;
  netmask: string | null;
  gateway: string | null;
  usedFor: string | null;
  vmNicUuid: Uuid | null;
  ipVersion: number | null;
  ipInLong: number | null;
  createDate: Instant | null;
  lastOpDate: Instant | null;
}

/** A vmNics item and VmNicInventory. */
export interface VmNicRecord {
  uuid: Uuid;
  vmInstanceUuid: Uuid | null;
  l3NetworkUuid: Uuid | null;
  ip: string | null;
  mac: string | null;
  hypervisorType: string | null;
  netmask: string | null;
  gateway: string | null;
  metaData: string | null;
  /** Lower-cased; null for a value outside the spec's set. */
  driverType: NicDriver | null;
  internalName: string | null;
  type: string | null;
  state: string | null;
  ipVersion: number | null;
  deviceId: number | null;
  createDate: Instant | null;
  lastOpDate: Instant | null;
  usedIps: UsedIpRecord[];
  usedIpUuid: Uuid | null;
}

/**
 * An allVolumes item, a generic-family `volume` item and an attachable data volume record
 * (which carries a subset: its other fields are null).
 */
export interface VolumeRecord {
  uuid: Uuid;
  name: string | null;
  description: string | null;
  primaryStorageUuid: Uuid | null;
  vmInstanceUuid: Uuid | null;
  diskOfferingUuid: Uuid | null;
  rootImageUuid: Uuid | null;
  installPath: string | null;
  type: string | null;
  format: string | null;
  state: string | null;
  status: string | null;
  volumeQos: string | null;
  lastVmInstanceUuid: Uuid | null;
  size: number | null;
  actualSize: number | null;
  deviceId: number | null;
  isShareable: boolean | null;
  lastDetachDate: Instant | null;
  createDate: Instant | null;
  lastOpDate: Instant | null;
  encrypted: boolean | null;
}

export interface VmCdRomRecord {
  uuid: Uuid;
  vmInstanceUuid: Uuid | null;
  isoUuid: Uuid | null;
  isoInstallPath: string | null;
  name: string | null;
  description: string | null;
  deviceId: number | null;
  createDate: Instant | null;
  lastOpDate: Instant | null;
}

export interface VmInstanceRecord {
  uuid: Uuid;
  name: string | null;
  description: string | null;
  zoneUuid: Uuid | null;
  clusterUuid: Uuid | null;
  imageUuid: Uuid | null;
  hostUuid: Uuid | null;
  lastHostUuid: Uuid | null;
  instanceOfferingUuid: Uuid | null;
  rootVolumeUuid: Uuid | null;
  defaultL3NetworkUuid: Uuid | null;
  platform: string | null;
  architecture: string | null;
  type: string | null;
  hypervisorType: string | null;
  memorySize: number | null;
  cpuNum: number | null;
  cpuSpeed: number | null;
  allocatorStrategy: string | null;
  createDate: Instant | null;
  lastOpDate: Instant | null;
  state: string | null;
  guestOsType: string | null;
  vmNics: VmNicRecord[];
  allVolumes: VolumeRecord[];
  vmCdRoms: VmCdRomRecord[];
}

/** SNSApplicationPlatformInventory (since 2.3). */
export interface SnsApplicationPlatformRecord {
  uuid: Uuid;
  name: string | null;
  description: string | null;
  type: string | null;
  state: string | null;
  createDate: Instant | null;
  lastOpDate: Instant | null;
}

export interface SnsSmsReceiverRecord {
  phoneNumber: string;
}

/** SNSApplicationEndpointInventory (since 5.0.0); `type` is HTTP, Email or SMS. */
export interface SnsApplicationEndpointRecord {
  uuid: Uuid;
  name: string | null;
  description: string | null;
  type: string | null;
  platformUuid: Uuid | null;
  state: string | null;
  createDate: Instant | null;
  lastOpDate: Instant | null;
  /** HTTP endpoints only (simulator's generic-family record; not in the spec's inventory). */
  url: string | null;
  /** HTTP endpoints only: the basic-auth user name (simulator's generic-family record). */
  username: string | null;
  /** SMS endpoints only: the receivers' phone numbers. */
  receivers: SnsSmsReceiverRecord[];
}

/** SNS email address record (since 3.7.0). */
export interface SnsEmailAddressRecord {
  uuid: Uuid;
  emailAddress: string | null;
  endpointUuid: Uuid | null;
  createDate: Instant | null;
  lastOpDate: Instant | null;
}

/** Directory record of the generic family (the spec shows only DeleteDirectory). */
export interface DirectoryRecord {
  uuid: Uuid;
  name: string | null;
  groupName: string | null;
  parentUuid: Uuid | null;
  zoneUuid: Uuid | null;
  type: string | null;
  createDate: Instant | null;
  lastOpDate: Instant | null;
}

/** GetPrimaryStorageCapacity result (since 0.6). */
export interface PrimaryStorageCapacityRecord {
  totalCapacity: number;
  availableCapacity: number;
  totalPhysicalCapacity: number;
  availablePhysicalCapacity: number;
}

/** DeleteVolumeSnapshotGroup per-item outcome. */
export interface SnapshotGroupDeletionResultRecord {
  snapshotUuid: Uuid | null;
  volumeUuid: Uuid | null;
  success: boolean;
  error: ErrorCodeRecord | null;
}
