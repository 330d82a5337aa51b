/**
 * The wire form of the simulator's records: the spec's timestamp text, `1.0`-style integers,
 * and one serializer per record kind (null fields omitted, as the real service does).
 *
 * Answers must be encoded with `encodeJson` to get the `1.0` rendering; a plain
 * `JSON.stringify` still yields valid JSON, with those integers written as `1`.
 */
import { randomBytes } from 'node:crypto';
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
} from './model.js';
import type { SimulatorStore } from './store.js';

export type Wire = Record<string, unknown>;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const zoneFormatters = new Map<string, Intl.DateTimeFormat>();
const zoneTextCache = new Map<string, string>();
const ZONE_CACHE_LIMIT = 200_000;

/** `Jan 5, 2024 3:04:05 PM` in the IANA zone `timeZone`. */
export function formatTimestamp(date: Date, timeZone = 'UTC'): string {
  if (timeZone === 'UTC' || timeZone === 'Etc/UTC') return formatUtc(date);
  const key = `${timeZone}|${Math.floor(date.getTime() / 1000)}`;
  const cached = zoneTextCache.get(key);
  if (cached !== undefined) return cached;
  const parts: Record<string, string> = {};
  for (const part of zoneFormatter(timeZone).formatToParts(date)) parts[part.type] = part.value;
  const text = `${parts.month} ${parts.day}, ${parts.year} ${parts.hour}:${parts.minute}:${parts.second} ${parts.dayPeriod}`;
  if (zoneTextCache.size >= ZONE_CACHE_LIMIT) zoneTextCache.clear();
  zoneTextCache.set(key, text);
  return text;
}

function formatUtc(date: Date): string {
  const hours = date.getUTCHours();
  const hour12 = hours % 12 === 0 ? 12 : hours % 12;
  return (
    `${MONTHS[date.getUTCMonth()]} ${date.getUTCDate()}, ${date.getUTCFullYear()} ` +
    `${hour12}:${pad2(date.getUTCMinutes())}:${pad2(date.getUTCSeconds())} ${hours < 12 ? 'AM' : 'PM'}`
  );
}

function pad2(value: number): string {
  return value < 10 ? `0${value}` : String(value);
}

function zoneFormatter(timeZone: string): Intl.DateTimeFormat {
  let formatter = zoneFormatters.get(timeZone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
      second: '2-digit',
      hour12: true,
    });
    zoneFormatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Throws a RangeError when `timeZone` is not a zone the runtime knows. */
export function assertTimeZone(timeZone: string): void {
  zoneFormatter(timeZone);
}

const TIMESTAMP_TEXT = /^([A-Z][a-z]{2}) (\d{1,2}), (\d{4}) (\d{1,2}):(\d{2}):(\d{2}) (AM|PM)$/;

/**
 * Reads a timestamp as a query value: the spec's text (in `timeZone`), ISO 8601, or epoch
 * milliseconds. Null when it is none of these.
 */
export function parseTimestamp(text: string, timeZone = 'UTC'): Date | null {
  const match = TIMESTAMP_TEXT.exec(text.trim());
  if (match !== null) {
    const [, mon, day, year, hour, minute, second, period] = match;
    const month = MONTHS.indexOf(mon ?? '');
    if (month < 0) return null;
    const hour24 = (Number(hour) % 12) + (period === 'PM' ? 12 : 0);
    const wall = Date.UTC(Number(year), month, Number(day), hour24, Number(minute), Number(second));
    return new Date(wall - zoneOffsetMs(wall, timeZone));
  }
  if (/^-?\d+$/.test(text)) return new Date(Number(text));
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
    const date = new Date(text);
    return Number.isNaN(date.getTime()) ? null : date;
  }
  return null;
}

/** Offset of `timeZone` from UTC (ms) around the wall-clock instant `wall` read as UTC. */
function zoneOffsetMs(wall: number, timeZone: string): number {
  if (timeZone === 'UTC' || timeZone === 'Etc/UTC') return 0;
  let offset = offsetAt(wall, timeZone);
  offset = offsetAt(wall - offset, timeZone);
  return offset;
}

