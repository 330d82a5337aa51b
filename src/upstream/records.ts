/**
 * The upstream's records, each defined once (`defineRecord`): its type, the fields a demand can
 * narrow and its decoder all derive from the definition below, and a field's description is what
 * the GraphQL schema says of it wherever it is exposed (`exposeRecordFields`). A field's kind is an
 * upstream fact: `uuidRef` for another record's uuid, `long` for a Java Long, `int` for an Integer.
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
import { defineRecord, field, type FieldDoc, type RecordOf } from './define-record.js';
import { decodeErrorCode, type ErrorCodeRecord } from './error-code.js';
import type { Release } from './releases.js';
import { bool } from './wire.js';

export type { ErrorCodeRecord } from './error-code.js';
export type { Instant, Uuid } from './wire.js';

const HW_MONITOR_STATUSES = ['Normal', 'Error', 'Unknown'] as const;
export type HwMonitorStatus = (typeof HW_MONITOR_STATUSES)[number];

/** A VM NIC's emulated device model: the spec's closed set (`driverType`), in lower case. */
const NIC_DRIVERS = ['virtio', 'e1000', 'rtl8139'] as const;
export type NicDriver = (typeof NIC_DRIVERS)[number];

const CBT_TASK_STATUSES = ['Created', 'Starting', 'Running', 'Stopped', 'Failed'] as const;
export type CbtTaskStatus = (typeof CBT_TASK_STATUSES)[number];

/** Canonical interfaceType: `nomaster`/`noMaster` → noMaster, `bondSlave`/`bondingSlave` → bondingSlave. */
const INTERFACE_TYPE_VALUES = ['noMaster', 'bridgeSlave', 'bondingSlave'] as const;
export type InterfaceType = (typeof INTERFACE_TYPE_VALUES)[number];

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

const hwStatus = (fieldDoc: FieldDoc) => field.oneOf(HW_MONITOR_STATUSES, fieldDoc);

/** A field's documentation: its description, and the release that brought it when it names one. */
const doc = (description: string, since: Release | undefined): FieldDoc => (since === undefined ? { description } : { description, since });

/** A record's identity and names, as most records give them. */
const identified = (since?: Release) => ({
  uuid: field.uuid(doc('Identifier.', since)),
  name: field.text(doc('Name.', since)),
  description: field.text(doc('Description.', since)),
});

/** When a record was created and last changed, as most records say it. */
const changeTimes = (since?: Release) => ({
  createDate: field.timestamp(doc('Creation time.', since)),
  lastOpDate: field.timestamp(doc('Last update time.', since)),
});

/** A bond's usage state (`bondingType`), as the spec names it. */
const BONDING_TYPES = ['noBridge', 'bridgeSlave'] as const;

/** A volume's type, on the volume and on a snapshot reference. */
const VOLUME_TYPES = ['Root', 'Data'] as const;

/** A VM's guest platform, CPU architecture and kind, as the spec lists them. */
const VM_PLATFORMS = ['Windows', 'Linux', 'Other'] as const;
const VM_ARCHITECTURES = ['x86_64', 'aarch64', 'Other'] as const;
const VM_TYPES = ['UserVm', 'ApplianceVm'] as const;

/** How an SNS platform and its endpoints deliver. */
const SNS_TYPES = ['HTTP', 'Email', 'SMS'] as const;

/*
 * The open sets below hold the values the spec shows (and those the simulator plays); a value
 * outside one is kept as an `UnrecognizedValue`, which the schema answers as its enum's fallback.
 */

/** Whether a record is in use: hosts, volumes, LUNs, SNS platforms and endpoints (`Enabled` seen). */
const RESOURCE_STATES = ['Enabled', 'Disabled'] as const;

/** A host's connection to the management node (`Connected` seen). */
const HOST_STATUSES = ['Connected', 'Disconnected'] as const;

/** The hypervisor of a host, a VM or a NIC (`KVM`, typically). */
const HYPERVISOR_TYPES = ['KVM'] as const;

/** A host's chassis power as IPMI reports it (ipmitool's `chassis power status` text). */
const IPMI_POWER_STATUSES = ['Chassis Power is on', 'Chassis Power is off'] as const;

/** An FC HBA port's link state (`Online` seen) and the HBA's kind. */
const HBA_PORT_STATES = ['Online', 'Linkdown'] as const;
const HBA_TYPES = ['FC'] as const;

/** A Linux bond's mode, transmit hash policy and MII link status, as the kernel names them; the bond's implementation. */
const BONDING_MODES = ['balance-rr', 'active-backup', 'balance-xor', 'broadcast', '802.3ad', 'balance-tlb', 'balance-alb'] as const;
const XMIT_HASH_POLICIES = ['layer2', 'layer2+3', 'layer3+4', 'encap2+3', 'encap3+4', 'vlan+srcmac'] as const;
const MII_STATUSES = ['up', 'down'] as const;
const BONDING_IMPLEMENTATIONS = ['LinuxBonding'] as const;

