/**
 * SNS application platforms (SNSApplicationPlatformInventory), read through the generic cursor
 * family (resourceType `sns-application-platform`): the spec gives them no query of their own.
 */
import { builder } from '../../builder.js';
import { snsApplicationPlatform } from '../../upstream/records.js';
import { cursorFamily, nodeByUuid } from '../kit/families.js';
import { defineListQuery, equals, NAME_AND_DATE_ORDER_FIELDS, NAME_CONTAINS_FILTER, uuidsFilter } from '../kit/list-query.js';
import { exposeRecordFields } from '../kit/record-fields.js';

const platforms = cursorFamily('sns-application-platform');

export const SnsApplicationPlatformRef = builder.loadableNode('SnsApplicationPlatform', {
  description: 'A notification (SNS) application platform that endpoints deliver through (SNSApplicationPlatformInventory). Since 2.3.',
  extensions: { since: snsApplicationPlatform.since },
  ...nodeByUuid(platforms, 'SnsApplicationPlatform'),
  fields: (t) => ({
    ...exposeRecordFields(t, 'snsApplicationPlatform', 'uuid', 'name', 'description', 'type', 'state', 'createDate', 'lastOpDate'),
  }),
});

export const SnsApplicationPlatformConnection = builder.connectionObject({
  type: SnsApplicationPlatformRef,
  name: 'SnsApplicationPlatformConnection',
  description: 'A page of SNS application platforms.',
});

defineListQuery({
  typeName: 'SnsApplicationPlatform',
  record: 'snsApplicationPlatform',
  family: platforms,
  connection: SnsApplicationPlatformConnection,
  naming: { a: 'an SNS platform', plural: 'SNS platforms' },
  since: '2.3',
  list: {
    name: 'snsApplicationPlatforms',
    description: 'SNS application platforms, read through the generic cursor family (resourceType `sns-application-platform`).',
  },
  filter: {
    argDescription: 'Conditions the platforms must meet.',
    fields: {
      uuids: uuidsFilter('platforms'),
      nameContains: NAME_CONTAINS_FILTER,
      type: equals('Only platforms of this type, e.g. `Email`.'),
      state: equals('Only platforms in this state, e.g. `Enabled`.'),
    },
  },
  order: {
    fields: NAME_AND_DATE_ORDER_FIELDS,
  },
});