function offsetAt(instant: number, timeZone: string): number {
  const shown = parseTimestamp(formatTimestamp(new Date(instant), timeZone), 'UTC');
  return shown === null ? 0 : shown.getTime() - Math.floor(instant / 1000) * 1000;
}

const DECIMAL_MARK = `@@dec-${randomBytes(6).toString('hex')}:`;
const DECIMAL_PATTERN = new RegExp(`"${DECIMAL_MARK}(-?\\d+)@@"`, 'g');
let encodingDecimals = false;

/** An Integer the spec says is rendered with a decimal point (`snapshotCount`: `1.0`). */
export class DecimalInteger {
  constructor(readonly value: number) {}

  toJSON(): string | number {
    return encodingDecimals ? `${DECIMAL_MARK}${this.value}@@` : this.value;
  }
}

/** JSON text of an answer, with `DecimalInteger`s written as `N.0`. */
export function encodeJson(value: unknown): string {
  encodingDecimals = true;
  let text: string;
  try {
    text = JSON.stringify(value);
  } finally {
    encodingDecimals = false;
  }
  return text.includes(DECIMAL_MARK) ? text.replace(DECIMAL_PATTERN, '$1.0') : text;
}

/** Copies `fields` leaving out null and undefined values. */
export function omitNulls(fields: Wire): Wire {
  const out: Wire = {};
  for (const key in fields) {
    const value = fields[key];
    if (value !== null && value !== undefined) out[key] = value;
  }
  return out;
}

/** Serializers from stored records to the spec's wire records. */
export class WireFormat {
  constructor(private readonly store: SimulatorStore) {}

  time(date: Date): string;
  time(date: Date | null): string | null;
  time(date: Date | null): string | null {
    return date === null ? null : formatTimestamp(date, this.store.timeZone);
  }

  host(host: Host): Wire {
    return omitNulls({
      uuid: host.uuid,
      zoneUuid: host.zoneUuid,
      clusterUuid: host.clusterUuid,
      name: host.name,
      description: host.description,
      managementIp: host.managementIp,
      hypervisorType: host.hypervisorType,
      state: host.state,
      status: host.status,
      totalCpuCapacity: host.totalCpuCapacity,
      availableCpuCapacity: host.availableCpuCapacity,
      totalMemoryCapacity: host.totalMemoryCapacity,
      availableMemoryCapacity: host.availableMemoryCapacity,
      cpuSockets: host.cpuSockets,
      cpuNum: host.cpuNum,
      ipmiAddress: host.ipmiAddress,
      ipmiUsername: host.ipmiUsername,
      ipmiPowerStatus: host.ipmiPowerStatus,
      ipmiPort: host.ipmiPort,
      architecture: host.architecture,
      nqn: host.nqn,
      hostname: host.hostname,
      createDate: this.time(host.createDate),
      lastOpDate: this.time(host.lastOpDate),
      cpuStatus: host.cpuStatus,
      memoryStatus: host.memoryStatus,
      diskStatus: host.diskStatus,
      nicStatus: host.nicStatus,
      gpuStatus: host.gpuStatus,
      powerSupplyStatus: host.powerSupplyStatus,
      fanStatus: host.fanStatus,
      raidStatus: host.raidStatus,
      temperatureStatus: host.temperatureStatus,
    });
  }

  /** HostNetworkBondingInventory, with its slaves. */
  bonding(bond: HostBonding): Wire {
    const slaves = this.store.hostNics.by('bondingUuid', bond.uuid, bond.tenantId);
    return omitNulls({
      uuid: bond.uuid,
      hostUuid: bond.hostUuid,
      bondingName: bond.bondingName,
      bondingType: bond.bondingType,
      speed: bond.speed,
      miimon: bond.miimon,
      mode: bond.mode,
      xmitHashPolicy: bond.xmitHashPolicy,
      miiStatus: bond.miiStatus,
      mac: bond.mac,
      gateway: bond.gateway,
      callBackIp: bond.callBackIp,
      type: bond.type,
      description: bond.description,
      ipAddresses: bond.ipAddresses,
      allSlavesActive: bond.allSlavesActive,
      createDate: this.time(bond.createDate),
      lastOpDate: this.time(bond.lastOpDate),
      slaves: slaves.map((nic) => this.hostNic(nic)),
    });
  }