/** A LUN's disk type. */
const LUN_TYPES = ['disk'] as const;

/** A volume's status (`Ready` seen) and disk format. */
const VOLUME_STATUSES = ['Ready'] as const;
const VOLUME_FORMATS = ['qcow2', 'raw'] as const;

/** A VM's state (`Running`, `Stopped` seen; `Destroyed` what RecoverVmInstance starts from) and host allocation strategy. */
const VM_STATES = ['Running', 'Stopped', 'Destroyed'] as const;
const VM_ALLOCATOR_STRATEGIES = ['LastHostPreferredAllocatorStrategy'] as const;

/** A VM NIC's type (`VNIC`, in any case) and state (`enable` seen). */
const VM_NIC_TYPES = ['VNIC'] as const;
const VM_NIC_STATES = ['enable'] as const;

/** The kind of resources a directory holds. */
const DIRECTORY_TYPES = ['vminstance'] as const;

export const host = defineRecord('host', {
  uuid: field.uuid({ description: 'Identifier.', since: '0.6' }),
  zoneUuid: field.uuidRef({ description: 'Data center (zone) the host belongs to.', since: '0.6' }),
  clusterUuid: field.uuidRef({ description: 'Cluster the host belongs to.', since: '0.6' }),
  name: field.text({ description: 'Name.', since: '0.6' }),
  description: field.text({ description: 'Description.', since: '0.6' }),
  managementIp: field.text({ description: 'Management IP address.', since: '0.6' }),
  hypervisorType: field.oneOf(HYPERVISOR_TYPES, { description: 'Hypervisor type, typically `KVM`.', since: '0.6' }),
  state: field.oneOf(RESOURCE_STATES, { description: 'Resource state: whether the host takes new VMs (`Enabled`).', since: '0.6' }),
  status: field.oneOf(HOST_STATUSES, { description: 'Connection status: whether the management node reaches the host (`Connected`).', since: '0.6' }),
  totalCpuCapacity: field.long({ description: 'Total CPU capacity, in vCPUs the host can allocate: its logical CPUs times the CPU overcommit ratio.', since: '0.6' }),
  availableCpuCapacity: field.long({ description: 'CPU capacity still available, in vCPUs (as `totalCpuCapacity`).', since: '0.6' }),
  totalMemoryCapacity: field.long({ description: 'Total memory in bytes.', since: '0.6' }),
  availableMemoryCapacity: field.long({ description: 'Memory still available, in bytes.', since: '0.6' }),
  cpuSockets: field.int({ description: 'Physical CPU socket count.', since: '0.6' }),
  cpuNum: field.int({ description: 'Logical CPU count.', since: '0.6' }),
  ipmiAddress: field.text({ description: 'IPMI address.', since: '0.6' }),
  ipmiUsername: field.text({ description: 'IPMI user name.', since: '0.6' }),
  ipmiPowerStatus: field.oneOf(IPMI_POWER_STATUSES, { description: 'Chassis power reported over IPMI.', since: '0.6' }),
  ipmiPort: field.int({ description: 'IPMI port.', since: '0.6' }),
  architecture: field.oneOf(VM_ARCHITECTURES, { description: 'CPU architecture: `x86_64`, `aarch64` or `Other`.', since: '0.6' }),
  nqn: field.text({ description: 'NVMe qualified name.', since: '4.10.6' }),
  hostname: field.text({ description: 'Host name.', since: '4.10.20' }),
  createDate: field.timestamp({ description: 'When the host was added.', since: '0.6' }),
  lastOpDate: field.timestamp({ description: 'When the host record last changed.', since: '0.6' }),
  cpuStatus: hwStatus({ description: 'CPU hardware monitor status.', since: '4.10.0' }),
  memoryStatus: hwStatus({ description: 'Memory hardware monitor status.', since: '4.10.0' }),
  diskStatus: hwStatus({ description: 'Disk hardware monitor status.', since: '4.10.0' }),
  nicStatus: hwStatus({ description: 'NIC hardware monitor status.', since: '4.10.0' }),
  gpuStatus: hwStatus({ description: 'GPU hardware monitor status.', since: '4.10.0' }),
  powerSupplyStatus: hwStatus({ description: 'Power supply hardware monitor status.', since: '4.10.0' }),
  fanStatus: hwStatus({ description: 'Fan hardware monitor status.', since: '4.10.0' }),
  raidStatus: hwStatus({ description: 'RAID hardware monitor status.', since: '4.10.0' }),
  temperatureStatus: hwStatus({ description: 'Temperature hardware monitor status.', since: '4.10.0' }),
}, { since: '0.6' });
export type HostRecord = RecordOf<typeof host>;

