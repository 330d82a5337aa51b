/**
 * The generated demo estate: a deterministic function of the seed and the sizes, in which every
 * reference resolves (a VM's host is in its cluster, its root volume is among its volumes, a
 * snapshot ref names a volume of the group's VM, an email address belongs to an Email endpoint).
 */
import type {
  CbtTaskStatus,
  Cluster,
  Host,
  HostNic,
  HwMonitorStatus,
  InstanceOffering,
  InterfaceType,
  L3Network,
  PrimaryStorage,
  SnsApplicationEndpoint,
  SnsApplicationPlatform,
  Tenant,
  VmCdRom,
  VmInstance,
  VmNic,
  VmState,
  Volume,
  VolumeSnapshotRef,
  Zone,
} from './model.js';
import { buildSnapshotRef, buildVmNic, buildVolume, uuidShare } from './builders.js';
import type { TenantOverrides } from './options.js';
import type { SimulatorStore } from './store.js';

/** mulberry32: a small, fast, seedable PRNG; returns floats in [0, 1). */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Helpers over one PRNG stream. */
export class Dice {
  constructor(
    readonly next: () => number,
    /** Uuids drawn so far by every Dice sharing the set; `uuid()` never repeats one. */
    private readonly drawn: Set<string> = new Set(),
  ) {}

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  hex(length: number): string {
    let out = '';
    while (out.length < length) out += ((this.next() * 4294967296) >>> 0).toString(16).padStart(8, '0');
    return out.slice(0, length);
  }

  /** 32 lowercase hexadecimal characters. */
  uuid(): string {
    let uuid = this.hex(32);
    while (this.drawn.has(uuid)) uuid = this.hex(32);
    this.drawn.add(uuid);
    return uuid;
  }

  mac(): string {
    const bytes = ['fa'];
    for (let i = 0; i < 5; i++) bytes.push(this.hex(2));
    return bytes.join(':');
  }
}

export interface EstateSize {
  hosts: number;
  vms: number;
}

/** The two tenants: fixed values where given, else derived from the seed. */
export function deriveTenants(seed: number, first: TenantOverrides = {}, second: TenantOverrides = {}): Tenant[] {
  const dice = new Dice(createRandom(mixSeed(seed, 0)));
  return [first, second].map((overrides) => {
    const accountUuid = dice.uuid();
    const session = dice.uuid();
    const token = `simtok-${dice.hex(40)}`;
    const id = `tenant-${dice.hex(8)}`;
    return {
      id: overrides.tenantId ?? id,
      accountUuid,
      session: overrides.session ?? session,
      token: overrides.token ?? token,
    };
  });
}

/** The second tenant's size: a tenth of the first, at least 2 hosts and 5 VMs. */
export function secondTenantSize(size: EstateSize): EstateSize {
  return { hosts: Math.max(2, Math.round(size.hosts / 10)), vms: Math.max(5, Math.round(size.vms / 10)) };
}

/** Fills `store` with `tenants[0]`'s estate of `size` and `tenants[1]`'s of a tenth. */
export function generateEstate(store: SimulatorStore, seed: number, size: EstateSize, tenants: readonly Tenant[]): void {
  store.tenants.splice(0, store.tenants.length, ...tenants);
  const drawn = new Set<string>(tenants.flatMap((tenant) => [tenant.session, tenant.accountUuid]));
  tenants.forEach((tenant, index) => {
    const tenantSize = index === 0 ? size : secondTenantSize(size);
    const dice = new Dice(createRandom(mixSeed(seed, index + 1)), drawn);
    // A stream of its own for the records added later (offerings, tags), so that a seed's other
    // records stay what they were before them.
    const catalogue = new Dice(createRandom(mixSeed(seed, CATALOGUE_STREAM + index)), drawn);
    new TenantEstate(store, tenant, dice, catalogue, tenantSize, index).build();
  });
}

/** The first PRNG stream of the tenants' catalogues (offerings, tags); streams 0..2 are the tenants'. */
const CATALOGUE_STREAM = 100;

const EPOCH = Date.UTC(2023, 0, 2, 8, 0, 0);
const SPAN_SECONDS = 540 * 24 * 3600;
const GIB = 1024 ** 3;
const TIB = 1024 ** 4;

