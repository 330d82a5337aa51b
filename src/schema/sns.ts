/**
 * Notifications (SNS): application platforms and endpoints, read through the generic cursor
 * family (the spec gives them no query of their own), email addresses of Email endpoints
 * (QuerySNSEmailAddress), and the writes: platform state, HTTP endpoint update, SMS receiver
 * removal.
 */
import { GraphQLError } from 'graphql';
import { builder } from '../builder.js';
import type { GatewayContext } from '../context.js';
import type {
  SnsApplicationEndpointRecord,
  SnsApplicationPlatformRecord,
  SnsEmailAddressRecord,
  SnsSmsReceiverRecord,
} from '../upstream/records.js';
import { ChangeSNSApplicationPlatformState, RemoveSNSSmsReceiver, UpdateSNSHttpEndpoint } from '../upstream/operations/index.js';
import { pageArgs, readPageSize, resolveListConnection } from './kit/connections.js';
import { DeleteMode } from './kit/delete-mode.js';
import { cursorFamily, loadByUuid, queryFamily } from './kit/families.js';
import { defineListQuery } from './kit/list-query.js';
import { groupByKey } from './kit/loading.js';
import { defineWriteMutation } from './kit/mutation-kit.js';

export const SnsEndpointType = builder.enumType('SnsEndpointType', {
  description: 'How an SNS endpoint delivers notifications. Since 5.0.0.',
  values: {
    HTTP: { value: 'HTTP', description: 'Posts to a webhook URL.' },
    EMAIL: { value: 'Email', description: 'Mails the endpoint\'s email addresses.' },
    SMS: { value: 'SMS', description: 'Texts the endpoint\'s receivers\' phone numbers.' },
  } as const,
});

const CursorOrderField = {
  CREATE_DATE: { value: 'createDate', description: 'Creation time.' },
  LAST_OP_DATE: { value: 'lastOpDate', description: 'Last update time.' },
  NAME: { value: 'name', description: 'Name.' },
} as const;

// ---------------------------------------------------------------------------------------------
// Platforms

const platforms = cursorFamily('sns-application-platform');

export const SnsApplicationPlatformRef = builder.loadableNode('SnsApplicationPlatform', {
  description: 'A notification (SNS) application platform that endpoints deliver through (SNSApplicationPlatformInventory). Since 2.3.',
  id: { resolve: (platform: SnsApplicationPlatformRecord) => platform.uuid },
  // One CursorQuery (`filter=uuid:in:...`) per batch.
  load: loadByUuid(platforms, 'SnsApplicationPlatform'),
  fields: (t) => ({
    uuid: t.expose('uuid', { type: 'Uuid', nullable: false, description: 'Identifier. Since 2.3.' }),
    name: t.exposeString('name', { description: 'Name. Since 2.3.' }),
    description: t.exposeString('description', { description: 'Description. Since 2.3.' }),
    type: t.exposeString('type', { description: 'Platform type, e.g. `HTTP`, `Email`, `SMS`; other values are open. Since 2.3.' }),
    state: t.exposeString('state', {
      description:
        'Platform state: `Enabled` is seen (ChangeSNSApplicationPlatformState with `enable`); the state `disable` gives is unshown in the spec, so the set stays open. Since 2.3.',
    }),
    createDate: t.expose('createDate', { type: 'DateTime', description: 'When the platform was created. Since 2.3.' }),
    lastOpDate: t.expose('lastOpDate', { type: 'DateTime', description: 'When the platform last changed. Since 2.3.' }),
  }),
});

export const SnsApplicationPlatformConnection = builder.connectionObject({
  type: SnsApplicationPlatformRef,
  name: 'SnsApplicationPlatformConnection',
  description: 'A page of SNS application platforms.',
});

