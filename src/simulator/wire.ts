/**
 * The spec's wire records, each declared once: its top-level fields in wire order with their
 * types, and the lists it nests. `WireFormat.write` serializes a stored record from its
 * declaration (timestamps as the spec's text, `decimal` integers as `N.0`, null fields omitted,
 * as the real service does), and the query languages of both families take the fields a
 * condition may name (the top-level scalars) from the same declaration.
 *
 * Stored records use the wire's field names (see `model.ts`); fields that never reach the wire
 * (`tenantId`, `password`, ...) are left out by not being declared.
 */
import { fieldRelease, type AnyRecordDefinition } from '../upstream/define-record.js';
import * as records from '../upstream/records.js';
import { existsIn, NEWEST_RELEASE } from '../upstream/releases.js';
import { DecimalInteger, formatTimestamp, type Wire } from './format.js';
import type {
  BlockDevice,
  CbtTask,
  Directory,
  FiberChannelLun,
  HbaDevice,
  Host,
  HostBonding,
  HostNic,
  Sensor,
  SnsApplicationEndpoint,
  SnsApplicationPlatform,
  SnsEmailAddress,
  UsedIp,
  VmCdRom,
  VmInstance,
  VmNic,
  Volume,
  VolumeSnapshotGroup,
  VolumeSnapshotRef,
} from './model.js';
import type { FieldType, FieldTypes } from './query.js';

/**
 * A top-level field's type on the wire: a query field type, an Integer the spec writes as `1.0`,
 * or a list of strings (written as is, never queried).
 */
export type WireFieldType = FieldType | 'decimal' | 'list';

/** One wire record of the spec. */
export interface WireRecord<T> {
  /** Its top-level fields but the nested records, in wire order. */
  readonly fields: readonly (readonly [name: string, type: WireFieldType])[];
  /** The fields a query condition may name: the scalars (a `decimal` compares as a number). */
  readonly queryable: FieldTypes;
  /** Its nested lists, written after the scalars (a null one is omitted). */
  readonly nested: ((record: T, wire: WireFormat) => Wire) | undefined;
  /**
   * The gateway's declaration of the same record (`upstream/records.ts`), which says the release
   * that brought each field: a simulator playing an older release (`SIM_VERSION`) leaves the newer
   * ones out. Undefined: a record the spec does not version field by field.
   */
  readonly releases: AnyRecordDefinition | undefined;
}

function wireRecord<T>(
  fields: { readonly [K in keyof T & string]?: WireFieldType },
  nested?: (record: T, wire: WireFormat) => Wire,
  /** Fields of the items of its nested lists a condition may name (`scsiLunHostRefs.hostUuid`). */
  nestedQueryable: FieldTypes = {},
): WireRecord<T> {
  const entries = Object.entries(fields) as [string, WireFieldType][];
  const queryable: Record<string, FieldType> = { ...nestedQueryable };
  for (const [name, type] of entries) if (type !== 'list') queryable[name] = type === 'decimal' ? 'number' : type;
  return { fields: entries, queryable, nested, releases: undefined };
}

/** `shape`, its fields versioned by the gateway's declaration of the record (`WireRecord.releases`). */
function releasedAs<T>(releases: AnyRecordDefinition, shape: WireRecord<T>): WireRecord<T> {
  return { ...shape, releases };
}

/**
 * Whether field `name` of a record declared by `releases` exists in `release` (a list of records
 * newer than the release is left out whole rather than written as empty objects: `fieldRelease`).
 * Every field exists in the newest release, the default; for an older one the answer is kept per
 * record and field, since every record of every page asks it of every field.
 */
function existsInRelease(releases: AnyRecordDefinition | undefined, name: string, release: string): boolean {
  if (releases === undefined || release === NEWEST_RELEASE) return true;
  let byField = releasedFields.get(releases);
  if (byField?.release !== release) releasedFields.set(releases, (byField = { release, exists: new Map() }));
  let exists = byField.exists.get(name);
  if (exists === undefined) byField.exists.set(name, (exists = existsIn(fieldRelease(releases, name) ?? null, release)));
  return exists;
}

const releasedFields = new WeakMap<AnyRecordDefinition, { readonly release: string; readonly exists: Map<string, boolean> }>();

/**
 * What the wire reads of the store: the zone and release it writes for, and the related records a
 * record nests (the store implements it; declared here so that the wire does not import the store
 * that holds it).
 */
export interface WireSource {
  readonly timeZone: string;
  readonly release: string;
  /** A bond's slaves: the NICs whose `bondingUuid` is the bond. */
  slavesOfBond(bond: HostBonding): HostNic[];
  /** A VM's allVolumes. */
  volumesOfVm(vm: VmInstance): Volume[];
}