const VM_ROLES = ['web', 'app', 'db', 'cache', 'api', 'worker', 'mq', 'lb', 'ci', 'mon'];
const GUEST_OS: readonly { platform: string; guestOsType: string }[] = [
  { platform: 'Linux', guestOsType: 'CentOS 7' },
  { platform: 'Linux', guestOsType: 'Ubuntu 22.04' },
  { platform: 'Linux', guestOsType: 'Rocky Linux 9' },
  { platform: 'Linux', guestOsType: 'Debian 12' },
  { platform: 'Windows', guestOsType: 'Windows Server 2019' },
  { platform: 'Windows', guestOsType: 'Windows Server 2022' },
  { platform: 'Other', guestOsType: 'FreeBSD 13' },
];
/** The VMs' sizes: an instance offering per pair, which the VMs of that size reference. */
const VM_CPUS = [1, 2, 4, 8, 16];
const VM_MEMORY_GIB = [2, 4, 8, 16, 32];
const TAGS: readonly [string, string][] = [
  ['production', '#d1242f'],
  ['staging', '#bf8700'],
  ['backup', '#1a7f37'],
  ['finance', '#0969da'],
];
const NIC_DRIVERS = ['virtio', 'virtio', 'virtio', 'e1000', 'rtl8139'];
const HBA_SPEEDS = ['8 Gbit', '16 Gbit', '32 Gbit'];
const LUN_VENDORS: readonly [string, string][] = [
  ['HUAWEI', 'XSG1'],
  ['NETAPP', 'LUN C-Mode'],
  ['PURE', 'FlashArray'],
  ['DGC', 'VRAID'],
];
const CBT_STATUSES: readonly CbtTaskStatus[] = ['Created', 'Starting', 'Running', 'Running', 'Stopped', 'Failed'];
const SENSORS: readonly [string, string, string, number, number][] = [
  ['CPU1 Temp', 'Temperature', 'degrees C', 38, 72],
  ['CPU2 Temp', 'Temperature', 'degrees C', 38, 72],
  ['Inlet Temp', 'Temperature', 'degrees C', 18, 30],
  ['FAN1', 'Fan', 'RPM', 4200, 9600],
  ['FAN2', 'Fan', 'RPM', 4200, 9600],
  ['PSU1 Power', 'Power Supply', 'Watts', 180, 520],
];

/** Builds one tenant's records. */
class TenantEstate {
  private readonly zones: Zone[] = [];
  private readonly clusters: Cluster[] = [];
  private readonly storagesByCluster = new Map<string, PrimaryStorage[]>();
  private readonly l3ByZone = new Map<string, L3Network[]>();
  private readonly hostsByCluster = new Map<string, Host[]>();
  private readonly hosts: Host[] = [];
  private readonly vms: VmInstance[] = [];
  private readonly storages: PrimaryStorage[] = [];
  /** Instance offerings by `<cpuNum>/<memory bytes>`. */
  private readonly offerings = new Map<string, InstanceOffering>();
  private nextIp = 10;

  constructor(
    private readonly store: SimulatorStore,
    private readonly tenant: Tenant,
    private readonly dice: Dice,
    private readonly catalogue: Dice,
    private readonly size: EstateSize,
    private readonly tenantIndex: number,
  ) {}

  build(): void {
    this.buildTopology();
    this.buildCatalogue();
    for (let i = 0; i < this.size.hosts; i++) this.buildHost(i);
    this.buildLuns();
    const roleCounters = new Map<string, number>();
    for (let i = 0; i < this.size.vms; i++) this.buildVm(roleCounters);
    this.buildFreeVolumes();
    this.buildSnapshotGroups();
    this.buildCbtTasks();
    this.buildSns();
    this.buildDirectories();
  }

  private times(after = EPOCH): { createDate: Date; lastOpDate: Date } {
    const latest = EPOCH + SPAN_SECONDS * 1000;
    const start = Math.max(after, EPOCH);
    const created = start + this.dice.int(0, Math.max(0, Math.floor((latest - start) / 1000) - 86400)) * 1000;
    const updated = created + this.dice.int(0, Math.floor((latest - created) / 1000)) * 1000;
    return { createDate: new Date(created), lastOpDate: new Date(updated) };
  }

  private hwStatus(): HwMonitorStatus {
    const roll = this.dice.next();
    return roll < 0.9 ? 'Normal' : roll < 0.96 ? 'Error' : 'Unknown';
  }

