/**
 * VM instances: VmInstanceInventory read through the generic cursor family (resourceType `vm`),
 * with the records embedded in it (NICs and their used IPs, CD-ROMs, volumes) and the
 * relations the spec gives: host and last host, root volume, snapshot groups, attachable data
 * volumes, and `Host.vmInstances`.
 */
import { builder } from '../builder.js';
import type { GatewayContext } from '../context.js';
import type { HostRecord, UsedIpRecord, VmCdRomRecord, VmInstanceRecord, VmNicRecord, VolumeRecord } from '../upstream/records.js';
import {
  CreateVmInstanceFromVolumeSnapshotGroup,
  DeleteVmSshKey,
  DestroyVmInstance,
  DetachL3NetworkFromVm,
  GetVmAttachableDataVolume,
  PrimaryStorageMigrateVm,
  RecoverVmInstance,
  SetVmBootVolume,
  UpdateVmNicDriver,
} from '../upstream/operations/index.js';
import { loadListConnection, pageArgs } from './kit/connections.js';
import { DeleteMode } from './kit/delete-mode.js';
import { EMBEDDED_GLOBAL_ID, embeddedId, parseEmbeddedId } from './kit/embedded-ids.js';
import { cursorFamily, loadByUuid } from './kit/families.js';
import { HostRef, prefetchHostRelations } from './host.js';
import { defineListQuery } from './kit/list-query.js';
import { embeddedLoadError, groupByKey, notFound, requestLoader } from './kit/loading.js';
import { defineWriteMutation, type PayloadSource, type ResultReader } from './kit/mutation-kit.js';
import { alsoReads, backedBy, reads } from './kit/record-fields.js';
import { callsPerParent } from './kit/upstream-calls.js';
import { VolumeRef } from './volume.js';
import { VolumeSnapshotGroupConnection, volumeSnapshotGroups } from './volume-snapshot-group.js';

export const NicDriverType = builder.enumType('NicDriverType', {
  description: 'Emulated device model of a VM NIC (`driverType`; UpdateVmNicDriver accepts exactly these). Since 3.9.0.',
  values: {
    VIRTIO: { value: 'virtio', description: 'Paravirtualized virtio-net (`virtio`).' },
    E1000: { value: 'e1000', description: 'Emulated Intel E1000 (`e1000`).' },
    RTL8139: { value: 'rtl8139', description: 'Emulated Realtek RTL8139 (`rtl8139`).' },
  } as const,
});

const vmInstances = cursorFamily('vm');

/**
 * The VMs named by the parents of embedded ids (`<vmUuid>.<uuid>`), through the request's VM
 * loader, so NICs, used IPs and CD-ROMs looked up together share one batch (and its cache).
 */
async function loadParentVms(ids: readonly string[], context: GatewayContext) {
  const parsed = ids.map(parseEmbeddedId);
  const vmUuids = [...new Set(parsed.flatMap((id) => (id ? [id.parentUuid] : [])))];
  const vms = await VmInstanceRef.getDataloader(context).loadMany(vmUuids);
  const byUuid = new Map(vmUuids.map((uuid, index) => [uuid, vms[index]!]));
  return parsed.map((id) => (id ? { id, vm: byUuid.get(id.parentUuid) } : null));
}

/** Finds records embedded in VMs by their `<vmUuid>.<uuid>` ids. */
async function loadFromVms<T extends { uuid: string }>(
  ids: string[],
  context: GatewayContext,
  typeName: string,
  pick: (vm: VmInstanceRecord) => T[],
): Promise<(T | Error)[]> {
  const found = await loadParentVms(ids, context);
  return found.map((entry, index) => {
    if (!entry) return notFound(typeName, ids[index]!);
    if (entry.vm instanceof Error) return embeddedLoadError(entry.vm, typeName, entry.id.uuid);
    return (entry.vm && pick(entry.vm).find((record) => record.uuid === entry.id.uuid)) ?? notFound(typeName, entry.id.uuid);
  });
}

// A VM's NICs, CD-ROMs and used IPs carry its uuid (their global ids need it) from decoding, even
// when the upstream leaves it out of the embedded items: the resolvers hand them out as they are.

function loadVmNics(ids: string[], context: GatewayContext): Promise<(VmNicRecord | Error)[]> {
  return loadFromVms(ids, context, 'VmNic', (vm) => vm.vmNics);
}

function loadVmCdRoms(ids: string[], context: GatewayContext): Promise<(VmCdRomRecord | Error)[]> {
  return loadFromVms(ids, context, 'VmCdRom', (vm) => vm.vmCdRoms);
}

function loadUsedIps(ids: string[], context: GatewayContext): Promise<(UsedIpRecord | Error)[]> {
  return loadFromVms(ids, context, 'UsedIp', (vm) => vm.vmNics.flatMap((nic) => nic.usedIps));
}

/** Every snapshot group of every VM in the batch: one QueryVolumeSnapshotGroup (`vmInstanceUuid?=...`). */
async function loadSnapshotGroupsOfVms(vmUuids: readonly string[], context: GatewayContext) {
  const groups = await volumeSnapshotGroups.whereIn(context, 'vmInstanceUuid', vmUuids);
  return groupByKey(vmUuids, groups, (group) => group.vmInstanceUuid);
}

/** Every VM on every host of the batch: one CursorQuery (`filter=hostUuid:in:...`) plus CursorNext while more. */
async function loadVmsOfHosts(hostUuids: readonly string[], context: GatewayContext) {
  const vms = await vmInstances.whereIn(context, 'hostUuid', hostUuids);
  return groupByKey(hostUuids, vms, (vm) => vm.hostUuid);
}