/** Serializes stored records to the spec's wire records, timestamps in the store's zone. */
export class WireFormat {
  constructor(readonly source: WireSource) {}

  time(date: Date): string;
  time(date: Date | null): string | null;
  time(date: Date | null): string | null {
    return date === null ? null : formatTimestamp(date, this.source.timeZone);
  }

  write<T>(shape: WireRecord<T>, record: T): Wire {
    const out: Wire = {};
    const fields = record as Record<string, unknown>;
    const release = this.source.release;
    for (const [name, type] of shape.fields) {
      const value = fields[name];
      if (value === null || value === undefined || !existsInRelease(shape.releases, name, release)) continue;
      out[name] = type === 'date' ? this.time(value as Date) : type === 'decimal' ? new DecimalInteger(value as number) : value;
    }
    if (shape.nested === undefined) return out;
    const nested = shape.nested(record, this);
    for (const name in nested) {
      const value = nested[name];
      if (value !== null && value !== undefined && existsInRelease(shape.releases, name, release)) out[name] = value;
    }
    return out;
  }

  writeAll<T>(shape: WireRecord<T>, records: readonly T[]): Wire[] {
    return records.map((record) => this.write(shape, record));
  }
}

const TIMES = { createDate: 'date', lastOpDate: 'date' } as const;

export const HOST_WIRE: WireRecord<Host> = releasedAs(records.host, wireRecord<Host>({
  uuid: 'string',
  zoneUuid: 'string',
  clusterUuid: 'string',
  name: 'string',
  description: 'string',
  managementIp: 'string',
  hypervisorType: 'string',
  state: 'string',
  status: 'string',
  totalCpuCapacity: 'number',
  availableCpuCapacity: 'number',
  totalMemoryCapacity: 'number',
  availableMemoryCapacity: 'number',
  cpuSockets: 'number',
  cpuNum: 'number',
  ipmiAddress: 'string',
  ipmiUsername: 'string',
  ipmiPowerStatus: 'string',
  ipmiPort: 'number',
  architecture: 'string',
  nqn: 'string',
  hostname: 'string',
  ...TIMES,
  cpuStatus: 'string',
  memoryStatus: 'string',
  diskStatus: 'string',
  nicStatus: 'string',
  gpuStatus: 'string',
  powerSupplyStatus: 'string',
  fanStatus: 'string',
  raidStatus: 'string',
  temperatureStatus: 'string',
}));

/** A bond slave or a network-facts NIC. */
export const HOST_NIC_WIRE: WireRecord<HostNic> = releasedAs(records.hostNic, wireRecord<HostNic>({
  uuid: 'string',
  hostUuid: 'string',
  bondingUuid: 'string',
  interfaceName: 'string',
  interfaceType: 'string',
  gateway: 'string',
  mac: 'string',
  callBackIp: 'string',
  pciDeviceAddress: 'string',
  offloadStatus: 'string',
  description: 'string',
  speed: 'number',
  slaveActive: 'boolean',
  carrierActive: 'boolean',
  ipAddresses: 'list',
  ...TIMES,
}));

/** HostNetworkBondingInventory: its slaves are the NICs whose `bondingUuid` is the bond. */
export const BONDING_WIRE: WireRecord<HostBonding> = releasedAs(records.hostBonding, wireRecord<HostBonding>(
  {
    uuid: 'string',
    hostUuid: 'string',
    bondingName: 'string',
    bondingType: 'string',
    speed: 'number',
    miimon: 'number',
    mode: 'string',
    xmitHashPolicy: 'string',
    miiStatus: 'string',
    mac: 'string',
    gateway: 'string',
    callBackIp: 'string',
    type: 'string',
    description: 'string',
    ipAddresses: 'list',
    allSlavesActive: 'boolean',
    ...TIMES,
  },
  (bond, wire) => ({ slaves: wire.writeAll(HOST_NIC_WIRE, wire.source.slavesOfBond(bond)) }),
));

export const BLOCK_DEVICE_WIRE: WireRecord<BlockDevice> = wireRecord<BlockDevice>({
  name: 'string',
  type: 'string',
  size: 'number',
  model: 'string',
  serialNumber: 'string',
  wwn: 'string',
  mountPoint: 'string',
  partitionTable: 'string',
});

export const SENSOR_WIRE: WireRecord<Sensor> = wireRecord<Sensor>({ name: 'string', type: 'string', value: 'number', unit: 'string', status: 'string' });

