/**
 * The upstream's records, each defined once (`defineRecord`): its type, the fields a demand can
 * narrow and its decoder all derive from the definition below.
 *
 * Decoding rules (applied by the generated decoders, never by callers):
 * - Timestamp text (`Jan 5, 2024 3:04:05 PM`, in `UPSTREAM_TIMEZONE`) becomes an `Instant`.
 * - Integers rendered as `1.0` become plain numbers; Long values are JS numbers (exact to 2^53-1).
 * - `interfaceType` spellings (`nomaster`/`noMaster`, `bondSlave`/`bondingSlave`) become one
 *   canonical spelling.
 * - A field the upstream omitted (it omits nulls) is `null`, never `undefined`; a list is `[]`.
 *
 * Field names are the spec's. Embedded records are defined before the records that hold them.
 * This module knows nothing of GraphQL.
 */
import { defineRecord, field, type RecordOf } from './define-record.js';
import { bool } from './wire.js';

export type { Instant, Uuid } from './define-record.js';

/** The spec's ErrorCode structure, with its `cause` chain (decoded by hand: it nests, and bounds its depth). */
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

const HW_MONITOR_STATUSES = ['Normal', 'Error', 'Unknown'] as const;
export type HwMonitorStatus = (typeof HW_MONITOR_STATUSES)[number];

/** A VM NIC's emulated device model: the spec's closed set (`driverType`), in lower case. */
const NIC_DRIVERS = ['virtio', 'e1000', 'rtl8139'] as const;
export type NicDriver = (typeof NIC_DRIVERS)[number];

const CBT_TASK_STATUSES = ['Created', 'Starting', 'Running', 'Stopped', 'Failed'] as const;
export type CbtTaskStatus = (typeof CBT_TASK_STATUSES)[number];

/** Canonical interfaceType: `nomaster`/`noMaster` → noMaster, `bondSlave`/`bondingSlave` → bondingSlave. */
export type InterfaceType = 'noMaster' | 'bridgeSlave' | 'bondingSlave';

const INTERFACE_TYPES: Readonly<Record<string, InterfaceType>> = {
  nomaster: 'noMaster',
  bridgeslave: 'bridgeSlave',
  bondslave: 'bondingSlave',
  bondingslave: 'bondingSlave',
};

/** `nomaster`/`noMaster` → noMaster, `bondSlave`/`bondingSlave` → bondingSlave, `bridgeSlave`. */
export function normalizeInterfaceType(value: string | null): InterfaceType | null {
  return value === null ? null : (INTERFACE_TYPES[value.toLowerCase()] ?? null);
}

const hwStatus = () => field.oneOf(HW_MONITOR_STATUSES);

export const host = defineRecord('host', {
  uuid: field.uuid(),
  zoneUuid: field.text(),
  clusterUuid: field.text(),
  name: field.text(),
  description: field.text(),
  managementIp: field.text(),
  hypervisorType: field.text(),
  state: field.text(),
  status: field.text(),
  totalCpuCapacity: field.int(),
  availableCpuCapacity: field.int(),
  totalMemoryCapacity: field.int(),
  availableMemoryCapacity: field.int(),
  cpuSockets: field.int(),
  cpuNum: field.int(),
  ipmiAddress: field.text(),
  ipmiUsername: field.text(),
  ipmiPowerStatus: field.text(),
  ipmiPort: field.int(),
  architecture: field.text(),
  nqn: field.text(),
  hostname: field.text(),
  createDate: field.timestamp(),
  lastOpDate: field.timestamp(),
  cpuStatus: hwStatus(),
  memoryStatus: hwStatus(),
  diskStatus: hwStatus(),
  nicStatus: hwStatus(),
  gpuStatus: hwStatus(),
  powerSupplyStatus: hwStatus(),
  fanStatus: hwStatus(),
  raidStatus: hwStatus(),
  temperatureStatus: hwStatus(),
});
export type HostRecord = RecordOf<typeof host>;

/**
 * A host NIC: a bond's slave or a plain NIC. One record serves the network facts record and the
 * bond inventory's slave record; fields only one of them carries are null in the other.
 */
export const hostNic = defineRecord(
  'hostNic',
  {
    uuid: field.uuid(),
    hostUuid: field.text(),
    bondingUuid: field.text(),
    interfaceName: field.text(),
    interfaceType: field.normalized((text) => normalizeInterfaceType(text)),
    mac: field.text(),
    pciDeviceAddress: field.text(),
    speed: field.int(),
    slaveActive: field.bool(),
    carrierActive: field.bool(),
    ipAddresses: field.strings(),
    createDate: field.timestamp(),
    lastOpDate: field.timestamp(),
    /** Bond inventory slave record only. */
    gateway: field.text(),
    callBackIp: field.text(),
    offloadStatus: field.text(),
    description: field.text(),
  },
  { defaultPath: 'nic' },
);
export type HostNicRecord = RecordOf<typeof hostNic>;