  private buildTopology(): void {
    const { dice, tenant, store } = this;
    const zoneCount = this.size.hosts >= 4 ? 2 : 1;
    const clusterCount = Math.max(zoneCount, Math.ceil(this.size.hosts / 4));
    for (let z = 0; z < zoneCount; z++) {
      const zone: Zone = {
        uuid: dice.uuid(),
        tenantId: tenant.id,
        name: `zone-${String.fromCharCode(97 + z)}${this.tenantIndex === 0 ? '' : `-t${this.tenantIndex + 1}`}`,
        description: z === 0 ? 'Primary data center' : 'Secondary data center',
        ...this.times(),
      };
      this.zones.push(store.zones.insert(zone));
      const l3s: L3Network[] = [];
      for (let n = 0; n < 2; n++) {
        const second = 16 + z * 4 + n + this.tenantIndex * 40;
        l3s.push(
          store.l3Networks.insert({
            uuid: dice.uuid(),
            tenantId: tenant.id,
            name: n === 0 ? `l3-public-${z + 1}` : `l3-private-${z + 1}`,
            zoneUuid: zone.uuid,
            ipRangeUuid: dice.uuid(),
            networkPrefix: `10.${second}`,
            gateway: `10.${second}.0.1`,
            netmask: '255.255.0.0',
            ...this.times(),
          }),
        );
      }
      this.l3ByZone.set(zone.uuid, l3s);
    }
    for (let c = 0; c < clusterCount; c++) {
      const zone = this.zones[c % zoneCount] as Zone;
      const cluster: Cluster = {
        uuid: dice.uuid(),
        tenantId: tenant.id,
        name: `cluster-${c + 1}`,
        description: null,
        zoneUuid: zone.uuid,
        hypervisorType: 'KVM',
        ...this.times(zone.createDate.getTime()),
      };
      this.clusters.push(store.clusters.insert(cluster));
      const total = dice.int(8, 64) * TIB;
      const available = Math.floor(total * (0.2 + dice.next() * 0.7));
      const storage = store.primaryStorages.insert({
        uuid: dice.uuid(),
        tenantId: tenant.id,
        name: `ps-ceph-${c + 1}`,
        zoneUuid: zone.uuid,
        clusterUuids: [cluster.uuid],
        type: c % 2 === 0 ? 'Ceph' : 'SharedBlock',
        totalCapacity: total,
        availableCapacity: available,
        totalPhysicalCapacity: total,
        availablePhysicalCapacity: Math.min(total, available + dice.int(0, 512) * GIB),
        ...this.times(cluster.createDate.getTime()),
      });
      this.storages.push(storage);
      this.storagesByCluster.set(cluster.uuid, [storage]);
    }
    for (const zone of this.zones) {
      const clusters = this.clusters.filter((cluster) => cluster.zoneUuid === zone.uuid);
      const total = dice.int(4, 16) * TIB;
      const available = Math.floor(total * (0.3 + dice.next() * 0.6));
      const shared = store.primaryStorages.insert({
        uuid: dice.uuid(),
        tenantId: tenant.id,
        name: `ps-nfs-${zone.name}`,
        zoneUuid: zone.uuid,
        clusterUuids: clusters.map((cluster) => cluster.uuid),
        type: 'NFS',
        totalCapacity: total,
        availableCapacity: available,
        totalPhysicalCapacity: total,
        availablePhysicalCapacity: available,
        ...this.times(zone.createDate.getTime()),
      });
      this.storages.push(shared);
      for (const cluster of clusters) this.storagesByCluster.get(cluster.uuid)?.push(shared);
    }
  }

  /** Instance offerings (one per VM size) and tags, drawn from the catalogue stream. */
  private buildCatalogue(): void {
    const { catalogue, tenant, store } = this;
    for (const cpuNum of VM_CPUS) {
      for (const memoryGib of VM_MEMORY_GIB) {
        const offering = store.instanceOfferings.insert({
          uuid: catalogue.uuid(),
          tenantId: tenant.id,
          name: `${cpuNum}c${memoryGib}g`,
          description: `${cpuNum} vCPU, ${memoryGib} GiB`,
          cpuNum,
          memorySize: memoryGib * GIB,
          state: 'Enabled',
          createDate: new Date(EPOCH),
          lastOpDate: new Date(EPOCH),
        });
        this.offerings.set(`${cpuNum}/${offering.memorySize}`, offering);
      }
    }
    for (const [name, color] of TAGS) {
      store.tags.insert({ uuid: catalogue.uuid(), tenantId: tenant.id, name, description: null, color, createDate: new Date(EPOCH), lastOpDate: new Date(EPOCH) });
    }
  }