// The snapshot groups of each VM and the VMs of each host, per request, whatever page of them a
// field asks for: the field cuts its page from the whole list, so one batch serves every alias.
// (Pothos' `t.loadable({ byPath: true })` made a loader per field path instead, and on each call
// an async wrapper, the field's path as a string, and graphql-jit's resolve info: 4% of what a
// dashboard allocated, for its 50 VMs' snapshot groups.)
const snapshotGroupsOfVm = requestLoader(loadSnapshotGroupsOfVms);
const vmsOfHost = requestLoader(loadVmsOfHosts);

async function loadAttachableDataVolumes(vmUuids: string[], context: GatewayContext): Promise<(VolumeRecord[] | Error)[]> {
  const session = context.session;
  session.requireCredential('resource');
  // The spec has no batch form of GetVmAttachableDataVolume: one request per distinct VM.
  return Promise.all(
    vmUuids.map((uuid) =>
      session
        .read(GetVmAttachableDataVolume, { vmInstanceUuid: uuid })
        .catch((error: unknown) => (error instanceof Error ? error : new Error(String(error)))),
    ),
  );
}

export const VmInstanceRef = builder.loadableNodeRef('VmInstance', {
  id: { resolve: (vm: VmInstanceRecord) => vm.uuid },
  // One CursorQuery (`filter=uuid:in:...`) per batch.
  load: loadByUuid(vmInstances, 'VmInstance'),
  cacheResolved: (vm) => vm.uuid,
});

VmInstanceRef.implement({
  description: 'A virtual machine (VmInstanceInventory), with its NICs, volumes and CD-ROMs embedded. Since 0.6.',
  extensions: backedBy('vmInstance'),
  fields: (t) => ({
    uuid: t.expose('uuid', { type: 'Uuid', nullable: false, description: 'Identifier. Since 0.6.' }),
    name: t.exposeString('name', { description: 'Name. Since 0.6.' }),
    description: t.exposeString('description', { description: 'Description. Since 0.6.' }),
    zoneUuid: t.expose('zoneUuid', { type: 'Uuid', description: 'Zone (data center) of the VM. Since 0.6.' }),
    clusterUuid: t.expose('clusterUuid', { type: 'Uuid', description: 'Cluster of the VM. Since 0.6.' }),
    imageUuid: t.expose('imageUuid', { type: 'Uuid', description: 'Image the VM was created from. Since 0.6.' }),
    hostUuid: t.expose('hostUuid', { type: 'Uuid', description: 'Host the VM runs on now; null when it is not placed. Since 0.6.' }),
    lastHostUuid: t.expose('lastHostUuid', { type: 'Uuid', description: 'Host the VM last ran on. Since 0.6.' }),
    instanceOfferingUuid: t.expose('instanceOfferingUuid', { type: 'Uuid', description: 'Instance offering (CPU/memory template) of the VM. Since 0.6.' }),
    rootVolumeUuid: t.expose('rootVolumeUuid', { type: 'Uuid', description: 'Root (boot) volume. Since 0.6.' }),
    defaultL3NetworkUuid: t.expose('defaultL3NetworkUuid', { type: 'Uuid', description: 'Default L3 network. Since 0.6.' }),
    platform: t.exposeString('platform', { description: 'Guest platform: `Windows`, `Linux` or `Other`. Since 0.6.' }),
    architecture: t.exposeString('architecture', { description: 'CPU architecture: `x86_64`, `aarch64` or `Other`. Since 0.6.' }),
    type: t.exposeString('type', { description: 'A user VM (`UserVm`) or a platform special-purpose VM (`ApplianceVm`). Since 0.6.' }),
    hypervisorType: t.exposeString('hypervisorType', { description: 'Hypervisor type, typically `KVM`. Since 0.6.' }),
    memorySize: t.expose('memorySize', { type: 'Long', description: 'Memory size in bytes. Since 0.6.' }),
    cpuNum: t.exposeInt('cpuNum', { description: 'CPU count. Since 0.6.' }),
    cpuSpeed: t.expose('cpuSpeed', { type: 'Long', description: 'CPU speed. Since 0.6.' }),
    allocatorStrategy: t.exposeString('allocatorStrategy', { description: 'Host allocation strategy. Since 0.6.' }),
    state: t.exposeString('state', {
      description: 'VM state; `Running`, `Stopped` and `Destroyed` are seen, other values are open. Since 0.6.',
    }),
    guestOsType: t.exposeString('guestOsType', { description: 'Guest OS type, e.g. `CentOS 7`. Since 3.11.2.' }),
    createDate: t.expose('createDate', { type: 'DateTime', description: 'When the VM was created. Since 0.6.' }),
    lastOpDate: t.expose('lastOpDate', { type: 'DateTime', description: 'When the VM record last changed. Since 0.6.' }),
    host: t.field({
      type: HostRef,
      nullable: true,
      description: 'Host the VM runs on now (`hostUuid`); null when it is not placed. Also null when it cannot be read (with an error). Since 0.6.',
      extensions: reads<VmInstanceRecord>('hostUuid'),
      resolve: (vm, _args, context, info) => {
        prefetchHostRelations(context, info, vm.hostUuid);
        return vm.hostUuid;
      },
    }),
    lastHost: t.field({
      type: HostRef,
      nullable: true,
      description: 'Host the VM last ran on (`lastHostUuid`). Null when it cannot be read (with an error). Since 0.6.',
      extensions: reads<VmInstanceRecord>('lastHostUuid'),
      resolve: (vm, _args, context, info) => {
        prefetchHostRelations(context, info, vm.lastHostUuid);
        return vm.lastHostUuid;
      },
    }),
    rootVolume: t.field({
      type: VolumeRef,
      nullable: true,
      description: 'Root (boot) volume (`rootVolumeUuid`), taken from the VM\'s own `allVolumes` when it is there. Null when it cannot be read (with an error). Since 0.6.',
      extensions: reads<VmInstanceRecord>('allVolumes', 'rootVolumeUuid'),
      resolve: (vm) => vm.allVolumes.find((volume) => volume.uuid === vm.rootVolumeUuid) ?? vm.rootVolumeUuid,
    }),
    nics: t.field({
      type: [VmNicRef],
      nullable: false,
      description: 'NICs of the VM (`vmNics`). Items since 3.17.13.',
      extensions: reads<VmInstanceRecord>('vmNics'),
      resolve: (vm) => vm.vmNics,
    }),
    volumes: t.field({
      type: [VolumeRef],
      nullable: false,
      description: 'Volumes attached to the VM, root volume included (`allVolumes`). Items since 3.17.13.',
      extensions: reads<VmInstanceRecord>('allVolumes'),
      resolve: (vm) => vm.allVolumes,
    }),
    cdRoms: t.field({
      type: [VmCdRomRef],
      nullable: false,
      description: 'CD-ROM drives of the VM (`vmCdRoms`). Items since 3.17.13.',
      extensions: reads<VmInstanceRecord>('vmCdRoms'),
      resolve: (vm) => vm.vmCdRoms,
    }),
    snapshotGroups: t.field({
      type: VolumeSnapshotGroupConnection,
      nullable: true,
      description:
        'Volume snapshot groups taken of this VM (QueryVolumeSnapshotGroup by `vmInstanceUuid`; one request for all VMs of a page). Null when they cannot be read (with an error). Since 3.6.0.',
      args: { ...pageArgs },
      // The groups are grouped by their VM's uuid.
      extensions: { ...reads<VmInstanceRecord>('uuid'), ...alsoReads('volumeSnapshotGroup', 'vmInstanceUuid') },
      resolve: (vm, args, context) => loadListConnection(context, snapshotGroupsOfVm(context), vm.uuid, args, 'VmInstance.snapshotGroups'),
    }),
    attachableDataVolumes: t.loadableList({
      type: VolumeRef,
      nullable: { list: true, items: false },
      description:
        'Data volumes that could be attached to this VM (GetVmAttachableDataVolume: one upstream request per VM, the spec has no batch form). Only the fields the candidate record carries are set. Null when they cannot be read (with an error). Since 0.6.',
      extensions: { ...reads<VmInstanceRecord>('uuid'), ...callsPerParent() },
      load: loadAttachableDataVolumes,
      resolve: (vm) => vm.uuid,
    }),
  }),
});