/** HostNetworkBondingInventory (since 4.7.0); network facts bondings carry a subset. */
export const hostBonding = defineRecord(
  'hostBonding',
  {
    uuid: field.uuid(),
    hostUuid: field.text(),
    bondingName: field.text(),
    bondingType: field.text(),
    speed: field.int(),
    miimon: field.int(),
    mode: field.text(),
    xmitHashPolicy: field.text(),
    miiStatus: field.text(),
    mac: field.text(),
    gateway: field.text(),
    callBackIp: field.text(),
    type: field.text(),
    description: field.text(),
    ipAddresses: field.strings(),
    allSlavesActive: field.bool(),
    createDate: field.timestamp(),
    lastOpDate: field.timestamp(),
    slaves: field.records(hostNic),
  },
  { defaultPath: 'bonding' },
);
export type HostBondingRecord = RecordOf<typeof hostBonding>;

/** GetHostNetworkFacts result (since 3.5.0). */
export const hostNetworkFacts = defineRecord(
  'hostNetworkFacts',
  { bondings: field.records(hostBonding), nics: field.records(hostNic) },
  { defaultPath: 'networkFacts' },
);
export type HostNetworkFactsRecord = RecordOf<typeof hostNetworkFacts>;

/** FC HBA device (since 5.3.0). The spec types every field String; timestamps are still decoded. */
export const hbaDevice = defineRecord('hbaDevice', {
  uuid: field.uuid(),
  name: field.text(),
  hostUuid: field.text(),
  portName: field.text(),
  portState: field.text(),
  hbaType: field.text(),
  speed: field.text(),
  supportedSpeeds: field.text(),
  symbolicName: field.text(),
  supportedClasses: field.text(),
  createDate: field.timestamp(),
  lastOpDate: field.timestamp(),
});
export type HbaDeviceRecord = RecordOf<typeof hbaDevice>;

export const scsiLunHostRef = defineRecord('scsiLunHostRef', {
  scsiLunUuid: field.requiredText(),
  hostUuid: field.requiredText(),
  createDate: field.timestamp(),
  lastOpDate: field.timestamp(),
});
export type ScsiLunHostRefRecord = RecordOf<typeof scsiLunHostRef>;

export const scsiLunVmInstanceRef = defineRecord('scsiLunVmInstanceRef', {
  scsiLunUuid: field.requiredText(),
  vmInstanceUuid: field.requiredText(),
  createDate: field.timestamp(),
});
export type ScsiLunVmInstanceRefRecord = RecordOf<typeof scsiLunVmInstanceRef>;

/** Fibre-channel LUN (since 3.1.0). */
export const fiberChannelLun = defineRecord('fiberChannelLun', {
  uuid: field.uuid(),
  name: field.text(),
  fiberChannelStorageUuid: field.text(),
  wwid: field.text(),
  wwn: field.text(),
  serial: field.text(),
  vendor: field.text(),
  model: field.text(),
  type: field.text(),
  path: field.text(),
  size: field.int(),
  state: field.text(),
  createDate: field.timestamp(),
  lastOpDate: field.timestamp(),
  scsiLunHostRefs: field.records(scsiLunHostRef),
  scsiLunVmInstanceRefs: field.records(scsiLunVmInstanceRef),
});
export type FiberChannelLunRecord = RecordOf<typeof fiberChannelLun>;

export const cbtTask = defineRecord('cbtTask', {
  uuid: field.uuid(),
  name: field.text(),
  description: field.text(),
  createDate: field.timestamp(),
  lastOpDate: field.timestamp(),
  status: field.oneOf(CBT_TASK_STATUSES),
});
export type CbtTaskRecord = RecordOf<typeof cbtTask>;

export const volumeSnapshotRef = defineRecord('volumeSnapshotRef', {
  /** The reference's identity: always decoded. */
  volumeSnapshotUuid: field.requiredText(),
  volumeSnapshotGroupUuid: field.text(),
  volumeUuid: field.text(),
  volumeName: field.text(),
  volumeType: field.text(),
  volumeSnapshotInstallPath: field.text(),
  volumeSnapshotName: field.text(),
  deviceId: field.int(),
  snapshotDeleted: field.bool(),
  createDate: field.timestamp(),
  lastOpDate: field.timestamp(),
});
export type VolumeSnapshotRefRecord = RecordOf<typeof volumeSnapshotRef>;

