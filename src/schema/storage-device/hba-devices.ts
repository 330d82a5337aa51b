/**
 * Fibre-channel HBA ports of the resource family (QueryHBADevice), and `Host.hbaDevices`.
 */
import { builder } from '../../builder.js';
import type { GatewayContext } from '../../context.js';
import type { HbaDeviceRecord, HostRecord } from '../../upstream/records.js';
import { loadListConnection, pageArgs } from '../kit/connections.js';
import { nodeByUuid, queryFamily } from '../kit/families.js';
import { defineListQuery, uuidsFilter } from '../kit/list-query.js';
import { groupByKey, requestLoader } from '../kit/loading.js';
import { alsoReads, backedBy, follows, reads } from '../kit/record-fields.js';
import { HostRef, prefetchFromHostUuid } from '../host/index.js';

const hbaDevices = queryFamily('hbaDevices');

export const HbaDeviceRef = builder.loadableNode('HbaDevice', {
  description: 'A fibre-channel HBA port of a host (FC HBA device, QueryHBADevice). Since 5.3.0.',
  ...nodeByUuid(hbaDevices, 'HbaDevice'),
  extensions: backedBy('hbaDevice'),
  fields: (t) => ({
    uuid: t.expose('uuid', { type: 'Uuid', nullable: false, description: 'Identifier. Since 5.3.0.' }),
    name: t.exposeString('name', { description: 'Port name, e.g. `host1`. Since 5.3.0.' }),
    hostUuid: t.expose('hostUuid', { type: 'Uuid', description: 'Host the HBA is installed in. Since 5.3.0.' }),
    host: t.field({
      ...follows<HbaDeviceRecord>('hostUuid'),
      type: HostRef,
      description: 'Host the HBA is installed in (read through the generic cursor family). Null when it cannot be read (with an error). Since 5.3.0.',
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
  naming: { a: 'an HBA port', plural: 'HBA ports' },
  since: '5.3.0',
  list: {
    name: 'hbaDevices',
    description: 'Fibre-channel HBA ports (QueryHBADevice).',
  },
  one: {
    name: 'hbaDevice',
    type: HbaDeviceRef,
    noun: 'HBA port',
    argDescription: 'The port\'s uuid.',
  },
  filter: {
    argDescription: 'Conditions the ports must meet.',
    fields: {
      uuids: uuidsFilter('ports'),
      hostUuid: { field: 'hostUuid', op: 'eq', type: 'Uuid', description: 'Only ports of this host.' },
      portState: { field: 'portState', op: 'eq', type: 'String', description: 'Only ports in this state, e.g. `Online`.' },
      hbaType: { field: 'hbaType', op: 'eq', type: 'String', description: 'Only HBAs of this type, e.g. `FC`.' },
    },
  },
  order: {
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

