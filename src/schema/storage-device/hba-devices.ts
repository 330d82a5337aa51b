/**
 * Fibre-channel HBA ports of the resource family (QueryHBADevice), and `Host.hbaDevices`.
 */
import type { Readable } from '../../upstream/wire.js';
import { builder } from '../../builder.js';
import type { GatewayContext } from '../../context.js';
import type { HbaDeviceRecord, HostRecord } from '../../upstream/records.js';
import { QueryHBADevice } from '../../upstream/operations/index.js';
import { nodeByUuid, queryFamily } from '../kit/families.js';
import { entityByUuid } from '../kit/federation.js';
import { anyOf, childConnection, defineListQuery, equals, uuidsFilter } from '../kit/list-query.js';
import { childKey, childrenLoader, groupByField, type ChildQuery } from '../kit/loading.js';
import { alsoReads, backedBy, exposeRecordFields, follows, reads } from '../kit/record-fields.js';
import { HostRef, prefetchFromHostUuid } from '../host/index.js';

const hbaDevices = queryFamily('hbaDevices');

export const HbaDeviceRef = builder.loadableNode('HbaDevice', {
  description: 'A fibre-channel HBA port of a host (FC HBA device, QueryHBADevice). Since 5.3.0.',
  ...nodeByUuid(hbaDevices, 'HbaDevice'),
  extensions: backedBy('hbaDevice'),
  fields: (t) => ({
    ...exposeRecordFields(t, 'hbaDevice', 'uuid', 'name', 'hostUuid'),
    host: follows(t, 'hostUuid', HostRef, 'Host the HBA is installed in (read through the cursor family). Null when it cannot be read (with an error). Since 5.3.0.'),
    ...exposeRecordFields(t, 'hbaDevice',
      'portName', 'portState', 'hbaType', 'speed', 'supportedSpeeds', 'symbolicName', 'supportedClasses', 'createDate', 'lastOpDate',
    ),
  }),
});

// A Federation entity: other subgraphs reference it by uuid (or id), `_entities` loads it like a page does.
entityByUuid(HbaDeviceRef, 'HbaDevice');

export const HbaDeviceConnection = builder.connectionObject({
  type: HbaDeviceRef,
  name: 'HbaDeviceConnection',
  description: 'A page of fibre-channel HBA ports.',
});

/** `filter` and `orderBy` of every HBA connection: `hbaDevices` and `Host.hbaDevices`. */
const hbaListArgs = defineListQuery({
  record: 'hbaDevice',
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
      hostUuid: equals('Only ports of this host.'),
      portName: equals('Only the port with this world wide port name (WWPN), e.g. `0x21000024ff3dbb01`.'),
      portState: equals('Only ports in this state, e.g. `Online`.'),
      portStateIn: anyOf('portState', 'Only ports in one of these states, e.g. `["Online", "Linkdown"]`.'),
      hbaType: equals('Only HBAs of this type, e.g. `FC`.'),
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

/** The HBA ports of each host meeting `query`: one QueryHBADevice (`q=hostUuid?=...`) for every host of the batch. */
async function loadHbaDevicesOfHosts(hostUuids: readonly string[], query: ChildQuery, context: GatewayContext): Promise<Readable<HbaDeviceRecord>[][]> {
  const devices = await hbaDevices.whereIn(context, 'hostUuid', hostUuids, query);
  return groupByField(hostUuids, devices, 'hostUuid');
}

/** The HBA devices of each host, per request: one QueryHBADevice (`q=hostUuid?=...`) per batch and query. */
const hbaDevicesOfHost = childrenLoader(loadHbaDevicesOfHosts);

/** A host's relation asked with no conditions: what a prefetch loads. */
const EVERY_CHILD: ChildQuery = { where: [] };

builder.objectField(HostRef, 'hbaDevices', (t) =>
  t.field({
    description:
      'Fibre-channel HBA ports of this host that meet `filter`, in `orderBy`\'s order (QueryHBADevice; one upstream query for all hosts of a page asking the same). Needs the resource-family credential. Null when they cannot be read (with an error), e.g. without `Authorization` (`UNAUTHENTICATED`). Since 5.3.0.',
    // The ports are grouped by their host's uuid.
    extensions: {
      since: QueryHBADevice.since,
      ...reads<HostRecord>('uuid'),
      ...alsoReads('hbaDevice', 'hostUuid'),
      // A page of VMs selecting `host { hbaDevices }` starts this batch with the hosts' own.
      ...prefetchFromHostUuid((context, hostUuid) => {
        hbaDevicesOfHost(context)
          .load(childKey(hostUuid, EVERY_CHILD))
          .catch(() => undefined);
      }),
    },
    ...childConnection(hbaListArgs, hbaDevicesOfHost, 'Host.hbaDevices'),
  }),
);