export const HBA_WIRE: WireRecord<HbaDevice> = releasedAs(records.hbaDevice, wireRecord<HbaDevice>({
  uuid: 'string',
  name: 'string',
  hostUuid: 'string',
  portName: 'string',
  portState: 'string',
  hbaType: 'string',
  speed: 'string',
  supportedSpeeds: 'string',
  symbolicName: 'string',
  supportedClasses: 'string',
  ...TIMES,
}));

/** Fibre-channel LUN; its refs carry the LUN's uuid as `scsiLunUuid`. */
export const LUN_WIRE: WireRecord<FiberChannelLun> = releasedAs(records.fiberChannelLun, wireRecord<FiberChannelLun>(
  {
    uuid: 'string',
    name: 'string',
    fiberChannelStorageUuid: 'string',
    wwid: 'string',
    wwn: 'string',
    serial: 'string',
    vendor: 'string',
    model: 'string',
    type: 'string',
    path: 'string',
    size: 'number',
    state: 'string',
    ...TIMES,
  },
  (lun, wire) => ({
    scsiLunHostRefs: lun.scsiLunHostRefs.map((ref) => ({
      scsiLunUuid: lun.uuid,
      hostUuid: ref.hostUuid,
      createDate: wire.time(ref.createDate),
      lastOpDate: wire.time(ref.lastOpDate),
    })),
    scsiLunVmInstanceRefs: lun.scsiLunVmInstanceRefs.map((ref) => ({
      scsiLunUuid: lun.uuid,
      vmInstanceUuid: ref.vmInstanceUuid,
      createDate: wire.time(ref.createDate),
    })),
  }),
  { 'scsiLunHostRefs.hostUuid': 'string', 'scsiLunVmInstanceRefs.vmInstanceUuid': 'string' },
));

export const CBT_TASK_WIRE: WireRecord<CbtTask> = releasedAs(records.cbtTask, wireRecord<CbtTask>({
  uuid: 'string',
  name: 'string',
  description: 'string',
  status: 'string',
  ...TIMES,
}));

/** A volumeSnapshotRefs item; the stored ref lacks its group's uuid, which the wire repeats. */
const SNAPSHOT_REF_WIRE = wireRecord<VolumeSnapshotRef & { volumeSnapshotGroupUuid: string }>({
  volumeSnapshotUuid: 'string',
  volumeSnapshotGroupUuid: 'string',
  volumeUuid: 'string',
  volumeName: 'string',
  volumeType: 'string',
  volumeSnapshotInstallPath: 'string',
  volumeSnapshotName: 'string',
  deviceId: 'decimal',
  snapshotDeleted: 'boolean',
  ...TIMES,
});

export const SNAPSHOT_GROUP_WIRE: WireRecord<VolumeSnapshotGroup> = releasedAs(records.volumeSnapshotGroup, wireRecord<VolumeSnapshotGroup>(
  {
    uuid: 'string',
    name: 'string',
    description: 'string',
    snapshotCount: 'decimal',
    vmInstanceUuid: 'string',
    ...TIMES,
  },
  (group, wire) => ({
    volumeSnapshotRefs: group.volumeSnapshotRefs.map((ref) => wire.write(SNAPSHOT_REF_WIRE, { ...ref, volumeSnapshotGroupUuid: group.uuid })),
  }),
));

export const USED_IP_WIRE: WireRecord<UsedIp> = releasedAs(records.usedIp, wireRecord<UsedIp>({
  uuid: 'string',
  ipRangeUuid: 'string',
  l3NetworkUuid: 'string',
  ip: 'string',
  netmask: 'string',
  gateway: 'string',
  usedFor: 'string',
  vmNicUuid: 'string',
  ipVersion: 'number',
  ipInLong: 'number',
  ...TIMES,
}));

/** A vmNics item and VmNicInventory. */
export const VM_NIC_WIRE: WireRecord<VmNic> = releasedAs(records.vmNic, wireRecord<VmNic>(
  {
    uuid: 'string',
    vmInstanceUuid: 'string',
    l3NetworkUuid: 'string',
    ip: 'string',
    mac: 'string',
    hypervisorType: 'string',
    netmask: 'string',
    gateway: 'string',
    metaData: 'string',
    driverType: 'string',
    internalName: 'string',
    type: 'string',
    state: 'string',
    ipVersion: 'number',
    deviceId: 'number',
    usedIpUuid: 'string',
    ...TIMES,
  },
  (nic, wire) => ({ usedIps: wire.writeAll(USED_IP_WIRE, nic.usedIps) }),
));