export const VmNicRef = builder.loadableNode('VmNic', {
  description: 'A NIC of a VM (vmNics item / VmNicInventory). Items since 3.17.13; VmNicInventory since 3.9.0.',
  id: { resolve: (nic) => embeddedId(nic.vmInstanceUuid, nic.uuid) },
  extensions: backedBy('vmNic', EMBEDDED_GLOBAL_ID),
  load: loadVmNics,
  fields: (t) => ({
    uuid: t.expose('uuid', { type: 'Uuid', nullable: false, description: 'Identifier. Since 3.9.0.' }),
    vmInstanceUuid: t.expose('vmInstanceUuid', { type: 'Uuid', description: 'VM the NIC belongs to. Since 3.9.0.' }),
    vmInstance: t.field({
      type: VmInstanceRef,
      nullable: true,
      description: 'VM the NIC belongs to. Null when it cannot be read (with an error). Since 3.9.0.',
      extensions: reads<VmNicRecord>('vmInstanceUuid'),
      resolve: (nic) => nic.vmInstanceUuid,
    }),
    l3NetworkUuid: t.expose('l3NetworkUuid', { type: 'Uuid', description: 'L3 network the NIC is on. Since 3.9.0.' }),
    ip: t.exposeString('ip', { description: 'IP address. Since 3.9.0.' }),
    mac: t.exposeString('mac', { description: 'MAC address. Since 3.9.0.' }),
    hypervisorType: t.exposeString('hypervisorType', { description: 'Hypervisor type, typically `KVM`. Since 4.7.13.' }),
    netmask: t.exposeString('netmask', { description: 'Netmask. Since 3.9.0.' }),
    gateway: t.exposeString('gateway', { description: 'Gateway. Since 3.9.0.' }),
    metaData: t.exposeString('metaData', { description: 'Metadata text. Since 3.9.0.' }),
    driverType: t.expose('driverType', {
      type: NicDriverType,
      nullable: true,
      description: 'Emulated device model; null when the upstream reports a value outside `virtio`, `e1000`, `rtl8139`. Since 4.7.13.',
    }),
    internalName: t.exposeString('internalName', { description: 'Name of the device inside the hypervisor. Since 4.7.13.' }),
    type: t.exposeString('type', { description: 'NIC type, e.g. `VNIC`. Since 4.7.13.' }),
    state: t.exposeString('state', { description: 'NIC state; `enable` is seen, other values are open. Since 4.7.13.' }),
    ipVersion: t.exposeInt('ipVersion', { description: 'IP version of `ip`: 4 or 6. Since 3.9.0.' }),
    deviceId: t.exposeInt('deviceId', { description: 'Device order of the NIC in the VM. Since 3.9.0.' }),
    usedIpUuid: t.expose('usedIpUuid', { type: 'Uuid', description: 'The used-IP record of `ip`, when the upstream returns it. Since 3.9.0.' }),
    createDate: t.expose('createDate', { type: 'DateTime', description: 'Creation time. Since 3.9.0.' }),
    lastOpDate: t.expose('lastOpDate', { type: 'DateTime', description: 'Last update time. Since 3.9.0.' }),
    usedIps: t.field({
      type: [UsedIpRef],
      nullable: false,
      description: 'IP addresses allocated to the NIC. Since 4.10.0.',
      extensions: reads<VmNicRecord>('usedIps'),
      resolve: (nic) => nic.usedIps,
    }),
  }),
});

