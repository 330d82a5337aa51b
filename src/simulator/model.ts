/**
 * The simulator's stored records: one interface per structure of the spec, plus the few
 * structures the spec only references (zones, clusters, primary storages, L3 networks, instance
 * offerings, tags), so that a write naming one can be refused when it does not exist.
 *
 * Rules every writer of the store follows:
 * - Timestamps are `Date` in memory; `wire.ts` turns them into the spec's text on output.
 * - Absent values are `null`; the wire omits them (as the real service does).
 * - Every record carries `tenantId`, the `Tenant.id` of the account that owns it.
 * - Field names are the spec's wire names, so the query evaluators read them directly. Fields
 *   that never reach the wire (`tenantId`, `password`, ...) are left out of `wire.ts`'s
 *   declarations.
 * - A field the store indexes (see `store.ts`) is changed only through `SimulatorStore.update`.
 */

export type Uuid = string;

export type HwMonitorStatus = 'Normal' | 'Error' | 'Unknown';

/** Spelling returned by the real service (the spec documents `nomaster`/`bondSlave`). */
export type InterfaceType = 'noMaster' | 'bridgeSlave' | 'bondingSlave';

export type CbtTaskStatus = 'Created' | 'Starting' | 'Running' | 'Stopped' | 'Failed';

export type VmState = 'Running' | 'Stopped' | 'Destroyed';

export type SnsEndpointType = 'HTTP' | 'Email' | 'SMS';

/** An account of the service: the records it owns carry its `id` as `tenantId`. */
export interface Tenant {
  /** The tenant id of the cursor family (`X-Tenant-ID`). */
  id: string;
  accountUuid: string;
  /** Resource-family session uuid (`Authorization: OAuth <session>`). */
  session: string;
  /** Cursor-family bearer token. */
  token: string;
}

/** Fields every stored record has. */
export interface Owned {
  uuid: Uuid;
  /** `Tenant.id` of the owning account. */
  tenantId: string;
}

export interface Timestamped {
  createDate: Date;
  lastOpDate: Date;
}

export interface Zone extends Owned, Timestamped {
  name: string;
  description: string | null;
}

export interface Cluster extends Owned, Timestamped {
  name: string;
  description: string | null;
  zoneUuid: Uuid;
  hypervisorType: string;
}

/** A primary storage and its capacity (GetPrimaryStorageCapacity sums these). */
export interface PrimaryStorage extends Owned, Timestamped {
  name: string;
  zoneUuid: Uuid;
  /** Clusters the storage is attached to. */
  clusterUuids: Uuid[];
  type: string;
  totalCapacity: number;
  availableCapacity: number;
  totalPhysicalCapacity: number;
  availablePhysicalCapacity: number;
}

/** An L3 network with one IPv4 range; VM NICs and their usedIps point at it. */
export interface L3Network extends Owned, Timestamped {
  name: string;
  zoneUuid: Uuid;
  ipRangeUuid: Uuid;
  /** First two octets of the /16, e.g. `10.12`; addresses are `<prefix>.<a>.<b>`. */
  networkPrefix: string;
  gateway: string;
  netmask: string;
}

/** An instance offering: the CPU and memory template a VM is made from (`VmInstance.instanceOfferingUuid`). */
export interface InstanceOffering extends Owned, Timestamped {
  name: string;
  description: string | null;
  cpuNum: number;
  /** Bytes. */
  memorySize: number;
  /** `Enabled` or `Disabled`. */
  state: string;
}

/** A tag the create operations attach by uuid (`tagUuids`). */
export interface Tag extends Owned, Timestamped {
  name: string;
  description: string | null;
  /** A CSS colour, as the service's console shows tags. */
  color: string;
}

/** HostInventory. */
export interface Host extends Owned, Timestamped {
  zoneUuid: Uuid;
  clusterUuid: Uuid;
  name: string;
  description: string | null;
  managementIp: string;
  hypervisorType: string;
  state: string;
  status: string;
  totalCpuCapacity: number;
  availableCpuCapacity: number;
  totalMemoryCapacity: number;
  availableMemoryCapacity: number;
  cpuSockets: number;
  cpuNum: number;
  ipmiAddress: string | null;
  ipmiUsername: string | null;
  ipmiPowerStatus: string | null;
  ipmiPort: number | null;
  architecture: string;
  nqn: string | null;
  hostname: string | null;
  cpuStatus: HwMonitorStatus;
  memoryStatus: HwMonitorStatus;
  diskStatus: HwMonitorStatus;
  nicStatus: HwMonitorStatus;
  gpuStatus: HwMonitorStatus;
  powerSupplyStatus: HwMonitorStatus;
  fanStatus: HwMonitorStatus;
  raidStatus: HwMonitorStatus;
  temperatureStatus: HwMonitorStatus;
}

