/**
 * SNS application endpoints (SNSApplicationEndpointInventory, every delivery type), read through
 * the generic cursor family (resourceType `sns-application-endpoint`), and the endpoints of each
 * platform.
 */
import { builder } from '../../builder.js';
import type { GatewayContext } from '../../context.js';
import { snsApplicationEndpoint, type SnsApplicationEndpointRecord, type SnsApplicationPlatformRecord, type SnsSmsReceiverRecord } from '../../upstream/records.js';
import { pageArgs, readPageSize, resolveListConnection } from '../kit/connections.js';
import { cursorFamily, nodeByUuid } from '../kit/families.js';
import { closedSetEnum } from '../kit/enums.js';
import { defineListQuery, equals, NAME_AND_DATE_ORDER_FIELDS, NAME_CONTAINS_FILTER, uuidsFilter } from '../kit/list-query.js';
import { groupByKey } from '../kit/loading.js';
import { exposeRecordFields, follows } from '../kit/record-fields.js';
import { SnsApplicationPlatformRef } from './platforms.js';

/** The delivery types the spec names; the record holds open text, so another type reads as null. */
const ENDPOINT_TYPES = {
  HTTP: 'Posts to a webhook URL.',
  Email: 'Mails the endpoint\'s email addresses.',
  SMS: 'Texts the endpoint\'s receivers\' phone numbers.',
} as const;

type EndpointType = keyof typeof ENDPOINT_TYPES;

export const SnsEndpointType = closedSetEnum('SnsEndpointType', {
  description: 'How an SNS endpoint delivers notifications.',
  since: snsApplicationEndpoint.since ?? null,
  values: ENDPOINT_TYPES,
});

const endpoints = cursorFamily('sns-application-endpoint');

function readEndpointType(type: string | null): EndpointType | null {
  return type !== null && Object.hasOwn(ENDPOINT_TYPES, type) ? (type as EndpointType) : null;
}

const SnsSmsReceiverRef = builder.objectRef<SnsSmsReceiverRecord>('SnsSmsReceiver');

SnsSmsReceiverRef.implement({
  description: 'A receiver of an SMS endpoint (RemoveSNSSmsReceiver removes one by its phone number). Since 3.7.0.',
  fields: (t) => ({
    ...exposeRecordFields(t, 'snsSmsReceiver', 'phoneNumber'),
  }),
});

export const SnsApplicationEndpointRef = builder.loadableNode('SnsApplicationEndpoint', {
  description:
    'A notification (SNS) endpoint: where a platform delivers, by HTTP, Email or SMS (SNSApplicationEndpointInventory, with the per-type fields of the generic family). Since 5.0.0.',
  extensions: { since: snsApplicationEndpoint.since },
  ...nodeByUuid(endpoints, 'SnsApplicationEndpoint'),
  fields: (t) => ({
    ...exposeRecordFields(t, 'snsApplicationEndpoint', 'uuid', 'name', 'description'),
    type: t.field({
      type: SnsEndpointType,
      nullable: true,
      description: 'Delivery type: HTTP, Email or SMS; null for a type outside these three. Since 5.0.0.',
      resolve: (endpoint) => readEndpointType(endpoint.type),
    }),
    ...exposeRecordFields(t, 'snsApplicationEndpoint', 'platformUuid'),
    platform: t.field({
      ...follows<SnsApplicationEndpointRecord>('platformUuid'),
      type: SnsApplicationPlatformRef,
      description: 'The platform the endpoint belongs to. Null when it cannot be read (with an error). Since 5.0.0.',
    }),
    ...exposeRecordFields(t, 'snsApplicationEndpoint', 'state', 'createDate', 'lastOpDate', 'url', 'username'),
    receivers: t.field({
      type: [SnsSmsReceiverRef],
      nullable: false,
      description: 'SMS endpoints only: the receivers texted; empty for other types. Since 3.7.0.',
      resolve: (endpoint) => endpoint.receivers,
    }),
  }),
});

export const SnsApplicationEndpointConnection = builder.connectionObject({
  type: SnsApplicationEndpointRef,
  name: 'SnsApplicationEndpointConnection',
  description: 'A page of SNS application endpoints.',
});

defineListQuery({
  typeName: 'SnsApplicationEndpoint',
  record: 'snsApplicationEndpoint',
  family: endpoints,
  connection: SnsApplicationEndpointConnection,
  naming: { a: 'an SNS endpoint', plural: 'SNS endpoints' },
  since: '5.0.0',
  list: {
    name: 'snsApplicationEndpoints',
    description: 'SNS application endpoints of every type, read through the generic cursor family (resourceType `sns-application-endpoint`).',
  },
  filter: {
    argDescription: 'Conditions the endpoints must meet.',
    fields: {
      uuids: uuidsFilter('endpoints'),
      nameContains: NAME_CONTAINS_FILTER,
      type: equals('Only endpoints of this delivery type.', SnsEndpointType),
      platformUuid: equals('Only endpoints of this platform.'),
      state: equals('Only endpoints in this state, e.g. `Enabled`.'),
    },
  },
  order: {
    fields: NAME_AND_DATE_ORDER_FIELDS,
  },
});

/** The endpoints of each platform: one CursorQuery (`filter=platformUuid:in:...`) for every platform of the batch. */
async function loadEndpointsOfPlatforms(platformUuids: readonly string[], context: GatewayContext): Promise<SnsApplicationEndpointRecord[][]> {
  const found = await endpoints.whereIn(context, 'platformUuid', platformUuids);
  return groupByKey(platformUuids, found, (endpoint) => endpoint.platformUuid);
}

builder.objectField(SnsApplicationPlatformRef, 'endpoints', (t) =>
  t.loadable({
    type: SnsApplicationEndpointConnection,
    nullable: true,
    byPath: true,
    description: 'The endpoints of this platform (one upstream query for all platforms of a page). Null when they cannot be read (with an error). Since 5.0.0.',
    // A connection outlives its records' type: it is as old as the endpoints.
    extensions: { since: snsApplicationEndpoint.since },
    args: { ...pageArgs },
    load: async (platformUuids: string[], context, args) => {
      // A bad `first` fails before the upstream request rather than after it.
      readPageSize(args.first);
      const groups = await loadEndpointsOfPlatforms(platformUuids, context);
      return groups.map((endpoints, index) =>
        resolveListConnection(context, endpoints, args, 'SnsApplicationPlatform.endpoints', platformUuids[index]!),
      );
    },
    resolve: (platform: SnsApplicationPlatformRecord) => platform.uuid,
  }),
);