/**
 * A host NIC: a bond's slave or a plain NIC. One record serves the network facts record and the
 * bond inventory's slave record; fields only one of them carries are null in the other.
 */
export const hostNic = defineRecord(
  'hostNic',
  {
    uuid: field.uuid({ description: 'Identifier.' }),
    hostUuid: field.uuidRef({ description: 'Host the NIC is in.' }),
    bondingUuid: field.uuidRef({ description: 'Bond this NIC is a slave of, if any.' }),
    interfaceName: field.text({ description: 'Interface name, e.g. `eth0`.' }),
    interfaceType: field.normalized(INTERFACE_TYPE_VALUES, (text) => normalizeInterfaceType(text), { description: 'How the NIC is attached (spellings normalized).' }),
    mac: field.text({ description: 'MAC address.' }),
    pciDeviceAddress: field.text({ description: 'PCI device address.' }),
    speed: field.long({ description: 'Link speed in Mbit/s.' }),
    slaveActive: field.bool({ description: 'Bond link status of this slave.' }),
    carrierActive: field.bool({ description: 'Physical link status.' }),
    ipAddresses: field.strings({ description: 'IP addresses on the NIC.' }),
    ...changeTimes(),
    gateway: field.text({ description: 'Gateway (bond inventory slave record).', since: '4.7.0' }),
    callBackIp: field.text({ description: 'Callback IP (bond inventory slave record).', since: '4.7.0' }),
    offloadStatus: field.text({ description: 'Offload status (bond inventory slave record).', since: '4.7.0' }),
    description: field.text({ description: 'Description (bond inventory slave record).', since: '4.7.0' }),
  },
  { defaultPath: 'nic', since: '3.5.0' },
);
export type HostNicRecord = RecordOf<typeof hostNic>;

/** HostNetworkBondingInventory (since 4.7.0); network facts bondings carry a subset. */
export const hostBonding = defineRecord(
  'hostBonding',
  {
    uuid: field.uuid({ description: 'Identifier.' }),
    hostUuid: field.uuidRef({ description: 'Host the bond is on.' }),
    bondingName: field.text({ description: 'Bond name, e.g. `bond0`.' }),
    bondingType: field.oneOf(BONDING_TYPES, { description: 'Bond usage state: `noBridge` (the bond carries addresses itself) or `bridgeSlave` (it is enslaved to a bridge).', since: '4.7.0' }),
    speed: field.long({ description: 'Bond speed in Mbit/s.', since: '4.7.0' }),
    miimon: field.long({ description: 'MII link monitoring interval, in milliseconds.' }),
    mode: field.oneOf(BONDING_MODES, { description: 'Bonding mode, as Linux names it (e.g. `802.3ad`).' }),
    xmitHashPolicy: field.oneOf(XMIT_HASH_POLICIES, { description: 'Transmit hash policy, as Linux names it (e.g. `layer2+3`).' }),
    miiStatus: field.oneOf(MII_STATUSES, { description: 'MII link status: `up` or `down`.' }),
    mac: field.text({ description: 'MAC address of the bond.' }),
    gateway: field.text({ description: 'Gateway.', since: '4.7.0' }),
    callBackIp: field.text({ description: 'Callback IP.', since: '4.7.0' }),
    type: field.oneOf(BONDING_IMPLEMENTATIONS, { description: 'How the bond is implemented, e.g. `LinuxBonding`.', since: '4.7.0' }),
    description: field.text({ description: 'Description.', since: '4.7.0' }),
    ipAddresses: field.strings({ description: 'IP addresses on the bond.' }),
    allSlavesActive: field.bool({ description: 'Whether every slave NIC is active.' }),
    ...changeTimes(),
    slaves: field.records(hostNic),
  },
  { defaultPath: 'bonding', since: '3.5.0' },
);
export type HostBondingRecord = RecordOf<typeof hostBonding>;

/** GetHostNetworkFacts result (since 3.5.0). */
export const hostNetworkFacts = defineRecord(
  'hostNetworkFacts',
  { bondings: field.records(hostBonding), nics: field.records(hostNic) },
  { defaultPath: 'networkFacts', since: '3.5.0' },
);
export type HostNetworkFactsRecord = RecordOf<typeof hostNetworkFacts>;