export const UsedIpRef = builder.loadableNode('UsedIp', {
  description: 'An IP address allocated to a VM NIC (usedIps item). Since 4.10.0.',
  id: { resolve: (usedIp) => embeddedId(usedIp.vmInstanceUuid, usedIp.uuid) },
  extensions: backedBy('usedIp', EMBEDDED_GLOBAL_ID),
  load: loadUsedIps,
  fields: (t) => ({
    uuid: t.expose('uuid', { type: 'Uuid', nullable: false, description: 'Identifier. Since 4.10.0.' }),
    ipRangeUuid: t.expose('ipRangeUuid', { type: 'Uuid', description: 'IP range the address comes from. Since 4.10.0.' }),
    l3NetworkUuid: t.expose('l3NetworkUuid', { type: 'Uuid', description: 'L3 network of the address. Since 4.10.0.' }),
    ip: t.exposeString('ip', { description: 'IP address. Since 4.10.0.' }),
    netmask: t.exposeString('netmask', { description: 'Netmask. Since 4.10.0.' }),
    gateway: t.exposeString('gateway', { description: 'Gateway. Since 4.10.0.' }),
    usedFor: t.exposeString('usedFor', { description: 'What the address is used for. Since 4.10.0.' }),
    vmNicUuid: t.expose('vmNicUuid', { type: 'Uuid', description: 'NIC the address is allocated to. Since 4.10.0.' }),
    ipVersion: t.exposeInt('ipVersion', { description: 'IP version: 4 or 6. Since 4.10.0.' }),
    ipInLong: t.expose('ipInLong', { type: 'Long', description: 'The IPv4 address as a number; null for IPv6. Since 4.10.0.' }),
    createDate: t.expose('createDate', { type: 'DateTime', description: 'Creation time. Since 4.10.0.' }),
    lastOpDate: t.expose('lastOpDate', { type: 'DateTime', description: 'Last update time. Since 4.10.0.' }),
  }),
});

export const VmCdRomRef = builder.loadableNode('VmCdRom', {
  description: 'A CD-ROM drive of a VM (vmCdRoms item). Since 3.17.13.',
  id: { resolve: (cdRom) => embeddedId(cdRom.vmInstanceUuid, cdRom.uuid) },
  extensions: backedBy('vmCdRom', EMBEDDED_GLOBAL_ID),
  load: loadVmCdRoms,
  fields: (t) => ({
    uuid: t.expose('uuid', { type: 'Uuid', nullable: false, description: 'Identifier. Since 3.17.13.' }),
    vmInstanceUuid: t.expose('vmInstanceUuid', { type: 'Uuid', description: 'VM the drive belongs to. Since 3.17.13.' }),
    vmInstance: t.field({
      type: VmInstanceRef,
      nullable: true,
      description: 'VM the drive belongs to. Null when it cannot be read (with an error). Since 3.17.13.',
      extensions: reads<VmCdRomRecord>('vmInstanceUuid'),
      resolve: (cdRom) => cdRom.vmInstanceUuid,
    }),
    isoUuid: t.expose('isoUuid', { type: 'Uuid', description: 'ISO image in the drive; null when empty. Since 3.17.13.' }),
    isoInstallPath: t.exposeString('isoInstallPath', { description: 'Install path of the ISO image. Since 3.17.13.' }),
    name: t.exposeString('name', { description: 'Name. Since 3.17.13.' }),
    description: t.exposeString('description', { description: 'Description. Since 3.17.13.' }),
    deviceId: t.exposeInt('deviceId', { description: 'Device order of the drive in the VM. Since 3.17.13.' }),
    createDate: t.expose('createDate', { type: 'DateTime', description: 'Creation time. Since 3.17.13.' }),
    lastOpDate: t.expose('lastOpDate', { type: 'DateTime', description: 'Last update time. Since 3.17.13.' }),
  }),
});

export const VmInstanceConnection = builder.connectionObject({ type: VmInstanceRef, name: 'VmInstanceConnection' });

