/**
 * Fibre-channel storage devices of the resource family: HBA ports (QueryHBADevice) and LUNs
 * (QueryFiberChannelLun), the hosts and VMs a LUN is mapped to, and `Host.hbaDevices`.
 */
import { builder } from '../builder.js';
import type { GatewayContext } from '../context.js';
import type {
  FiberChannelLunRecord,
  HbaDeviceRecord,
  HostRecord,
  ScsiLunHostRefRecord,
  ScsiLunVmInstanceRefRecord,
} from '../upstream/records.js';
import { loadListConnection, pageArgs } from './kit/connections.js';
import { loadByUuid, queryFamily } from './kit/families.js';
import { HostRef, prefetchFromHostUuid } from './host/index.js';
import { defineListQuery } from './kit/list-query.js';
import { groupByKey, requestLoader } from './kit/loading.js';
import { alsoReads, backedBy, reads } from './kit/record-fields.js';
import { VmInstanceRef } from './vm-instance/index.js';

/**
 * Loads records through a node's per-request DataLoader, leaving out references to records that
 * no longer exist (or that the caller cannot see); any other failure is raised.
 */
async function loadExisting<T>(loader: { loadMany(keys: readonly string[]): Promise<(T | Error | null)[]> }, keys: readonly string[]): Promise<T[]> {
  const results = await loader.loadMany(keys);
  const found: T[] = [];
  for (const result of results) {
    if (result === null) continue;
    if (!(result instanceof Error)) found.push(result);
    else if ((result as { extensions?: { code?: unknown } }).extensions?.code !== 'NOT_FOUND') throw result;
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// HBA devices

const hbaDevices = queryFamily('hbaDevices');

export const HbaDeviceRef = builder.loadableNode('HbaDevice', {
  description: 'A fibre-channel HBA port of a host (FC HBA device, QueryHBADevice). Since 5.3.0.',
  id: { resolve: (device: HbaDeviceRecord) => device.uuid },
  extensions: backedBy('hbaDevice'),
  // One QueryHBADevice (`q=uuid?=...`) per batch.
  load: loadByUuid(hbaDevices, 'HbaDevice'),
  fields: (t) => ({
    uuid: t.expose('uuid', { type: 'Uuid', nullable: false, description: 'Identifier. Since 5.3.0.' }),
    name: t.exposeString('name', { description: 'Port name, e.g. `host1`. Since 5.3.0.' }),
    hostUuid: t.expose('hostUuid', { type: 'Uuid', description: 'Host the HBA is installed in. Since 5.3.0.' }),
    host: t.field({
      type: HostRef,
      nullable: true,
      description: 'Host the HBA is installed in (read through the generic cursor family). Null when it cannot be read (with an error). Since 5.3.0.',
      extensions: reads<HbaDeviceRecord>('hostUuid'),
      resolve: (device) => device.hostUuid,
    }),
    portName: t.exposeString('portName', { description: 'World wide port name (WWPN) of the port. Since 5.3.0.' }),
    portState: t.exposeString('portState', { description: 'Port state; `Online` is seen, other values are open. Since 5.3.0.' }),
    hbaType: t.exposeString('hbaType', { description: 'HBA type, e.g. `FC`. Since 5.3.0.' }),
    speed: t.exposeString('speed', { description: 'Current port speed as text, a number with its unit (e.g. `16 Gbit`). Since 5.3.0.' }),
    supportedSpeeds: t.exposeString('supportedSpeeds', {
      description: 'Speeds the port supports, as text (e.g. `4 Gbit, 8 Gbit, 16 Gbit`). Since 5.3.0.',
    }),
    symbolicName: t.exposeString('symbolicName', { description: 'Symbolic name: adapter model, firmware and driver versions. Since 5.3.0.' }),
    supportedClasses: t.exposeString('supportedClasses', { description: 'Fibre-channel classes of service supported, e.g. `Class 3`. Since 5.3.0.' }),
    createDate: t.expose('createDate', { type: 'DateTime', description: 'When the port was discovered. Since 5.3.0.' }),
    lastOpDate: t.expose('lastOpDate', { type: 'DateTime', description: 'When the port record last changed. Since 5.3.0.' }),
  }),
});

export const HbaDeviceConnection = builder.connectionObject({
  type: HbaDeviceRef,
  name: 'HbaDeviceConnection',
  description: 'A page of fibre-channel HBA ports.',
});

defineListQuery({
  typeName: 'HbaDevice',
  family: hbaDevices,
  connection: HbaDeviceConnection,
  list: {
    name: 'hbaDevices',
    description:
      'Fibre-channel HBA ports (QueryHBADevice). Null when they cannot be read (with an error): no `Authorization` sent (`UNAUTHENTICATED`) or the upstream failing; the other fields of the query still answer. Since 5.3.0.',
  },
  one: {
    name: 'hbaDevice',
    type: HbaDeviceRef,
    description:
      'One HBA port by uuid; null when it does not exist (with a `NOT_FOUND` error) or cannot be read (with the error that stopped it, e.g. `UNAUTHENTICATED`). Since 5.3.0.',
    argDescription: 'The port\'s uuid.',
  },
  filter: {
    description: 'Conditions on HBA ports; all given conditions must hold.',
    argDescription: 'Conditions the ports must meet.',
    fields: {
      uuids: { field: 'uuid', op: 'in', type: ['Uuid'], description: 'Only these ports.' },
      hostUuid: { field: 'hostUuid', op: 'eq', type: 'Uuid', description: 'Only ports of this host.' },
      portState: { field: 'portState', op: 'eq', type: 'String', description: 'Only ports in this state, e.g. `Online`.' },
      hbaType: { field: 'hbaType', op: 'eq', type: 'String', description: 'Only HBAs of this type, e.g. `FC`.' },
    },
  },
  order: {
    fieldsDescription: 'Fields HBA ports can be sorted by.',
    description: 'Order of an HBA port connection.',
    argDescription: 'Sort order. Default: the upstream\'s own (stable) order.',
    fields: {
      CREATE_DATE: { value: 'createDate', description: 'Discovery time.' },
      LAST_OP_DATE: { value: 'lastOpDate', description: 'Last update time.' },
      NAME: { value: 'name', description: 'Port name.' },
      PORT_NAME: { value: 'portName', description: 'World wide port name.' },
    },
  },
});

/** The HBA ports of each host: one QueryHBADevice (`q=hostUuid?=...`) for every host of the batch. */
async function loadHbaDevicesOfHosts(hostUuids: readonly string[], context: GatewayContext): Promise<HbaDeviceRecord[][]> {
  const devices = await hbaDevices.whereIn(context, 'hostUuid', hostUuids);
  return groupByKey(hostUuids, devices, (device) => device.hostUuid);
}

/** Every HBA device of each host, per request: one QueryHBADevice (`q=hostUuid?=...`) per batch. */
const hbaDevicesOfHost = requestLoader(loadHbaDevicesOfHosts);

builder.objectField(HostRef, 'hbaDevices', (t) =>
  t.field({
    type: HbaDeviceConnection,
    nullable: true,
    description:
      'Fibre-channel HBA ports of this host (QueryHBADevice; one upstream query for all hosts of a page). Needs the resource-family credential. Null when they cannot be read (with an error), e.g. without `Authorization` (`UNAUTHENTICATED`). Since 5.3.0.',
    args: { ...pageArgs },
    // The ports are grouped by their host's uuid.
    extensions: {
      ...reads<HostRecord>('uuid'),
      ...alsoReads('hbaDevice', 'hostUuid'),
      // A page of VMs selecting `host { hbaDevices }` starts this batch with the hosts' own.
      ...prefetchFromHostUuid((context, hostUuid) => {
        hbaDevicesOfHost(context)
          .load(hostUuid)
          .catch(() => undefined);
      }),
    },
    resolve: (host: HostRecord, args, context) => loadListConnection(context, hbaDevicesOfHost(context), host.uuid, args, 'Host.hbaDevices'),
  }),
);

// ---------------------------------------------------------------------------------------------
// Fibre-channel LUNs

const fiberChannelLuns = queryFamily('fiberChannelLuns');

const ScsiLunHostRefRef = builder.objectRef<ScsiLunHostRefRecord>('ScsiLunHostRef');

ScsiLunHostRefRef.implement({
  description: 'A mapping of a fibre-channel LUN to a host that sees it (scsiLunHostRefs item). Since 3.1.0.',
  fields: (t) => ({
    scsiLunUuid: t.expose('scsiLunUuid', { type: 'Uuid', nullable: false, description: 'The LUN. Since 3.1.0.' }),
    hostUuid: t.expose('hostUuid', { type: 'Uuid', nullable: false, description: 'The host that sees the LUN. Since 3.1.0.' }),
    host: t.field({
      type: HostRef,
      nullable: true,
      description: 'The host that sees the LUN (read through the generic cursor family). Null when it cannot be read (with an error). Since 3.1.0.',
      resolve: (ref) => ref.hostUuid,
    }),
    createDate: t.expose('createDate', { type: 'DateTime', description: 'When the mapping was made. Since 3.1.0.' }),
    lastOpDate: t.expose('lastOpDate', { type: 'DateTime', description: 'When the mapping last changed. Since 3.1.0.' }),
  }),
});

const ScsiLunVmInstanceRefRef = builder.objectRef<ScsiLunVmInstanceRefRecord>('ScsiLunVmInstanceRef');

ScsiLunVmInstanceRefRef.implement({
  description: 'A mapping of a fibre-channel LUN to a VM that uses it directly (scsiLunVmInstanceRefs item). Since 3.1.0.',
  fields: (t) => ({
    scsiLunUuid: t.expose('scsiLunUuid', { type: 'Uuid', nullable: false, description: 'The LUN. Since 3.1.0.' }),
    vmInstanceUuid: t.expose('vmInstanceUuid', { type: 'Uuid', nullable: false, description: 'The VM using the LUN. Since 3.1.0.' }),
    vmInstance: t.field({
      type: VmInstanceRef,
      nullable: true,
      description: 'The VM using the LUN (read through the generic cursor family). Null when it cannot be read (with an error). Since 3.1.0.',
      resolve: (ref) => ref.vmInstanceUuid,
    }),
    createDate: t.expose('createDate', { type: 'DateTime', description: 'When the mapping was made. Since 3.1.0.' }),
  }),
});

export const FiberChannelLunRef = builder.loadableNode('FiberChannelLun', {
  description: 'A fibre-channel SAN disk (LUN) and the hosts and VMs it is mapped to (QueryFiberChannelLun). Since 3.1.0.',
  id: { resolve: (lun: FiberChannelLunRecord) => lun.uuid },
  // One QueryFiberChannelLun (`q=uuid?=...`) per batch.
  load: loadByUuid(fiberChannelLuns, 'FiberChannelLun'),
  fields: (t) => ({
    uuid: t.expose('uuid', { type: 'Uuid', nullable: false, description: 'Identifier. Since 3.1.0.' }),
    name: t.exposeString('name', { description: 'Name. Since 3.1.0.' }),
    fiberChannelStorageUuid: t.expose('fiberChannelStorageUuid', { type: 'Uuid', description: 'The FC SAN storage the LUN belongs to. Since 3.1.0.' }),
    wwid: t.exposeString('wwid', { description: 'World wide identifier of the disk. Since 3.1.0.' }),
    wwn: t.exposeString('wwn', { description: 'World wide name of the disk. Since 3.1.0.' }),
    serial: t.exposeString('serial', { description: 'Serial number of the disk. Since 3.1.0.' }),
    vendor: t.exposeString('vendor', { description: 'Disk vendor. Since 3.1.0.' }),
    model: t.exposeString('model', { description: 'Disk model. Since 3.1.0.' }),
    type: t.exposeString('type', { description: 'Disk type, e.g. `disk`. Since 3.1.0.' }),
    path: t.exposeString('path', { description: 'Disk path on the hosts. Since 3.1.0.' }),
    size: t.expose('size', { type: 'Long', description: 'Disk size in bytes. Since 3.1.0.' }),
    state: t.exposeString('state', { description: 'Enabled status, e.g. `Enabled`; other values are open. Since 3.1.0.' }),
    createDate: t.expose('createDate', { type: 'DateTime', description: 'When the LUN was discovered. Since 3.1.0.' }),
    lastOpDate: t.expose('lastOpDate', { type: 'DateTime', description: 'When the LUN record last changed. Since 3.1.0.' }),
    scsiLunHostRefs: t.field({
      type: [ScsiLunHostRefRef],
      nullable: false,
      description: 'Mappings of this LUN to the hosts that see it. Since 3.1.0.',
      resolve: (lun) => lun.scsiLunHostRefs,
    }),
    scsiLunVmInstanceRefs: t.field({
      type: [ScsiLunVmInstanceRefRef],
      nullable: false,
      description: 'Mappings of this LUN to the VMs that use it directly. Since 3.1.0.',
      resolve: (lun) => lun.scsiLunVmInstanceRefs,
    }),
    hosts: t.field({
      type: [HostRef],
      nullable: true,
      description:
        'The hosts that see this LUN (from `scsiLunHostRefs`, batched with every other host of the request); hosts that no longer exist are left out. Null, with an error, only when the hosts could not be read. Since 3.1.0.',
      resolve: (lun, _args, context) =>
        loadExisting<HostRecord>(HostRef.getDataloader(context), lun.scsiLunHostRefs.map((ref) => ref.hostUuid)),
    }),
    vmInstances: t.field({
      type: [VmInstanceRef],
      nullable: true,
      description:
        'The VMs that use this LUN directly (from `scsiLunVmInstanceRefs`, batched with every other VM of the request); VMs that no longer exist are left out. Null, with an error, only when the VMs could not be read. Since 3.1.0.',
      resolve: (lun, _args, context) =>
        loadExisting(VmInstanceRef.getDataloader(context), lun.scsiLunVmInstanceRefs.map((ref) => ref.vmInstanceUuid)),
    }),
  }),
});

export const FiberChannelLunConnection = builder.connectionObject({
  type: FiberChannelLunRef,
  name: 'FiberChannelLunConnection',
  description: 'A page of fibre-channel LUNs.',
});

defineListQuery({
  typeName: 'FiberChannelLun',
  family: fiberChannelLuns,
  connection: FiberChannelLunConnection,
  list: {
    name: 'fiberChannelLuns',
    description:
      'Fibre-channel LUNs (QueryFiberChannelLun). Null when they cannot be read (with an error): no `Authorization` sent (`UNAUTHENTICATED`) or the upstream failing; the other fields of the query still answer. Since 3.1.0.',
  },
  one: {
    name: 'fiberChannelLun',
    type: FiberChannelLunRef,
    description:
      'One fibre-channel LUN by uuid; null when it does not exist (with a `NOT_FOUND` error) or cannot be read (with the error that stopped it, e.g. `UNAUTHENTICATED`). Since 3.1.0.',
    argDescription: 'The LUN\'s uuid.',
  },
  filter: {
    description:
      'Conditions on LUNs; all given conditions must hold. The upstream queries top-level fields only, so there is no condition on the mapped hosts or VMs.',
    argDescription: 'Conditions the LUNs must meet.',
    fields: {
      uuids: { field: 'uuid', op: 'in', type: ['Uuid'], description: 'Only these LUNs.' },
      nameContains: { field: 'name', op: 'contains', type: 'String', description: 'Name contains this text.' },
      fiberChannelStorageUuid: { field: 'fiberChannelStorageUuid', op: 'eq', type: 'Uuid', description: 'Only LUNs of this FC SAN storage.' },
      state: { field: 'state', op: 'eq', type: 'String', description: 'Only LUNs in this state, e.g. `Enabled`.' },
    },
  },
  order: {
    fieldsDescription: 'Fields LUNs can be sorted by.',
    description: 'Order of a LUN connection.',
    argDescription: 'Sort order. Default: the upstream\'s own (stable) order.',
    fields: {
      CREATE_DATE: { value: 'createDate', description: 'Discovery time.' },
      LAST_OP_DATE: { value: 'lastOpDate', description: 'Last update time.' },
      NAME: { value: 'name', description: 'Name.' },
      SIZE: { value: 'size', description: 'Disk size.' },
    },
  },
});