/** FC HBA device (since 5.3.0). The spec types every field String; timestamps are still decoded. */
export const hbaDevice = defineRecord('hbaDevice', {
  uuid: field.uuid({ description: 'Identifier.', since: '5.3.0' }),
  name: field.text({ description: 'Port name, e.g. `host1`.', since: '5.3.0' }),
  hostUuid: field.uuidRef({ description: 'Host the HBA is installed in.', since: '5.3.0' }),
  portName: field.text({ description: 'World wide port name (WWPN) of the port.', since: '5.3.0' }),
  portState: field.oneOf(HBA_PORT_STATES, { description: 'Port link state: `Online` or `Linkdown`.', since: '5.3.0' }),
  hbaType: field.oneOf(HBA_TYPES, { description: 'HBA type, e.g. `FC`.', since: '5.3.0' }),
  speed: field.text({ description: 'Current port speed as the upstream writes it, a number with its unit (e.g. `16 Gbit`); `speed` reads it in Mbit/s.', since: '5.3.0' }),
  supportedSpeeds: field.text({ description: 'Speeds the port supports as the upstream writes them (e.g. `4 Gbit, 8 Gbit, 16 Gbit`); `supportedSpeeds` reads them in Mbit/s.', since: '5.3.0' }),
  symbolicName: field.text({ description: 'Symbolic name: adapter model, firmware and driver versions.', since: '5.3.0' }),
  supportedClasses: field.text({ description: 'Fibre-channel classes of service supported, e.g. `Class 3`.', since: '5.3.0' }),
  createDate: field.timestamp({ description: 'When the port was discovered.', since: '5.3.0' }),
  lastOpDate: field.timestamp({ description: 'When the port record last changed.', since: '5.3.0' }),
}, { since: '5.3.0' });
export type HbaDeviceRecord = RecordOf<typeof hbaDevice>;

export const scsiLunHostRef = defineRecord('scsiLunHostRef', {
  scsiLunUuid: field.requiredUuidRef({ description: 'The LUN.', since: '3.1.0' }),
  hostUuid: field.requiredUuidRef({ description: 'The host that sees the LUN.', since: '3.1.0' }),
  createDate: field.timestamp({ description: 'When the mapping was made.', since: '3.1.0' }),
  lastOpDate: field.timestamp({ description: 'When the mapping last changed.', since: '3.1.0' }),
}, { since: '3.1.0' });
export type ScsiLunHostRefRecord = RecordOf<typeof scsiLunHostRef>;

export const scsiLunVmInstanceRef = defineRecord('scsiLunVmInstanceRef', {
  scsiLunUuid: field.requiredUuidRef({ description: 'The LUN.', since: '3.1.0' }),
  vmInstanceUuid: field.requiredUuidRef({ description: 'The VM using the LUN.', since: '3.1.0' }),
  createDate: field.timestamp({ description: 'When the mapping was made.', since: '3.1.0' }),
}, { since: '3.1.0' });
export type ScsiLunVmInstanceRefRecord = RecordOf<typeof scsiLunVmInstanceRef>;

/** Fibre-channel LUN (since 3.1.0). */
export const fiberChannelLun = defineRecord('fiberChannelLun', {
  uuid: field.uuid({ description: 'Identifier.', since: '3.1.0' }),
  name: field.text({ description: 'Name.', since: '3.1.0' }),
  fiberChannelStorageUuid: field.uuidRef({ description: 'The FC SAN storage the LUN belongs to.', since: '3.1.0' }),
  wwid: field.text({ description: 'World wide identifier of the disk.', since: '3.1.0' }),
  wwn: field.text({ description: 'World wide name of the disk.', since: '3.1.0' }),
  serial: field.text({ description: 'Serial number of the disk.', since: '3.1.0' }),
  vendor: field.text({ description: 'Disk vendor.', since: '3.1.0' }),
  model: field.text({ description: 'Disk model.', since: '3.1.0' }),
  type: field.oneOf(LUN_TYPES, { description: 'Disk type, e.g. `disk`.', since: '3.1.0' }),
  path: field.text({ description: 'Disk path on the hosts.', since: '3.1.0' }),
  size: field.long({ description: 'Disk size in bytes.', since: '3.1.0' }),
  state: field.oneOf(RESOURCE_STATES, { description: 'Whether the LUN is in use (`Enabled`).', since: '3.1.0' }),
  createDate: field.timestamp({ description: 'When the LUN was discovered.', since: '3.1.0' }),
  lastOpDate: field.timestamp({ description: 'When the LUN record last changed.', since: '3.1.0' }),
  scsiLunHostRefs: field.references(scsiLunHostRef),
  scsiLunVmInstanceRefs: field.references(scsiLunVmInstanceRef),
}, { since: '3.1.0' });
export type FiberChannelLunRecord = RecordOf<typeof fiberChannelLun>;

export const cbtTask = defineRecord('cbtTask', {
  ...identified('4.10.10'),
  createDate: field.timestamp({ description: 'When the task was created.', since: '4.10.10' }),
  lastOpDate: field.timestamp({ description: 'When the task last changed.', since: '4.10.10' }),
  status: field.oneOf(CBT_TASK_STATUSES, { description: 'Lifecycle status.', since: '4.10.10' }),
}, { since: '4.10.10' });
export type CbtTaskRecord = RecordOf<typeof cbtTask>;