defineListQuery({
  typeName: 'VmInstance',
  family: vmInstances,
  connection: VmInstanceConnection,
  list: {
    name: 'vmInstances',
    description:
      'VMs, read through the generic cursor family (CursorQuery / CursorNext, resourceType `vm`). Null when they cannot be read (with an error): no `X-Resources-Authorization` sent (`UNAUTHENTICATED`) or the upstream failing; the other fields of the query still answer.',
  },
  one: {
    name: 'vmInstance',
    type: VmInstanceRef,
    description:
      'One VM by uuid; null when it does not exist (with a `NOT_FOUND` error) or cannot be read (with the error that stopped it, e.g. `UNAUTHENTICATED`).',
    argDescription: 'The VM\'s uuid.',
  },
  filter: {
    description: 'Conditions on VMs; all given conditions must hold.',
    argDescription: 'Conditions the VMs must meet.',
    fields: {
      uuids: { field: 'uuid', op: 'in', type: ['Uuid'], description: 'Only these VMs.' },
      nameContains: { field: 'name', op: 'contains', type: 'String', description: 'Name contains this text.' },
      state: { field: 'state', op: 'eq', type: 'String', description: 'Only VMs in this state, e.g. `Running`.' },
      hostUuid: { field: 'hostUuid', op: 'eq', type: 'Uuid', description: 'Only VMs running on this host.' },
      lastHostUuid: { field: 'lastHostUuid', op: 'eq', type: 'Uuid', description: 'Only VMs that last ran on this host.' },
      zoneUuid: { field: 'zoneUuid', op: 'eq', type: 'Uuid', description: 'Only VMs of this zone.' },
      clusterUuid: { field: 'clusterUuid', op: 'eq', type: 'Uuid', description: 'Only VMs of this cluster.' },
      imageUuid: { field: 'imageUuid', op: 'eq', type: 'Uuid', description: 'Only VMs created from this image.' },
      platform: { field: 'platform', op: 'eq', type: 'String', description: 'Only VMs of this platform: `Windows`, `Linux` or `Other`.' },
      architecture: { field: 'architecture', op: 'eq', type: 'String', description: 'Only VMs of this architecture, e.g. `x86_64`.' },
      hypervisorType: { field: 'hypervisorType', op: 'eq', type: 'String', description: 'Only VMs with this hypervisor, e.g. `KVM`.' },
      type: { field: 'type', op: 'eq', type: 'String', description: 'Only VMs of this type: `UserVm` or `ApplianceVm`.' },
    },
  },
  order: {
    fieldsDescription: 'Fields VMs can be sorted by.',
    description: 'Order of a VM connection.',
    argDescription: 'Sort order. Default: creation time, ascending.',
    fields: {
      CREATE_DATE: { value: 'createDate', description: 'Creation time.' },
      LAST_OP_DATE: { value: 'lastOpDate', description: 'Last update time.' },
      NAME: { value: 'name', description: 'Name.' },
      STATE: { value: 'state', description: 'State.' },
      MEMORY_SIZE: { value: 'memorySize', description: 'Memory size.' },
      CPU_NUM: { value: 'cpuNum', description: 'CPU count.' },
    },
  },
});

builder.objectField(HostRef, 'vmInstances', (t) =>
  t.field({
    type: VmInstanceConnection,
    nullable: true,
    description:
      'VMs running on this host (CursorQuery, resourceType `vm`, by `hostUuid`; one query for all hosts of a page). Null when they cannot be read (with an error). Since 0.6.',
    args: { ...pageArgs },
    // The host's VMs are grouped by their `hostUuid`.
    extensions: { ...reads<HostRecord>('uuid'), ...alsoReads('vmInstance', 'hostUuid') },
    resolve: (host, args, context) => loadListConnection(context, vmsOfHost(context), host.uuid, args, 'Host.vmInstances'),
  }),
);

// ---------------------------------------------------------------------------------------------
// Mutations: the spec's VM instance writes

export const VmCreateStrategy = builder.enumType('VmCreateStrategy', {
  description: 'Whether a new VM is started (`strategy` of CreateVmInstanceFromVolumeSnapshotGroup). Since 3.11.0.',
  values: {
    INSTANT_START: { value: 'InstantStart', description: '`InstantStart` (the upstream\'s default): the VM is started once created.' },
    CREATE_STOPPED: { value: 'CreateStopped', description: '`CreateStopped`: the VM is created and left stopped.' },
  } as const,
});

export const VmInstanceType = builder.enumType('VmInstanceType', {
  description: 'Kind of VM a create makes (`type`; the create operations accept exactly these). Since 0.6.',
  values: {
    USER_VM: { value: 'UserVm', description: 'A user VM (`UserVm`).' },
    APPLIANCE_VM: { value: 'ApplianceVm', description: 'A platform special-purpose VM (`ApplianceVm`).' },
  } as const,
});

const VolumeMigrationAO = builder.inputType('VolumeMigrationAO', {
  description: 'Where one volume of the VM goes (a `volumeMigrationAOs` item of PrimaryStorageMigrateVm). Since 5.1.0.',
  fields: (t) => ({
    volumeUuid: t.field({ type: 'Uuid', required: true, description: 'The volume to migrate (attached to the VM). Since 5.1.0.' }),
    dstPrimaryStorageUuid: t.field({
      type: 'Uuid',
      description: 'Destination primary storage of this volume; when left out, the operation\'s `dstPrimaryStorageUuid`. Since 5.1.0.',
    }),
    withSnapshots: t.boolean({ description: 'Whether the volume\'s snapshots migrate with it. Since 5.1.0.' }),
  }),
});

const DataVolumeSystemTags = builder.inputType('DataVolumeSystemTags', {
  description:
    'System tags for the data volume made from one snapshot (an entry of the `dataVolumeSystemTags` Map, keyed by snapshot uuid). Since 3.11.0.',
  fields: (t) => ({
    snapshotUuid: t.field({ type: 'Uuid', required: true, description: 'The group\'s volume snapshot the data volume is made from. Since 3.11.0.' }),
    systemTags: t.stringList({ required: true, description: 'System tags of that data volume. Since 3.11.0.' }),
  }),
});

const VolumeSnapshotEncryption = builder.inputType('VolumeSnapshotEncryption', {
  description:
    'Whether the volume made from one snapshot is encrypted (a `volumeSnapshotEncryptions` item, sent as `{volumeSnapshotUuid, encrypted}`). Since 5.1.0.',
  fields: (t) => ({
    volumeSnapshotUuid: t.field({ type: 'Uuid', required: true, description: 'The group\'s volume snapshot. Since 5.1.0.' }),
    encrypted: t.boolean({ required: true, description: 'Whether the volume made from it is encrypted. Since 5.1.0.' }),
  }),
});

/** The payload field's resolver of the VM a write answered with in `inventory`; null while running, after a failure, or with no inventory. */
function resultingVm(result: ResultReader<{ inventory: VmInstanceRecord | null }>) {
  return (source: PayloadSource, _args: unknown, context: GatewayContext): VmInstanceRecord | null => result(source, context)?.inventory ?? null;
}