  /** A bond slave or a network-facts NIC. */
  hostNic(nic: HostNic): Wire {
    return omitNulls({
      uuid: nic.uuid,
      hostUuid: nic.hostUuid,
      bondingUuid: nic.bondingUuid,
      interfaceName: nic.interfaceName,
      interfaceType: nic.interfaceType,
      gateway: nic.gateway,
      mac: nic.mac,
      callBackIp: nic.callBackIp,
      pciDeviceAddress: nic.pciDeviceAddress,
      offloadStatus: nic.offloadStatus,
      description: nic.description,
      speed: nic.speed,
      slaveActive: nic.slaveActive,
      carrierActive: nic.carrierActive,
      ipAddresses: nic.ipAddresses,
      createDate: this.time(nic.createDate),
      lastOpDate: this.time(nic.lastOpDate),
    });
  }

  blockDevice(device: BlockDevice): Wire {
    return omitNulls({
      name: device.name,
      type: device.type,
      size: device.size,
      model: device.model,
      serialNumber: device.serialNumber,
      wwn: device.wwn,
      mountPoint: device.mountPoint,
      partitionTable: device.partitionTable,
    });
  }

  sensor(sensor: Sensor): Wire {
    return { name: sensor.name, type: sensor.type, value: sensor.value, unit: sensor.unit, status: sensor.status };
  }

  hba(device: HbaDevice): Wire {
    return omitNulls({
      uuid: device.uuid,
      name: device.name,
      hostUuid: device.hostUuid,
      portName: device.portName,
      portState: device.portState,
      hbaType: device.hbaType,
      speed: device.speed,
      supportedSpeeds: device.supportedSpeeds,
      symbolicName: device.symbolicName,
      supportedClasses: device.supportedClasses,
      createDate: this.time(device.createDate),
      lastOpDate: this.time(device.lastOpDate),
    });
  }

  lun(lun: FiberChannelLun): Wire {
    return omitNulls({
      uuid: lun.uuid,
      name: lun.name,
      fiberChannelStorageUuid: lun.fiberChannelStorageUuid,
      wwid: lun.wwid,
      wwn: lun.wwn,
      serial: lun.serial,
      vendor: lun.vendor,
      model: lun.model,
      type: lun.type,
      path: lun.path,
      size: lun.size,
      state: lun.state,
      createDate: this.time(lun.createDate),
      lastOpDate: this.time(lun.lastOpDate),
      scsiLunHostRefs: lun.scsiLunHostRefs.map((ref) => ({
        scsiLunUuid: lun.uuid,
        hostUuid: ref.hostUuid,
        createDate: this.time(ref.createDate),
        lastOpDate: this.time(ref.lastOpDate),
      })),
      scsiLunVmInstanceRefs: lun.scsiLunVmInstanceRefs.map((ref) => ({
        scsiLunUuid: lun.uuid,
        vmInstanceUuid: ref.vmInstanceUuid,
        createDate: this.time(ref.createDate),
      })),
    });
  }

  cbtTask(task: CbtTask): Wire {
    return omitNulls({
      uuid: task.uuid,
      name: task.name,
      description: task.description,
      status: task.status,
      createDate: this.time(task.createDate),
      lastOpDate: this.time(task.lastOpDate),
    });
  }