/** VolumeSnapshotGroupInventory (since 3.6.0). */
export const volumeSnapshotGroup = defineRecord('volumeSnapshotGroup', {
  uuid: field.uuid(),
  name: field.text(),
  description: field.text(),
  snapshotCount: field.int(),
  vmInstanceUuid: field.text(),
  createDate: field.timestamp(),
  lastOpDate: field.timestamp(),
  volumeSnapshotRefs: field.records(volumeSnapshotRef),
});
export type VolumeSnapshotGroupRecord = RecordOf<typeof volumeSnapshotGroup>;

export const usedIp = defineRecord('usedIp', {
  uuid: field.uuid(),
  /** The VM of the NIC the address is allocated to: not on the wire, taken from the NIC or its VM. */
  vmInstanceUuid: field.fromParent(),
  ipRangeUuid: field.text(),
  l3NetworkUuid: field.text(),
  ip: field.text(),
  netmask: field.text(),
  gateway: field.text(),
  usedFor: field.text(),
  vmNicUuid: field.text(),
  ipVersion: field.int(),
  ipInLong: field.int(),
  createDate: field.timestamp(),
  lastOpDate: field.timestamp(),
});
export type UsedIpRecord = RecordOf<typeof usedIp>;

/** A vmNics item and VmNicInventory. */
export const vmNic = defineRecord('vmNic', {
  uuid: field.uuid(),
  /** Its own when the wire has it, else the VM it came embedded in. */
  vmInstanceUuid: field.ownOrParent(),
  l3NetworkUuid: field.text(),
  ip: field.text(),
  mac: field.text(),
  hypervisorType: field.text(),
  netmask: field.text(),
  gateway: field.text(),
  metaData: field.text(),
  /** Lower-cased; null for a value outside the spec's set. */
  driverType: field.oneOf(NIC_DRIVERS, { anyCase: true }),
  internalName: field.text(),
  type: field.text(),
  state: field.text(),
  ipVersion: field.int(),
  deviceId: field.int(),
  createDate: field.timestamp(),
  lastOpDate: field.timestamp(),
  usedIps: field.records(usedIp, 'vmInstanceUuid'),
  usedIpUuid: field.text(),
});
export type VmNicRecord = RecordOf<typeof vmNic>;

/**
 * An allVolumes item, a generic-family `volume` item and an attachable data volume record
 * (which carries a subset: its other fields are null).
 */
export const volume = defineRecord('volume', {
  uuid: field.uuid(),
  name: field.text(),
  description: field.text(),
  primaryStorageUuid: field.text(),
  vmInstanceUuid: field.text(),
  diskOfferingUuid: field.text(),
  rootImageUuid: field.text(),
  installPath: field.text(),
  type: field.text(),
  format: field.text(),
  state: field.text(),
  status: field.text(),
  volumeQos: field.text(),
  lastVmInstanceUuid: field.text(),
  size: field.int(),
  actualSize: field.int(),
  deviceId: field.int(),
  isShareable: field.bool(),
  lastDetachDate: field.timestamp(),
  createDate: field.timestamp(),
  lastOpDate: field.timestamp(),
  encrypted: field.bool(),
});
export type VolumeRecord = RecordOf<typeof volume>;

export const vmCdRom = defineRecord('vmCdRom', {
  uuid: field.uuid(),
  /** Its own when the wire has it, else the VM it came embedded in. */
  vmInstanceUuid: field.ownOrParent(),
  isoUuid: field.text(),
  isoInstallPath: field.text(),
  name: field.text(),
  description: field.text(),
  deviceId: field.int(),
  createDate: field.timestamp(),
  lastOpDate: field.timestamp(),
});
export type VmCdRomRecord = RecordOf<typeof vmCdRom>;

export const vmInstance = defineRecord('vmInstance', {
  uuid: field.uuid(),
  name: field.text(),
  description: field.text(),
  zoneUuid: field.text(),
  clusterUuid: field.text(),
  imageUuid: field.text(),
  hostUuid: field.text(),
  lastHostUuid: field.text(),
  instanceOfferingUuid: field.text(),
  rootVolumeUuid: field.text(),
  defaultL3NetworkUuid: field.text(),
  platform: field.text(),
  architecture: field.text(),
  type: field.text(),
  hypervisorType: field.text(),
  memorySize: field.int(),
  cpuNum: field.int(),
  cpuSpeed: field.int(),
  allocatorStrategy: field.text(),
  createDate: field.timestamp(),
  lastOpDate: field.timestamp(),
  state: field.text(),
  guestOsType: field.text(),
  vmNics: field.records(vmNic, 'uuid'),
  allVolumes: field.records(volume),
  vmCdRoms: field.records(vmCdRom, 'uuid'),
});
export type VmInstanceRecord = RecordOf<typeof vmInstance>;

