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
 * - Closed sets the spec names (HwMonitorStatus, CbtTaskStatus, interfaceType) decode an unknown
 *   value to `null` instead of failing: the spec lists values "seen", and one newer value must
 *   not fail a whole page of records. (The GraphQL enums could not carry it anyway.)
 *
 * The decoders are plain functions over plain objects (no schema library, no per-field closures)
 * because a page of 10,000 VMs with their NICs and volumes must decode in milliseconds. Error
 * paths are built only when an error is thrown.
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
  InterfaceType,
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

function str(o: Wire, key: string, path: string): string | null {
  const v = o[key];
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return null;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new DecodeError(`${path}.${key}`, `expected text, got ${describe(v)}`);
}

function requiredStr(o: Wire, key: string, path: string): string {
  const v = str(o, key, path);
  if (v === null) throw new DecodeError(`${path}.${key}`, 'required text is missing');
  return v;
}

function num(o: Wire, key: string, path: string): number | null {
  const v = o[key];
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (v === undefined || v === null) return null;
  if (typeof v === 'string' && NUMERIC_TEXT.test(v)) return Number(v);
  throw new DecodeError(`${path}.${key}`, `expected a number, got ${describe(v)}`);
}

/** Integer and Long fields: `1.0` is 1, `1.5` is an error. */
function int(o: Wire, key: string, path: string): number | null {
  const v = num(o, key, path);
  if (v === null || Number.isInteger(v)) return v;
  throw new DecodeError(`${path}.${key}`, `expected an integer, got ${v}`);
}

function requiredInt(o: Wire, key: string, path: string): number {
  const v = int(o, key, path);
  if (v === null) throw new DecodeError(`${path}.${key}`, 'required number is missing');
  return v;
}

