/**
 * Hosts: HostInventory read through the generic cursor family (resourceType `host`), with the
 * hardware monitor statuses, NQN and hostname, and the resource API's per-host GETs as fields
 * (network facts with bonds and NICs, block devices, sensors).
 */
import { GraphQLObjectType, Kind, type FieldNode, type GraphQLResolveInfo, type SelectionNode } from 'graphql';
import { builder } from '../builder.js';
import type { GatewayContext } from '../context.js';
import type { HostBondingRecord, HostNetworkFactsRecord, HostNicRecord, HostRecord } from '../upstream/records.js';
import { GetHostBlockDevices, GetHostNetworkFacts, GetHostSensors, SetIpOnHostNetworkBonding, UpdateHostNqn } from '../upstream/operations/index.js';
import { EMBEDDED_GLOBAL_ID, embeddedId, parseEmbeddedId } from './kit/embedded-ids.js';
import { cursorFamily, loadByUuid } from './kit/families.js';
import { defineListQuery } from './kit/list-query.js';
import { embeddedLoadError, notFound } from './kit/loading.js';
import { defineWriteMutation } from './kit/mutation-kit.js';
import { backedBy, reads } from './kit/record-fields.js';
import { callsPerParent } from './kit/upstream-calls.js';

export const HwMonitorStatus = builder.enumType('HwMonitorStatus', {
  description: 'State reported by a host hardware monitor. Since 4.10.0.',
  values: {
    NORMAL: { value: 'Normal', description: 'The component works normally.' },
    ERROR: { value: 'Error', description: 'The component reports a fault.' },
    UNKNOWN: { value: 'Unknown', description: 'The monitor has no reading.' },
  } as const,
});

export const InterfaceType = builder.enumType('InterfaceType', {
  description:
    'How a host NIC is attached. The upstream documents `nomaster`, `bridgeSlave`, `bondSlave` and returns `noMaster`, `bridgeSlave`, `bondingSlave`; both spellings map here.',
  values: {
    NO_MASTER: { value: 'noMaster', description: 'A standalone NIC (`nomaster` / `noMaster`).' },
    BRIDGE_SLAVE: { value: 'bridgeSlave', description: 'A NIC enslaved to a bridge.' },
    BONDING_SLAVE: { value: 'bondingSlave', description: 'A NIC enslaved to a bond (`bondSlave` / `bondingSlave`).' },
  } as const,
});

const hosts = cursorFamily('host');

