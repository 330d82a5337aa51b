/**
 * Fibre-channel HBA ports of the resource family (QueryHBADevice), and `Host.hbaDevices`.
 */
import type { Readable } from '../../upstream/wire.js';
import { builder, type GatewaySchemaTypes } from '../../builder.js';
import type { GatewayContext } from '../../context.js';
import { hbaDevice, type HbaDeviceRecord, type HostRecord } from '../../upstream/records.js';
import { QueryHBADevice } from '../../upstream/operations/index.js';
import { nodeByUuid, resourceFamily } from '../kit/families.js';
import { entityByUuid } from '../kit/federation.js';
import { anyOf, childConnection, defineListQuery, DISCOVERY_DATE_ORDER_FIELDS, equals, uuidsFilter } from '../kit/list-query.js';
import { childKey, childrenLoader, groupByField, type ChildQuery } from '../kit/loading.js';
import { recordEnums } from '../kit/enums.js';
import { alsoReads, backedBy, exposeRecordEnums, exposeRecordFields, follows, reads } from '../kit/record-fields.js';
import { HostRef, prefetchFromHostUuid } from '../host/index.js';

type Types = PothosSchemaTypes.ExtendDefaultTypes<GatewaySchemaTypes>;

const hbaDevices = resourceFamily('hbaDevices');

export const { HbaPortState, HbaType } = recordEnums('hbaDevice', {
  HbaPortState: {
    field: 'portState',
    description: 'The link state of a fibre-channel HBA port. Since 5.3.0.',
    values: { Online: 'The link is up (`Online`).', Linkdown: 'The link is down (`Linkdown`).' },
  },
  HbaType: {
    field: 'hbaType',
    description: 'The kind of a host bus adapter. Since 5.3.0.',
    values: { FC: 'Fibre channel (`FC`).' },
  },
});

const BITS_PER_UNIT: Readonly<Record<string, number>> = { k: 0.001, m: 1, g: 1000, t: 1_000_000 };

/**
 * A link speed the upstream writes as text (`16 Gbit`, `8 Gbit/s`) in Mbit/s, the unit of
 * `HostNic.speed`; null for text that names no speed (`Unknown`).
 */
export function linkSpeedMbits(text: string | null): number | null {
  const match = text === null ? null : /^\s*(\d+(?:\.\d+)?)\s*([kmgt])?bit(?:\/s)?\s*$/i.exec(text);
  if (match === null) return null;
  return Math.round(Number(match[1]) * BITS_PER_UNIT[(match[2] ?? 'm').toLowerCase()]!);
}

/** The speeds of a comma-separated list (`4 Gbit, 8 Gbit, 16 Gbit`) in Mbit/s, those that name one. */
function linkSpeedsMbits(text: string | null): number[] {
  if (text === null) return [];
  return text.split(',').map(linkSpeedMbits).filter((speed): speed is number => speed !== null);
}

/**
 * `<field>Raw` of a speed the port reads as Mbit/s: the upstream's text as the record holds it,
 * described where the record is defined.
 */
function speedText(t: PothosSchemaTypes.ObjectFieldBuilder<Types, HbaDeviceRecord>, field: 'speed' | 'supportedSpeeds') {
  return t.exposeString(field, {
    nullable: true,
    description: hbaDevice.fields[field].description,
    extensions: { ...reads<HbaDeviceRecord>(field), since: '5.3.0' },
  });
}

export const HbaDeviceRef = builder.loadableNode('HbaDevice', {
  description: 'A fibre-channel HBA port of a host (FC HBA device, QueryHBADevice). Since 5.3.0.',
  ...nodeByUuid(hbaDevices, 'HbaDevice'),
  extensions: backedBy('hbaDevice'),
  fields: (t) => ({
    ...exposeRecordFields(t, 'hbaDevice', 'uuid', 'name', 'hostUuid'),
    host: follows(t, 'hostUuid', HostRef, 'Host the HBA is installed in (read through the cursor family). Null when it cannot be read (with an error). Since 5.3.0.'),
    ...exposeRecordFields(t, 'hbaDevice', 'portName'),
    ...exposeRecordEnums(t, 'hbaDevice', HbaPortState, 'portState'),
    ...exposeRecordEnums(t, 'hbaDevice', HbaType, 'hbaType'),
    speed: t.field({
      type: 'Long',
      nullable: true,
      description: 'Current port speed in Mbit/s (the unit of `HostNic.speed`): the upstream\'s text (`16 Gbit`) read as a number (16000). Null when the text names no speed; `speedRaw` has it. Since 5.3.0.',
      extensions: { ...reads<HbaDeviceRecord>('speed'), since: '5.3.0' },
      resolve: (device) => linkSpeedMbits(device.speed),
    }),
    speedRaw: speedText(t, 'speed'),
    supportedSpeeds: t.field({
      type: ['Long'],
      nullable: false,
      description: 'Speeds the port supports, in Mbit/s, slowest first as the upstream lists them (`4 Gbit, 8 Gbit, 16 Gbit` is `[4000, 8000, 16000]`); an entry that names no speed is left out (`supportedSpeedsRaw` has the text). Since 5.3.0.',
      extensions: { ...reads<HbaDeviceRecord>('supportedSpeeds'), since: '5.3.0' },
      resolve: (device) => linkSpeedsMbits(device.supportedSpeeds),
    }),
    supportedSpeedsRaw: speedText(t, 'supportedSpeeds'),
    ...exposeRecordFields(t, 'hbaDevice', 'symbolicName', 'supportedClasses', 'createDate', 'lastOpDate'),
  }),
});

// A Federation entity: other subgraphs reference it by uuid (or id), `_entities` loads it like a page does.
entityByUuid(HbaDeviceRef, 'HbaDevice');

/** `filter` and `orderBy` of every HBA connection: `hbaDevices` and `Host.hbaDevices`. */
const hbaListArgs = defineListQuery({
  record: 'hbaDevice',
  family: hbaDevices,
  connectionDescription: 'A page of fibre-channel HBA ports.',
  naming: { a: 'an HBA port', plural: 'HBA ports' },
  since: '5.3.0',
  list: {
    name: 'hbaDevices',
    description: 'Fibre-channel HBA ports (QueryHBADevice).',
  },
  one: {
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
      portState: equals('Only ports in this state, e.g. `ONLINE`.', HbaPortState),
      portStateIn: anyOf('portState', 'Only ports in one of these states, e.g. `[ONLINE, LINKDOWN]`.', HbaPortState),
      hbaType: equals('Only HBAs of this type, e.g. `FC`.', HbaType),
    },
  },
  order: {
    fields: {
      ...DISCOVERY_DATE_ORDER_FIELDS,
      name: 'Port name.',
      portName: 'World wide port name.',
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