/** The uuid of the VM a succeeded job wrote, for the loader to read its state now. */
function vmWrittenBy(source: PayloadSource, uuidField: string): string | null {
  const uuid = source.input[uuidField];
  return source.job.status === 'SUCCEEDED' && typeof uuid === 'string' ? uuid : null;
}

/** Drops the absent fields of an input object, as the kit does for top-level parameters. */
function withoutAbsent(item: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(item).filter(([, value]) => value !== undefined && value !== null));
}

const DEPRECATED_FOR_VOLUME_MIGRATION_AOS = 'Deprecated by the upstream: use `volumeMigrationAOs`.';

defineWriteMutation({
  name: 'primaryStorageMigrateVm',
  operation: PrimaryStorageMigrateVm,
  description:
    'Moves a stopped VM\'s root volume, and the data volumes named, to another primary storage (PrimaryStorageMigrateVm: `PUT vm-instances/{vmInstanceUuid}/actions`, action `primaryStorageMigrateVm`). Since 2.6.0.',
  inputFields: (t) => ({
    vmInstanceUuid: t.field({ type: 'Uuid', required: true, description: 'The VM to migrate. Since 2.6.0.' }),
    dstPrimaryStorageUuid: t.field({
      type: 'Uuid',
      description: 'Destination primary storage of the root volume (and of every volume `volumeMigrationAOs` gives none). Since 2.6.0.',
    }),
    withDataVolumes: t.boolean({
      description: 'Whether the data volumes migrate too. Since 2.6.0; deprecated.',
      deprecationReason: DEPRECATED_FOR_VOLUME_MIGRATION_AOS,
    }),
    withSnapshots: t.boolean({
      description: 'Whether the snapshots migrate too. Since 2.6.0; deprecated: set `withSnapshots` per `volumeMigrationAOs` item.',
      deprecationReason: 'Deprecated by the upstream: use `withSnapshots` of each `volumeMigrationAOs` item.',
    }),
    dstHostUuid: t.field({ type: 'Uuid', description: 'Host the VM should run on after the migration. Since 3.10.0.' }),
    strategy: t.string({ description: 'Migration strategy (allowed values not shown by the spec). Since 3.14.34.' }),
    downTime: t.int({ description: 'Allowed downtime of the migration (unit not shown by the spec). Since 3.16.21.' }),
    bandwidth: t.field({ type: 'Long', description: 'Overall migration storage rate limit in MB/s. Since 3.17.11.' }),
    volumeMigrationAOs: t.field({
      type: [VolumeMigrationAO],
      description: 'Per-volume destinations: which volumes migrate, where, and with their snapshots or not. Since 5.1.0.',
    }),
    enableMigrationTls: t.boolean({ description: 'Whether the migration traffic is encrypted with TLS. Since 5.0.0.' }),
  }),
  params: (input) => ({
    vmInstanceUuid: input.vmInstanceUuid,
    dstPrimaryStorageUuid: input.dstPrimaryStorageUuid,
    withDataVolumes: input.withDataVolumes,
    withSnapshots: input.withSnapshots,
    dstHostUuid: input.dstHostUuid,
    strategy: input.strategy,
    downTime: input.downTime,
    bandwidth: input.bandwidth,
    volumeMigrationAOs: input.volumeMigrationAOs?.map(withoutAbsent),
    enableMigrationTls: input.enableMigrationTls,
  }),
  payloadFields: (t, result) => ({
    vmInstance: t.field({
      type: VmInstanceRef,
      nullable: true,
      description: 'The VM after the migration, its volumes on their new storage; null until the job succeeded. Since 2.6.0.',
      resolve: resultingVm(result),
    }),
  }),
  // The root volume moves too (found in the answer's inventory), and both storages' capacity changes.
  touches: {
    types: ['VmInstance', 'Volume'],
    uuids: (input) => [input.vmInstanceUuid, ...(input.volumeMigrationAOs ?? []).map((item) => item.volumeUuid)],
    everyRecordOf: ['PrimaryStorageCapacity'],
  },
});