/** HostNetworkBondingInventory without `slaves`: the slaves are the HostNics whose `bondingUuid` is this bond. */
export interface HostBonding extends Owned, Timestamped {
  hostUuid: Uuid;
  bondingName: string;
  /** `noBridge` or `bridgeSlave`. */
  bondingType: string;
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
  allSlavesActive: boolean;
}

/** A host NIC: in `nics` of the network facts, and a bond's slave when `bondingUuid` is set. */
export interface HostNic extends Owned, Timestamped {
  hostUuid: Uuid;
  bondingUuid: Uuid | null;
  interfaceName: string;
  interfaceType: InterfaceType;
  mac: string;
  pciDeviceAddress: string | null;
  speed: number | null;
  slaveActive: boolean;
  carrierActive: boolean;
  ipAddresses: string[];
  gateway: string | null;
  callBackIp: string | null;
  offloadStatus: string | null;
  description: string | null;
}

/** A block device of GetHostBlockDevices (item fields unshown in the spec: the simulator's choice). */
export interface BlockDevice extends Owned {
  hostUuid: Uuid;
  name: string;
  type: string;
  size: number;
  model: string;
  serialNumber: string;
  wwn: string | null;
  mountPoint: string | null;
  partitionTable: string | null;
}

/** A sensor of GetHostSensors (item fields unshown in the spec: the simulator's choice). */
export interface Sensor extends Owned {
  hostUuid: Uuid;
  name: string;
  type: string;
  value: number;
  unit: string;
  status: HwMonitorStatus;
}

/** FC HBA device (since 5.3.0): every field String on the wire. */
export interface HbaDevice extends Owned, Timestamped {
  name: string;
  hostUuid: Uuid;
  portName: string;
  portState: string;
  hbaType: string;
  /** Textual, e.g. `16 Gbit`. */
  speed: string;
  supportedSpeeds: string;
  symbolicName: string;
  supportedClasses: string;
}

export interface ScsiLunHostRef {
  hostUuid: Uuid;
  createDate: Date;
  lastOpDate: Date;
}

export interface ScsiLunVmInstanceRef {
  vmInstanceUuid: Uuid;
  createDate: Date;
}

/** Fibre-channel LUN; its refs carry `scsiLunUuid` on the wire (this record's uuid). */
export interface FiberChannelLun extends Owned, Timestamped {
  name: string;
  fiberChannelStorageUuid: Uuid;
  wwid: string;
  wwn: string;
  serial: string;
  vendor: string;
  model: string;
  type: string;
  path: string;
  size: number;
  state: string;
  scsiLunHostRefs: ScsiLunHostRef[];
  scsiLunVmInstanceRefs: ScsiLunVmInstanceRef[];
}

/** usedIps item of a VM NIC. */
export interface UsedIp {
  uuid: Uuid;
  ipRangeUuid: Uuid;
  l3NetworkUuid: Uuid;
  ip: string;
  netmask: string;
  gateway: string;
  usedFor: string;
  vmNicUuid: Uuid;
  ipVersion: number;
  /** IPv4 only. */
  ipInLong: number | null;
  createDate: Date;
  lastOpDate: Date;
}

/** vmNics item / VmNicInventory; stored inside its VM (`store.findVmNic` finds it by uuid). */
export interface VmNic {
  uuid: Uuid;
  vmInstanceUuid: Uuid;
  l3NetworkUuid: Uuid;
  ip: string;
  mac: string;
  hypervisorType: string;
  netmask: string;
  gateway: string;
  metaData: string | null;
  /** `virtio`, `e1000` or `rtl8139`. */
  driverType: string;
  internalName: string;
  type: string;
  state: string;
  ipVersion: number;
  deviceId: number;
  usedIpUuid: Uuid | null;
  usedIps: UsedIp[];
  createDate: Date;
  lastOpDate: Date;
}

/** vmCdRoms item; stored inside its VM. */
export interface VmCdRom {
  uuid: Uuid;
  vmInstanceUuid: Uuid;
  isoUuid: Uuid | null;
  isoInstallPath: string | null;
  name: string;
  description: string | null;
  deviceId: number;
  createDate: Date;
  lastOpDate: Date;
}

/**
 * A volume: an allVolumes item, a cursor-family `volume`, an attachable data volume.
 * A VM's allVolumes are the volumes whose `vmInstanceUuid` is the VM, ordered by `deviceId`
 * (so the boot volume, device 0, comes first). `vmInstanceUuid` is indexed: change it with
 * `store.update`.
 */