export const volumeSnapshotRef = defineRecord('volumeSnapshotRef', {
  /** The reference's identity: always decoded. */
  volumeSnapshotUuid: field.requiredUuidRef({ description: 'The volume snapshot.', since: '3.6.0' }),
  volumeSnapshotGroupUuid: field.uuidRef({ description: 'Group the snapshot belongs to.', since: '3.6.0' }),
  volumeUuid: field.uuidRef({ description: 'Volume the snapshot was taken of.', since: '3.6.0' }),
  volumeName: field.text({ description: 'Name of the volume when the snapshot was taken.', since: '3.6.0' }),
  volumeType: field.oneOf(VOLUME_TYPES, { description: 'Type of the volume: `Root` or `Data`.', since: '3.6.0' }),
  volumeSnapshotInstallPath: field.text({ description: 'Path of the snapshot on its storage.', since: '3.6.0' }),
  volumeSnapshotName: field.text({ description: 'Name of the snapshot.', since: '3.6.0' }),
  deviceId: field.int({ description: 'Device order of the volume when the snapshot was taken.', since: '3.6.0' }),
  snapshotDeleted: field.bool({ description: 'Whether the snapshot has since been deleted.', since: '3.6.0' }),
  ...changeTimes('3.6.0'),
}, { since: '3.6.0' });
export type VolumeSnapshotRefRecord = RecordOf<typeof volumeSnapshotRef>;

/** VolumeSnapshotGroupInventory (since 3.6.0). */
export const volumeSnapshotGroup = defineRecord('volumeSnapshotGroup', {
  ...identified('3.6.0'),
  snapshotCount: field.int({ description: 'How many snapshots the group holds.', since: '3.6.0' }),
  vmInstanceUuid: field.uuidRef({ description: 'VM whose volumes were snapshotted.', since: '3.6.0' }),
  ...changeTimes('3.6.0'),
  volumeSnapshotRefs: field.references(volumeSnapshotRef),
}, { since: '3.6.0' });
export type VolumeSnapshotGroupRecord = RecordOf<typeof volumeSnapshotGroup>;

export const usedIp = defineRecord('usedIp', {
  uuid: field.uuid({ description: 'Identifier.', since: '4.10.0' }),
  /** The VM of the NIC the address is allocated to: not on the wire, taken from the NIC or its VM. */
  vmInstanceUuid: field.fromParent(),
  ipRangeUuid: field.uuidRef({ description: 'IP range the address comes from.', since: '4.10.0' }),
  l3NetworkUuid: field.uuidRef({ description: 'L3 network of the address.', since: '4.10.0' }),
  ip: field.text({ description: 'IP address.', since: '4.10.0' }),
  netmask: field.text({ description: 'Netmask.', since: '4.10.0' }),
  gateway: field.text({ description: 'Gateway.', since: '4.10.0' }),
  usedFor: field.text({ description: 'What the address is used for.', since: '4.10.0' }),
  vmNicUuid: field.uuidRef({ description: 'NIC the address is allocated to.', since: '4.10.0' }),
  ipVersion: field.int({ description: 'IP version: 4 or 6.', since: '4.10.0' }),
  ipInLong: field.long({ description: 'The IPv4 address as a number; null for IPv6.', since: '4.10.0' }),
  ...changeTimes('4.10.0'),
}, { since: '4.10.0' });
export type UsedIpRecord = RecordOf<typeof usedIp>;