  private buildHost(index: number): void {
    const { dice, tenant, store } = this;
    const cluster = this.clusters[index % this.clusters.length] as Cluster;
    const name = `kvm-${String(index + 1).padStart(2, '0')}`;
    const sockets = dice.pick([1, 2, 2, 4]);
    const cpuNum = sockets * dice.pick([16, 24, 32]) * 2;
    const memory = dice.pick([256, 384, 512, 768]) * GIB;
    const managementIp = `172.${20 + this.tenantIndex}.${Math.floor(index / 250)}.${(index % 250) + 2}`;
    const arm = dice.chance(0.1);
    const host: Host = {
      uuid: dice.uuid(),
      tenantId: tenant.id,
      zoneUuid: cluster.zoneUuid,
      clusterUuid: cluster.uuid,
      name,
      description: index % 3 === 0 ? `Rack ${Math.floor(index / 8) + 1} compute node` : null,
      managementIp,
      hypervisorType: 'KVM',
      state: 'Enabled',
      status: dice.chance(0.1) ? 'Disconnected' : 'Connected',
      totalCpuCapacity: cpuNum * 4,
      availableCpuCapacity: cpuNum * 4,
      totalMemoryCapacity: memory,
      availableMemoryCapacity: memory,
      cpuSockets: sockets,
      cpuNum,
      ipmiAddress: `172.${30 + this.tenantIndex}.${Math.floor(index / 250)}.${(index % 250) + 2}`,
      ipmiUsername: 'ADMIN',
      ipmiPowerStatus: 'Chassis Power is on',
      ipmiPort: 623,
      architecture: arm ? 'aarch64' : 'x86_64',
      nqn: `nqn.2014-08.org.nvmexpress:uuid:${formatDashedUuid(dice.uuid())}`,
      hostname: `${name}.dc${this.tenantIndex + 1}.example.internal`,
      cpuStatus: this.hwStatus(),
      memoryStatus: this.hwStatus(),
      diskStatus: this.hwStatus(),
      nicStatus: this.hwStatus(),
      gpuStatus: dice.chance(0.7) ? 'Unknown' : this.hwStatus(),
      powerSupplyStatus: this.hwStatus(),
      fanStatus: this.hwStatus(),
      raidStatus: this.hwStatus(),
      temperatureStatus: this.hwStatus(),
      ...this.times(cluster.createDate.getTime()),
    };
    store.hosts.insert(host);
    this.hosts.push(host);
    const peers = this.hostsByCluster.get(cluster.uuid) ?? [];
    peers.push(host);
    this.hostsByCluster.set(cluster.uuid, peers);
    this.buildHostNetwork(host);
    this.buildHostHardware(host);
  }

  private buildHostNetwork(host: Host): void {
    const { dice, tenant, store } = this;
    const times = this.times(host.createDate.getTime());
    const bondMac = dice.mac();
    const bridged = dice.chance(0.6);
    const bond = store.bondings.insert({
      uuid: dice.uuid(),
      tenantId: tenant.id,
      hostUuid: host.uuid,
      bondingName: 'bond0',
      bondingType: bridged ? 'bridgeSlave' : 'noBridge',
      speed: 20000,
      miimon: 100,
      mode: dice.pick(['802.3ad', 'active-backup', 'balance-xor']),
      xmitHashPolicy: 'layer2+3',
      miiStatus: 'up',
      mac: bondMac,
      gateway: bridged ? null : gatewayOf(host.managementIp),
      callBackIp: host.managementIp,
      type: 'LinuxBonding',
      description: bridged ? 'Uplink bond bridged for VM traffic' : null,
      ipAddresses: bridged ? [] : [`${host.managementIp}/24`],
      allSlavesActive: true,
      ...times,
    });
    const layout: [string, InterfaceType, boolean][] = [
      ['eno1', 'bondingSlave', true],
      ['eno2', 'bondingSlave', true],
      ['ens3f0', 'bridgeSlave', false],
      ['ens3f1', 'noMaster', false],
    ];
    layout.forEach(([interfaceName, interfaceType, enslaved], index) => {
      const carrier = !dice.chance(0.05);
      const nic: HostNic = {
        uuid: dice.uuid(),
        tenantId: tenant.id,
        hostUuid: host.uuid,
        bondingUuid: enslaved ? bond.uuid : null,
        interfaceName,
        interfaceType,
        mac: enslaved ? bondMac : dice.mac(),
        pciDeviceAddress: `0000:${index < 2 ? '18' : '3b'}:00.${index % 2}`,
        speed: index < 2 ? 10000 : dice.pick([10000, 25000]),
        slaveActive: enslaved ? carrier : false,
        carrierActive: carrier,
        ipAddresses: interfaceType === 'noMaster' ? [`192.168.${100 + this.tenantIndex}.${dice.int(2, 250)}/24`] : [],
        // A slave shows its bond's gateway; the first slave of each bond is described.
        gateway: enslaved ? bond.gateway : null,
        callBackIp: enslaved ? host.managementIp : null,
        offloadStatus: enslaved ? 'tso:on,gso:on,gro:on' : null,
        description: enslaved && index === 0 ? `Bond slave ${interfaceName} to the top-of-rack switch` : null,
        ...times,
      };
      store.hostNics.insert(nic);
      if (enslaved && !carrier) store.bondings.update(bond, { allSlavesActive: false });
    });
  }

