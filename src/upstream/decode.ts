/**
 * Decoders from the upstream's wire JSON into the records of `records.ts`.
 *
 * What is tolerated and what is a protocol error:
 * - A record that is not an object, or lacks a valid `uuid` (32 hex characters; upper case is
 *   lowered), cannot be identified: `DecodeError`.
 * - A field that is absent or `null` is `null`; an absent list is `[]`; unknown fields are ignored.
 * - A scalar of the wrong JSON type is a `DecodeError` naming the field, with two tolerances
 *   the real service needs: numbers and booleans in String fields become text (the spec types
 *   some fields loosely, e.g. `username` "listed as Boolean, sent as text"), and numeric text in
 *   Integer/Long fields is read as a number. Integer fields accept `1.0` and reject `1.5`.
 * - A field a decoder's demand leaves out (`demand.ts`: a query reads only what it selects) is
 *   null, or an empty list, and is neither read nor checked; the uuid always is.
 * - Closed sets the spec names (HwMonitorStatus, CbtTaskStatus, interfaceType, a NIC's driverType) decode an unknown
 *   value to `null` instead of failing: the spec lists values "seen", and one newer value must
 *   not fail a whole page of records. (The GraphQL enums could not carry it anyway.)
 *
 * The decoders are plain functions over plain objects (no schema library, no per-field closures)
 * because a page of 10,000 VMs with their NICs and volumes must decode in milliseconds. Error
 * paths are built only when an error is thrown. Each decoder reads its fields itself (`o.name`) and
 * hands the value to the helper with the field's name: a read inside a shared helper (`o[key]`)
 * sees every record type and every key, and is a third slower.
 */
import type {
  CbtTaskRecord,
  CbtTaskStatus,
  DirectoryRecord,
  ErrorCodeRecord,
  FiberChannelLunRecord,
  HbaDeviceRecord,
  HostBondingRecord,
  HostNetworkFactsRecord,
  HostNicRecord,
  HostRecord,
  HwMonitorStatus,
  Instant,
  InterfaceType,
  NicDriver,
  PrimaryStorageCapacityRecord,
  ScsiLunHostRefRecord,
  ScsiLunVmInstanceRefRecord,
  SnapshotGroupDeletionResultRecord,
  SnsApplicationEndpointRecord,
  SnsApplicationPlatformRecord,
  SnsEmailAddressRecord,
  SnsSmsReceiverRecord,
  UsedIpRecord,
  Uuid,
  VmCdRomRecord,
  VmInstanceRecord,
  VmNicRecord,
  VolumeRecord,
  VolumeSnapshotGroupRecord,
  VolumeSnapshotRefRecord,
} from './records.js';
import { FULL_DEMAND, type RecordDemand } from './demand.js';
import { createTimestampParser, type TimestampParser } from './timestamps.js';

/** The wire JSON did not have the shape the spec gives. `path` names the offending value. */
export class DecodeError extends Error {
  constructor(
    readonly path: string,
    problem: string,
  ) {
    super(`${path}: ${problem}`);
    this.name = 'DecodeError';
  }
}

type Wire = Record<string, unknown>;

const NUMERIC_TEXT = /^\s*-?\d+(\.\d+)?([eE][+-]?\d+)?\s*$/;
const HW_MONITOR_STATUSES: ReadonlySet<string> = new Set<HwMonitorStatus>(['Normal', 'Error', 'Unknown']);
const NIC_DRIVERS: ReadonlySet<string> = new Set<NicDriver>(['virtio', 'e1000', 'rtl8139']);
const CBT_TASK_STATUSES: ReadonlySet<string> = new Set<CbtTaskStatus>(['Created', 'Starting', 'Running', 'Stopped', 'Failed']);
const INTERFACE_TYPES: Readonly<Record<string, InterfaceType>> = {
  nomaster: 'noMaster',
  bridgeslave: 'bridgeSlave',
  bondslave: 'bondingSlave',
  bondingslave: 'bondingSlave',
};
/** ErrorCode causes nest; a chain deeper than this is not an error report but a loop or an attack. */
const MAX_CAUSE_DEPTH = 32;