function bool(o: Wire, key: string, path: string): boolean | null {
  const v = o[key];
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

function uuidValue(v: unknown, path: string): Uuid {
  // toLowerCase() would copy even a string it leaves unchanged, and uuids are mostly lower case.
  const shape = typeof v === 'string' ? uuidShape(v) : 0;
  if (shape === 1) return v as string;
  if (shape === 2) return (v as string).toLowerCase();
  throw new DecodeError(path, `expected a uuid (32 hexadecimal characters), got ${describe(v)}`);
}

/** The record's own `uuid`: required and validated. */
function uuid(o: Wire, key: string, path: string): Uuid {
  return uuidValue(o[key], `${path}.${key}`);
}

function strList(o: Wire, key: string, path: string): string[] {
  const v = o[key];
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
function list<T, C = undefined>(o: Wire, key: string, path: string, decodeItem: (value: unknown, path: string, context: C) => T, context?: C): T[] {
  const v = o[key];
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

function hwStatus(o: Wire, key: string, path: string): HwMonitorStatus | null {
  const v = str(o, key, path);
  return v !== null && HW_MONITOR_STATUSES.has(v) ? (v as HwMonitorStatus) : null;
}

function cbtStatus(o: Wire, key: string, path: string): CbtTaskStatus | null {
  const v = str(o, key, path);
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

  constructor(timeZone = 'UTC') {
    this.parseTimestamp = createTimestampParser(timeZone);
  }

  private date(o: Wire, key: string, path: string): Date | null {
    const v = o[key];
    if (v === undefined || v === null) return null;
    if (typeof v === 'string') {
      const parsed = this.parseTimestamp(v);
      if (parsed !== null) return parsed;
    } else if (typeof v === 'number' && Number.isFinite(v)) {
      // Epoch milliseconds: what some service versions write for Timestamp fields.
      return new Date(v);
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
      code: requiredStr(o, 'code', path),
      description: str(o, 'description', path),
      details: str(o, 'details', path),
      elaboration: str(o, 'elaboration', path),
      opaque: opaque === undefined || opaque === null ? null : asObject(opaque, `${path}.opaque`),
      cause: cause === undefined || cause === null ? null : this.decodeErrorCode(cause, `${path}.cause`, depth + 1),
    };
    if (o.location !== undefined) record.location = str(o, 'location', path);
    if (o.cost !== undefined) record.cost = str(o, 'cost', path);
    return record;
  }

  readonly host = (value: unknown, path = 'host'): HostRecord => {
    const o = asObject(value, path);
    return {
      uuid: uuid(o, 'uuid', path),
      zoneUuid: str(o, 'zoneUuid', path),
      clusterUuid: str(o, 'clusterUuid', path),
      name: str(o, 'name', path),
      description: str(o, 'description', path),
      managementIp: str(o, 'managementIp', path),
      hypervisorType: str(o, 'hypervisorType', path),
      state: str(o, 'state', path),
      status: str(o, 'status', path),
      totalCpuCapacity: int(o, 'totalCpuCapacity', path),
      availableCpuCapacity: int(o, 'availableCpuCapacity', path),
      totalMemoryCapacity: int(o, 'totalMemoryCapacity', path),
      availableMemoryCapacity: int(o, 'availableMemoryCapacity', path),
      cpuSockets: int(o, 'cpuSockets', path),
      cpuNum: int(o, 'cpuNum', path),
      ipmiAddress: str(o, 'ipmiAddress', path),
      ipmiUsername: str(o, 'ipmiUsername', path),
      ipmiPowerStatus: str(o, 'ipmiPowerStatus', path),
      ipmiPort: int(o, 'ipmiPort', path),
      architecture: str(o, 'architecture', path),
      nqn: str(o, 'nqn', path),
      hostname: str(o, 'hostname', path),
      createDate: this.date(o, 'createDate', path),
      lastOpDate: this.date(o, 'lastOpDate', path),
      cpuStatus: hwStatus(o, 'cpuStatus', path),
      memoryStatus: hwStatus(o, 'memoryStatus', path),
      diskStatus: hwStatus(o, 'diskStatus', path),
      nicStatus: hwStatus(o, 'nicStatus', path),
      gpuStatus: hwStatus(o, 'gpuStatus', path),
      powerSupplyStatus: hwStatus(o, 'powerSupplyStatus', path),
      fanStatus: hwStatus(o, 'fanStatus', path),
      raidStatus: hwStatus(o, 'raidStatus', path),
      temperatureStatus: hwStatus(o, 'temperatureStatus', path),
    };
  };

  readonly hostNic = (value: unknown, path = 'nic'): HostNicRecord => {
    const o = asObject(value, path);
    return {
      uuid: uuid(o, 'uuid', path),
      hostUuid: str(o, 'hostUuid', path),
      bondingUuid: str(o, 'bondingUuid', path),
      interfaceName: str(o, 'interfaceName', path),
      interfaceType: normalizeInterfaceType(str(o, 'interfaceType', path)),
      mac: str(o, 'mac', path),
      pciDeviceAddress: str(o, 'pciDeviceAddress', path),
      speed: int(o, 'speed', path),
      slaveActive: bool(o, 'slaveActive', path),
      carrierActive: bool(o, 'carrierActive', path),
      ipAddresses: strList(o, 'ipAddresses', path),
      createDate: this.date(o, 'createDate', path),
      lastOpDate: this.date(o, 'lastOpDate', path),
      gateway: str(o, 'gateway', path),
      callBackIp: str(o, 'callBackIp', path),
      offloadStatus: str(o, 'offloadStatus', path),
      description: str(o, 'description', path),
    };
  };

  readonly hostBonding = (value: unknown, path = 'bonding'): HostBondingRecord => {
    const o = asObject(value, path);
    return {
      uuid: uuid(o, 'uuid', path),
      hostUuid: str(o, 'hostUuid', path),
      bondingName: str(o, 'bondingName', path),
      bondingType: str(o, 'bondingType', path),
      speed: int(o, 'speed', path),
      miimon: int(o, 'miimon', path),
      mode: str(o, 'mode', path),
      xmitHashPolicy: str(o, 'xmitHashPolicy', path),
      miiStatus: str(o, 'miiStatus', path),
      mac: str(o, 'mac', path),
      gateway: str(o, 'gateway', path),
      callBackIp: str(o, 'callBackIp', path),
      type: str(o, 'type', path),
      description: str(o, 'description', path),
      ipAddresses: strList(o, 'ipAddresses', path),
      allSlavesActive: bool(o, 'allSlavesActive', path),
      createDate: this.date(o, 'createDate', path),
      lastOpDate: this.date(o, 'lastOpDate', path),
      slaves: list(o, 'slaves', path, this.hostNic),
    };
  };

  readonly hostNetworkFacts = (value: unknown, path = 'networkFacts'): HostNetworkFactsRecord => {
    const o = asObject(value, path);
    return {
      bondings: list(o, 'bondings', path, this.hostBonding),
      nics: list(o, 'nics', path, this.hostNic),
    };
  };

  readonly hbaDevice = (value: unknown, path = 'hbaDevice'): HbaDeviceRecord => {
    const o = asObject(value, path);
    return {
      uuid: uuid(o, 'uuid', path),
      name: str(o, 'name', path),
      hostUuid: str(o, 'hostUuid', path),
      portName: str(o, 'portName', path),
      portState: str(o, 'portState', path),
      hbaType: str(o, 'hbaType', path),
      speed: str(o, 'speed', path),
      supportedSpeeds: str(o, 'supportedSpeeds', path),
      symbolicName: str(o, 'symbolicName', path),
      supportedClasses: str(o, 'supportedClasses', path),
      createDate: this.date(o, 'createDate', path),
      lastOpDate: this.date(o, 'lastOpDate', path),
    };
  };

  private readonly scsiLunHostRef = (value: unknown, path: string): ScsiLunHostRefRecord => {
    const o = asObject(value, path);
    return {
      scsiLunUuid: requiredStr(o, 'scsiLunUuid', path),
      hostUuid: requiredStr(o, 'hostUuid', path),
      createDate: this.date(o, 'createDate', path),
      lastOpDate: this.date(o, 'lastOpDate', path),
    };
  };

  private readonly scsiLunVmInstanceRef = (value: unknown, path: string): ScsiLunVmInstanceRefRecord => {
    const o = asObject(value, path);
    return {
      scsiLunUuid: requiredStr(o, 'scsiLunUuid', path),
      vmInstanceUuid: requiredStr(o, 'vmInstanceUuid', path),
      createDate: this.date(o, 'createDate', path),
    };
  };

  readonly fiberChannelLun = (value: unknown, path = 'fiberChannelLun'): FiberChannelLunRecord => {
    const o = asObject(value, path);
    return {
      uuid: uuid(o, 'uuid', path),
      name: str(o, 'name', path),
      fiberChannelStorageUuid: str(o, 'fiberChannelStorageUuid', path),
      wwid: str(o, 'wwid', path),
      wwn: str(o, 'wwn', path),
      serial: str(o, 'serial', path),
      vendor: str(o, 'vendor', path),
      model: str(o, 'model', path),
      type: str(o, 'type', path),
      path: str(o, 'path', path),
      size: int(o, 'size', path),
      state: str(o, 'state', path),
      createDate: this.date(o, 'createDate', path),
      lastOpDate: this.date(o, 'lastOpDate', path),
      scsiLunHostRefs: list(o, 'scsiLunHostRefs', path, this.scsiLunHostRef),
      scsiLunVmInstanceRefs: list(o, 'scsiLunVmInstanceRefs', path, this.scsiLunVmInstanceRef),
    };
  };

  readonly cbtTask = (value: unknown, path = 'cbtTask'): CbtTaskRecord => {
    const o = asObject(value, path);
    return {
      uuid: uuid(o, 'uuid', path),
      name: str(o, 'name', path),
      description: str(o, 'description', path),
      createDate: this.date(o, 'createDate', path),
      lastOpDate: this.date(o, 'lastOpDate', path),
      status: cbtStatus(o, 'status', path),
    };
  };

  private readonly volumeSnapshotRef = (value: unknown, path: string): VolumeSnapshotRefRecord => {
    const o = asObject(value, path);
    return {
      volumeSnapshotUuid: requiredStr(o, 'volumeSnapshotUuid', path),
      volumeSnapshotGroupUuid: str(o, 'volumeSnapshotGroupUuid', path),
      volumeUuid: str(o, 'volumeUuid', path),
      volumeName: str(o, 'volumeName', path),
      volumeType: str(o, 'volumeType', path),
      volumeSnapshotInstallPath: str(o, 'volumeSnapshotInstallPath', path),
      volumeSnapshotName: str(o, 'volumeSnapshotName', path),
      deviceId: int(o, 'deviceId', path),
      snapshotDeleted: bool(o, 'snapshotDeleted', path),
      createDate: this.date(o, 'createDate', path),
      lastOpDate: this.date(o, 'lastOpDate', path),
    };
  };

  readonly volumeSnapshotGroup = (value: unknown, path = 'volumeSnapshotGroup'): VolumeSnapshotGroupRecord => {
    const o = asObject(value, path);
    return {
      uuid: uuid(o, 'uuid', path),
      name: str(o, 'name', path),
      description: str(o, 'description', path),
      snapshotCount: int(o, 'snapshotCount', path),
      vmInstanceUuid: str(o, 'vmInstanceUuid', path),
      createDate: this.date(o, 'createDate', path),
      lastOpDate: this.date(o, 'lastOpDate', path),
      volumeSnapshotRefs: list(o, 'volumeSnapshotRefs', path, this.volumeSnapshotRef),
    };
  };

  /** A usedIps item of the NIC of VM `vmInstanceUuid`. */
  private readonly usedIp = (value: unknown, path: string, vmInstanceUuid: Uuid | null): UsedIpRecord => {
    const o = asObject(value, path);
    return {
      uuid: uuid(o, 'uuid', path),
      vmInstanceUuid,
      ipRangeUuid: str(o, 'ipRangeUuid', path),
      l3NetworkUuid: str(o, 'l3NetworkUuid', path),
      ip: str(o, 'ip', path),
      netmask: str(o, 'netmask', path),
      gateway: str(o, 'gateway', path),
      usedFor: str(o, 'usedFor', path),
      vmNicUuid: str(o, 'vmNicUuid', path),
      ipVersion: int(o, 'ipVersion', path),
      ipInLong: int(o, 'ipInLong', path),
      createDate: this.date(o, 'createDate', path),
      lastOpDate: this.date(o, 'lastOpDate', path),
    };
  };

  /**
   * A vmNics item or a VmNicInventory. `vmInstanceUuid` is the VM the item came embedded in: the
   * NIC's own `vmInstanceUuid` when the upstream leaves it out, and its used IPs' VM.
   */
  readonly vmNic = (value: unknown, path = 'vmNic', vmInstanceUuid: Uuid | null = null): VmNicRecord => {
    const o = asObject(value, path);
    const vm = str(o, 'vmInstanceUuid', path) ?? vmInstanceUuid;
    return {
      uuid: uuid(o, 'uuid', path),
      vmInstanceUuid: vm,
      l3NetworkUuid: str(o, 'l3NetworkUuid', path),
      ip: str(o, 'ip', path),
      mac: str(o, 'mac', path),
      hypervisorType: str(o, 'hypervisorType', path),
      netmask: str(o, 'netmask', path),
      gateway: str(o, 'gateway', path),
      metaData: str(o, 'metaData', path),
      driverType: str(o, 'driverType', path),
      internalName: str(o, 'internalName', path),
      type: str(o, 'type', path),
      state: str(o, 'state', path),
      ipVersion: int(o, 'ipVersion', path),
      deviceId: int(o, 'deviceId', path),
      createDate: this.date(o, 'createDate', path),
      lastOpDate: this.date(o, 'lastOpDate', path),
      usedIps: list(o, 'usedIps', path, this.usedIp, vm),
      usedIpUuid: str(o, 'usedIpUuid', path),
    };
  };

  /** An allVolumes item, a generic-family volume, or an attachable data volume. */
  readonly volume = (value: unknown, path = 'volume'): VolumeRecord => {
    const o = asObject(value, path);
    return {
      uuid: uuid(o, 'uuid', path),
      name: str(o, 'name', path),
      description: str(o, 'description', path),
      primaryStorageUuid: str(o, 'primaryStorageUuid', path),
      vmInstanceUuid: str(o, 'vmInstanceUuid', path),
      diskOfferingUuid: str(o, 'diskOfferingUuid', path),
      rootImageUuid: str(o, 'rootImageUuid', path),
      installPath: str(o, 'installPath', path),
      type: str(o, 'type', path),
      format: str(o, 'format', path),
      state: str(o, 'state', path),
      status: str(o, 'status', path),
      volumeQos: str(o, 'volumeQos', path),
      lastVmInstanceUuid: str(o, 'lastVmInstanceUuid', path),
      size: int(o, 'size', path),
      actualSize: int(o, 'actualSize', path),
      deviceId: int(o, 'deviceId', path),
      isShareable: bool(o, 'isShareable', path),
      lastDetachDate: this.date(o, 'lastDetachDate', path),
      createDate: this.date(o, 'createDate', path),
      lastOpDate: this.date(o, 'lastOpDate', path),
      encrypted: bool(o, 'encrypted', path),
    };
  };

  /** A vmCdRoms item of VM `vmInstanceUuid` (its own `vmInstanceUuid` when the upstream leaves it out). */
  private readonly vmCdRom = (value: unknown, path: string, vmInstanceUuid: Uuid | null): VmCdRomRecord => {
    const o = asObject(value, path);
    return {
      uuid: uuid(o, 'uuid', path),
      vmInstanceUuid: str(o, 'vmInstanceUuid', path) ?? vmInstanceUuid,
      isoUuid: str(o, 'isoUuid', path),
      isoInstallPath: str(o, 'isoInstallPath', path),
      name: str(o, 'name', path),
      description: str(o, 'description', path),
      deviceId: int(o, 'deviceId', path),
      createDate: this.date(o, 'createDate', path),
      lastOpDate: this.date(o, 'lastOpDate', path),
    };
  };

  readonly vmInstance = (value: unknown, path = 'vmInstance'): VmInstanceRecord => {
    const o = asObject(value, path);
    const vm = uuid(o, 'uuid', path);
    return {
      uuid: vm,
      name: str(o, 'name', path),
      description: str(o, 'description', path),
      zoneUuid: str(o, 'zoneUuid', path),
      clusterUuid: str(o, 'clusterUuid', path),
      imageUuid: str(o, 'imageUuid', path),
      hostUuid: str(o, 'hostUuid', path),
      lastHostUuid: str(o, 'lastHostUuid', path),
      instanceOfferingUuid: str(o, 'instanceOfferingUuid', path),
      rootVolumeUuid: str(o, 'rootVolumeUuid', path),
      defaultL3NetworkUuid: str(o, 'defaultL3NetworkUuid', path),
      platform: str(o, 'platform', path),
      architecture: str(o, 'architecture', path),
      type: str(o, 'type', path),
      hypervisorType: str(o, 'hypervisorType', path),
      memorySize: int(o, 'memorySize', path),
      cpuNum: int(o, 'cpuNum', path),
      cpuSpeed: int(o, 'cpuSpeed', path),
      allocatorStrategy: str(o, 'allocatorStrategy', path),
      createDate: this.date(o, 'createDate', path),
      lastOpDate: this.date(o, 'lastOpDate', path),
      state: str(o, 'state', path),
      guestOsType: str(o, 'guestOsType', path),
      vmNics: list(o, 'vmNics', path, this.vmNic, vm),
      allVolumes: list(o, 'allVolumes', path, this.volume),
      vmCdRoms: list(o, 'vmCdRoms', path, this.vmCdRom, vm),
    };
  };

  readonly snsApplicationPlatform = (value: unknown, path = 'snsApplicationPlatform'): SnsApplicationPlatformRecord => {
    const o = asObject(value, path);
    return {
      uuid: uuid(o, 'uuid', path),
      name: str(o, 'name', path),
      description: str(o, 'description', path),
      type: str(o, 'type', path),
      state: str(o, 'state', path),
      createDate: this.date(o, 'createDate', path),
      lastOpDate: this.date(o, 'lastOpDate', path),
    };
  };

  private readonly smsReceiver = (value: unknown, path: string): SnsSmsReceiverRecord => {
    // Tolerated: a bare phone number instead of `{"phoneNumber"}`.
    if (typeof value === 'string') return { phoneNumber: value };
    return { phoneNumber: requiredStr(asObject(value, path), 'phoneNumber', path) };
  };

  readonly snsApplicationEndpoint = (value: unknown, path = 'snsApplicationEndpoint'): SnsApplicationEndpointRecord => {
    const o = asObject(value, path);
    return {
      uuid: uuid(o, 'uuid', path),
      name: str(o, 'name', path),
      description: str(o, 'description', path),
      type: str(o, 'type', path),
      platformUuid: str(o, 'platformUuid', path),
      state: str(o, 'state', path),
      createDate: this.date(o, 'createDate', path),
      lastOpDate: this.date(o, 'lastOpDate', path),
      url: str(o, 'url', path),
      username: str(o, 'username', path),
      receivers: list(o, 'receivers', path, this.smsReceiver),
    };
  };

  readonly snsEmailAddress = (value: unknown, path = 'snsEmailAddress'): SnsEmailAddressRecord => {
    const o = asObject(value, path);
    return {
      uuid: uuid(o, 'uuid', path),
      emailAddress: str(o, 'emailAddress', path),
      endpointUuid: str(o, 'endpointUuid', path),
      createDate: this.date(o, 'createDate', path),
      lastOpDate: this.date(o, 'lastOpDate', path),
    };
  };

  readonly directory = (value: unknown, path = 'directory'): DirectoryRecord => {
    const o = asObject(value, path);
    return {
      uuid: uuid(o, 'uuid', path),
      name: str(o, 'name', path),
      groupName: str(o, 'groupName', path),
      parentUuid: str(o, 'parentUuid', path),
      zoneUuid: str(o, 'zoneUuid', path),
      type: str(o, 'type', path),
      createDate: this.date(o, 'createDate', path),
      lastOpDate: this.date(o, 'lastOpDate', path),
    };
  };

  readonly primaryStorageCapacity = (value: unknown, path = 'capacity'): PrimaryStorageCapacityRecord => {
    const o = asObject(value, path);
    return {
      totalCapacity: requiredInt(o, 'totalCapacity', path),
      availableCapacity: requiredInt(o, 'availableCapacity', path),
      totalPhysicalCapacity: requiredInt(o, 'totalPhysicalCapacity', path),
      availablePhysicalCapacity: requiredInt(o, 'availablePhysicalCapacity', path),
    };
  };

  readonly snapshotGroupDeletionResult = (value: unknown, path = 'result'): SnapshotGroupDeletionResultRecord => {
    const o = asObject(value, path);
    const error = o.error;
    return {
      snapshotUuid: str(o, 'snapshotUuid', path),
      volumeUuid: str(o, 'volumeUuid', path),
      success: bool(o, 'success', path) ?? (error === undefined || error === null),
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