export const HostRef = builder.loadableNode('Host', {
  description: 'A physical host running the hypervisor (HostInventory). Since 0.6.',
  id: { resolve: (host: HostRecord) => host.uuid },
  extensions: backedBy('host'),
  // One CursorQuery (`filter=uuid:in:...`) per batch.
  load: loadByUuid(hosts, 'Host'),
  fields: (t) => ({
    uuid: t.expose('uuid', { type: 'Uuid', nullable: false, description: 'Identifier. Since 0.6.' }),
    name: t.exposeString('name', { description: 'Name. Since 0.6.' }),
    description: t.exposeString('description', { description: 'Description. Since 0.6.' }),
    zoneUuid: t.expose('zoneUuid', { type: 'Uuid', description: 'Data center (zone) the host belongs to. Since 0.6.' }),
    clusterUuid: t.expose('clusterUuid', { type: 'Uuid', description: 'Cluster the host belongs to. Since 0.6.' }),
    managementIp: t.exposeString('managementIp', { description: 'Management IP address. Since 0.6.' }),
    hypervisorType: t.exposeString('hypervisorType', { description: 'Hypervisor type, typically `KVM`. Since 0.6.' }),
    state: t.exposeString('state', { description: 'Resource state; `Enabled` is seen, other values are open. Since 0.6.' }),
    status: t.exposeString('status', { description: 'Connection status; `Connected` is seen, other values are open. Since 0.6.' }),
    totalCpuCapacity: t.expose('totalCpuCapacity', { type: 'Long', description: 'Total CPU capacity. Since 0.6.' }),
    availableCpuCapacity: t.expose('availableCpuCapacity', { type: 'Long', description: 'CPU capacity still available. Since 0.6.' }),
    totalMemoryCapacity: t.expose('totalMemoryCapacity', { type: 'Long', description: 'Total memory in bytes. Since 0.6.' }),
    availableMemoryCapacity: t.expose('availableMemoryCapacity', { type: 'Long', description: 'Memory still available, in bytes. Since 0.6.' }),
    cpuSockets: t.exposeInt('cpuSockets', { description: 'Physical CPU socket count. Since 0.6.' }),
    cpuNum: t.exposeInt('cpuNum', { description: 'Logical CPU count. Since 0.6.' }),
    ipmiAddress: t.exposeString('ipmiAddress', { description: 'IPMI address. Since 0.6.' }),
    ipmiUsername: t.exposeString('ipmiUsername', { description: 'IPMI user name. Since 0.6.' }),
    ipmiPowerStatus: t.exposeString('ipmiPowerStatus', { description: 'Power status reported over IPMI. Since 0.6.' }),
    ipmiPort: t.exposeInt('ipmiPort', { description: 'IPMI port. Since 0.6.' }),
    architecture: t.exposeString('architecture', { description: 'CPU architecture, e.g. `x86_64`. Since 0.6.' }),
    nqn: t.exposeString('nqn', { description: 'NVMe qualified name. Since 4.10.6.' }),
    hostname: t.exposeString('hostname', { description: 'Host name. Since 4.10.20.' }),
    createDate: t.expose('createDate', { type: 'DateTime', description: 'When the host was added. Since 0.6.' }),
    lastOpDate: t.expose('lastOpDate', { type: 'DateTime', description: 'When the host record last changed. Since 0.6.' }),
    cpuStatus: t.expose('cpuStatus', { type: HwMonitorStatus, description: 'CPU hardware monitor status. Since 4.10.0.' }),
    memoryStatus: t.expose('memoryStatus', { type: HwMonitorStatus, description: 'Memory hardware monitor status. Since 4.10.0.' }),
    diskStatus: t.expose('diskStatus', { type: HwMonitorStatus, description: 'Disk hardware monitor status. Since 4.10.0.' }),
    nicStatus: t.expose('nicStatus', { type: HwMonitorStatus, description: 'NIC hardware monitor status. Since 4.10.0.' }),
    gpuStatus: t.expose('gpuStatus', { type: HwMonitorStatus, description: 'GPU hardware monitor status. Since 4.10.0.' }),
    powerSupplyStatus: t.expose('powerSupplyStatus', { type: HwMonitorStatus, description: 'Power supply hardware monitor status. Since 4.10.0.' }),
    fanStatus: t.expose('fanStatus', { type: HwMonitorStatus, description: 'Fan hardware monitor status. Since 4.10.0.' }),
    raidStatus: t.expose('raidStatus', { type: HwMonitorStatus, description: 'RAID hardware monitor status. Since 4.10.0.' }),
    temperatureStatus: t.expose('temperatureStatus', { type: HwMonitorStatus, description: 'Temperature hardware monitor status. Since 4.10.0.' }),
    networkFacts: t.loadable({
      type: HostNetworkFactsRef,
      nullable: true,
      description: 'Bonds and NICs of the host (GetHostNetworkFacts: one upstream request per host). Null when they cannot be read (with an error). Since 3.5.0.',
      extensions: { ...reads<HostRecord>('uuid'), ...callsPerParent() },
      load: loadNetworkFacts,
      resolve: (host) => host.uuid,
    }),
    blockDevices: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Block devices of the host (GetHostBlockDevices). The item fields are unshown in the spec, hence JSON. Null when they cannot be read (with an error). Since 4.10.0.',
      extensions: { ...reads<HostRecord>('uuid'), ...callsPerParent() },
      resolve: async (host, _args, context) => {
        const body = await context.session.read(GetHostBlockDevices, { uuid: host.uuid });
        return body.blockDevices ?? body;
      },
    }),
    sensors: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Hardware sensors of the host (GetHostSensors). The item fields are unshown in the spec, hence JSON. Null when they cannot be read (with an error). Since 4.10.0.',
      extensions: { ...reads<HostRecord>('uuid'), ...callsPerParent() },
      resolve: async (host, _args, context) => {
        const body = await context.session.read(GetHostSensors, { uuid: host.uuid });
        return body.sensors ?? body;
      },
    }),
  }),
});