  private buildHostHardware(host: Host): void {
    const { dice, tenant, store } = this;
    const disks = dice.int(2, 4);
    for (let d = 0; d < disks; d++) {
      const nvme = d > 0 && dice.chance(0.5);
      store.blockDevices.insert({
        uuid: dice.uuid(),
        tenantId: tenant.id,
        hostUuid: host.uuid,
        name: nvme ? `nvme${d - 1}n1` : `sd${String.fromCharCode(97 + d)}`,
        type: 'disk',
        size: (d === 0 ? 480 : dice.pick([960, 1920, 3840])) * 1000 ** 3,
        model: nvme ? 'SAMSUNG MZQL23T8HCLS' : d === 0 ? 'INTEL SSDSC2KB480G8' : 'ST4000NM0035',
        serialNumber: dice.hex(12).toUpperCase(),
        wwn: `0x5${dice.hex(15)}`,
        mountPoint: d === 0 ? '/' : null,
        partitionTable: d === 0 ? 'gpt' : null,
      });
    }
    for (const [name, type, unit, low, high] of SENSORS) {
      const value = dice.int(low, high);
      store.sensors.insert({
        uuid: dice.uuid(),
        tenantId: tenant.id,
        hostUuid: host.uuid,
        name,
        type,
        value,
        unit,
        status: value > high - (high - low) / 20 ? 'Error' : this.hwStatus() === 'Unknown' ? 'Unknown' : 'Normal',
      });
    }
    const ports = dice.chance(0.75) ? 2 : 0;
    for (let p = 0; p < ports; p++) {
      const speed = dice.pick(HBA_SPEEDS);
      store.hbas.insert({
        uuid: dice.uuid(),
        tenantId: tenant.id,
        name: `host${p + 1}`,
        hostUuid: host.uuid,
        portName: `0x21000024ff${dice.hex(6)}`,
        portState: dice.chance(0.9) ? 'Online' : 'Linkdown',
        hbaType: 'FC',
        speed,
        supportedSpeeds: speed === '32 Gbit' ? '8 Gbit, 16 Gbit, 32 Gbit' : '4 Gbit, 8 Gbit, 16 Gbit',
        symbolicName: `QLE2692 FW:v9.08.02 DVR:v10.02.08.200-k`,
        supportedClasses: 'Class 3',
        ...this.times(host.createDate.getTime()),
      });
    }
  }

  private buildLuns(): void {
    const { dice, tenant, store } = this;
    const fcStorageUuid = dice.uuid();
    for (const cluster of this.clusters) {
      const hosts = this.hostsByCluster.get(cluster.uuid) ?? [];
      for (let l = 0; l < 3; l++) {
        const [vendor, model] = dice.pick(LUN_VENDORS);
        const wwid = `36${dice.hex(30)}`;
        const times = this.times(cluster.createDate.getTime());
        store.luns.insert({
          uuid: dice.uuid(),
          tenantId: tenant.id,
          name: `lun-${cluster.name}-${l}`,
          fiberChannelStorageUuid: fcStorageUuid,
          wwid,
          wwn: `0x6${dice.hex(15)}`,
          serial: dice.hex(20).toUpperCase(),
          vendor,
          model,
          type: 'disk',
          path: `/dev/disk/by-id/dm-uuid-mpath-${wwid}`,
          size: dice.pick([500, 1024, 2048]) * GIB,
          state: 'Enabled',
          scsiLunHostRefs: hosts.map((host) => ({ hostUuid: host.uuid, ...times })),
          scsiLunVmInstanceRefs: [],
          ...times,
        });
      }
    }
  }

