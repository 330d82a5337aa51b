/**
 * Record demand: which fields of the large record types a read has to decode.
 *
 * A page of 50 VMs carries about 500 records (the VMs and their NICs, used IPs, volumes and
 * CD-ROMs; then their hosts, HBA ports and snapshot groups), most of their fields unselected by
 * any given query. Decoding every field made them all, kept every string they point at alive while
 * the operation waited on the upstream, and cost the gateway about a seventh of its CPU per
 * dashboard (README, Performance). A read made for a query can therefore say which fields it
 * needs; the others are left null (lists empty) without being read or checked.
 *
 * What is always decoded whatever the demand: `uuid` (ids, the key loaders prime by), a snapshot
 * reference's `volumeSnapshotUuid` (its identity), and an embedded record's VM (`vmInstanceUuid`,
 * taken from its parent). A demand only ever narrows the record types listed here; every other
 * record is decoded whole.
 */
import type {
  HbaDeviceRecord,
  HostRecord,
  UsedIpRecord,
  VmCdRomRecord,
  VmInstanceRecord,
  VmNicRecord,
  VolumeRecord,
  VolumeSnapshotGroupRecord,
  VolumeSnapshotRefRecord,
} from './records.js';

/** Whether each field of a record type is decoded. */
export type FieldMask<R> = { readonly [K in keyof R]-?: boolean };

export interface RecordDemand {
  readonly vmInstance: FieldMask<VmInstanceRecord>;
  readonly vmNic: FieldMask<VmNicRecord>;
  readonly usedIp: FieldMask<UsedIpRecord>;
  readonly volume: FieldMask<VolumeRecord>;
  readonly vmCdRom: FieldMask<VmCdRomRecord>;
  readonly host: FieldMask<HostRecord>;
  readonly hbaDevice: FieldMask<HbaDeviceRecord>;
  readonly volumeSnapshotGroup: FieldMask<VolumeSnapshotGroupRecord>;
  readonly volumeSnapshotRef: FieldMask<VolumeSnapshotRefRecord>;
}

export type DemandedRecord = keyof RecordDemand;