defineListQuery({
  typeName: 'SnsApplicationPlatform',
  family: platforms,
  connection: SnsApplicationPlatformConnection,
  list: {
    name: 'snsApplicationPlatforms',
    description:
      'SNS application platforms, read through the generic cursor family (resourceType `sns-application-platform`). Null when they cannot be read (with an error): no `X-Resources-Authorization` sent (`UNAUTHENTICATED`) or the upstream failing; the other fields of the query still answer. Since 2.3.',
  },
  filter: {
    description: 'Conditions on SNS platforms; all given conditions must hold.',
    argDescription: 'Conditions the platforms must meet.',
    fields: {
      uuids: { field: 'uuid', op: 'in', type: ['Uuid'], description: 'Only these platforms.' },
      nameContains: { field: 'name', op: 'contains', type: 'String', description: 'Name contains this text.' },
      type: { field: 'type', op: 'eq', type: 'String', description: 'Only platforms of this type, e.g. `Email`.' },
      state: { field: 'state', op: 'eq', type: 'String', description: 'Only platforms in this state, e.g. `Enabled`.' },
    },
  },
  order: {
    fieldsDescription: 'Fields SNS platforms can be sorted by.',
    description: 'Order of an SNS platform connection.',
    argDescription: 'Sort order. Default: creation time, ascending.',
    fields: CursorOrderField,
  },
});

