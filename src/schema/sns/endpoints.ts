/**
 * SNS application endpoints (SNSApplicationEndpointInventory, every delivery type), read through
 * the cursor family (resourceType `sns-application-endpoint`), and the endpoints of each
 * platform.
 */
import type { Readable } from '../../upstream/wire.js';
import { builder } from '../../builder.js';
import type { GatewayContext } from '../../context.js';
import { snsApplicationEndpoint, type SnsApplicationEndpointRecord, type SnsApplicationPlatformRecord, type SnsSmsReceiverRecord } from '../../upstream/records.js';
import { cursorFamily, nodeByUuid } from '../kit/families.js';
import { anyOf, childConnection, defineListQuery, equals, NAME_AND_DATE_ORDER_FIELDS, NAME_CONTAINS_FILTER, uuidsFilter } from '../kit/list-query.js';
import { childrenLoader, groupByField, type ChildQuery } from '../kit/loading.js';
import { ResourceState } from '../common-enums.js';
import { embeddedList, exposeRecordEnums, exposeRecordFields, follows, reads } from '../kit/record-fields.js';
import { SnsApplicationPlatformRef, SnsEndpointType } from './platforms.js';

const endpoints = cursorFamily('sns-application-endpoint');

const SnsSmsReceiverRef = builder.objectRef<SnsSmsReceiverRecord>('SnsSmsReceiver');

SnsSmsReceiverRef.implement({
  description: 'A receiver of an SMS endpoint (RemoveSNSSmsReceiver removes one by its phone number). Since 3.7.0.',
  fields: (t) => ({
    ...exposeRecordFields(t, 'snsSmsReceiver', 'phoneNumber'),
  }),
});

export const SnsApplicationEndpointRef = builder.loadableNode('SnsApplicationEndpoint', {
  description:
    'A notification (SNS) endpoint: where a platform delivers, by HTTP, Email or SMS (SNSApplicationEndpointInventory, with the per-type fields of the cursor family). Since 5.0.0.',
  extensions: { since: snsApplicationEndpoint.since },
  ...nodeByUuid(endpoints, 'SnsApplicationEndpoint'),
  fields: (t) => ({
    ...exposeRecordFields(t, 'snsApplicationEndpoint', 'uuid', 'name', 'description'),
    ...exposeRecordEnums(t, 'snsApplicationEndpoint', SnsEndpointType, 'type'),
    ...exposeRecordFields(t, 'snsApplicationEndpoint', 'platformUuid'),
    platform: follows(t, 'platformUuid', SnsApplicationPlatformRef, 'The platform the endpoint belongs to. Null when it cannot be read (with an error). Since 5.0.0.'),
    ...exposeRecordEnums(t, 'snsApplicationEndpoint', ResourceState, 'state'),
    ...exposeRecordFields(t, 'snsApplicationEndpoint', 'createDate', 'lastOpDate', 'url', 'username'),
    receivers: embeddedList(t, 'receivers', SnsSmsReceiverRef, 'SMS endpoints only: the receivers texted; empty for other types. One the upstream sent unreadable is null with an error at its index.'),
  }),
});

/** `filter` and `orderBy` of every endpoint connection: `snsApplicationEndpoints` and `SnsApplicationPlatform.endpoints`. */
const endpointListArgs = defineListQuery({
  record: 'snsApplicationEndpoint',
  family: endpoints,
  connectionDescription: 'A page of SNS application endpoints.',
  naming: { a: 'an SNS endpoint', plural: 'SNS endpoints' },
  since: '5.0.0',
  list: {
    name: 'snsApplicationEndpoints',
    description: 'SNS application endpoints of every type, read through the cursor family (resourceType `sns-application-endpoint`).',
  },
  one: {
    type: SnsApplicationEndpointRef,
    noun: 'SNS endpoint',
    argDescription: 'The endpoint\'s uuid.',
  },
  filter: {
    argDescription: 'Conditions the endpoints must meet.',
    fields: {
      uuids: uuidsFilter('endpoints'),
      nameContains: NAME_CONTAINS_FILTER,
      type: equals('Only endpoints of this delivery type.', SnsEndpointType),
      typeIn: anyOf('type', 'Only endpoints of one of these delivery types.', SnsEndpointType),
      platformUuid: equals('Only endpoints of this platform.'),
      state: equals('Only endpoints in this state, e.g. `ENABLED`.', ResourceState),
      stateIn: anyOf('state', 'Only endpoints in one of these states.', ResourceState),
    },
  },
  order: {
    fields: NAME_AND_DATE_ORDER_FIELDS,
  },
});

/** The endpoints of each platform meeting `query`: one CursorQuery (`filter=platformUuid:in:...`) for every platform of the batch. */
async function loadEndpointsOfPlatforms(platformUuids: readonly string[], query: ChildQuery, context: GatewayContext): Promise<Readable<SnsApplicationEndpointRecord>[][]> {
  const found = await endpoints.whereIn(context, 'platformUuid', platformUuids, query);
  return groupByField(platformUuids, found, 'platformUuid');
}

const endpointsOfPlatform = childrenLoader(loadEndpointsOfPlatforms);

builder.objectField(SnsApplicationPlatformRef, 'endpoints', (t) =>
  t.field({
    description:
      'The endpoints of this platform that meet `filter`, in `orderBy`\'s order (one upstream query for all platforms of a page asking the same). Null when they cannot be read (with an error). Since 5.0.0.',
    // A connection outlives its records' type: it is as old as the endpoints.
    extensions: { since: snsApplicationEndpoint.since, ...reads<SnsApplicationPlatformRecord>('uuid') },
    ...childConnection(endpointListArgs, endpointsOfPlatform, 'SnsApplicationPlatform.endpoints'),
  }),
);