/** The fields of each record type, in the decoders' order (one mask shape per type). */
export const RECORD_FIELDS = {
  vmInstance: fieldsOf<VmInstanceRecord>()([
    'uuid', 'name', 'description', 'zoneUuid', 'clusterUuid', 'imageUuid', 'hostUuid', 'lastHostUuid',
    'instanceOfferingUuid', 'rootVolumeUuid', 'defaultL3NetworkUuid', 'platform', 'architecture', 'type',
    'hypervisorType', 'memorySize', 'cpuNum', 'cpuSpeed', 'allocatorStrategy', 'createDate', 'lastOpDate',
    'state', 'guestOsType', 'vmNics', 'allVolumes', 'vmCdRoms',
  ]),
  vmNic: fieldsOf<VmNicRecord>()([
    'uuid', 'vmInstanceUuid', 'l3NetworkUuid', 'ip', 'mac', 'hypervisorType', 'netmask', 'gateway', 'metaData',
    'driverType', 'internalName', 'type', 'state', 'ipVersion', 'deviceId', 'createDate', 'lastOpDate', 'usedIps',
    'usedIpUuid',
  ]),
  usedIp: fieldsOf<UsedIpRecord>()([
    'uuid', 'vmInstanceUuid', 'ipRangeUuid', 'l3NetworkUuid', 'ip', 'netmask', 'gateway', 'usedFor', 'vmNicUuid',
    'ipVersion', 'ipInLong', 'createDate', 'lastOpDate',
  ]),
  volume: fieldsOf<VolumeRecord>()([
    'uuid', 'name', 'description', 'primaryStorageUuid', 'vmInstanceUuid', 'diskOfferingUuid', 'rootImageUuid',
    'installPath', 'type', 'format', 'state', 'status', 'volumeQos', 'lastVmInstanceUuid', 'size', 'actualSize',
    'deviceId', 'isShareable', 'lastDetachDate', 'createDate', 'lastOpDate', 'encrypted',
  ]),
  vmCdRom: fieldsOf<VmCdRomRecord>()([
    'uuid', 'vmInstanceUuid', 'isoUuid', 'isoInstallPath', 'name', 'description', 'deviceId', 'createDate',
    'lastOpDate',
  ]),
  host: fieldsOf<HostRecord>()([
    'uuid', 'zoneUuid', 'clusterUuid', 'name', 'description', 'managementIp', 'hypervisorType', 'state', 'status',
    'totalCpuCapacity', 'availableCpuCapacity', 'totalMemoryCapacity', 'availableMemoryCapacity', 'cpuSockets',
    'cpuNum', 'ipmiAddress', 'ipmiUsername', 'ipmiPowerStatus', 'ipmiPort', 'architecture', 'nqn', 'hostname',
    'createDate', 'lastOpDate', 'cpuStatus', 'memoryStatus', 'diskStatus', 'nicStatus', 'gpuStatus',
    'powerSupplyStatus', 'fanStatus', 'raidStatus', 'temperatureStatus',
  ]),
  hbaDevice: fieldsOf<HbaDeviceRecord>()([
    'uuid', 'name', 'hostUuid', 'portName', 'portState', 'hbaType', 'speed', 'supportedSpeeds', 'symbolicName',
    'supportedClasses', 'createDate', 'lastOpDate',
  ]),
  volumeSnapshotGroup: fieldsOf<VolumeSnapshotGroupRecord>()([
    'uuid', 'name', 'description', 'snapshotCount', 'vmInstanceUuid', 'createDate', 'lastOpDate', 'volumeSnapshotRefs',
  ]),
  volumeSnapshotRef: fieldsOf<VolumeSnapshotRefRecord>()([
    'volumeSnapshotUuid', 'volumeSnapshotGroupUuid', 'volumeUuid', 'volumeName', 'volumeType',
    'volumeSnapshotInstallPath', 'volumeSnapshotName', 'deviceId', 'snapshotDeleted', 'createDate', 'lastOpDate',
  ]),
} as const;

/** Every field of every type: what reads outside a query (writes, events) decode. */
export const FULL_DEMAND: RecordDemand = buildDemand(() => true);

/**
 * A demand from the fields wanted per type (of a type absent from `wanted`, only the uuid). Masks
 * have their type's one shape, so decoders read them monomorphically.
 */
export function demandOf(wanted: Partial<Record<DemandedRecord, ReadonlySet<string> | 'all'>>): RecordDemand {
  return buildDemand((type, field) => {
    const fields = wanted[type];
    return fields === 'all' || field === 'uuid' || (fields !== undefined && fields.has(field));
  });
}

function buildDemand(want: (type: DemandedRecord, field: string) => boolean): RecordDemand {
  const mask = <T extends DemandedRecord>(type: T): RecordDemand[T] => {
    const out: Record<string, boolean> = {};
    for (const field of RECORD_FIELDS[type]) out[field] = want(type, field);
    return out as unknown as RecordDemand[T];
  };
  return {
    vmInstance: mask('vmInstance'),
    vmNic: mask('vmNic'),
    usedIp: mask('usedIp'),
    volume: mask('volume'),
    vmCdRom: mask('vmCdRom'),
    host: mask('host'),
    hbaDevice: mask('hbaDevice'),
    volumeSnapshotGroup: mask('volumeSnapshotGroup'),
    volumeSnapshotRef: mask('volumeSnapshotRef'),
  };
}

/** A field list that must name every field of `R` exactly (checked when compiling). */
function fieldsOf<R>() {
  return <const L extends readonly (keyof R & string)[]>(list: L & ([keyof R] extends [L[number]] ? unknown : { missing: Exclude<keyof R, L[number]> })): L => list;
}