/** A vmNics item and VmNicInventory. */
export const vmNic = defineRecord('vmNic', {
  uuid: field.uuid({ description: 'Identifier.', since: '3.9.0' }),
  /** Its own when the wire has it, else the VM it came embedded in. */
  vmInstanceUuid: field.ownOrParent({ description: 'VM the NIC belongs to.', since: '3.9.0' }),
  l3NetworkUuid: field.uuidRef({ description: 'L3 network the NIC is on.', since: '3.9.0' }),
  ip: field.text({ description: 'IP address.', since: '3.9.0' }),
  mac: field.text({ description: 'MAC address.', since: '3.9.0' }),
  hypervisorType: field.oneOf(HYPERVISOR_TYPES, { description: 'Hypervisor type, typically `KVM` (an embedded `vmNics` item carries it since 3.17.13, VmNicInventory since 4.7.13).', since: '3.17.13' }),
  netmask: field.text({ description: 'Netmask.', since: '3.9.0' }),
  gateway: field.text({ description: 'Gateway.', since: '3.9.0' }),
  metaData: field.text({ description: 'Metadata text.', since: '3.9.0' }),
  /** Lower-cased; null for a value outside the spec's set. */
  driverType: field.oneOf(NIC_DRIVERS, {
    anyCase: true,
    description: 'Emulated device model; null when the upstream reports a value outside `virtio`, `e1000`, `rtl8139` (an embedded `vmNics` item carries it since 3.17.13, VmNicInventory since 4.7.13).',
    since: '3.17.13',
  }),
  internalName: field.text({ description: 'Name of the device inside the hypervisor (an embedded `vmNics` item carries it since 3.17.13, VmNicInventory since 4.7.13).', since: '3.17.13' }),
  type: field.normalized(VM_NIC_TYPES, (text) => (text.toUpperCase() === 'VNIC' ? 'VNIC' : null), {
    description: 'NIC type, e.g. `VNIC`, in any case (an embedded `vmNics` item carries it since 3.17.13, VmNicInventory since 4.7.13).',
    since: '3.17.13',
  }),
  state: field.oneOf(VM_NIC_STATES, { description: 'NIC state, e.g. `enable` (an embedded `vmNics` item carries it since 3.17.13, VmNicInventory since 4.7.13).', since: '3.17.13' }),
  ipVersion: field.int({ description: 'IP version of `ip`: 4 or 6.', since: '3.9.0' }),
  deviceId: field.int({ description: 'Device order of the NIC in the VM.', since: '3.9.0' }),
  ...changeTimes('3.9.0'),
  usedIps: field.records(usedIp, 'vmInstanceUuid'),
  usedIpUuid: field.uuidRef({ description: 'The used-IP record of `ip`, when the upstream returns it.', since: '3.9.0' }),
}, { since: '3.9.0' });
export type VmNicRecord = RecordOf<typeof vmNic>;

/**
 * An allVolumes item, a cursor-family `volume` item and an attachable data volume record
 * (which carries a subset: its other fields are null).
 */
export const volume = defineRecord('volume', {
  ...identified('3.17.13'),
  primaryStorageUuid: field.uuidRef({ description: 'Primary storage holding the volume.', since: '3.17.13' }),
  vmInstanceUuid: field.uuidRef({ description: 'VM the volume is attached to; null when detached.', since: '3.17.13' }),
  diskOfferingUuid: field.uuidRef({ description: 'Disk offering the volume was created from.', since: '3.17.13' }),
  rootImageUuid: field.uuidRef({ description: 'Image a root volume was created from.', since: '3.17.13' }),
  installPath: field.text({ description: 'Path of the volume on its primary storage.', since: '3.17.13' }),
  type: field.oneOf(VOLUME_TYPES, { description: 'Volume type: `Root` (a VM\'s boot disk) or `Data`.', since: '3.17.13' }),
  format: field.oneOf(VOLUME_FORMATS, { description: 'Disk format: `qcow2` or `raw`.', since: '3.17.13' }),
  state: field.oneOf(RESOURCE_STATES, { description: 'Volume state: whether the volume is in use (`Enabled`).', since: '3.17.13' }),
  status: field.oneOf(VOLUME_STATUSES, { description: 'Volume status, e.g. `Ready`.', since: '3.17.13' }),
  volumeQos: field.text({ description: 'QoS settings of the volume.', since: '3.17.13' }),
  lastVmInstanceUuid: field.uuidRef({ description: 'VM the volume was last attached to.', since: '3.17.13' }),
  size: field.long({ description: 'Virtual size in bytes.', since: '3.17.13' }),
  actualSize: field.long({ description: 'Space actually used on the primary storage, in bytes.', since: '3.17.13' }),
  deviceId: field.int({ description: 'Device order in the VM (0 is the boot volume); null when detached.', since: '3.17.13' }),
  isShareable: field.bool({ description: 'Whether several VMs may attach the volume.', since: '3.17.13' }),
  lastDetachDate: field.timestamp({ description: 'When the volume was last detached.', since: '3.17.13' }),
  ...changeTimes('3.17.13'),
  encrypted: field.bool({ description: 'Whether the volume is encrypted.', since: '5.1.0' }),
}, { since: '3.17.13' });
export type VolumeRecord = RecordOf<typeof volume>;

export const vmCdRom = defineRecord('vmCdRom', {
  uuid: field.uuid({ description: 'Identifier.', since: '3.17.13' }),
  /** Its own when the wire has it, else the VM it came embedded in. */
  vmInstanceUuid: field.ownOrParent({ description: 'VM the drive belongs to.', since: '3.17.13' }),
  isoUuid: field.uuidRef({ description: 'ISO image in the drive; null when empty.', since: '3.17.13' }),
  isoInstallPath: field.text({ description: 'Install path of the ISO image.', since: '3.17.13' }),
  name: field.text({ description: 'Name.', since: '3.17.13' }),
  description: field.text({ description: 'Description.', since: '3.17.13' }),
  deviceId: field.int({ description: 'Device order of the drive in the VM.', since: '3.17.13' }),
  ...changeTimes('3.17.13'),
}, { since: '3.17.13' });
export type VmCdRomRecord = RecordOf<typeof vmCdRom>;

