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
import type { CursorFilter, QueryCondition } from '../upstream/types.js';
import { ChangeSNSApplicationPlatformState, RemoveSNSSmsReceiver, UpdateSNSHttpEndpoint } from '../upstream/operations/index.js';
import { addContainsFilter, addEqualsFilter, addInFilter, DeleteMode, OrderDirection } from './common.js';
import { pageArgs, readPageSize, resolveCursorConnection, resolveListConnection, resolveQueryConnection } from './connections.js';
import { groupByKey, loadCursorRecordsWhereIn, loadQueryRecordsWhereIn, matchByKey, notFound } from './loading.js';
import { defineWriteMutation } from './mutation-kit.js';
import { addContainsCondition, addEqualsCondition, addInCondition } from './query-conditions.js';

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

/** Loads platforms by uuid: one CursorQuery (`filter=uuid:in:...`) per batch. */
async function loadPlatforms(uuids: string[], context: GatewayContext): Promise<(SnsApplicationPlatformRecord | Error)[]> {
  const records = await loadCursorRecordsWhereIn(context, 'sns-application-platform', 'uuid', uuids);
  return matchByKey(uuids, records, (platform) => platform.uuid, (uuid) => notFound('SnsApplicationPlatform', uuid));
}

export const SnsApplicationPlatformRef = builder.loadableNode('SnsApplicationPlatform', {
  description: 'A notification (SNS) application platform that endpoints deliver through (SNSApplicationPlatformInventory). Since 2.3.',
  id: { resolve: (platform) => platform.uuid },
  load: loadPlatforms,
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

const SnsApplicationPlatformFilter = builder.inputType('SnsApplicationPlatformFilter', {
  description: 'Conditions on SNS platforms; all given conditions must hold.',
  fields: (t) => ({
    uuids: t.field({ type: ['Uuid'], description: 'Only these platforms.' }),
    nameContains: t.string({ description: 'Name contains this text.' }),
    type: t.string({ description: 'Only platforms of this type, e.g. `Email`.' }),
    state: t.string({ description: 'Only platforms in this state, e.g. `Enabled`.' }),
  }),
});

const SnsApplicationPlatformOrderField = builder.enumType('SnsApplicationPlatformOrderField', {
  description: 'Fields SNS platforms can be sorted by.',
  values: CursorOrderField,
});

const SnsApplicationPlatformOrder = builder.inputType('SnsApplicationPlatformOrder', {
  description: 'Order of an SNS platform connection.',
  fields: (t) => ({
    field: t.field({ type: SnsApplicationPlatformOrderField, required: true, description: 'Sort key.' }),
    direction: t.field({ type: OrderDirection, defaultValue: 'asc', description: 'Direction. Default ASC.' }),
  }),
});

// ---------------------------------------------------------------------------------------------
// Endpoints

/** Loads endpoints by uuid: one CursorQuery (`filter=uuid:in:...`) per batch. */
async function loadEndpoints(uuids: string[], context: GatewayContext): Promise<(SnsApplicationEndpointRecord | Error)[]> {
  const records = await loadCursorRecordsWhereIn(context, 'sns-application-endpoint', 'uuid', uuids);
  return matchByKey(uuids, records, (endpoint) => endpoint.uuid, (uuid) => notFound('SnsApplicationEndpoint', uuid));
}

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
  id: { resolve: (endpoint) => endpoint.uuid },
  load: loadEndpoints,
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

const SnsApplicationEndpointFilter = builder.inputType('SnsApplicationEndpointFilter', {
  description: 'Conditions on SNS endpoints; all given conditions must hold.',
  fields: (t) => ({
    uuids: t.field({ type: ['Uuid'], description: 'Only these endpoints.' }),
    nameContains: t.string({ description: 'Name contains this text.' }),
    type: t.field({ type: SnsEndpointType, description: 'Only endpoints of this delivery type.' }),
    platformUuid: t.field({ type: 'Uuid', description: 'Only endpoints of this platform.' }),
    state: t.string({ description: 'Only endpoints in this state, e.g. `Enabled`.' }),
  }),
});

const SnsApplicationEndpointOrderField = builder.enumType('SnsApplicationEndpointOrderField', {
  description: 'Fields SNS endpoints can be sorted by.',
  values: CursorOrderField,
});

const SnsApplicationEndpointOrder = builder.inputType('SnsApplicationEndpointOrder', {
  description: 'Order of an SNS endpoint connection.',
  fields: (t) => ({
    field: t.field({ type: SnsApplicationEndpointOrderField, required: true, description: 'Sort key.' }),
    direction: t.field({ type: OrderDirection, defaultValue: 'asc', description: 'Direction. Default ASC.' }),
  }),
});

/** The endpoints of each platform: one CursorQuery (`filter=platformUuid:in:...`) for every platform of the batch. */
async function loadEndpointsOfPlatforms(platformUuids: readonly string[], context: GatewayContext): Promise<SnsApplicationEndpointRecord[][]> {
  const endpoints = await loadCursorRecordsWhereIn(context, 'sns-application-endpoint', 'platformUuid', platformUuids);
  return groupByKey(platformUuids, endpoints, (endpoint) => endpoint.platformUuid);
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

/** Loads email addresses by uuid: one QuerySNSEmailAddress (`q=uuid?=...`) per batch. */
async function loadEmailAddresses(uuids: string[], context: GatewayContext): Promise<(SnsEmailAddressRecord | Error)[]> {
  const records = await loadQueryRecordsWhereIn(context, 'snsEmailAddresses', 'uuid', uuids);
  return matchByKey(uuids, records, (address) => address.uuid, (uuid) => notFound('SnsEmailAddress', uuid));
}

export const SnsEmailAddressRef = builder.loadableNode('SnsEmailAddress', {
  description: 'An email address an Email endpoint notifies (SNS email address record, QuerySNSEmailAddress). Since 3.7.0.',
  id: { resolve: (address) => address.uuid },
  load: loadEmailAddresses,
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

const SnsEmailAddressFilter = builder.inputType('SnsEmailAddressFilter', {
  description: 'Conditions on SNS email addresses; all given conditions must hold.',
  fields: (t) => ({
    uuids: t.field({ type: ['Uuid'], description: 'Only these addresses.' }),
    endpointUuid: t.field({ type: 'Uuid', description: 'Only addresses of this Email endpoint.' }),
    emailAddressContains: t.string({ description: 'The address contains this text.' }),
  }),
});

const SnsEmailAddressOrderField = builder.enumType('SnsEmailAddressOrderField', {
  description: 'Fields SNS email addresses can be sorted by.',
  values: {
    CREATE_DATE: { value: 'createDate', description: 'Creation time.' },
    LAST_OP_DATE: { value: 'lastOpDate', description: 'Last update time.' },
    EMAIL_ADDRESS: { value: 'emailAddress', description: 'The address.' },
  } as const,
});

const SnsEmailAddressOrder = builder.inputType('SnsEmailAddressOrder', {
  description: 'Order of an SNS email address connection.',
  fields: (t) => ({
    field: t.field({ type: SnsEmailAddressOrderField, required: true, description: 'Sort key.' }),
    direction: t.field({ type: OrderDirection, defaultValue: 'asc', description: 'Direction. Default ASC.' }),
  }),
});

/** The email addresses of each endpoint: one QuerySNSEmailAddress (`q=endpointUuid?=...`) for every endpoint of the batch. */
async function loadEmailAddressesOfEndpoints(endpointUuids: string[], context: GatewayContext): Promise<SnsEmailAddressRecord[][]> {
  const addresses = await loadQueryRecordsWhereIn(context, 'snsEmailAddresses', 'endpointUuid', endpointUuids);
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
// Query fields

builder.queryFields((t) => ({
  snsApplicationPlatforms: t.field({
    type: SnsApplicationPlatformConnection,
    nullable: true,
    description:
      'SNS application platforms, read through the generic cursor family (resourceType `sns-application-platform`). Null when they cannot be read (with an error): no `X-Resources-Authorization` sent (`UNAUTHENTICATED`) or the upstream failing; the other fields of the query still answer. Since 2.3.',
    args: {
      ...pageArgs,
      filter: t.arg({ type: SnsApplicationPlatformFilter, description: 'Conditions the platforms must meet.' }),
      orderBy: t.arg({ type: SnsApplicationPlatformOrder, description: 'Sort order. Default: creation time, ascending.' }),
    },
    resolve: (_root, args, context) => {
      const filter: CursorFilter[] = [];
      addInFilter(filter, 'uuid', args.filter?.uuids);
      addContainsFilter(filter, 'name', args.filter?.nameContains);
      addEqualsFilter(filter, 'type', args.filter?.type);
      addEqualsFilter(filter, 'state', args.filter?.state);
      return resolveCursorConnection(context, {
        resourceType: 'sns-application-platform',
        first: args.first,
        after: args.after,
        filter,
        sort: args.orderBy?.field,
        order: args.orderBy?.direction ?? undefined,
      });
    },
  }),
  snsApplicationEndpoints: t.field({
    type: SnsApplicationEndpointConnection,
    nullable: true,
    description:
      'SNS application endpoints of every type, read through the generic cursor family (resourceType `sns-application-endpoint`). Null when they cannot be read (with an error): no `X-Resources-Authorization` sent (`UNAUTHENTICATED`) or the upstream failing; the other fields of the query still answer. Since 5.0.0.',
    args: {
      ...pageArgs,
      filter: t.arg({ type: SnsApplicationEndpointFilter, description: 'Conditions the endpoints must meet.' }),
      orderBy: t.arg({ type: SnsApplicationEndpointOrder, description: 'Sort order. Default: creation time, ascending.' }),
    },
    resolve: (_root, args, context) => {
      const filter: CursorFilter[] = [];
      addInFilter(filter, 'uuid', args.filter?.uuids);
      addContainsFilter(filter, 'name', args.filter?.nameContains);
      addEqualsFilter(filter, 'type', args.filter?.type);
      addEqualsFilter(filter, 'platformUuid', args.filter?.platformUuid);
      addEqualsFilter(filter, 'state', args.filter?.state);
      return resolveCursorConnection(context, {
        resourceType: 'sns-application-endpoint',
        first: args.first,
        after: args.after,
        filter,
        sort: args.orderBy?.field,
        order: args.orderBy?.direction ?? undefined,
      });
    },
  }),
  snsEmailAddresses: t.field({
    type: SnsEmailAddressConnection,
    nullable: true,
    description: 'Email addresses of Email endpoints (QuerySNSEmailAddress). Null when they cannot be read (with an error): no `Authorization` sent (`UNAUTHENTICATED`) or the upstream failing; the other fields of the query still answer. Since 3.7.0.',
    args: {
      ...pageArgs,
      filter: t.arg({ type: SnsEmailAddressFilter, description: 'Conditions the addresses must meet.' }),
      orderBy: t.arg({ type: SnsEmailAddressOrder, description: 'Sort order. Default: the upstream\'s own (stable) order.' }),
    },
    resolve: (_root, args, context) => {
      const conditions: QueryCondition[] = [];
      addInCondition(conditions, 'uuid', args.filter?.uuids);
      addEqualsCondition(conditions, 'endpointUuid', args.filter?.endpointUuid);
      addContainsCondition(conditions, 'emailAddress', args.filter?.emailAddressContains);
      return resolveQueryConnection(context, {
        collection: 'snsEmailAddresses',
        first: args.first,
        after: args.after,
        conditions,
        sort: args.orderBy ? { field: args.orderBy.field, direction: args.orderBy.direction ?? 'asc' } : undefined,
      });
    },
  }),
  snsEmailAddress: t.field({
    type: SnsEmailAddressRef,
    nullable: true,
    description: 'One SNS email address by uuid; null when it does not exist (with a `NOT_FOUND` error) or cannot be read (with the error that stopped it, e.g. `UNAUTHENTICATED`). Since 3.7.0.',
    args: { uuid: t.arg({ type: 'Uuid', required: true, description: 'The address\'s uuid.' }) },
    resolve: (_root, args) => args.uuid,
  }),
}));

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