/** SNSApplicationPlatformInventory (since 2.3). */
export const snsApplicationPlatform = defineRecord('snsApplicationPlatform', {
  uuid: field.uuid(),
  name: field.text(),
  description: field.text(),
  type: field.text(),
  state: field.text(),
  createDate: field.timestamp(),
  lastOpDate: field.timestamp(),
});
export type SnsApplicationPlatformRecord = RecordOf<typeof snsApplicationPlatform>;

/** Tolerated: a bare phone number instead of `{"phoneNumber"}`. */
export const snsSmsReceiver = defineRecord('snsSmsReceiver', { phoneNumber: field.requiredText() }, { fromText: 'phoneNumber' });
export type SnsSmsReceiverRecord = RecordOf<typeof snsSmsReceiver>;

/** SNSApplicationEndpointInventory (since 5.0.0); `type` is HTTP, Email or SMS. */
export const snsApplicationEndpoint = defineRecord('snsApplicationEndpoint', {
  uuid: field.uuid(),
  name: field.text(),
  description: field.text(),
  type: field.text(),
  platformUuid: field.text(),
  state: field.text(),
  createDate: field.timestamp(),
  lastOpDate: field.timestamp(),
  /** HTTP endpoints only (simulator's generic-family record; not in the spec's inventory). */
  url: field.text(),
  /** HTTP endpoints only: the basic-auth user name (simulator's generic-family record). */
  username: field.text(),
  /** SMS endpoints only: the receivers' phone numbers. */
  receivers: field.records(snsSmsReceiver),
});
export type SnsApplicationEndpointRecord = RecordOf<typeof snsApplicationEndpoint>;

/** SNS email address record (since 3.7.0). */
export const snsEmailAddress = defineRecord('snsEmailAddress', {
  uuid: field.uuid(),
  emailAddress: field.text(),
  endpointUuid: field.text(),
  createDate: field.timestamp(),
  lastOpDate: field.timestamp(),
});
export type SnsEmailAddressRecord = RecordOf<typeof snsEmailAddress>;

/** Directory record of the generic family (the spec shows only DeleteDirectory). */
export const directory = defineRecord('directory', {
  uuid: field.uuid(),
  name: field.text(),
  groupName: field.text(),
  parentUuid: field.text(),
  zoneUuid: field.text(),
  type: field.text(),
  createDate: field.timestamp(),
  lastOpDate: field.timestamp(),
});
export type DirectoryRecord = RecordOf<typeof directory>;

/** GetPrimaryStorageCapacity result (since 0.6). */
export const primaryStorageCapacity = defineRecord(
  'primaryStorageCapacity',
  {
    totalCapacity: field.requiredInt(),
    availableCapacity: field.requiredInt(),
    totalPhysicalCapacity: field.requiredInt(),
    availablePhysicalCapacity: field.requiredInt(),
  },
  { defaultPath: 'capacity' },
);
export type PrimaryStorageCapacityRecord = RecordOf<typeof primaryStorageCapacity>;

/** DeleteVolumeSnapshotGroup per-item outcome. */
export const snapshotGroupDeletionResult = defineRecord(
  'snapshotGroupDeletionResult',
  {
    snapshotUuid: field.text(),
    volumeUuid: field.text(),
    /** When the upstream leaves it out: whether no error came with the item. */
    success: field.custom((o, path): boolean => bool(o.success, 'success', path) ?? (o.error === undefined || o.error === null)),
    error: field.custom((o, path, runtime): ErrorCodeRecord | null =>
      o.error === undefined || o.error === null ? null : runtime.errorCode(o.error, `${path}.error`),
    ),
  },
  { defaultPath: 'result' },
);
export type SnapshotGroupDeletionResultRecord = RecordOf<typeof snapshotGroupDeletionResult>;

/**
 * The record types a query's demand narrows (`demand.ts`): the large ones a dashboard decodes by
 * the hundred. Every other record is decoded whole.
 */
export const DEMANDED_RECORDS = {
  vmInstance,
  vmNic,
  usedIp,
  volume,
  vmCdRom,
  host,
  hbaDevice,
  volumeSnapshotGroup,
  volumeSnapshotRef,
} as const;

/** Every record definition, by the name `RecordDecoder` decodes it under. */
export const RECORDS = {
  ...DEMANDED_RECORDS,
  hostNic,
  hostBonding,
  hostNetworkFacts,
  scsiLunHostRef,
  scsiLunVmInstanceRef,
  fiberChannelLun,
  cbtTask,
  snsApplicationPlatform,
  snsSmsReceiver,
  snsApplicationEndpoint,
  snsEmailAddress,
  directory,
  primaryStorageCapacity,
  snapshotGroupDeletionResult,
} as const;