async function loadNetworkFacts(
  hostUuids: string[],
  context: GatewayContext,
): Promise<(HostNetworkFactsRecord | Error)[]> {
  const session = context.session;
  session.requireCredential('resource');
  // The spec has no batch form of GetHostNetworkFacts: one request per distinct host.
  return Promise.all(
    hostUuids.map((uuid) =>
      session.read(GetHostNetworkFacts, { hostUuid: uuid }).catch((error: unknown) =>
        error instanceof Error ? error : new Error(String(error)),
      ),
    ),
  );
}

export const HostNetworkFactsRef = builder.objectRef<HostNetworkFactsRecord>('HostNetworkFacts');

HostNetworkFactsRef.implement({
  description: 'Network facts of a host: its bonds and its NICs (GetHostNetworkFacts). Since 3.5.0.',
  fields: (t) => ({
    bondings: t.field({
      type: [HostNetworkBondingRef],
      nullable: false,
      description: 'Bonds configured on the host. Since 3.5.0.',
      resolve: (facts) => facts.bondings,
    }),
    nics: t.field({
      type: [HostNicRef],
      nullable: false,
      description: 'Physical NICs of the host. Since 3.5.0.',
      resolve: (facts) => facts.nics,
    }),
  }),
});

/** Finds records embedded in hosts' network facts by their `<hostUuid>.<uuid>` ids. */
async function loadFromNetworkFacts<T extends { uuid: string }>(
  ids: string[],
  context: GatewayContext,
  typeName: string,
  pick: (facts: HostNetworkFactsRecord) => T[],
): Promise<(T | Error)[]> {
  const parsed = ids.map(parseEmbeddedId);
  const hostUuids = [...new Set(parsed.flatMap((id) => (id ? [id.parentUuid] : [])))];
  const facts = await loadNetworkFacts(hostUuids, context);
  const byHost = new Map(hostUuids.map((uuid, index) => [uuid, facts[index]]));
  return parsed.map((id, index) => {
    if (!id) return notFound(typeName, ids[index]!);
    const hostFacts = byHost.get(id.parentUuid);
    if (hostFacts instanceof Error) return embeddedLoadError(hostFacts, typeName, id.uuid);
    return (hostFacts && pick(hostFacts).find((record) => record.uuid === id.uuid)) ?? notFound(typeName, id.uuid);
  });
}

function loadBondings(ids: string[], context: GatewayContext): Promise<(HostBondingRecord | Error)[]> {
  return loadFromNetworkFacts(ids, context, 'HostNetworkBonding', (facts) => facts.bondings);
}

function loadHostNics(ids: string[], context: GatewayContext): Promise<(HostNicRecord | Error)[]> {
  return loadFromNetworkFacts(ids, context, 'HostNic', (facts) => [...facts.nics, ...facts.bondings.flatMap((bond) => bond.slaves)]);
}