  private buildVm(roleCounters: Map<string, number>): void {
    const { dice, tenant, store } = this;
    const host = dice.pick(this.hosts);
    const l3s = this.l3ByZone.get(host.zoneUuid) ?? [];
    const storages = this.storagesByCluster.get(host.clusterUuid) ?? [];
    const role = dice.pick(VM_ROLES);
    const ordinal = (roleCounters.get(role) ?? 0) + 1;
    roleCounters.set(role, ordinal);
    const os = dice.pick(GUEST_OS);
    const state: VmState = host.status === 'Disconnected' || dice.chance(0.15) ? 'Stopped' : 'Running';
    const times = this.times(host.createDate.getTime());
    const uuid = dice.uuid();
    const imageUuid = dice.uuid();
    const rootStorage = dice.pick(storages);
    const root = this.buildVolume(uuid, rootStorage, 0, times.createDate, imageUuid);
    const vm: VmInstance = {
      uuid,
      tenantId: tenant.id,
      name: `${role}-${String(ordinal).padStart(3, '0')}`,
      description: dice.chance(0.3) ? `${role} tier` : null,
      zoneUuid: host.zoneUuid,
      clusterUuid: host.clusterUuid,
      imageUuid,
      hostUuid: state === 'Running' ? host.uuid : null,
      lastHostUuid: host.uuid,
      // Still drawn, so that the rest of a seed's estate stays what it was before offerings were
      // records; replaced below by the offering of the VM's size.
      instanceOfferingUuid: dice.uuid(),
      rootVolumeUuid: root.uuid,
      defaultL3NetworkUuid: null,
      platform: os.platform,
      architecture: host.architecture,
      type: 'UserVm',
      hypervisorType: 'KVM',
      memorySize: dice.pick(VM_MEMORY_GIB) * GIB,
      cpuNum: dice.pick(VM_CPUS),
      cpuSpeed: 0,
      allocatorStrategy: 'LastHostPreferredAllocatorStrategy',
      state,
      guestOsType: os.guestOsType,
      sshKey: os.platform === 'Linux' && dice.chance(0.5) ? `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${dice.hex(32)}` : null,
      vmNics: [],
      vmCdRoms: [],
      ...times,
    };
    vm.instanceOfferingUuid = this.offerings.get(`${vm.cpuNum}/${vm.memorySize}`)?.uuid ?? null;
    const dataVolumes = dice.pick([0, 0, 1, 1, 2]);
    for (let d = 1; d <= dataVolumes; d++) this.buildVolume(uuid, dice.pick(storages), d, times.createDate, null);
    const nicCount = dice.chance(0.25) ? 2 : 1;
    for (let n = 0; n < nicCount; n++) vm.vmNics.push(this.buildVmNic(vm, l3s[n] ?? (l3s[0] as L3Network), n));
    vm.defaultL3NetworkUuid = vm.vmNics[0]?.l3NetworkUuid ?? null;
    if (dice.chance(0.3)) vm.vmCdRoms.push(this.buildCdRom(vm));
    store.vms.insert(vm);
    this.vms.push(vm);
  }

  private buildVolume(
    vmUuid: string | null,
    storage: PrimaryStorage,
    deviceId: number | null,
    after: Date,
    rootImageUuid: string | null,
  ): Volume {
    const { dice, tenant, store } = this;
    const uuid = dice.uuid();
    const root = deviceId === 0;
    const size = root ? dice.pick([40, 50, 80, 100]) * GIB : dice.pick([100, 200, 500, 1024]) * GIB;
    const times = this.times(after.getTime());
    return store.volumes.insert(
      buildVolume({
        uuid,
        tenantId: tenant.id,
        vmInstanceUuid: vmUuid,
        storage,
        deviceId,
        root,
        description: !root && uuidShare(uuid, 0.5, 3) ? 'Application data disk' : null,
        diskOfferingUuid: root ? null : dice.uuid(),
        rootImageUuid,
        size,
        actualSize: Math.floor(size * (0.05 + dice.next() * 0.7)),
        isShareable: !root && dice.chance(0.05),
        encrypted: dice.chance(0.15),
        ...times,
      }),
    );
  }

