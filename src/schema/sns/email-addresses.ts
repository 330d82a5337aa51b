/**
 * Email addresses of Email endpoints (QuerySNSEmailAddress, the resource family), and the
 * addresses of each endpoint.
 */
import { builder } from '../../builder.js';
import type { GatewayContext } from '../../context.js';
import type { SnsEmailAddressRecord } from '../../upstream/records.js';
import { loadByUuid, queryFamily } from '../kit/families.js';
import { defineListQuery } from '../kit/list-query.js';
import { groupByKey } from '../kit/loading.js';
import { SnsApplicationEndpointRef } from './endpoints.js';

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