// ---------------------------------------------------------------------------------------------
// Endpoints

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
  id: { resolve: (endpoint: SnsApplicationEndpointRecord) => endpoint.uuid },
  // One CursorQuery (`filter=uuid:in:...`) per batch.
  load: loadByUuid(endpoints, 'SnsApplicationEndpoint'),
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
      type: SnsApplicationPlatformRef,
      nullable: true,
      description: 'The platform the endpoint belongs to. Null when it cannot be read (with an error). Since 5.0.0.',
      resolve: (endpoint) => endpoint.platformUuid,
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
  list: {
    name: 'snsApplicationEndpoints',
    description:
      'SNS application endpoints of every type, read through the generic cursor family (resourceType `sns-application-endpoint`). Null when they cannot be read (with an error): no `X-Resources-Authorization` sent (`UNAUTHENTICATED`) or the upstream failing; the other fields of the query still answer. Since 5.0.0.',
  },
  filter: {
    description: 'Conditions on SNS endpoints; all given conditions must hold.',
    argDescription: 'Conditions the endpoints must meet.',
    fields: {
      uuids: { field: 'uuid', op: 'in', type: ['Uuid'], description: 'Only these endpoints.' },
      nameContains: { field: 'name', op: 'contains', type: 'String', description: 'Name contains this text.' },
      type: { field: 'type', op: 'eq', type: SnsEndpointType, description: 'Only endpoints of this delivery type.' },
      platformUuid: { field: 'platformUuid', op: 'eq', type: 'Uuid', description: 'Only endpoints of this platform.' },
      state: { field: 'state', op: 'eq', type: 'String', description: 'Only endpoints in this state, e.g. `Enabled`.' },
    },
  },
  order: {
    fieldsDescription: 'Fields SNS endpoints can be sorted by.',
    description: 'Order of an SNS endpoint connection.',
    argDescription: 'Sort order. Default: creation time, ascending.',
    fields: CursorOrderField,
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

// ---------------------------------------------------------------------------------------------
// Email addresses

const emailAddresses = queryFamily('snsEmailAddresses');

export const SnsEmailAddressRef = builder.loadableNode('SnsEmailAddress', {
  description: 'An email address an Email endpoint notifies (SNS email address record, QuerySNSEmailAddress). Since 3.7.0.',
  id: { resolve: (address: SnsEmailAddressRecord) => address.uuid },
  // One QuerySNSEmailAddress (`q=uuid?=...`) per batch.
  load: loadByUuid(emailAddresses, 'SnsEmailAddress'),
  fields: (t) => ({
    uuid: t.expose('uuid', { type: 'Uuid', nullable: false, description: 'Identifier. Since 3.7.0.' }),
    emailAddress: t.exposeString('emailAddress', { description: 'The email address. Since 3.7.0.' }),
    endpointUuid: t.expose('endpointUuid', { type: 'Uuid', description: 'The Email endpoint the address belongs to. Since 3.7.0.' }),
    endpoint: t.field({
      type: SnsApplicationEndpointRef,
      nullable: true,
      description: 'The Email endpoint the address belongs to (read through the generic cursor family). Null when it cannot be read (with an error). Since 3.7.0.',
      resolve: (address) => address.endpointUuid,
    }),
    createDate: t.expose('createDate', { type: 'DateTime', description: 'When the address was added. Since 3.7.0.' }),
    lastOpDate: t.expose('lastOpDate', { type: 'DateTime', description: 'When the address last changed. Since 3.7.0.' }),
  }),
});

export const SnsEmailAddressConnection = builder.connectionObject({
  type: SnsEmailAddressRef,
  name: 'SnsEmailAddressConnection',
  description: 'A page of SNS email addresses.',
});

defineListQuery({
  typeName: 'SnsEmailAddress',
  family: emailAddresses,
  connection: SnsEmailAddressConnection,
  list: {
    name: 'snsEmailAddresses',
    description:
      'Email addresses of Email endpoints (QuerySNSEmailAddress). Null when they cannot be read (with an error): no `Authorization` sent (`UNAUTHENTICATED`) or the upstream failing; the other fields of the query still answer. Since 3.7.0.',
  },
  one: {
    name: 'snsEmailAddress',
    type: SnsEmailAddressRef,
    description:
      'One SNS email address by uuid; null when it does not exist (with a `NOT_FOUND` error) or cannot be read (with the error that stopped it, e.g. `UNAUTHENTICATED`). Since 3.7.0.',
    argDescription: 'The address\'s uuid.',
  },
  filter: {
    description: 'Conditions on SNS email addresses; all given conditions must hold.',
    argDescription: 'Conditions the addresses must meet.',
    fields: {
      uuids: { field: 'uuid', op: 'in', type: ['Uuid'], description: 'Only these addresses.' },
      endpointUuid: { field: 'endpointUuid', op: 'eq', type: 'Uuid', description: 'Only addresses of this Email endpoint.' },
      emailAddressContains: { field: 'emailAddress', op: 'contains', type: 'String', description: 'The address contains this text.' },
    },
  },
  order: {
    fieldsDescription: 'Fields SNS email addresses can be sorted by.',
    description: 'Order of an SNS email address connection.',
    argDescription: 'Sort order. Default: the upstream\'s own (stable) order.',
    fields: {
      CREATE_DATE: { value: 'createDate', description: 'Creation time.' },
      LAST_OP_DATE: { value: 'lastOpDate', description: 'Last update time.' },
      EMAIL_ADDRESS: { value: 'emailAddress', description: 'The address.' },
    },
  },
});

/** The email addresses of each endpoint: one QuerySNSEmailAddress (`q=endpointUuid?=...`) for every endpoint of the batch. */
async function loadEmailAddressesOfEndpoints(endpointUuids: string[], context: GatewayContext): Promise<SnsEmailAddressRecord[][]> {
  const addresses = await emailAddresses.whereIn(context, 'endpointUuid', endpointUuids);
  return groupByKey(endpointUuids, addresses, (address) => address.endpointUuid);
}

builder.objectField(SnsApplicationEndpointRef, 'emailAddresses', (t) =>
  t.loadableList({
    type: SnsEmailAddressRef,
    nullable: true,
    description:
      'Email endpoints only: the addresses notified (QuerySNSEmailAddress; one upstream query for all endpoints of a page); empty for other types. Null when they cannot be read (with an error). Since 3.7.0.',
    load: loadEmailAddressesOfEndpoints,
    resolve: (endpoint) => endpoint.uuid,
  }),
);

// ---------------------------------------------------------------------------------------------
// Mutations

export const SnsStateEvent = builder.enumType('SnsStateEvent', {
  description: 'The state change ChangeSNSApplicationPlatformState applies (`stateEvent`). Since 2.3.',
  values: {
    ENABLE: { value: 'enable', description: 'Enable the platform; its state becomes `Enabled`.' },
    DISABLE: { value: 'disable', description: 'Disable the platform (the resulting state\'s name is not shown in the spec; `Disabled` is seen).' },
  } as const,
});

defineWriteMutation({
  name: 'changeSnsApplicationPlatformState',
  operation: ChangeSNSApplicationPlatformState,
  description:
    'Enables or disables an SNS application platform (ChangeSNSApplicationPlatformState: `PUT sns/application-platforms/{uuid}/actions`). Since 2.3.',
  inputFields: (t) => ({
    uuid: t.field({ type: 'Uuid', required: true, description: 'The platform (path parameter). Since 2.3.' }),
    stateEvent: t.field({ type: SnsStateEvent, required: true, description: 'The state change to apply: enable or disable. Since 2.3.' }),
  }),
  params: (input) => ({ uuid: input.uuid, stateEvent: input.stateEvent }),
  payloadFields: (t, result) => ({
    platform: t.field({
      type: SnsApplicationPlatformRef,
      nullable: true,
      description: 'The platform in its new state (SNSApplicationPlatformInventory); null until the job succeeded. Since 2.3.',
      resolve: (source, _args, context) => result(source, context)?.inventory ?? null,
    }),
  }),
  touches: { types: ['SnsApplicationPlatform'], uuids: (input) => [input.uuid] },
});

defineWriteMutation({
  name: 'updateSnsHttpEndpoint',
  operation: UpdateSNSHttpEndpoint,
  description:
    'Changes an HTTP (webhook) SNS endpoint; only the fields given change (UpdateSNSHttpEndpoint: `PUT sns/application-endpoints/http/{uuid}/actions`). Since 4.2.0.',
  inputFields: (t) => ({
    uuid: t.field({ type: 'Uuid', required: true, description: 'The HTTP endpoint (path parameter). Since 4.2.0.' }),
    url: t.string({ description: 'The webhook URL notifications are posted to (http or https). Since 4.2.0.' }),
    username: t.string({
      description: 'The user name sent to the webhook. The spec lists it as Boolean but it is sent as text, so it is a String here. Since 4.2.0.',
    }),
    password: t.string({ description: 'The password sent to the webhook (never read back). Since 4.2.0.' }),
    name: t.string({ description: 'New name of the endpoint. Since 4.2.0.' }),
    description: t.string({ description: 'New description of the endpoint. Since 4.2.0.' }),
  }),
  params: (input) => ({
    uuid: input.uuid,
    url: input.url,
    username: input.username,
    password: input.password,
    name: input.name,
    description: input.description,
  }),
  payloadFields: (t, result) => ({
    endpoint: t.field({
      type: SnsApplicationEndpointRef,
      nullable: true,
      description:
        'The endpoint as changed (SNSApplicationEndpointInventory; `url` and `username` only when the upstream includes them); null until the job succeeded. Since 4.2.0.',
      resolve: (source, _args, context) => result(source, context)?.inventory ?? null,
    }),
  }),
  touches: { types: ['SnsApplicationEndpoint'], uuids: (input) => [input.uuid] },
});

/**
 * A phone number fit for its path segment: `.` and `..` would be read as path navigation, so
 * they are refused as the caller's mistake before any job starts.
 */
function checkedPhoneNumber(phoneNumber: string): string {
  if (phoneNumber === '' || phoneNumber === '.' || phoneNumber === '..') {
    throw new GraphQLError(`phoneNumber ${JSON.stringify(phoneNumber)} is not a phone number.`, { extensions: { code: 'BAD_USER_INPUT' } });
  }
  return phoneNumber;
}

defineWriteMutation({
  name: 'removeSnsSmsReceiver',
  operation: RemoveSNSSmsReceiver,
  description:
    'Removes a receiver (phone number) from an SMS SNS endpoint (RemoveSNSSmsReceiver: `DELETE sns/sms-endpoints/{endpointUuid}/receivers/{phoneNumber}`). Since 3.7.0.',
  inputFields: (t) => ({
    endpointUuid: t.field({ type: 'Uuid', required: true, description: 'The SMS endpoint (path parameter). Since 3.7.0.' }),
    phoneNumber: t.string({
      required: true,
      description: 'The receiver\'s phone number, e.g. `+8613800000000` (path parameter, URL-encoded by the gateway). Since 3.7.0.',
    }),
    deleteMode: t.field({
      type: DeleteMode,
      description: 'How strictly to delete; the upstream default is `PERMISSIVE`. Sent in the body and on the query string, as the spec does. Since 3.7.0.',
    }),
  }),
  params: (input) => ({
    endpointUuid: input.endpointUuid,
    phoneNumber: checkedPhoneNumber(input.phoneNumber),
    deleteMode: input.deleteMode,
  }),
  payloadFields: (t, result) => ({
    endpoint: t.field({
      type: SnsApplicationEndpointRef,
      nullable: true,
      description: 'The SMS endpoint read again after the removal (the upstream answers `{}`); null until the job succeeded. Since 3.7.0.',
      resolve: (source, _args, context) => (result(source, context) ? String(source.input.endpointUuid) : null),
    }),
  }),
  // The receivers are a plain list inside the endpoint record.
  touches: { types: ['SnsApplicationEndpoint'], uuids: (input) => [input.endpointUuid] },
});