  private buildVmNic(vm: VmInstance, l3: L3Network, deviceId: number): VmNic {
    const { dice } = this;
    const hostPart = this.nextIp++;
    return buildVmNic({
      uuid: dice.uuid(),
      usedIpUuid: dice.uuid(),
      vmInstanceUuid: vm.uuid,
      l3,
      deviceId,
      ip: `${l3.networkPrefix}.${Math.floor(hostPart / 254) % 256}.${(hostPart % 254) + 1}`,
      mac: dice.mac(),
      driverType: dice.pick(NIC_DRIVERS),
      internalNumber: dice.int(1, 9999),
      createDate: vm.createDate,
      lastOpDate: vm.lastOpDate,
    });
  }

  private buildCdRom(vm: VmInstance): VmCdRom {
    const { dice } = this;
    const isoUuid = dice.uuid();
    return {
      uuid: dice.uuid(),
      vmInstanceUuid: vm.uuid,
      isoUuid,
      isoInstallPath: `/zstack_bs/iso/${isoUuid}.iso`,
      name: `vm-${vm.uuid.slice(0, 8)}-cdRom`,
      description: uuidShare(isoUuid, 0.5) ? 'Guest tools installation media' : null,
      deviceId: 0,
      createDate: vm.createDate,
      lastOpDate: vm.lastOpDate,
    };
  }

  private buildFreeVolumes(): void {
    const free = Math.max(3, Math.round(this.size.vms / 10));
    for (let i = 0; i < free; i++) {
      const cluster = this.dice.pick(this.clusters);
      const storage = this.dice.pick(this.storagesByCluster.get(cluster.uuid) ?? this.storages);
      this.buildVolume(null, storage, null, cluster.createDate, null);
    }
  }

  private buildSnapshotGroups(): void {
    const { dice, tenant, store } = this;
    const groups = Math.max(3, Math.round(this.size.vms / 10));
    for (let g = 0; g < groups; g++) {
      const vm = dice.pick(this.vms);
      const volumes = store.volumesOfVm(vm);
      const times = this.times(vm.createDate.getTime());
      const groupUuid = dice.uuid();
      const refs = volumes.map((volume, index) =>
        buildSnapshotRef(volume, index, groupUuid, { uuid: dice.uuid(), deleted: index > 0 && dice.chance(0.1), ...times }),
      );
      store.snapshotGroups.insert({
        uuid: groupUuid,
        tenantId: tenant.id,
        name: `${vm.name}-snapshot-${g + 1}`,
        description: dice.chance(0.5) ? 'Scheduled consistency group' : null,
        snapshotCount: refs.length,
        vmInstanceUuid: vm.uuid,
        volumeSnapshotRefs: refs,
        ...times,
      });
    }
    this.ensureFailedDeletionItem();
  }

  /**
   * Deleting a group answers a failed `results` item (with its `error`) for each snapshot already
   * deleted. Whatever the seed, some group has one next to a live one, so that answer is always
   * there to be read; decided after the draws, so no other generated value moves.
   */
  private ensureFailedDeletionItem(): void {
    const groups = [...this.store.snapshotGroups.list(this.tenant.id)];
    const mixed = (refs: readonly VolumeSnapshotRef[]): boolean => refs.some((ref) => ref.snapshotDeleted) && refs.some((ref) => !ref.snapshotDeleted);
    if (groups.some((group) => mixed(group.volumeSnapshotRefs))) return;
    const group = groups.find((candidate) => candidate.volumeSnapshotRefs.length > 1);
    if (group === undefined) return;
    const refs = group.volumeSnapshotRefs.map((ref, index, all) => (index === all.length - 1 ? { ...ref, snapshotDeleted: true } : ref));
    this.store.snapshotGroups.update(group, { volumeSnapshotRefs: refs });
  }