/** An allVolumes item (also the cursor family's `volume`). */
export const VOLUME_WIRE: WireRecord<Volume> = releasedAs(records.volume, wireRecord<Volume>({
  uuid: 'string',
  name: 'string',
  description: 'string',
  primaryStorageUuid: 'string',
  vmInstanceUuid: 'string',
  diskOfferingUuid: 'string',
  rootImageUuid: 'string',
  installPath: 'string',
  type: 'string',
  format: 'string',
  state: 'string',
  status: 'string',
  volumeQos: 'string',
  lastVmInstanceUuid: 'string',
  size: 'number',
  actualSize: 'number',
  deviceId: 'number',
  isShareable: 'boolean',
  lastDetachDate: 'date',
  ...TIMES,
  encrypted: 'boolean',
}));

/** The attachable data volume record of GetVmAttachableDataVolume. */
export const ATTACHABLE_VOLUME_WIRE: WireRecord<Volume> = releasedAs(records.volume, wireRecord<Volume>({
  uuid: 'string',
  name: 'string',
  description: 'string',
  actualSize: 'number',
  size: 'number',
  diskOfferingUuid: 'string',
  format: 'string',
  installPath: 'string',
  isShareable: 'boolean',
  primaryStorageUuid: 'string',
  state: 'string',
  status: 'string',
  type: 'string',
  ...TIMES,
}));

export const VM_CD_ROM_WIRE: WireRecord<VmCdRom> = releasedAs(records.vmCdRom, wireRecord<VmCdRom>({
  uuid: 'string',
  vmInstanceUuid: 'string',
  isoUuid: 'string',
  isoInstallPath: 'string',
  name: 'string',
  description: 'string',
  deviceId: 'number',
  ...TIMES,
}));

/** VmInstanceInventory with vmNics, allVolumes (from the volume table) and vmCdRoms. */
export const VM_WIRE: WireRecord<VmInstance> = releasedAs(records.vmInstance, wireRecord<VmInstance>(
  {
    uuid: 'string',
    name: 'string',
    description: 'string',
    zoneUuid: 'string',
    clusterUuid: 'string',
    imageUuid: 'string',
    hostUuid: 'string',
    lastHostUuid: 'string',
    instanceOfferingUuid: 'string',
    rootVolumeUuid: 'string',
    defaultL3NetworkUuid: 'string',
    platform: 'string',
    architecture: 'string',
    type: 'string',
    hypervisorType: 'string',
    memorySize: 'number',
    cpuNum: 'number',
    cpuSpeed: 'number',
    allocatorStrategy: 'string',
    ...TIMES,
    state: 'string',
    guestOsType: 'string',
  },
  (vm, wire) => ({
    vmNics: wire.writeAll(VM_NIC_WIRE, vm.vmNics),
    allVolumes: wire.writeAll(VOLUME_WIRE, wire.source.volumesOfVm(vm)),
    vmCdRoms: wire.writeAll(VM_CD_ROM_WIRE, vm.vmCdRoms),
  }),
));

export const SNS_PLATFORM_WIRE: WireRecord<SnsApplicationPlatform> = releasedAs(records.snsApplicationPlatform, wireRecord<SnsApplicationPlatform>({
  uuid: 'string',
  name: 'string',
  description: 'string',
  type: 'string',
  state: 'string',
  ...TIMES,
}));

/**
 * SNSApplicationEndpointInventory; HTTP endpoints add `url` and `username` (null on the others),
 * SMS endpoints `receivers` (the password never leaves the service).
 */
export const SNS_ENDPOINT_WIRE: WireRecord<SnsApplicationEndpoint> = releasedAs(records.snsApplicationEndpoint, wireRecord<SnsApplicationEndpoint>(
  {
    uuid: 'string',
    name: 'string',
    description: 'string',
    type: 'string',
    platformUuid: 'string',
    state: 'string',
    ...TIMES,
    url: 'string',
    username: 'string',
  },
  (endpoint) => ({
    receivers: endpoint.type === 'SMS' ? endpoint.receivers.map((phoneNumber) => ({ phoneNumber })) : null,
  }),
));

export const SNS_EMAIL_WIRE: WireRecord<SnsEmailAddress> = releasedAs(records.snsEmailAddress, wireRecord<SnsEmailAddress>({
  uuid: 'string',
  emailAddress: 'string',
  endpointUuid: 'string',
  ...TIMES,
}));

export const DIRECTORY_WIRE: WireRecord<Directory> = releasedAs(records.directory, wireRecord<Directory>({
  uuid: 'string',
  name: 'string',
  groupName: 'string',
  parentUuid: 'string',
  zoneUuid: 'string',
  type: 'string',
  ...TIMES,
}));