  snapshotGroup(group: VolumeSnapshotGroup): Wire {
    return omitNulls({
      uuid: group.uuid,
      name: group.name,
      description: group.description,
      snapshotCount: new DecimalInteger(group.snapshotCount),
      vmInstanceUuid: group.vmInstanceUuid,
      createDate: this.time(group.createDate),
      lastOpDate: this.time(group.lastOpDate),
      volumeSnapshotRefs: group.volumeSnapshotRefs.map((ref) =>
        omitNulls({
          volumeSnapshotUuid: ref.volumeSnapshotUuid,
          volumeSnapshotGroupUuid: group.uuid,
          volumeUuid: ref.volumeUuid,
          volumeName: ref.volumeName,
          volumeType: ref.volumeType,
          volumeSnapshotInstallPath: ref.volumeSnapshotInstallPath,
          volumeSnapshotName: ref.volumeSnapshotName,
          deviceId: new DecimalInteger(ref.deviceId),
          snapshotDeleted: ref.snapshotDeleted,
          createDate: this.time(ref.createDate),
          lastOpDate: this.time(ref.lastOpDate),
        }),
      ),
    });
  }

  /** VmInstanceInventory with vmNics, allVolumes and vmCdRoms. */
  vm(vm: VmInstance): Wire {
    return omitNulls({
      uuid: vm.uuid,
      name: vm.name,
      description: vm.description,
      zoneUuid: vm.zoneUuid,
      clusterUuid: vm.clusterUuid,
      imageUuid: vm.imageUuid,
      hostUuid: vm.hostUuid,
      lastHostUuid: vm.lastHostUuid,
      instanceOfferingUuid: vm.instanceOfferingUuid,
      rootVolumeUuid: vm.rootVolumeUuid,
      defaultL3NetworkUuid: vm.defaultL3NetworkUuid,
      platform: vm.platform,
      architecture: vm.architecture,
      type: vm.type,
      hypervisorType: vm.hypervisorType,
      memorySize: vm.memorySize,
      cpuNum: vm.cpuNum,
      cpuSpeed: vm.cpuSpeed,
      allocatorStrategy: vm.allocatorStrategy,
      createDate: this.time(vm.createDate),
      lastOpDate: this.time(vm.lastOpDate),
      state: vm.state,
      guestOsType: vm.guestOsType,
      vmNics: vm.vmNics.map((nic) => this.vmNic(nic)),
      allVolumes: this.store.volumesOfVm(vm).map((volume) => this.volume(volume)),
      vmCdRoms: vm.vmCdRoms.map((cdRom) => this.vmCdRom(cdRom)),
    });
  }

  /** A vmNics item and VmNicInventory. */
  vmNic(nic: VmNic): Wire {
    return omitNulls({
      uuid: nic.uuid,
      vmInstanceUuid: nic.vmInstanceUuid,
      l3NetworkUuid: nic.l3NetworkUuid,
      ip: nic.ip,
      mac: nic.mac,
      hypervisorType: nic.hypervisorType,
      netmask: nic.netmask,
      gateway: nic.gateway,
      metaData: nic.metaData,
      driverType: nic.driverType,
      internalName: nic.internalName,
      type: nic.type,
      state: nic.state,
      ipVersion: nic.ipVersion,
      deviceId: nic.deviceId,
      usedIpUuid: nic.usedIpUuid,
      createDate: this.time(nic.createDate),
      lastOpDate: this.time(nic.lastOpDate),
      usedIps: nic.usedIps.map((usedIp) => this.usedIp(usedIp)),
    });
  }

  usedIp(usedIp: UsedIp): Wire {
    return omitNulls({
      uuid: usedIp.uuid,
      ipRangeUuid: usedIp.ipRangeUuid,
      l3NetworkUuid: usedIp.l3NetworkUuid,
      ip: usedIp.ip,
      netmask: usedIp.netmask,
      gateway: usedIp.gateway,
      usedFor: usedIp.usedFor,
      vmNicUuid: usedIp.vmNicUuid,
      ipVersion: usedIp.ipVersion,
      ipInLong: usedIp.ipInLong,
      createDate: this.time(usedIp.createDate),
      lastOpDate: this.time(usedIp.lastOpDate),
    });
  }