defineWriteMutation({
  name: 'createVmInstanceFromVolumeSnapshotGroup',
  operation: CreateVmInstanceFromVolumeSnapshotGroup,
  description:
    'Creates a VM whose root and data volumes are made from the snapshots of a volume snapshot group (CreateVmInstanceFromVolumeSnapshotGroup: `POST vm-instances/from/volume-snapshots/group/{volumeSnapshotGroupUuid}`). Since 3.11.0.',
  inputFields: (t) => ({
    volumeSnapshotGroupUuid: t.field({ type: 'Uuid', required: true, description: 'The snapshot group to create the VM from. Since 3.11.0.' }),
    name: t.string({ required: true, description: 'Name of the new VM. Since 3.11.0.' }),
    description: t.string({ description: 'Description of the new VM. Since 3.11.0.' }),
    instanceOfferingUuid: t.field({ type: 'Uuid', description: 'Instance offering (CPU/memory template) of the new VM. Since 3.11.0.' }),
    zoneUuid: t.field({ type: 'Uuid', description: 'Zone to create the VM in. Since 3.11.0.' }),
    clusterUuid: t.field({ type: 'Uuid', description: 'Cluster to create the VM in. Since 3.11.0.' }),
    hostUuid: t.field({ type: 'Uuid', description: 'Host to create the VM on. Since 3.11.0.' }),
    primaryStorageUuidForRootVolume: t.field({ type: 'Uuid', description: 'Primary storage of the new root volume. Since 3.11.0.' }),
    defaultL3NetworkUuid: t.field({ type: 'Uuid', description: 'Default L3 network of the new VM (one of `l3NetworkUuids`). Since 3.11.0.' }),
    resourceUuid: t.field({ type: 'Uuid', description: 'Uuid the new VM should get, instead of a generated one. Since 3.11.0.' }),
    cpuNum: t.int({ description: 'CPU count of the new VM. Since 3.11.0.' }),
    memorySize: t.field({ type: 'Long', description: 'Memory size of the new VM, in bytes. Since 3.11.0.' }),
    l3NetworkUuids: t.field({ type: ['Uuid'], description: 'L3 networks the new VM gets a NIC on. Since 3.11.0.' }),
    type: t.field({ type: VmInstanceType, description: 'Kind of VM: `UserVm` or `ApplianceVm`. Since 3.11.0.' }),
    strategy: t.field({ type: VmCreateStrategy, description: 'Start the VM once created (`InstantStart`, default) or not (`CreateStopped`). Since 3.11.0.' }),
    tagUuids: t.field({ type: ['Uuid'], description: 'Tags to attach to the new VM. Since 3.11.0.' }),
    rootVolumeSystemTags: t.stringList({ description: 'System tags of the new root volume. Since 3.11.0.' }),
    dataVolumeSystemTags: t.field({
      type: [DataVolumeSystemTags],
      description: 'System tags of each new data volume, by the snapshot it is made from (sent as the spec\'s Map keyed by snapshot uuid). Since 3.11.0.',
    }),
    reservedMemorySize: t.field({ type: 'Long', description: 'Memory reserved for the new VM, in bytes. Since 3.17.21.' }),
    vmNicParams: t.string({ description: 'NIC parameters of the new VM, as the upstream\'s text. Since 4.10.10.' }),
    resetTpm: t.boolean({ description: 'Whether the TPM state is reset. Since 5.0.0.' }),
    volumeSnapshotEncryptions: t.field({
      type: [VolumeSnapshotEncryption],
      description: 'Whether the volume made from each snapshot is encrypted (snapshot uuid to encrypted flag). Since 5.1.0.',
    }),
    vmEncryption: t.boolean({ description: 'Whether the new VM is encrypted. Since 5.1.0.' }),
  }),
  params: ({ dataVolumeSystemTags, volumeSnapshotEncryptions, ...input }) => ({
    volumeSnapshotGroupUuid: input.volumeSnapshotGroupUuid,
    name: input.name,
    description: input.description,
    instanceOfferingUuid: input.instanceOfferingUuid,
    zoneUuid: input.zoneUuid,
    clusterUuid: input.clusterUuid,
    hostUuid: input.hostUuid,
    primaryStorageUuidForRootVolume: input.primaryStorageUuidForRootVolume,
    defaultL3NetworkUuid: input.defaultL3NetworkUuid,
    resourceUuid: input.resourceUuid,
    cpuNum: input.cpuNum,
    memorySize: input.memorySize,
    l3NetworkUuids: input.l3NetworkUuids,
    type: input.type,
    strategy: input.strategy,
    tagUuids: input.tagUuids,
    rootVolumeSystemTags: input.rootVolumeSystemTags,
    dataVolumeSystemTags: dataVolumeSystemTags
      ? Object.fromEntries(dataVolumeSystemTags.map((entry) => [entry.snapshotUuid, entry.systemTags]))
      : undefined,
    reservedMemorySize: input.reservedMemorySize,
    vmNicParams: input.vmNicParams,
    resetTpm: input.resetTpm,
    volumeSnapshotEncryptions: volumeSnapshotEncryptions?.map(({ volumeSnapshotUuid, encrypted }) => ({ volumeSnapshotUuid, encrypted })),
    vmEncryption: input.vmEncryption,
  }),
  payloadFields: (t, result) => ({
    vmInstance: t.field({
      type: VmInstanceRef,
      nullable: true,
      description: 'The new VM; null until the job succeeded. Since 3.11.0.',
      resolve: resultingVm(result),
    }),
  }),
  // New VM and volumes: the lists of both change, and the volumes take primary storage space.
  touches: { types: ['VmInstance', 'Volume'], uuids: () => [], everyRecordOf: ['PrimaryStorageCapacity'] },
});

defineWriteMutation({
  name: 'detachL3NetworkFromVm',
  operation: DetachL3NetworkFromVm,
  description:
    'Detaches the network of a NIC from its VM, removing the NIC (DetachL3NetworkFromVm: `DELETE vm-instances/nics/{vmNicUuid}`). Since 0.6.',
  inputFields: (t) => ({
    vmNicUuid: t.field({ type: 'Uuid', required: true, description: 'The NIC whose network is detached from its VM. Since 0.6.' }),
  }),
  params: (input) => ({ vmNicUuid: input.vmNicUuid }),
  payloadFields: (t, result) => ({
    vmInstance: t.field({
      type: VmInstanceRef,
      nullable: true,
      description: 'The VM without the NIC; null until the job succeeded. Since 0.6.',
      resolve: resultingVm(result),
    }),
  }),
  // The VM, named by the answer's inventory, loses the NIC and its IPs.
  touches: { types: ['VmInstance', 'VmNic', 'UsedIp'], uuids: (input) => [input.vmNicUuid] },
});

