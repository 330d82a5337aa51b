/**
 * Email addresses of Email endpoints (QuerySNSEmailAddress, the resource family), and the
 * addresses of each endpoint.
 */
import { builder } from '../../builder.js';
import type { GatewayContext } from '../../context.js';
import { snsEmailAddress, type SnsEmailAddressRecord } from '../../upstream/records.js';
import { nodeByUuid, resourceFamily } from '../kit/families.js';
import { contains, DATE_ORDER_FIELDS, defineListQuery, equals, uuidsFilter } from '../kit/list-query.js';
import { groupByField } from '../kit/loading.js';
import { exposeRecordFields, follows, itemsOrErrors } from '../kit/record-fields.js';
import { SnsApplicationEndpointRef } from './endpoints.js';

const emailAddresses = resourceFamily('snsEmailAddresses');

export const SnsEmailAddressRef = builder.loadableNode('SnsEmailAddress', {
  description: 'An email address an Email endpoint notifies (SNS email address record, QuerySNSEmailAddress). Since 3.7.0.',
  extensions: { since: snsEmailAddress.since },
  ...nodeByUuid(emailAddresses, 'SnsEmailAddress'),
  fields: (t) => ({
    ...exposeRecordFields(t, 'snsEmailAddress', 'uuid', 'emailAddress', 'endpointUuid'),
    endpoint: follows(t, 'endpointUuid', SnsApplicationEndpointRef, 'The Email endpoint the address belongs to (read through the cursor family). Null when it cannot be read (with an error). Since 3.7.0.'),
    ...exposeRecordFields(t, 'snsEmailAddress', 'createDate', 'lastOpDate'),
  }),
});

defineListQuery({
  record: 'snsEmailAddress',
  family: emailAddresses,
  connectionDescription: 'A page of SNS email addresses.',
  naming: { a: 'an SNS email address', plural: 'SNS email addresses' },
  since: '3.7.0',
  list: {
    name: 'snsEmailAddresses',
    description: 'Email addresses of Email endpoints (QuerySNSEmailAddress).',
  },
  one: {
    type: SnsEmailAddressRef,
    noun: 'SNS email address',
    argDescription: 'The address\'s uuid.',
  },
  filter: {
    argDescription: 'Conditions the addresses must meet.',
    fields: {
      uuids: uuidsFilter('addresses'),
      endpointUuid: equals('Only addresses of this Email endpoint.'),
      emailAddressContains: contains('emailAddress', 'The address contains this text.'),
    },
  },
  order: {
    fields: {
      ...DATE_ORDER_FIELDS,
      emailAddress: 'The address.',
    },
  },
});

/** The email addresses of each endpoint: one QuerySNSEmailAddress (`q=endpointUuid?=...`) for every endpoint of the batch. */
async function loadEmailAddressesOfEndpoints(endpointUuids: string[], context: GatewayContext): Promise<SnsEmailAddressRecord[][]> {
  const addresses = await emailAddresses.whereIn(context, 'endpointUuid', endpointUuids);
  return groupByField(endpointUuids, addresses, 'endpointUuid').map(itemsOrErrors);
}

builder.objectField(SnsApplicationEndpointRef, 'emailAddresses', (t) =>
  t.loadableList({
    type: SnsEmailAddressRef,
    nullable: { list: true, items: true },
    description:
      'Email endpoints only: the addresses notified (QuerySNSEmailAddress; one upstream query for all endpoints of a page); empty for other types. Null when they cannot be read (with an error); one address the upstream sent unreadable is null with an error at its index.',
    load: loadEmailAddressesOfEndpoints,
    resolve: (endpoint) => endpoint.uuid,
  }),
);

