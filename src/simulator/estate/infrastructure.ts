/**
 * The infrastructure of a tenant's generated estate: zones, L3 networks, clusters and primary
 * storages, the catalogue (instance offerings, tags), hosts with their network and hardware, and
 * the fibre-channel LUNs they see.
 */
import type { Cluster, Host, HostNic, InterfaceType, L3Network, Zone } from '../model.js';
import { EPOCH, GIB, TIB, VM_CPUS, VM_MEMORY_GIB, type TenantDraft } from './draft.js';

const TAGS: readonly [string, string][] = [
  ['production', '#d1242f'],
  ['staging', '#bf8700'],
  ['backup', '#1a7f37'],
  ['finance', '#0969da'],
];

const HBA_SPEEDS = ['8 Gbit', '16 Gbit', '32 Gbit'];

const LUN_VENDORS: readonly [string, string][] = [
  ['HUAWEI', 'XSG1'],
  ['NETAPP', 'LUN C-Mode'],
  ['PURE', 'FlashArray'],
  ['DGC', 'VRAID'],
];

const SENSORS: readonly [string, string, string, number, number][] = [
  ['CPU1 Temp', 'Temperature', 'degrees C', 38, 72],
  ['CPU2 Temp', 'Temperature', 'degrees C', 38, 72],
  ['Inlet Temp', 'Temperature', 'degrees C', 18, 30],
  ['FAN1', 'Fan', 'RPM', 4200, 9600],
  ['FAN2', 'Fan', 'RPM', 4200, 9600],
  ['PSU1 Power', 'Power Supply', 'Watts', 180, 520],
];

export function buildTopology(draft: TenantDraft): void {
  const { dice, tenant, store } = draft;
  const zoneCount = draft.size.hosts >= 4 ? 2 : 1;
  const clusterCount = Math.max(zoneCount, Math.ceil(draft.size.hosts / 4));
  for (let z = 0; z < zoneCount; z++) {
    const zone: Zone = {
      uuid: dice.uuid(),
      tenantId: tenant.id,
      name: `zone-${String.fromCharCode(97 + z)}${draft.tenantIndex === 0 ? '' : `-t${draft.tenantIndex + 1}`}`,
      description: z === 0 ? 'Primary data center' : 'Secondary data center',
      ...draft.times(),
    };
    draft.zones.push(store.zones.insert(zone));
    const l3s: L3Network[] = [];
    for (let n = 0; n < 2; n++) {
      const second = 16 + z * 4 + n + draft.tenantIndex * 40;
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
          ...draft.times(),
        }),
      );
    }
    draft.l3ByZone.set(zone.uuid, l3s);
  }
  for (let c = 0; c < clusterCount; c++) {
    const zone = draft.zones[c % zoneCount] as Zone;
    const cluster: Cluster = {
      uuid: dice.uuid(),
      tenantId: tenant.id,
      name: `cluster-${c + 1}`,
      description: null,
      zoneUuid: zone.uuid,
      hypervisorType: 'KVM',
      ...draft.times(zone.createDate.getTime()),
    };
    draft.clusters.push(store.clusters.insert(cluster));
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
      ...draft.times(cluster.createDate.getTime()),
    });
    draft.storages.push(storage);
    draft.storagesByCluster.set(cluster.uuid, [storage]);
  }
  for (const zone of draft.zones) {
    const clusters = draft.clusters.filter((cluster) => cluster.zoneUuid === zone.uuid);
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
      ...draft.times(zone.createDate.getTime()),
    });
    draft.storages.push(shared);
    for (const cluster of clusters) draft.storagesByCluster.get(cluster.uuid)?.push(shared);
  }
}

export function buildCatalogue(draft: TenantDraft): void {
  const { catalogue, tenant, store } = draft;
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
      draft.offerings.set(`${cpuNum}/${offering.memorySize}`, offering);
    }
  }
  for (const [name, color] of TAGS) {
    store.tags.insert({ uuid: catalogue.uuid(), tenantId: tenant.id, name, description: null, color, createDate: new Date(EPOCH), lastOpDate: new Date(EPOCH) });
  }
}

export function buildHost(draft: TenantDraft, index: number): void {
  const { dice, tenant, store } = draft;
  const cluster = draft.clusters[index % draft.clusters.length] as Cluster;
  const name = `kvm-${String(index + 1).padStart(2, '0')}`;
  const sockets = dice.pick([1, 2, 2, 4]);
  const cpuNum = sockets * dice.pick([16, 24, 32]) * 2;
  const memory = dice.pick([256, 384, 512, 768]) * GIB;
  const managementIp = `172.${20 + draft.tenantIndex}.${Math.floor(index / 250)}.${(index % 250) + 2}`;
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
    ipmiAddress: `172.${30 + draft.tenantIndex}.${Math.floor(index / 250)}.${(index % 250) + 2}`,
    ipmiUsername: 'ADMIN',
    ipmiPowerStatus: 'Chassis Power is on',
    ipmiPort: 623,
    architecture: arm ? 'aarch64' : 'x86_64',
    nqn: `nqn.2014-08.org.nvmexpress:uuid:${formatDashedUuid(dice.uuid())}`,
    hostname: `${name}.dc${draft.tenantIndex + 1}.example.internal`,
    cpuStatus: draft.hwStatus(),
    memoryStatus: draft.hwStatus(),
    diskStatus: draft.hwStatus(),
    nicStatus: draft.hwStatus(),
    gpuStatus: dice.chance(0.7) ? 'Unknown' : draft.hwStatus(),
    powerSupplyStatus: draft.hwStatus(),
    fanStatus: draft.hwStatus(),
    raidStatus: draft.hwStatus(),
    temperatureStatus: draft.hwStatus(),
    ...draft.times(cluster.createDate.getTime()),
  };
  store.hosts.insert(host);
  draft.hosts.push(host);
  const peers = draft.hostsByCluster.get(cluster.uuid) ?? [];
  peers.push(host);
  draft.hostsByCluster.set(cluster.uuid, peers);
  buildHostNetwork(draft, host);
  buildHostHardware(draft, host);
}

function buildHostNetwork(draft: TenantDraft, host: Host): void {
  const { dice, tenant, store } = draft;
  const times = draft.times(host.createDate.getTime());
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
      ipAddresses: interfaceType === 'noMaster' ? [`192.168.${100 + draft.tenantIndex}.${dice.int(2, 250)}/24`] : [],
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

function buildHostHardware(draft: TenantDraft, host: Host): void {
  const { dice, tenant, store } = draft;
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
      status: value > high - (high - low) / 20 ? 'Error' : draft.hwStatus() === 'Unknown' ? 'Unknown' : 'Normal',
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
      ...draft.times(host.createDate.getTime()),
    });
  }
}

export function buildLuns(draft: TenantDraft): void {
  const { dice, tenant, store } = draft;
  const fcStorageUuid = dice.uuid();
  for (const cluster of draft.clusters) {
    const hosts = draft.hostsByCluster.get(cluster.uuid) ?? [];
    for (let l = 0; l < 3; l++) {
      const [vendor, model] = dice.pick(LUN_VENDORS);
      const wwid = `36${dice.hex(30)}`;
      const times = draft.times(cluster.createDate.getTime());
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

function formatDashedUuid(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

function gatewayOf(ip: string): string {
  return ip.replace(/\.\d+$/, '.1');
}
