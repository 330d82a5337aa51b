/**
 * SNS application endpoints (SNSApplicationEndpointInventory, every delivery type), read through
 * the generic cursor family (resourceType `sns-application-endpoint`), and the endpoints of each
 * platform.
 */
import { builder } from '../../builder.js';
import type { GatewayContext } from '../../context.js';
import type { SnsApplicationEndpointRecord, SnsApplicationPlatformRecord, SnsSmsReceiverRecord } from '../../upstream/records.js';
import { pageArgs, readPageSize, resolveListConnection } from '../kit/connections.js';
import { cursorFamily, nodeByUuid } from '../kit/families.js';
import { defineListQuery, NAME_AND_DATE_ORDER_FIELDS, NAME_CONTAINS_FILTER, uuidsFilter } from '../kit/list-query.js';
import { groupByKey } from '../kit/loading.js';
import { follows } from '../kit/record-fields.js';
import { SnsApplicationPlatformRef } from './platforms.js';

export const SnsEndpointType = builder.enumType('SnsEndpointType', {
  description: 'How an SNS endpoint delivers notifications. Since 5.0.0.',
  values: {
    HTTP: { value: 'HTTP', description: 'Posts to a webhook URL.' },
    EMAIL: { value: 'Email', description: 'Mails the endpoint\'s email addresses.' },
    SMS: { value: 'SMS', description: 'Texts the endpoint\'s receivers\' phone numbers.' },
  } as const,
});

const endpoints = cursorFamily('sns-application-endpoint');

const ENDPOINT_TYPES = ['HTTP', 'Email', 'SMS'] as const;

function readEndpointType(type: string | null): (typeof ENDPOINT_TYPES)[number] | null {
  return ENDPOINT_TYPES.find((known) => known === type) ?? null;
}

const SnsSmsReceiverRef = builder.objectRef<SnsSmsReceiverRecord>('SnsSmsReceiver');

SnsSmsReceiverRef.implement({
  description: 'A receiver of an SMS endpoint (RemoveSNSSmsReceiver removes one by its phone number). Since 3.7.0.',
  fields: (t) => ({
    phoneNumber: t.exposeString('phoneNumber', { nullable: false, description: 'Phone number texted by the endpoint. Since 3.7.0.' }),
  }),
});

export const SnsApplicationEndpointRef = builder.loadableNode('SnsApplicationEndpoint', {
  description:
    'A notification (SNS) endpoint: where a platform delivers, by HTTP, Email or SMS (SNSApplicationEndpointInventory, with the per-type fields of the generic family). Since 5.0.0.',
  ...nodeByUuid(endpoints, 'SnsApplicationEndpoint'),
  fields: (t) => ({
    uuid: t.expose('uuid', { type: 'Uuid', nullable: false, description: 'Identifier. Since 5.0.0.' }),
    name: t.exposeString('name', { description: 'Name. Since 5.0.0.' }),
    description: t.exposeString('description', { description: 'Description. Since 5.0.0.' }),
    type: t.field({
      type: SnsEndpointType,
      nullable: true,
      description: 'Delivery type: HTTP, Email or SMS; null for a type outside these three. Since 5.0.0.',
      resolve: (endpoint) => readEndpointType(endpoint.type),
    }),
    platformUuid: t.expose('platformUuid', { type: 'Uuid', description: 'The platform the endpoint belongs to. Since 5.0.0.' }),
    platform: t.field({
      ...follows<SnsApplicationEndpointRecord>('platformUuid'),
      type: SnsApplicationPlatformRef,
      description: 'The platform the endpoint belongs to. Null when it cannot be read (with an error). Since 5.0.0.',
    }),
    state: t.exposeString('state', { description: 'Endpoint state; `Enabled` is seen, other values are open. Since 5.0.0.' }),
    createDate: t.expose('createDate', { type: 'DateTime', description: 'When the endpoint was created. Since 5.0.0.' }),
    lastOpDate: t.expose('lastOpDate', { type: 'DateTime', description: 'When the endpoint last changed. Since 5.0.0.' }),
    url: t.exposeString('url', {
      description: 'HTTP endpoints only: the webhook URL (set by UpdateSNSHttpEndpoint); null for other types. Since 4.2.0.',
    }),
    username: t.exposeString('username', {
      description: 'HTTP endpoints only: the user name sent to the webhook (set by UpdateSNSHttpEndpoint); null for other types. Since 4.2.0.',
    }),
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
      type: { field: 'type', op: 'eq', type: SnsEndpointType, description: 'Only endpoints of this delivery type.' },
      platformUuid: { field: 'platformUuid', op: 'eq', type: 'Uuid', description: 'Only endpoints of this platform.' },
      state: { field: 'state', op: 'eq', type: 'String', description: 'Only endpoints in this state, e.g. `Enabled`.' },
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