export const HostNetworkBondingRef = builder.loadableNode('HostNetworkBonding', {
  description: 'A bond of host NICs (HostNetworkBondingInventory). Since 4.7.0; network facts carry bonds since 3.5.0.',
  id: { resolve: (bond) => embeddedId(bond.hostUuid, bond.uuid) },
  extensions: EMBEDDED_GLOBAL_ID,
  load: loadBondings,
  fields: (t) => ({
    uuid: t.expose('uuid', { type: 'Uuid', nullable: false, description: 'Identifier.' }),
    hostUuid: t.expose('hostUuid', { type: 'Uuid', description: 'Host the bond is on.' }),
    host: t.field({
      type: HostRef,
      nullable: true,
      description: 'Host the bond is on. Null when it cannot be read (with an error).',
      resolve: (bond) => bond.hostUuid,
    }),
    bondingName: t.exposeString('bondingName', { description: 'Bond name, e.g. `bond0`.' }),
    bondingType: t.exposeString('bondingType', { description: 'Bond usage state: `noBridge` or `bridgeSlave`. Since 4.7.0.' }),
    speed: t.expose('speed', { type: 'Long', description: 'Bond speed. Since 4.7.0.' }),
    miimon: t.expose('miimon', { type: 'Long', description: 'MII link monitoring interval.' }),
    mode: t.exposeString('mode', { description: 'Bonding mode, e.g. `802.3ad`.' }),
    xmitHashPolicy: t.exposeString('xmitHashPolicy', { description: 'Transmit hash policy.' }),
    miiStatus: t.exposeString('miiStatus', { description: 'MII status, e.g. `up`.' }),
    mac: t.exposeString('mac', { description: 'MAC address of the bond.' }),
    gateway: t.exposeString('gateway', { description: 'Gateway. Since 4.7.0.' }),
    callBackIp: t.exposeString('callBackIp', { description: 'Callback IP. Since 4.7.0.' }),
    type: t.exposeString('type', { description: 'Bond type. Since 4.7.0.' }),
    description: t.exposeString('description', { description: 'Description. Since 4.7.0.' }),
    ipAddresses: t.exposeStringList('ipAddresses', { nullable: false, description: 'IP addresses on the bond.' }),
    allSlavesActive: t.exposeBoolean('allSlavesActive', { description: 'Whether every slave NIC is active.' }),
    createDate: t.expose('createDate', { type: 'DateTime', description: 'Creation time.' }),
    lastOpDate: t.expose('lastOpDate', { type: 'DateTime', description: 'Last update time.' }),
    slaves: t.field({
      type: [HostNicRef],
      nullable: false,
      description: 'The NICs enslaved to this bond.',
      resolve: (bond) => bond.slaves,
    }),
  }),
});

export const HostNicRef = builder.loadableNode('HostNic', {
  description: 'A physical NIC of a host: a plain NIC or a bond slave (network facts record; slave record of the bond inventory). Since 3.5.0.',
  id: { resolve: (nic) => embeddedId(nic.hostUuid, nic.uuid) },
  extensions: EMBEDDED_GLOBAL_ID,
  load: loadHostNics,
  fields: (t) => ({
    uuid: t.expose('uuid', { type: 'Uuid', nullable: false, description: 'Identifier.' }),
    hostUuid: t.expose('hostUuid', { type: 'Uuid', description: 'Host the NIC is in.' }),
    host: t.field({ type: HostRef, nullable: true, description: 'Host the NIC is in. Null when it cannot be read (with an error).', resolve: (nic) => nic.hostUuid }),
    bondingUuid: t.expose('bondingUuid', { type: 'Uuid', description: 'Bond this NIC is a slave of, if any.' }),
    interfaceName: t.exposeString('interfaceName', { description: 'Interface name, e.g. `eth0`.' }),
    interfaceType: t.expose('interfaceType', { type: InterfaceType, description: 'How the NIC is attached (spellings normalized).' }),
    mac: t.exposeString('mac', { description: 'MAC address.' }),
    pciDeviceAddress: t.exposeString('pciDeviceAddress', { description: 'PCI device address.' }),
    speed: t.expose('speed', { type: 'Long', description: 'Link speed.' }),
    slaveActive: t.exposeBoolean('slaveActive', { description: 'Bond link status of this slave.' }),
    carrierActive: t.exposeBoolean('carrierActive', { description: 'Physical link status.' }),
    ipAddresses: t.exposeStringList('ipAddresses', { nullable: false, description: 'IP addresses on the NIC.' }),
    gateway: t.exposeString('gateway', { description: 'Gateway (bond inventory slave record). Since 4.7.0.' }),
    callBackIp: t.exposeString('callBackIp', { description: 'Callback IP (bond inventory slave record). Since 4.7.0.' }),
    offloadStatus: t.exposeString('offloadStatus', { description: 'Offload status (bond inventory slave record). Since 4.7.0.' }),
    description: t.exposeString('description', { description: 'Description (bond inventory slave record). Since 4.7.0.' }),
    createDate: t.expose('createDate', { type: 'DateTime', description: 'Creation time.' }),
    lastOpDate: t.expose('lastOpDate', { type: 'DateTime', description: 'Last update time.' }),
  }),
});