export const vmInstance = defineRecord('vmInstance', {
  ...identified('0.6'),
  zoneUuid: field.uuidRef({ description: 'Zone (data center) of the VM.', since: '0.6' }),
  clusterUuid: field.uuidRef({ description: 'Cluster of the VM.', since: '0.6' }),
  imageUuid: field.uuidRef({ description: 'Image the VM was created from.', since: '0.6' }),
  hostUuid: field.uuidRef({ description: 'Host the VM runs on now; null when it is not placed.', since: '0.6' }),
  lastHostUuid: field.uuidRef({ description: 'Host the VM last ran on.', since: '0.6' }),
  instanceOfferingUuid: field.uuidRef({ description: 'Instance offering (CPU/memory template) of the VM.', since: '0.6' }),
  rootVolumeUuid: field.uuidRef({ description: 'Root (boot) volume.', since: '0.6' }),
  defaultL3NetworkUuid: field.uuidRef({ description: 'Default L3 network.', since: '0.6' }),
  platform: field.oneOf(VM_PLATFORMS, { description: 'Guest platform: `Windows`, `Linux` or `Other`.', since: '0.6' }),
  architecture: field.oneOf(VM_ARCHITECTURES, { description: 'CPU architecture: `x86_64`, `aarch64` or `Other`.', since: '0.6' }),
  type: field.oneOf(VM_TYPES, { description: 'A user VM (`UserVm`) or a platform special-purpose VM (`ApplianceVm`).', since: '0.6' }),
  hypervisorType: field.oneOf(HYPERVISOR_TYPES, { description: 'Hypervisor type, typically `KVM`.', since: '0.6' }),
  memorySize: field.long({ description: 'Memory size in bytes.', since: '0.6' }),
  cpuNum: field.int({ description: 'CPU count.', since: '0.6' }),
  cpuSpeed: field.long({ description: 'CPU speed in MHz; 0 when the VM sets none.', since: '0.6' }),
  allocatorStrategy: field.oneOf(VM_ALLOCATOR_STRATEGIES, { description: 'Host allocation strategy, e.g. `LastHostPreferredAllocatorStrategy`.', since: '0.6' }),
  createDate: field.timestamp({ description: 'When the VM was created.', since: '0.6' }),
  lastOpDate: field.timestamp({ description: 'When the VM record last changed.', since: '0.6' }),
  state: field.oneOf(VM_STATES, { description: 'VM state: `Running`, `Stopped` or `Destroyed` (recoverable).', since: '0.6' }),
  guestOsType: field.text({ description: 'Guest OS type, e.g. `CentOS 7`.', since: '3.11.2' }),
  // The lists are as old as the VM record; their items, per the spec, only since 3.17.13.
  vmNics: field.records(vmNic, 'uuid', { since: '3.17.13' }),
  allVolumes: field.records(volume, undefined, { since: '3.17.13' }),
  vmCdRoms: field.records(vmCdRom, 'uuid', { since: '3.17.13' }),
}, { since: '0.6' });
export type VmInstanceRecord = RecordOf<typeof vmInstance>;

/** SNSApplicationPlatformInventory (since 2.3). */
export const snsApplicationPlatform = defineRecord('snsApplicationPlatform', {
  ...identified('2.3'),
  type: field.oneOf(SNS_TYPES, { description: 'How the platform delivers: `HTTP`, `Email` or `SMS`, as its endpoints do.', since: '2.3' }),
  state: field.oneOf(RESOURCE_STATES, {
    description: 'Platform state: `Enabled` after ChangeSNSApplicationPlatformState with `enable`; the state `disable` gives is unshown in the spec (`Disabled` in the simulator).',
    since: '2.3',
  }),
  createDate: field.timestamp({ description: 'When the platform was created.', since: '2.3' }),
  lastOpDate: field.timestamp({ description: 'When the platform last changed.', since: '2.3' }),
}, { since: '2.3' });
export type SnsApplicationPlatformRecord = RecordOf<typeof snsApplicationPlatform>;

/** Tolerated: a bare phone number instead of `{"phoneNumber"}`. */
export const snsSmsReceiver = defineRecord(
  'snsSmsReceiver',
  { phoneNumber: field.requiredText({ description: 'Phone number texted by the endpoint.', since: '3.7.0' }) },
  { fromText: 'phoneNumber', since: '3.7.0' },
);
export type SnsSmsReceiverRecord = RecordOf<typeof snsSmsReceiver>;