export interface Volume extends Owned, Timestamped {
  name: string;
  description: string | null;
  primaryStorageUuid: Uuid;
  vmInstanceUuid: Uuid | null;
  diskOfferingUuid: Uuid | null;
  rootImageUuid: Uuid | null;
  installPath: string;
  /** `Root` or `Data`. */
  type: string;
  format: string;
  state: string;
  status: string;
  volumeQos: string | null;
  lastVmInstanceUuid: Uuid | null;
  size: number;
  actualSize: number;
  deviceId: number | null;
  isShareable: boolean;
  lastDetachDate: Date | null;
  encrypted: boolean;
}

/** VmInstanceInventory; `allVolumes` come from the volume table (see Volume). */
export interface VmInstance extends Owned, Timestamped {
  name: string;
  description: string | null;
  zoneUuid: Uuid;
  clusterUuid: Uuid;
  imageUuid: Uuid | null;
  hostUuid: Uuid | null;
  lastHostUuid: Uuid | null;
  instanceOfferingUuid: Uuid | null;
  rootVolumeUuid: Uuid;
  defaultL3NetworkUuid: Uuid | null;
  platform: string;
  architecture: string;
  type: string;
  hypervisorType: string;
  memorySize: number;
  cpuNum: number;
  cpuSpeed: number;
  allocatorStrategy: string;
  state: VmState;
  guestOsType: string | null;
  /** SSH public key set on the VM (DeleteVmSshKey clears it); not on the wire. */
  sshKey: string | null;
  vmNics: VmNic[];
  vmCdRoms: VmCdRom[];
}

/** volumeSnapshotRefs item; `volumeSnapshotGroupUuid` on the wire is the group's uuid. */
export interface VolumeSnapshotRef {
  volumeSnapshotUuid: Uuid;
  volumeUuid: Uuid;
  volumeName: string;
  /** `Root` or `Data`. */
  volumeType: string;
  volumeSnapshotInstallPath: string;
  volumeSnapshotName: string;
  deviceId: number;
  snapshotDeleted: boolean;
  createDate: Date;
  lastOpDate: Date;
}

/** VolumeSnapshotGroupInventory; `snapshotCount` is written as `N.0` on the wire. */
export interface VolumeSnapshotGroup extends Owned, Timestamped {
  name: string;
  description: string | null;
  snapshotCount: number;
  vmInstanceUuid: Uuid;
  volumeSnapshotRefs: VolumeSnapshotRef[];
}

/** CbtTaskInventory plus what the task tracks. */
export interface CbtTask extends Owned, Timestamped {
  name: string;
  description: string | null;
  status: CbtTaskStatus;
  /** `VM`. */
  taskType: string;
  /** The VM the task tracks (indexed: one task per VM). */
  vmInstanceUuid: Uuid;
  /** The VM's volumes the task tracks. */
  volumeUuids: Uuid[];
  bitmapName: string | null;
  /** Volumes currently exported over NBD by ExportNbdVolumes. */
  exportedVolumeUuids: Set<Uuid>;
}

/** SNSApplicationPlatformInventory. */
export interface SnsApplicationPlatform extends Owned, Timestamped {
  name: string;
  description: string | null;
  type: string;
  /** `Enabled` or `Disabled`. */
  state: string;
}

/** SNSApplicationEndpointInventory, with the per-type extras of the cursor family. */
export interface SnsApplicationEndpoint extends Owned, Timestamped {
  name: string;
  description: string | null;
  type: SnsEndpointType;
  platformUuid: Uuid;
  state: string;
  /** HTTP endpoints only. */
  url: string | null;
  /** HTTP endpoints only. */
  username: string | null;
  /** HTTP endpoints only; never on the wire. */
  password: string | null;
  /** SMS endpoints only: receivers' phone numbers. */
  receivers: string[];
}

/** SNS email address record; `endpointUuid` is an Email endpoint. */
export interface SnsEmailAddress extends Owned, Timestamped {
  emailAddress: string;
  endpointUuid: Uuid;
}

/** Directory (cursor family `directory`; DeleteDirectory removes it). */
export interface Directory extends Owned, Timestamped {
  name: string;
  groupName: string;
  parentUuid: Uuid | null;
  zoneUuid: Uuid;
  type: string;
}

/** Every table of the store, by kind name. */
export interface RecordKinds {
  zone: Zone;
  cluster: Cluster;
  primaryStorage: PrimaryStorage;
  l3Network: L3Network;
  instanceOffering: InstanceOffering;
  tag: Tag;
  host: Host;
  bonding: HostBonding;
  hostNic: HostNic;
  blockDevice: BlockDevice;
  sensor: Sensor;
  hba: HbaDevice;
  lun: FiberChannelLun;
  vm: VmInstance;
  volume: Volume;
  snapshotGroup: VolumeSnapshotGroup;
  cbtTask: CbtTask;
  snsPlatform: SnsApplicationPlatform;
  snsEndpoint: SnsApplicationEndpoint;
  snsEmail: SnsEmailAddress;
  directory: Directory;
}

export type RecordKind = keyof RecordKinds;