defineWriteMutation({
  name: 'deleteVmSshKey',
  operation: DeleteVmSshKey,
  description: 'Removes the SSH key set on a VM (DeleteVmSshKey: `DELETE vm-instances/{uuid}/ssh-keys`). Since 0.6.',
  inputFields: (t) => ({
    uuid: t.field({
      type: 'Uuid',
      required: true,
      description: 'The VM. Since 0.6. The spec lists it as optional, but it is a path segment, so the gateway requires it.',
    }),
  }),
  params: (input) => ({ uuid: input.uuid }),
  payloadFields: (t, result) => ({
    vmInstance: t.field({
      type: VmInstanceRef,
      nullable: true,
      description: 'The VM without its SSH key (the answer\'s `inventory`, else read afresh); null until the job succeeded. Since 0.6.',
      resolve: (source, _args, context) => result(source, context)?.inventory ?? vmWrittenBy(source, 'uuid'),
    }),
  }),
  touches: { types: ['VmInstance'], uuids: (input) => [input.uuid] },
});

defineWriteMutation({
  name: 'setVmBootVolume',
  operation: SetVmBootVolume,
  description:
    'Makes one of the VM\'s volumes its boot volume (SetVmBootVolume: `PUT vm-instances/{vmInstanceUuid}/actions`, action `setVmBootVolume`). Since 3.12.0.',
  inputFields: (t) => ({
    vmInstanceUuid: t.field({ type: 'Uuid', required: true, description: 'The VM. Since 3.12.0.' }),
    volumeUuid: t.field({ type: 'Uuid', required: true, description: 'The volume to boot from; it must be attached to the VM. Since 3.12.0.' }),
  }),
  params: (input) => ({ vmInstanceUuid: input.vmInstanceUuid, volumeUuid: input.volumeUuid }),
  payloadFields: (t, result) => ({
    vmInstance: t.field({
      type: VmInstanceRef,
      nullable: true,
      description: 'The VM, its boot volume first in `volumes`; null until the job succeeded. Since 3.12.0.',
      resolve: resultingVm(result),
    }),
  }),
  // The former boot volume changes device too; the answer's inventory names it.
  touches: { types: ['VmInstance', 'Volume'], uuids: (input) => [input.vmInstanceUuid, input.volumeUuid] },
});

defineWriteMutation({
  name: 'recoverVmInstance',
  operation: RecoverVmInstance,
  description:
    'Brings a destroyed VM back, stopped (RecoverVmInstance: `PUT vm-instances/{uuid}/actions`, action `recoverVmInstance`). Since 0.6.',
  inputFields: (t) => ({
    uuid: t.field({ type: 'Uuid', required: true, description: 'The destroyed VM. Since 0.6.' }),
  }),
  params: (input) => ({ uuid: input.uuid }),
  payloadFields: (t, result) => ({
    vmInstance: t.field({
      type: VmInstanceRef,
      nullable: true,
      description: 'The recovered VM (state `Stopped`); null until the job succeeded. Since 0.6.',
      resolve: resultingVm(result),
    }),
  }),
  touches: { types: ['VmInstance'], uuids: (input) => [input.uuid] },
});

defineWriteMutation({
  name: 'updateVmNicDriver',
  operation: UpdateVmNicDriver,
  description:
    'Changes the emulated device model of a VM NIC (UpdateVmNicDriver: `PUT vm-instances/{vmInstanceUuid}/actions`, action `updateVmNicDriver`). Since 3.9.0.',
  inputFields: (t) => ({
    vmInstanceUuid: t.field({ type: 'Uuid', required: true, description: 'The VM. Since 3.9.0.' }),
    vmNicUuid: t.field({ type: 'Uuid', required: true, description: 'The NIC of that VM (sent inside the action object). Since 3.9.0.' }),
    driverType: t.field({ type: NicDriverType, required: true, description: 'The new device model. Since 3.9.0.' }),
  }),
  params: (input) => ({ vmInstanceUuid: input.vmInstanceUuid, vmNicUuid: input.vmNicUuid, driverType: input.driverType }),
  payloadFields: (t, result) => ({
    vmNic: t.field({
      type: VmNicRef,
      nullable: true,
      description: 'The NIC with its new driver (the answer\'s VmNicInventory); null until the job succeeded. Since 3.9.0.',
      resolve: (source, _args, context) => {
        const nic = result(source, context)?.inventory;
        if (!nic) return null;
        return nic.vmInstanceUuid ? nic : { ...nic, vmInstanceUuid: vmWrittenBy(source, 'vmInstanceUuid') };
      },
    }),
    vmInstance: t.field({
      type: VmInstanceRef,
      nullable: true,
      description: 'The VM of the NIC, read afresh; null until the job succeeded. Since 3.9.0.',
      resolve: (source) => vmWrittenBy(source, 'vmInstanceUuid'),
    }),
  }),
  touches: { types: ['VmInstance', 'VmNic'], uuids: (input) => [input.vmInstanceUuid, input.vmNicUuid] },
});

defineWriteMutation({
  name: 'destroyVmInstance',
  operation: DestroyVmInstance,
  description:
    'Destroys a VM; it stays queryable in state `Destroyed` until expunged and `recoverVmInstance` can bring it back (DestroyVmInstance: `DELETE vm-instances/{uuid}`). Since 0.6.',
  inputFields: (t) => ({
    uuid: t.field({ type: 'Uuid', required: true, description: 'The VM. Since 0.6.' }),
    deleteMode: t.field({ type: DeleteMode, description: 'How dependants are treated; the upstream\'s default is `Permissive`. Since 0.6.' }),
  }),
  params: (input) => ({ uuid: input.uuid, deleteMode: input.deleteMode }),
  payloadFields: (t) => ({
    vmInstance: t.field({
      type: VmInstanceRef,
      nullable: true,
      description: 'The destroyed VM, read afresh (the upstream answers `{}`); null until the job succeeded. Since 0.6.',
      resolve: (source) => vmWrittenBy(source, 'uuid'),
    }),
  }),
  // Its host's list of VMs changes with it (a VmInstance connection).
  touches: { types: ['VmInstance'], uuids: (input) => [input.uuid] },
});