/** SNSApplicationEndpointInventory (since 5.0.0); `type` is HTTP, Email or SMS. */
export const snsApplicationEndpoint = defineRecord('snsApplicationEndpoint', {
  ...identified('5.0.0'),
  type: field.oneOf(SNS_TYPES, { description: 'Delivery type: `HTTP`, `Email` or `SMS`.', since: '5.0.0' }),
  platformUuid: field.uuidRef({ description: 'The platform the endpoint belongs to.', since: '5.0.0' }),
  state: field.oneOf(RESOURCE_STATES, { description: 'Endpoint state, e.g. `Enabled`.', since: '5.0.0' }),
  createDate: field.timestamp({ description: 'When the endpoint was created.', since: '5.0.0' }),
  lastOpDate: field.timestamp({ description: 'When the endpoint last changed.', since: '5.0.0' }),
  /** HTTP endpoints only (simulator's cursor-family record; not in the spec's inventory). */
  // UpdateSNSHttpEndpoint sets both since 4.2.0; endpoint records carry them since 5.0.0.
  url: field.text({ description: 'HTTP endpoints only: the webhook URL (set by UpdateSNSHttpEndpoint); null for other types.' }),
  /** HTTP endpoints only: the basic-auth user name (simulator's cursor-family record). */
  username: field.text({
    description: 'HTTP endpoints only: the user name sent to the webhook (set by UpdateSNSHttpEndpoint); null for other types.',
  }),
  /** SMS endpoints only: the receivers' phone numbers. */
  receivers: field.records(snsSmsReceiver),
}, { since: '5.0.0' });
export type SnsApplicationEndpointRecord = RecordOf<typeof snsApplicationEndpoint>;

/** SNS email address record (since 3.7.0). */
export const snsEmailAddress = defineRecord('snsEmailAddress', {
  uuid: field.uuid({ description: 'Identifier.', since: '3.7.0' }),
  emailAddress: field.text({ description: 'The email address.', since: '3.7.0' }),
  endpointUuid: field.uuidRef({ description: 'The Email endpoint the address belongs to.', since: '3.7.0' }),
  createDate: field.timestamp({ description: 'When the address was added.', since: '3.7.0' }),
  lastOpDate: field.timestamp({ description: 'When the address last changed.', since: '3.7.0' }),
}, { since: '3.7.0' });
export type SnsEmailAddressRecord = RecordOf<typeof snsEmailAddress>;

/**
 * Directory record of the cursor family (resourceType `directory`): the spec shows only
 * DeleteDirectory, whose parameter names one, so the record is the simulator's and the fields are
 * those of the service's directory inventory.
 */
export const directory = defineRecord('directory', {
  uuid: field.uuid({ description: 'Identifier.' }),
  name: field.text({ description: 'Name.' }),
  groupName: field.text({ description: 'Name of the group of resources the directory organizes.' }),
  parentUuid: field.uuidRef({ description: 'The parent directory; null for a top-level one.' }),
  zoneUuid: field.uuidRef({ description: 'Zone (data center) the directory belongs to.' }),
  type: field.oneOf(DIRECTORY_TYPES, { description: 'Kind of resources the directory holds, e.g. `vminstance`.' }),
  createDate: field.timestamp({ description: 'When the directory was created.' }),
  lastOpDate: field.timestamp({ description: 'When the directory last changed.' }),
}, { since: '4.6.0' });
export type DirectoryRecord = RecordOf<typeof directory>;

/** GetPrimaryStorageCapacity result (since 0.6). */
export const primaryStorageCapacity = defineRecord(
  'primaryStorageCapacity',
  {
    totalCapacity: field.requiredLong({ description: 'Total capacity, in bytes.', since: '0.6' }),
    availableCapacity: field.requiredLong({ description: 'Capacity still available for allocation, in bytes (thin provisioning may let it exceed what is physically free).', since: '0.6' }),
    totalPhysicalCapacity: field.requiredLong({ description: 'Total physical capacity, in bytes.', since: '0.6' }),
    availablePhysicalCapacity: field.requiredLong({ description: 'Physical capacity still free, in bytes.', since: '0.6' }),
  },
  { defaultPath: 'capacity', since: '0.6' },
);
export type PrimaryStorageCapacityRecord = RecordOf<typeof primaryStorageCapacity>;

/** DeleteVolumeSnapshotGroup per-item outcome. */
export const snapshotGroupDeletionResult = defineRecord(
  'snapshotGroupDeletionResult',
  {
    snapshotUuid: field.uuidRef(),
    volumeUuid: field.uuidRef(),
    /** When the upstream leaves it out: whether no error came with the item. */
    success: field.custom((o, path): boolean => bool(o.success, 'success', path) ?? (o.error === undefined || o.error === null)),
    error: field.custom((o, path): ErrorCodeRecord | null => (o.error === undefined || o.error === null ? null : decodeErrorCode(o.error, `${path}.error`))),
  },
  { defaultPath: 'result', since: '3.6.0' },
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