export const HostConnection = builder.connectionObject({ type: HostRef, name: 'HostConnection' });

defineListQuery({
  typeName: 'Host',
  family: hosts,
  connection: HostConnection,
  list: {
    name: 'hosts',
    description:
      'Hosts, read through the generic cursor family (CursorQuery / CursorNext, resourceType `host`). Null when they cannot be read (with an error): no `X-Resources-Authorization` sent (`UNAUTHENTICATED`) or the upstream failing; the other fields of the query still answer.',
  },
  one: {
    name: 'host',
    type: HostRef,
    description:
      'One host by uuid; null when it does not exist (with a `NOT_FOUND` error) or cannot be read (with the error that stopped it, e.g. `UNAUTHENTICATED`).',
    argDescription: 'The host\'s uuid.',
  },
  filter: {
    description: 'Conditions on hosts; all given conditions must hold.',
    argDescription: 'Conditions the hosts must meet.',
    fields: {
      uuids: { field: 'uuid', op: 'in', type: ['Uuid'], description: 'Only these hosts.' },
      nameContains: { field: 'name', op: 'contains', type: 'String', description: 'Name contains this text.' },
      zoneUuid: { field: 'zoneUuid', op: 'eq', type: 'Uuid', description: 'Only hosts of this zone.' },
      clusterUuid: { field: 'clusterUuid', op: 'eq', type: 'Uuid', description: 'Only hosts of this cluster.' },
      state: { field: 'state', op: 'eq', type: 'String', description: 'Only hosts in this state, e.g. `Enabled`.' },
      status: { field: 'status', op: 'eq', type: 'String', description: 'Only hosts with this status, e.g. `Connected`.' },
      hypervisorType: { field: 'hypervisorType', op: 'eq', type: 'String', description: 'Only hosts with this hypervisor, e.g. `KVM`.' },
    },
  },
  order: {
    fieldsDescription: 'Fields hosts can be sorted by.',
    description: 'Order of a host connection.',
    argDescription: 'Sort order. Default: creation time, ascending.',
    fields: {
      CREATE_DATE: { value: 'createDate', description: 'Creation time.' },
      NAME: { value: 'name', description: 'Name.' },
      MANAGEMENT_IP: { value: 'managementIp', description: 'Management IP.' },
      LAST_OP_DATE: { value: 'lastOpDate', description: 'Last update time.' },
    },
  },
});

defineWriteMutation({
  name: 'updateHostNqn',
  operation: UpdateHostNqn,
  description: 'Sets the NVMe qualified name of a host (UpdateHostNqn: `PUT hosts/nqn/{uuid}/actions`). Since 4.10.6.',
  inputFields: (t) => ({
    uuid: t.field({ type: 'Uuid', required: true, description: 'The host.' }),
    nqn: t.string({ required: true, description: 'The new NVMe qualified name, e.g. `nqn.2014-08.org.nvmexpress:uuid:...`.' }),
  }),
  params: (input) => ({ uuid: input.uuid, nqn: input.nqn }),
  payloadFields: (t, result) => ({
    host: t.field({
      type: HostRef,
      nullable: true,
      description: 'The host with its new NQN; null until the job succeeded.',
      resolve: (source, _args, context) => result(source, context)?.inventory ?? null,
    }),
  }),
  touches: { types: ['Host'], uuids: (input) => [input.uuid] },
});