  /** An allVolumes item (also the generic family's `volume`). */
  volume(volume: Volume): Wire {
    return omitNulls({
      uuid: volume.uuid,
      name: volume.name,
      description: volume.description,
      primaryStorageUuid: volume.primaryStorageUuid,
      vmInstanceUuid: volume.vmInstanceUuid,
      diskOfferingUuid: volume.diskOfferingUuid,
      rootImageUuid: volume.rootImageUuid,
      installPath: volume.installPath,
      type: volume.type,
      format: volume.format,
      state: volume.state,
      status: volume.status,
      volumeQos: volume.volumeQos,
      lastVmInstanceUuid: volume.lastVmInstanceUuid,
      size: volume.size,
      actualSize: volume.actualSize,
      deviceId: volume.deviceId,
      isShareable: volume.isShareable,
      lastDetachDate: this.time(volume.lastDetachDate),
      createDate: this.time(volume.createDate),
      lastOpDate: this.time(volume.lastOpDate),
      encrypted: volume.encrypted,
    });
  }

  /** The attachable data volume record of GetVmAttachableDataVolume. */
  attachableVolume(volume: Volume): Wire {
    return omitNulls({
      uuid: volume.uuid,
      name: volume.name,
      description: volume.description,
      actualSize: volume.actualSize,
      size: volume.size,
      diskOfferingUuid: volume.diskOfferingUuid,
      format: volume.format,
      installPath: volume.installPath,
      isShareable: volume.isShareable,
      primaryStorageUuid: volume.primaryStorageUuid,
      state: volume.state,
      status: volume.status,
      type: volume.type,
      createDate: this.time(volume.createDate),
      lastOpDate: this.time(volume.lastOpDate),
    });
  }

  vmCdRom(cdRom: VmCdRom): Wire {
    return omitNulls({
      uuid: cdRom.uuid,
      vmInstanceUuid: cdRom.vmInstanceUuid,
      isoUuid: cdRom.isoUuid,
      isoInstallPath: cdRom.isoInstallPath,
      name: cdRom.name,
      description: cdRom.description,
      deviceId: cdRom.deviceId,
      createDate: this.time(cdRom.createDate),
      lastOpDate: this.time(cdRom.lastOpDate),
    });
  }

  snsPlatform(platform: SnsApplicationPlatform): Wire {
    return omitNulls({
      uuid: platform.uuid,
      name: platform.name,
      description: platform.description,
      type: platform.type,
      state: platform.state,
      createDate: this.time(platform.createDate),
      lastOpDate: this.time(platform.lastOpDate),
    });
  }

  /**
   * SNSApplicationEndpointInventory; HTTP endpoints add `url` and `username`, SMS endpoints
   * `receivers` (the password never leaves the service).
   */
  snsEndpoint(endpoint: SnsApplicationEndpoint): Wire {
    return omitNulls({
      uuid: endpoint.uuid,
      name: endpoint.name,
      description: endpoint.description,
      type: endpoint.type,
      platformUuid: endpoint.platformUuid,
      state: endpoint.state,
      createDate: this.time(endpoint.createDate),
      lastOpDate: this.time(endpoint.lastOpDate),
      url: endpoint.type === 'HTTP' ? endpoint.url : null,
      username: endpoint.type === 'HTTP' ? endpoint.username : null,
      receivers:
        endpoint.type === 'SMS' ? endpoint.receivers.map((phoneNumber) => ({ phoneNumber })) : null,
    });
  }

  snsEmail(address: SnsEmailAddress): Wire {
    return {
      uuid: address.uuid,
      emailAddress: address.emailAddress,
      endpointUuid: address.endpointUuid,
      createDate: this.time(address.createDate),
      lastOpDate: this.time(address.lastOpDate),
    };
  }

  directory(directory: Directory): Wire {
    return omitNulls({
      uuid: directory.uuid,
      name: directory.name,
      groupName: directory.groupName,
      parentUuid: directory.parentUuid,
      zoneUuid: directory.zoneUuid,
      type: directory.type,
      createDate: this.time(directory.createDate),
      lastOpDate: this.time(directory.lastOpDate),
    });
  }
}