// ---------------------------------------------------------------------------------------------
// Scalars

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)?.slice(0, 40) ?? ''}`;
}

/** The value as a JSON object, or a DecodeError. */
export function asObject(value: unknown, path: string): Wire {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new DecodeError(path, `expected an object, got ${describe(value)}`);
  }
  return value as Wire;
}

function str(v: unknown, key: string, path: string): string | null {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return null;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new DecodeError(`${path}.${key}`, `expected text, got ${describe(v)}`);
}

function requiredStr(value: unknown, key: string, path: string): string {
  const v = str(value, key, path);
  if (v === null) throw new DecodeError(`${path}.${key}`, 'required text is missing');
  return v;
}

function num(v: unknown, key: string, path: string): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (v === undefined || v === null) return null;
  if (typeof v === 'string' && NUMERIC_TEXT.test(v)) return Number(v);
  throw new DecodeError(`${path}.${key}`, `expected a number, got ${describe(v)}`);
}

/** Integer and Long fields: `1.0` is 1, `1.5` is an error. */
function int(value: unknown, key: string, path: string): number | null {
  const v = num(value, key, path);
  if (v === null || Number.isInteger(v)) return v;
  throw new DecodeError(`${path}.${key}`, `expected an integer, got ${v}`);
}

function requiredInt(value: unknown, key: string, path: string): number {
  const v = int(value, key, path);
  if (v === null) throw new DecodeError(`${path}.${key}`, 'required number is missing');
  return v;
}

function bool(v: unknown, key: string, path: string): boolean | null {
  if (typeof v === 'boolean') return v;
  if (v === undefined || v === null) return null;
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw new DecodeError(`${path}.${key}`, `expected a boolean, got ${describe(v)}`);
}

/**
 * 0 when `text` is not 32 hexadecimal characters, 1 when it is all lower case, 2 when it has upper
 * case letters. (One pass over the characters: two regular expressions cost 2% of the gateway's
 * CPU under load, profiled.)
 */
function uuidShape(text: string): 0 | 1 | 2 {
  if (text.length !== 32) return 0;
  let upper = false;
  for (let i = 0; i < 32; i++) {
    const c = text.charCodeAt(i);
    if ((c >= 48 && c <= 57) || (c >= 97 && c <= 102)) continue; // 0-9, a-f
    if (c >= 65 && c <= 70) upper = true; // A-F
    else return 0;
  }
  return upper ? 2 : 1;
}

/** A uuid at `path` (or at `path.key`, the path of the error built only when there is one). */
function uuidValue(v: unknown, path: string, key?: string): Uuid {
  // toLowerCase() would copy even a string it leaves unchanged, and uuids are mostly lower case.
  const shape = typeof v === 'string' ? uuidShape(v) : 0;
  if (shape === 1) return v as string;
  if (shape === 2) return (v as string).toLowerCase();
  throw new DecodeError(key === undefined ? path : `${path}.${key}`, `expected a uuid (32 hexadecimal characters), got ${describe(v)}`);
}

/** The record's own `uuid`: required and validated. */
function uuid(v: unknown, key: string, path: string): Uuid {
  return uuidValue(v, path, key);
}

function strList(v: unknown, key: string, path: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new DecodeError(`${path}.${key}`, `expected a list, got ${describe(v)}`);
  const out = new Array<string>(v.length);
  for (let i = 0; i < v.length; i++) {
    const item: unknown = v[i];
    if (typeof item === 'string') out[i] = item;
    else if (typeof item === 'number' || typeof item === 'boolean') out[i] = String(item);
    else throw new DecodeError(`${path}.${key}[${i}]`, `expected text, got ${describe(item)}`);
  }
  return out;
}

/**
 * A list field decoded item by item; `context` is handed to each item (what an embedded record
 * needs from its parent, e.g. a NIC's VM uuid), so no closure is made per parent.
 */
function list<T, C = undefined>(v: unknown, key: string, path: string, decodeItem: (value: unknown, path: string, context: C) => T, context?: C): T[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new DecodeError(`${path}.${key}`, `expected a list, got ${describe(v)}`);
  return decodeList(v, `${path}.${key}`, decodeItem, context);
}

function decodeList<T, C = undefined>(items: readonly unknown[], path: string, decodeItem: (value: unknown, path: string, context: C) => T, context?: C): T[] {
  const out = new Array<T>(items.length);
  // The item path is only a string template; it is cheap next to decoding the item itself.
  for (let i = 0; i < items.length; i++) out[i] = decodeItem(items[i], `${path}[${i}]`, context as C);
  return out;
}

function hwStatus(value: unknown, key: string, path: string): HwMonitorStatus | null {
  const v = str(value, key, path);
  return v !== null && HW_MONITOR_STATUSES.has(v) ? (v as HwMonitorStatus) : null;
}

/**
 * The VM of an item embedded in VM `parent` (a NIC, a CD-ROM): the item's own `vmInstanceUuid`,
 * read only when the demand asks for it or there is no parent; otherwise, or when it is absent, the
 * parent's.
 */
function vmOf(value: unknown, asked: boolean, parent: Uuid | null, path: string): Uuid | null {
  if (parent !== null && !asked) return parent;
  return str(value, 'vmInstanceUuid', path) ?? parent;
}

/** `virtio`, `e1000`, `rtl8139` in any case; another value is null (the schema's enum could not carry it). */
function nicDriver(value: unknown, key: string, path: string): NicDriver | null {
  const v = str(value, key, path);
  if (v === null) return null;
  const lowered = NIC_DRIVERS.has(v) ? v : v.toLowerCase();
  return NIC_DRIVERS.has(lowered) ? (lowered as NicDriver) : null;
}

function cbtStatus(value: unknown, key: string, path: string): CbtTaskStatus | null {
  const v = str(value, key, path);
  return v !== null && CBT_TASK_STATUSES.has(v) ? (v as CbtTaskStatus) : null;
}

/** `nomaster`/`noMaster` → noMaster, `bondSlave`/`bondingSlave` → bondingSlave, `bridgeSlave`. */
export function normalizeInterfaceType(value: string | null): InterfaceType | null {
  return value === null ? null : (INTERFACE_TYPES[value.toLowerCase()] ?? null);
}

// ---------------------------------------------------------------------------------------------
// Records

/**
 * Decodes every record of `records.ts` from wire JSON. One decoder per upstream timezone: the
 * zone decides what instant a Timestamp text names.
 */
export class RecordDecoder {
  private readonly parseTimestamp: TimestampParser;

  /**
   * `demand` names the fields to decode of the large record types (`demand.ts`); the others are
   * null (lists empty), neither read nor checked. By default every field is decoded.
   */
  constructor(
    timeZone: string | TimestampParser = 'UTC',
    readonly demand: RecordDemand = FULL_DEMAND,
  ) {
    this.parseTimestamp = typeof timeZone === 'string' ? createTimestampParser(timeZone) : timeZone;
  }

  /** A decoder of the same zone (and timestamp memo) that decodes only what `demand` names. */
  withDemand(demand: RecordDemand): RecordDecoder {
    return demand === this.demand ? this : new RecordDecoder(this.parseTimestamp, demand);
  }

  private date(v: unknown, key: string, path: string): Instant | null {
    if (v === undefined || v === null) return null;
    if (typeof v === 'string') {
      const parsed = this.parseTimestamp(v);
      if (parsed !== null) return parsed;
    } else if (typeof v === 'number' && Number.isFinite(v)) {
      // Epoch milliseconds: what some service versions write for Timestamp fields.
      return v;
    }
    throw new DecodeError(`${path}.${key}`, `expected a timestamp like "Jan 5, 2024 3:04:05 PM", got ${describe(v)}`);
  }


  readonly errorCode = (value: unknown, path = 'error'): ErrorCodeRecord => this.decodeErrorCode(value, path, 0);

  private decodeErrorCode(value: unknown, path: string, depth: number): ErrorCodeRecord {
    const o = asObject(value, path);
    if (depth > MAX_CAUSE_DEPTH) throw new DecodeError(path, 'ErrorCode cause chain is too deep');
    const opaque = o.opaque;
    const cause = o.cause;
    const record: ErrorCodeRecord = {
      code: requiredStr(o.code, 'code', path),
      description: str(o.description, 'description', path),
      details: str(o.details, 'details', path),
      elaboration: str(o.elaboration, 'elaboration', path),
      opaque: opaque === undefined || opaque === null ? null : asObject(opaque, `${path}.opaque`),
      cause: cause === undefined || cause === null ? null : this.decodeErrorCode(cause, `${path}.cause`, depth + 1),
    };
    if (o.location !== undefined) record.location = str(o.location, 'location', path);
    if (o.cost !== undefined) record.cost = str(o.cost, 'cost', path);
    return record;
  }

  readonly host = (value: unknown, path = 'host'): HostRecord => {
    const o = asObject(value, path);
    const want = this.demand.host;
    return {
      uuid: uuid(o.uuid, 'uuid', path),
      zoneUuid: want.zoneUuid ? str(o.zoneUuid, 'zoneUuid', path) : null,
      clusterUuid: want.clusterUuid ? str(o.clusterUuid, 'clusterUuid', path) : null,
      name: want.name ? str(o.name, 'name', path) : null,
      description: want.description ? str(o.description, 'description', path) : null,
      managementIp: want.managementIp ? str(o.managementIp, 'managementIp', path) : null,
      hypervisorType: want.hypervisorType ? str(o.hypervisorType, 'hypervisorType', path) : null,
      state: want.state ? str(o.state, 'state', path) : null,
      status: want.status ? str(o.status, 'status', path) : null,
      totalCpuCapacity: want.totalCpuCapacity ? int(o.totalCpuCapacity, 'totalCpuCapacity', path) : null,
      availableCpuCapacity: want.availableCpuCapacity ? int(o.availableCpuCapacity, 'availableCpuCapacity', path) : null,
      totalMemoryCapacity: want.totalMemoryCapacity ? int(o.totalMemoryCapacity, 'totalMemoryCapacity', path) : null,
      availableMemoryCapacity: want.availableMemoryCapacity ? int(o.availableMemoryCapacity, 'availableMemoryCapacity', path) : null,
      cpuSockets: want.cpuSockets ? int(o.cpuSockets, 'cpuSockets', path) : null,
      cpuNum: want.cpuNum ? int(o.cpuNum, 'cpuNum', path) : null,
      ipmiAddress: want.ipmiAddress ? str(o.ipmiAddress, 'ipmiAddress', path) : null,
      ipmiUsername: want.ipmiUsername ? str(o.ipmiUsername, 'ipmiUsername', path) : null,
      ipmiPowerStatus: want.ipmiPowerStatus ? str(o.ipmiPowerStatus, 'ipmiPowerStatus', path) : null,
      ipmiPort: want.ipmiPort ? int(o.ipmiPort, 'ipmiPort', path) : null,
      architecture: want.architecture ? str(o.architecture, 'architecture', path) : null,
      nqn: want.nqn ? str(o.nqn, 'nqn', path) : null,
      hostname: want.hostname ? str(o.hostname, 'hostname', path) : null,
      createDate: want.createDate ? this.date(o.createDate, 'createDate', path) : null,
      lastOpDate: want.lastOpDate ? this.date(o.lastOpDate, 'lastOpDate', path) : null,
      cpuStatus: want.cpuStatus ? hwStatus(o.cpuStatus, 'cpuStatus', path) : null,
      memoryStatus: want.memoryStatus ? hwStatus(o.memoryStatus, 'memoryStatus', path) : null,
      diskStatus: want.diskStatus ? hwStatus(o.diskStatus, 'diskStatus', path) : null,
      nicStatus: want.nicStatus ? hwStatus(o.nicStatus, 'nicStatus', path) : null,
      gpuStatus: want.gpuStatus ? hwStatus(o.gpuStatus, 'gpuStatus', path) : null,
      powerSupplyStatus: want.powerSupplyStatus ? hwStatus(o.powerSupplyStatus, 'powerSupplyStatus', path) : null,
      fanStatus: want.fanStatus ? hwStatus(o.fanStatus, 'fanStatus', path) : null,
      raidStatus: want.raidStatus ? hwStatus(o.raidStatus, 'raidStatus', path) : null,
      temperatureStatus: want.temperatureStatus ? hwStatus(o.temperatureStatus, 'temperatureStatus', path) : null,
    };
  };

  readonly hostNic = (value: unknown, path = 'nic'): HostNicRecord => {
    const o = asObject(value, path);
    return {
      uuid: uuid(o.uuid, 'uuid', path),
      hostUuid: str(o.hostUuid, 'hostUuid', path),
      bondingUuid: str(o.bondingUuid, 'bondingUuid', path),
      interfaceName: str(o.interfaceName, 'interfaceName', path),
      interfaceType: normalizeInterfaceType(str(o.interfaceType, 'interfaceType', path)),
      mac: str(o.mac, 'mac', path),
      pciDeviceAddress: str(o.pciDeviceAddress, 'pciDeviceAddress', path),
      speed: int(o.speed, 'speed', path),
      slaveActive: bool(o.slaveActive, 'slaveActive', path),
      carrierActive: bool(o.carrierActive, 'carrierActive', path),
      ipAddresses: strList(o.ipAddresses, 'ipAddresses', path),
      createDate: this.date(o.createDate, 'createDate', path),
      lastOpDate: this.date(o.lastOpDate, 'lastOpDate', path),
      gateway: str(o.gateway, 'gateway', path),
      callBackIp: str(o.callBackIp, 'callBackIp', path),
      offloadStatus: str(o.offloadStatus, 'offloadStatus', path),
      description: str(o.description, 'description', path),
    };
  };

  readonly hostBonding = (value: unknown, path = 'bonding'): HostBondingRecord => {
    const o = asObject(value, path);
    return {
      uuid: uuid(o.uuid, 'uuid', path),
      hostUuid: str(o.hostUuid, 'hostUuid', path),
      bondingName: str(o.bondingName, 'bondingName', path),
      bondingType: str(o.bondingType, 'bondingType', path),
      speed: int(o.speed, 'speed', path),
      miimon: int(o.miimon, 'miimon', path),
      mode: str(o.mode, 'mode', path),
      xmitHashPolicy: str(o.xmitHashPolicy, 'xmitHashPolicy', path),
      miiStatus: str(o.miiStatus, 'miiStatus', path),
      mac: str(o.mac, 'mac', path),
      gateway: str(o.gateway, 'gateway', path),
      callBackIp: str(o.callBackIp, 'callBackIp', path),
      type: str(o.type, 'type', path),
      description: str(o.description, 'description', path),
      ipAddresses: strList(o.ipAddresses, 'ipAddresses', path),
      allSlavesActive: bool(o.allSlavesActive, 'allSlavesActive', path),
      createDate: this.date(o.createDate, 'createDate', path),
      lastOpDate: this.date(o.lastOpDate, 'lastOpDate', path),
      slaves: list(o.slaves, 'slaves', path, this.hostNic),
    };
  };

  readonly hostNetworkFacts = (value: unknown, path = 'networkFacts'): HostNetworkFactsRecord => {
    const o = asObject(value, path);
    return {
      bondings: list(o.bondings, 'bondings', path, this.hostBonding),
      nics: list(o.nics, 'nics', path, this.hostNic),
    };
  };

  readonly hbaDevice = (value: unknown, path = 'hbaDevice'): HbaDeviceRecord => {
    const o = asObject(value, path);
    const want = this.demand.hbaDevice;
    return {
      uuid: uuid(o.uuid, 'uuid', path),
      name: want.name ? str(o.name, 'name', path) : null,
      hostUuid: want.hostUuid ? str(o.hostUuid, 'hostUuid', path) : null,
      portName: want.portName ? str(o.portName, 'portName', path) : null,
      portState: want.portState ? str(o.portState, 'portState', path) : null,
      hbaType: want.hbaType ? str(o.hbaType, 'hbaType', path) : null,
      speed: want.speed ? str(o.speed, 'speed', path) : null,
      supportedSpeeds: want.supportedSpeeds ? str(o.supportedSpeeds, 'supportedSpeeds', path) : null,
      symbolicName: want.symbolicName ? str(o.symbolicName, 'symbolicName', path) : null,
      supportedClasses: want.supportedClasses ? str(o.supportedClasses, 'supportedClasses', path) : null,
      createDate: want.createDate ? this.date(o.createDate, 'createDate', path) : null,
      lastOpDate: want.lastOpDate ? this.date(o.lastOpDate, 'lastOpDate', path) : null,
    };
  };

  private readonly scsiLunHostRef = (value: unknown, path: string): ScsiLunHostRefRecord => {
    const o = asObject(value, path);
    return {
      scsiLunUuid: requiredStr(o.scsiLunUuid, 'scsiLunUuid', path),
      hostUuid: requiredStr(o.hostUuid, 'hostUuid', path),
      createDate: this.date(o.createDate, 'createDate', path),
      lastOpDate: this.date(o.lastOpDate, 'lastOpDate', path),
    };
  };

  private readonly scsiLunVmInstanceRef = (value: unknown, path: string): ScsiLunVmInstanceRefRecord => {
    const o = asObject(value, path);
    return {
      scsiLunUuid: requiredStr(o.scsiLunUuid, 'scsiLunUuid', path),
      vmInstanceUuid: requiredStr(o.vmInstanceUuid, 'vmInstanceUuid', path),
      createDate: this.date(o.createDate, 'createDate', path),
    };
  };

  readonly fiberChannelLun = (value: unknown, path = 'fiberChannelLun'): FiberChannelLunRecord => {
    const o = asObject(value, path);
    return {
      uuid: uuid(o.uuid, 'uuid', path),
      name: str(o.name, 'name', path),
      fiberChannelStorageUuid: str(o.fiberChannelStorageUuid, 'fiberChannelStorageUuid', path),
      wwid: str(o.wwid, 'wwid', path),
      wwn: str(o.wwn, 'wwn', path),
      serial: str(o.serial, 'serial', path),
      vendor: str(o.vendor, 'vendor', path),
      model: str(o.model, 'model', path),
      type: str(o.type, 'type', path),
      path: str(o.path, 'path', path),
      size: int(o.size, 'size', path),
      state: str(o.state, 'state', path),
      createDate: this.date(o.createDate, 'createDate', path),
      lastOpDate: this.date(o.lastOpDate, 'lastOpDate', path),
      scsiLunHostRefs: list(o.scsiLunHostRefs, 'scsiLunHostRefs', path, this.scsiLunHostRef),
      scsiLunVmInstanceRefs: list(o.scsiLunVmInstanceRefs, 'scsiLunVmInstanceRefs', path, this.scsiLunVmInstanceRef),
    };
  };

  readonly cbtTask = (value: unknown, path = 'cbtTask'): CbtTaskRecord => {
    const o = asObject(value, path);
    return {
      uuid: uuid(o.uuid, 'uuid', path),
      name: str(o.name, 'name', path),
      description: str(o.description, 'description', path),
      createDate: this.date(o.createDate, 'createDate', path),
      lastOpDate: this.date(o.lastOpDate, 'lastOpDate', path),
      status: cbtStatus(o.status, 'status', path),
    };
  };

  private readonly volumeSnapshotRef = (value: unknown, path: string): VolumeSnapshotRefRecord => {
    const o = asObject(value, path);
    const want = this.demand.volumeSnapshotRef;
    return {
      volumeSnapshotUuid: requiredStr(o.volumeSnapshotUuid, 'volumeSnapshotUuid', path),
      volumeSnapshotGroupUuid: want.volumeSnapshotGroupUuid ? str(o.volumeSnapshotGroupUuid, 'volumeSnapshotGroupUuid', path) : null,
      volumeUuid: want.volumeUuid ? str(o.volumeUuid, 'volumeUuid', path) : null,
      volumeName: want.volumeName ? str(o.volumeName, 'volumeName', path) : null,
      volumeType: want.volumeType ? str(o.volumeType, 'volumeType', path) : null,
      volumeSnapshotInstallPath: want.volumeSnapshotInstallPath ? str(o.volumeSnapshotInstallPath, 'volumeSnapshotInstallPath', path) : null,
      volumeSnapshotName: want.volumeSnapshotName ? str(o.volumeSnapshotName, 'volumeSnapshotName', path) : null,
      deviceId: want.deviceId ? int(o.deviceId, 'deviceId', path) : null,
      snapshotDeleted: want.snapshotDeleted ? bool(o.snapshotDeleted, 'snapshotDeleted', path) : null,
      createDate: want.createDate ? this.date(o.createDate, 'createDate', path) : null,
      lastOpDate: want.lastOpDate ? this.date(o.lastOpDate, 'lastOpDate', path) : null,
    };
  };

  readonly volumeSnapshotGroup = (value: unknown, path = 'volumeSnapshotGroup'): VolumeSnapshotGroupRecord => {
    const o = asObject(value, path);
    const want = this.demand.volumeSnapshotGroup;
    return {
      uuid: uuid(o.uuid, 'uuid', path),
      name: want.name ? str(o.name, 'name', path) : null,
      description: want.description ? str(o.description, 'description', path) : null,
      snapshotCount: want.snapshotCount ? int(o.snapshotCount, 'snapshotCount', path) : null,
      vmInstanceUuid: want.vmInstanceUuid ? str(o.vmInstanceUuid, 'vmInstanceUuid', path) : null,
      createDate: want.createDate ? this.date(o.createDate, 'createDate', path) : null,
      lastOpDate: want.lastOpDate ? this.date(o.lastOpDate, 'lastOpDate', path) : null,
      volumeSnapshotRefs: want.volumeSnapshotRefs ? list(o.volumeSnapshotRefs, 'volumeSnapshotRefs', path, this.volumeSnapshotRef) : [],
    };
  };

  /** A usedIps item of the NIC of VM `vmInstanceUuid`. */
  private readonly usedIp = (value: unknown, path: string, vmInstanceUuid: Uuid | null): UsedIpRecord => {
    const o = asObject(value, path);
    const want = this.demand.usedIp;
    return {
      uuid: uuid(o.uuid, 'uuid', path),
      vmInstanceUuid,
      ipRangeUuid: want.ipRangeUuid ? str(o.ipRangeUuid, 'ipRangeUuid', path) : null,
      l3NetworkUuid: want.l3NetworkUuid ? str(o.l3NetworkUuid, 'l3NetworkUuid', path) : null,
      ip: want.ip ? str(o.ip, 'ip', path) : null,
      netmask: want.netmask ? str(o.netmask, 'netmask', path) : null,
      gateway: want.gateway ? str(o.gateway, 'gateway', path) : null,
      usedFor: want.usedFor ? str(o.usedFor, 'usedFor', path) : null,
      vmNicUuid: want.vmNicUuid ? str(o.vmNicUuid, 'vmNicUuid', path) : null,
      ipVersion: want.ipVersion ? int(o.ipVersion, 'ipVersion', path) : null,
      ipInLong: want.ipInLong ? int(o.ipInLong, 'ipInLong', path) : null,
      createDate: want.createDate ? this.date(o.createDate, 'createDate', path) : null,
      lastOpDate: want.lastOpDate ? this.date(o.lastOpDate, 'lastOpDate', path) : null,
    };
  };

  /**
   * A vmNics item or a VmNicInventory. `vmInstanceUuid` is the VM the item came embedded in: the
   * NIC's own `vmInstanceUuid` when the upstream leaves it out, and its used IPs' VM.
   */
  readonly vmNic = (value: unknown, path = 'vmNic', vmInstanceUuid: Uuid | null = null): VmNicRecord => {
    const o = asObject(value, path);
    const want = this.demand.vmNic;
    const vm = vmOf(o.vmInstanceUuid, want.vmInstanceUuid, vmInstanceUuid, path);
    return {
      uuid: uuid(o.uuid, 'uuid', path),
      vmInstanceUuid: vm,
      l3NetworkUuid: want.l3NetworkUuid ? str(o.l3NetworkUuid, 'l3NetworkUuid', path) : null,
      ip: want.ip ? str(o.ip, 'ip', path) : null,
      mac: want.mac ? str(o.mac, 'mac', path) : null,
      hypervisorType: want.hypervisorType ? str(o.hypervisorType, 'hypervisorType', path) : null,
      netmask: want.netmask ? str(o.netmask, 'netmask', path) : null,
      gateway: want.gateway ? str(o.gateway, 'gateway', path) : null,
      metaData: want.metaData ? str(o.metaData, 'metaData', path) : null,
      driverType: want.driverType ? nicDriver(o.driverType, 'driverType', path) : null,
      internalName: want.internalName ? str(o.internalName, 'internalName', path) : null,
      type: want.type ? str(o.type, 'type', path) : null,
      state: want.state ? str(o.state, 'state', path) : null,
      ipVersion: want.ipVersion ? int(o.ipVersion, 'ipVersion', path) : null,
      deviceId: want.deviceId ? int(o.deviceId, 'deviceId', path) : null,
      createDate: want.createDate ? this.date(o.createDate, 'createDate', path) : null,
      lastOpDate: want.lastOpDate ? this.date(o.lastOpDate, 'lastOpDate', path) : null,
      usedIps: want.usedIps ? list(o.usedIps, 'usedIps', path, this.usedIp, vm) : [],
      usedIpUuid: want.usedIpUuid ? str(o.usedIpUuid, 'usedIpUuid', path) : null,
    };
  };

  /** An allVolumes item, a generic-family volume, or an attachable data volume. */
  readonly volume = (value: unknown, path = 'volume'): VolumeRecord => {
    const o = asObject(value, path);
    const want = this.demand.volume;
    return {
      uuid: uuid(o.uuid, 'uuid', path),
      name: want.name ? str(o.name, 'name', path) : null,
      description: want.description ? str(o.description, 'description', path) : null,
      primaryStorageUuid: want.primaryStorageUuid ? str(o.primaryStorageUuid, 'primaryStorageUuid', path) : null,
      vmInstanceUuid: want.vmInstanceUuid ? str(o.vmInstanceUuid, 'vmInstanceUuid', path) : null,
      diskOfferingUuid: want.diskOfferingUuid ? str(o.diskOfferingUuid, 'diskOfferingUuid', path) : null,
      rootImageUuid: want.rootImageUuid ? str(o.rootImageUuid, 'rootImageUuid', path) : null,
      installPath: want.installPath ? str(o.installPath, 'installPath', path) : null,
      type: want.type ? str(o.type, 'type', path) : null,
      format: want.format ? str(o.format, 'format', path) : null,
      state: want.state ? str(o.state, 'state', path) : null,
      status: want.status ? str(o.status, 'status', path) : null,
      volumeQos: want.volumeQos ? str(o.volumeQos, 'volumeQos', path) : null,
      lastVmInstanceUuid: want.lastVmInstanceUuid ? str(o.lastVmInstanceUuid, 'lastVmInstanceUuid', path) : null,
      size: want.size ? int(o.size, 'size', path) : null,
      actualSize: want.actualSize ? int(o.actualSize, 'actualSize', path) : null,
      deviceId: want.deviceId ? int(o.deviceId, 'deviceId', path) : null,
      isShareable: want.isShareable ? bool(o.isShareable, 'isShareable', path) : null,
      lastDetachDate: want.lastDetachDate ? this.date(o.lastDetachDate, 'lastDetachDate', path) : null,
      createDate: want.createDate ? this.date(o.createDate, 'createDate', path) : null,
      lastOpDate: want.lastOpDate ? this.date(o.lastOpDate, 'lastOpDate', path) : null,
      encrypted: want.encrypted ? bool(o.encrypted, 'encrypted', path) : null,
    };
  };

  /** A vmCdRoms item of VM `vmInstanceUuid` (its own `vmInstanceUuid` when the upstream leaves it out). */
  private readonly vmCdRom = (value: unknown, path: string, vmInstanceUuid: Uuid | null): VmCdRomRecord => {
    const o = asObject(value, path);
    const want = this.demand.vmCdRom;
    return {
      uuid: uuid(o.uuid, 'uuid', path),
      vmInstanceUuid: vmOf(o.vmInstanceUuid, want.vmInstanceUuid, vmInstanceUuid, path),
      isoUuid: want.isoUuid ? str(o.isoUuid, 'isoUuid', path) : null,
      isoInstallPath: want.isoInstallPath ? str(o.isoInstallPath, 'isoInstallPath', path) : null,
      name: want.name ? str(o.name, 'name', path) : null,
      description: want.description ? str(o.description, 'description', path) : null,
      deviceId: want.deviceId ? int(o.deviceId, 'deviceId', path) : null,
      createDate: want.createDate ? this.date(o.createDate, 'createDate', path) : null,
      lastOpDate: want.lastOpDate ? this.date(o.lastOpDate, 'lastOpDate', path) : null,
    };
  };

  readonly vmInstance = (value: unknown, path = 'vmInstance'): VmInstanceRecord => {
    const o = asObject(value, path);
    const want = this.demand.vmInstance;
    const vm = uuid(o.uuid, 'uuid', path);
    return {
      uuid: vm,
      name: want.name ? str(o.name, 'name', path) : null,
      description: want.description ? str(o.description, 'description', path) : null,
      zoneUuid: want.zoneUuid ? str(o.zoneUuid, 'zoneUuid', path) : null,
      clusterUuid: want.clusterUuid ? str(o.clusterUuid, 'clusterUuid', path) : null,
      imageUuid: want.imageUuid ? str(o.imageUuid, 'imageUuid', path) : null,
      hostUuid: want.hostUuid ? str(o.hostUuid, 'hostUuid', path) : null,
      lastHostUuid: want.lastHostUuid ? str(o.lastHostUuid, 'lastHostUuid', path) : null,
      instanceOfferingUuid: want.instanceOfferingUuid ? str(o.instanceOfferingUuid, 'instanceOfferingUuid', path) : null,
      rootVolumeUuid: want.rootVolumeUuid ? str(o.rootVolumeUuid, 'rootVolumeUuid', path) : null,
      defaultL3NetworkUuid: want.defaultL3NetworkUuid ? str(o.defaultL3NetworkUuid, 'defaultL3NetworkUuid', path) : null,
      platform: want.platform ? str(o.platform, 'platform', path) : null,
      architecture: want.architecture ? str(o.architecture, 'architecture', path) : null,
      type: want.type ? str(o.type, 'type', path) : null,
      hypervisorType: want.hypervisorType ? str(o.hypervisorType, 'hypervisorType', path) : null,
      memorySize: want.memorySize ? int(o.memorySize, 'memorySize', path) : null,
      cpuNum: want.cpuNum ? int(o.cpuNum, 'cpuNum', path) : null,
      cpuSpeed: want.cpuSpeed ? int(o.cpuSpeed, 'cpuSpeed', path) : null,
      allocatorStrategy: want.allocatorStrategy ? str(o.allocatorStrategy, 'allocatorStrategy', path) : null,
      createDate: want.createDate ? this.date(o.createDate, 'createDate', path) : null,
      lastOpDate: want.lastOpDate ? this.date(o.lastOpDate, 'lastOpDate', path) : null,
      state: want.state ? str(o.state, 'state', path) : null,
      guestOsType: want.guestOsType ? str(o.guestOsType, 'guestOsType', path) : null,
      vmNics: want.vmNics ? list(o.vmNics, 'vmNics', path, this.vmNic, vm) : [],
      allVolumes: want.allVolumes ? list(o.allVolumes, 'allVolumes', path, this.volume) : [],
      vmCdRoms: want.vmCdRoms ? list(o.vmCdRoms, 'vmCdRoms', path, this.vmCdRom, vm) : [],
    };
  };

  readonly snsApplicationPlatform = (value: unknown, path = 'snsApplicationPlatform'): SnsApplicationPlatformRecord => {
    const o = asObject(value, path);
    return {
      uuid: uuid(o.uuid, 'uuid', path),
      name: str(o.name, 'name', path),
      description: str(o.description, 'description', path),
      type: str(o.type, 'type', path),
      state: str(o.state, 'state', path),
      createDate: this.date(o.createDate, 'createDate', path),
      lastOpDate: this.date(o.lastOpDate, 'lastOpDate', path),
    };
  };

  private readonly smsReceiver = (value: unknown, path: string): SnsSmsReceiverRecord => {
    // Tolerated: a bare phone number instead of `{"phoneNumber"}`.
    if (typeof value === 'string') return { phoneNumber: value };
    return { phoneNumber: requiredStr(asObject(value, path).phoneNumber, 'phoneNumber', path) };
  };

  readonly snsApplicationEndpoint = (value: unknown, path = 'snsApplicationEndpoint'): SnsApplicationEndpointRecord => {
    const o = asObject(value, path);
    return {
      uuid: uuid(o.uuid, 'uuid', path),
      name: str(o.name, 'name', path),
      description: str(o.description, 'description', path),
      type: str(o.type, 'type', path),
      platformUuid: str(o.platformUuid, 'platformUuid', path),
      state: str(o.state, 'state', path),
      createDate: this.date(o.createDate, 'createDate', path),
      lastOpDate: this.date(o.lastOpDate, 'lastOpDate', path),
      url: str(o.url, 'url', path),
      username: str(o.username, 'username', path),
      receivers: list(o.receivers, 'receivers', path, this.smsReceiver),
    };
  };

  readonly snsEmailAddress = (value: unknown, path = 'snsEmailAddress'): SnsEmailAddressRecord => {
    const o = asObject(value, path);
    return {
      uuid: uuid(o.uuid, 'uuid', path),
      emailAddress: str(o.emailAddress, 'emailAddress', path),
      endpointUuid: str(o.endpointUuid, 'endpointUuid', path),
      createDate: this.date(o.createDate, 'createDate', path),
      lastOpDate: this.date(o.lastOpDate, 'lastOpDate', path),
    };
  };

  readonly directory = (value: unknown, path = 'directory'): DirectoryRecord => {
    const o = asObject(value, path);
    return {
      uuid: uuid(o.uuid, 'uuid', path),
      name: str(o.name, 'name', path),
      groupName: str(o.groupName, 'groupName', path),
      parentUuid: str(o.parentUuid, 'parentUuid', path),
      zoneUuid: str(o.zoneUuid, 'zoneUuid', path),
      type: str(o.type, 'type', path),
      createDate: this.date(o.createDate, 'createDate', path),
      lastOpDate: this.date(o.lastOpDate, 'lastOpDate', path),
    };
  };

  readonly primaryStorageCapacity = (value: unknown, path = 'capacity'): PrimaryStorageCapacityRecord => {
    const o = asObject(value, path);
    return {
      totalCapacity: requiredInt(o.totalCapacity, 'totalCapacity', path),
      availableCapacity: requiredInt(o.availableCapacity, 'availableCapacity', path),
      totalPhysicalCapacity: requiredInt(o.totalPhysicalCapacity, 'totalPhysicalCapacity', path),
      availablePhysicalCapacity: requiredInt(o.availablePhysicalCapacity, 'availablePhysicalCapacity', path),
    };
  };

  readonly snapshotGroupDeletionResult = (value: unknown, path = 'result'): SnapshotGroupDeletionResultRecord => {
    const o = asObject(value, path);
    const error = o.error;
    return {
      snapshotUuid: str(o.snapshotUuid, 'snapshotUuid', path),
      volumeUuid: str(o.volumeUuid, 'volumeUuid', path),
      success: bool(o.success, 'success', path) ?? (error === undefined || error === null),
      error: error === undefined || error === null ? null : this.decodeErrorCode(error, `${path}.error`, 0),
    };
  };

  /** Decodes a list of items with one of the decoders above (`path` prefixes item paths). */
  readonly list = <T>(items: unknown, path: string, decodeItem: (value: unknown, path: string) => T): T[] => {
    if (!Array.isArray(items)) throw new DecodeError(path, `expected a list, got ${describe(items)}`);
    return decodeList(items, path, decodeItem);
  };
}

/** `createRecordDecoder(zone)`: the factory spelling of `new RecordDecoder(zone)`. */
export function createRecordDecoder(timeZone = 'UTC'): RecordDecoder {
  return new RecordDecoder(timeZone);
}