defineWriteMutation({
  name: 'setIpOnHostNetworkBonding',
  operation: SetIpOnHostNetworkBonding,
  description:
    'Sets (or, without `ipAddress` and `netmask`, clears) the IP address of a host network bond (SetIpOnHostNetworkBonding: `POST hosts/bondings/{bondingUuid}/ip`). Since 4.7.0.',
  inputFields: (t) => ({
    bondingUuid: t.field({ type: 'Uuid', required: true, description: 'The bond (path parameter). Since 4.7.0.' }),
    ipAddress: t.string({ description: 'The IP address to set on the bond, e.g. `192.168.10.5`. Since 4.7.0.' }),
    netmask: t.string({ description: 'The netmask of `ipAddress`, e.g. `255.255.255.0`. Since 4.7.0.' }),
    isDefaultRoute: t.boolean({ description: 'Whether the bond becomes the host\'s default route. Since 4.7.0.' }),
  }),
  params: (input) => ({
    bondingUuid: input.bondingUuid,
    ipAddress: input.ipAddress,
    netmask: input.netmask,
    isDefaultRoute: input.isDefaultRoute,
  }),
  payloadFields: (t, result) => ({
    bonding: t.field({
      type: HostNetworkBondingRef,
      nullable: true,
      description: 'The bond with its new addresses (HostNetworkBondingInventory); null until the job succeeded. Since 4.7.0.',
      resolve: (source, _args, context) => result(source, context)?.inventory ?? null,
    }),
  }),
  touches: { types: ['HostNetworkBonding'], uuids: (input) => [input.bondingUuid] },
});

// ---------------------------------------------------------------------------------------------
// Host relations that start loading from a host's uuid alone

/** Starts loading one relation of the host `hostUuid` (the loader caches it for the field). */
type HostPrefetch = (context: GatewayContext, hostUuid: string) => void;

/** The field extension under which a `Host` field keeps its prefetch: on the schema, not in a module registry. */
const HOST_PREFETCH_EXTENSION = 'prefetchFromHostUuid';

/**
 * `extensions` of a per-host relation (e.g. `hbaDevices`) whose per-request loader can start as
 * soon as a host's uuid is known, before the host record itself has been read.
 */
export function prefetchFromHostUuid(prefetch: HostPrefetch): { [HOST_PREFETCH_EXTENSION]: HostPrefetch } {
  return { [HOST_PREFETCH_EXTENSION]: prefetch };
}

/**
 * Called by fields that resolve to a host from a uuid they already hold (`VmInstance.host`):
 * the relations the query selects under it start now, batched with the host's own load, instead
 * of one upstream round trip later once the host has arrived.
 */
export function prefetchHostRelations(context: GatewayContext, info: GraphQLResolveInfo, hostUuid: string | null): void {
  if (hostUuid === null) return;
  for (const prefetch of selectedHostPrefetches(info)) prefetch(context, hostUuid);
}

/**
 * The prefetches of the `Host` fields selected directly under the current field (fragments
 * included). A page of VMs asks once per VM with the same field nodes, so the answer is kept per
 * field-node list.
 */
function selectedHostPrefetches(info: GraphQLResolveInfo): readonly HostPrefetch[] {
  let prefetches = prefetchesByNodes.get(info.fieldNodes);
  if (prefetches === undefined) {
    const hostType = info.schema.getType('Host');
    const fields = hostType instanceof GraphQLObjectType ? hostType.getFields() : {};
    prefetches = [...collectSelectedFieldNames(info)].flatMap((name) => {
      const prefetch = fields[name]?.extensions[HOST_PREFETCH_EXTENSION];
      return typeof prefetch === 'function' ? [prefetch as HostPrefetch] : [];
    });
    prefetchesByNodes.set(info.fieldNodes, prefetches);
  }
  return prefetches;
}

const prefetchesByNodes = new WeakMap<readonly FieldNode[], readonly HostPrefetch[]>();

function collectSelectedFieldNames(info: GraphQLResolveInfo): Set<string> {
  const names = new Set<string>();
  const visit = (selections: readonly SelectionNode[]): void => {
    for (const selection of selections) {
      if (selection.kind === Kind.FIELD) names.add(selection.name.value);
      else if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet.selections);
      else {
        const fragment = info.fragments[selection.name.value];
        if (fragment) visit(fragment.selectionSet.selections);
      }
    }
  };
  for (const node of info.fieldNodes) if (node.selectionSet) visit(node.selectionSet.selections);
  return names;
}