  private buildCbtTasks(): void {
    const { dice, tenant, store } = this;
    const tasks = Math.min(this.vms.length, Math.max(3, Math.round(this.size.vms / 20)));
    const taken = new Set<string>();
    for (let t = 0; t < tasks; t++) {
      const vm = dice.pick(this.vms);
      if (taken.has(vm.uuid)) continue;
      taken.add(vm.uuid);
      store.cbtTasks.insert({
        uuid: dice.uuid(),
        tenantId: tenant.id,
        name: `cbt-${vm.name}`,
        description: dice.chance(0.3) ? 'Incremental backup tracking' : null,
        status: dice.pick(CBT_STATUSES),
        taskType: 'VM',
        vmInstanceUuid: vm.uuid,
        volumeUuids: store.volumesOfVm(vm).map((volume) => volume.uuid),
        bitmapName: null,
        exportedVolumeUuids: new Set(),
        ...this.times(vm.createDate.getTime()),
      });
    }
    // A few VMs use FC LUNs directly.
    const luns = [...store.luns.list(tenant.id)];
    for (const lun of luns.slice(0, Math.ceil(luns.length / 3))) {
      const candidates = this.vms.filter((vm) => lun.scsiLunHostRefs.some((ref) => ref.hostUuid === vm.lastHostUuid));
      if (candidates.length > 0) {
        lun.scsiLunVmInstanceRefs.push({ vmInstanceUuid: dice.pick(candidates).uuid, createDate: lun.lastOpDate });
      }
    }
  }

  private buildSns(): void {
    const { dice, tenant, store } = this;
    const platformSpecs: [string, string][] = [
      ['system-http', 'HTTP'],
      ['email-notify', 'Email'],
      ['sms-aliyun', 'SMS'],
    ];
    const platforms = new Map<string, SnsApplicationPlatform>();
    for (const [name, type] of platformSpecs) {
      platforms.set(
        type,
        store.snsPlatforms.insert({
          uuid: dice.uuid(),
          tenantId: tenant.id,
          name,
          description: `${type} notification platform`,
          type,
          state: 'Enabled',
          ...this.times(),
        }),
      );
    }
    const endpointSpecs: [string, SnsApplicationEndpoint['type']][] = [
      ['ops-webhook', 'HTTP'],
      ['pager-webhook', 'HTTP'],
      ['ops-mail', 'Email'],
      ['finance-mail', 'Email'],
      ['oncall-sms', 'SMS'],
      ['manager-sms', 'SMS'],
    ];
    for (const [name, type] of endpointSpecs) {
      const platform = platforms.get(type) as SnsApplicationPlatform;
      const endpoint = store.snsEndpoints.insert({
        uuid: dice.uuid(),
        tenantId: tenant.id,
        name,
        description: null,
        type,
        platformUuid: platform.uuid,
        state: 'Enabled',
        url: type === 'HTTP' ? `https://alerts.example.com/hooks/${name}` : null,
        username: type === 'HTTP' ? 'alertbot' : null,
        password: type === 'HTTP' ? dice.hex(16) : null,
        receivers:
          type === 'SMS' ? Array.from({ length: dice.int(2, 3) }, () => `+86138${dice.int(10000000, 99999999)}`) : [],
        ...this.times(platform.createDate.getTime()),
      });
      if (type === 'Email') {
        for (let a = 0; a < dice.int(2, 3); a++) {
          store.snsEmails.insert({
            uuid: dice.uuid(),
            tenantId: tenant.id,
            emailAddress: `${name.split('-')[0]}${a + 1}@example.com`,
            endpointUuid: endpoint.uuid,
            ...this.times(endpoint.createDate.getTime()),
          });
        }
      }
    }
  }

  private buildDirectories(): void {
    const { dice, tenant, store } = this;
    for (const zone of this.zones) {
      const root = store.directories.insert({
        uuid: dice.uuid(),
        tenantId: tenant.id,
        name: `${zone.name}-root`,
        groupName: 'default',
        parentUuid: null,
        zoneUuid: zone.uuid,
        type: 'vminstance',
        ...this.times(zone.createDate.getTime()),
      });
      for (const child of ['production', 'staging', 'archive']) {
        store.directories.insert({
          uuid: dice.uuid(),
          tenantId: tenant.id,
          name: child,
          groupName: 'default',
          parentUuid: root.uuid,
          zoneUuid: zone.uuid,
          type: 'vminstance',
          ...this.times(root.createDate.getTime()),
        });
      }
    }
  }
}

/** Decorrelates the streams of one seed (mulberry32 streams of nearby seeds are shifted copies). */
function mixSeed(seed: number, stream: number): number {
  let h = Math.imul((seed >>> 0) ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(stream + 1, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  return h >>> 0;
}

function formatDashedUuid(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

function gatewayOf(ip: string): string {
  return ip.replace(/\.\d+$/, '.1');
}


