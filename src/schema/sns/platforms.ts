/**
 * SNS application platforms (SNSApplicationPlatformInventory), read through the generic cursor
 * family (resourceType `sns-application-platform`): the spec gives them no query of their own.
 */
import { builder } from '../../builder.js';
import { cursorFamily, nodeByUuid } from '../kit/families.js';
import { defineListQuery, NAME_AND_DATE_ORDER_FIELDS, NAME_CONTAINS_FILTER, uuidsFilter } from '../kit/list-query.js';

const platforms = cursorFamily('sns-application-platform');

export const SnsApplicationPlatformRef = builder.loadableNode('SnsApplicationPlatform', {
  description: 'A notification (SNS) application platform that endpoints deliver through (SNSApplicationPlatformInventory). Since 2.3.',
  ...nodeByUuid(platforms, 'SnsApplicationPlatform'),
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
      type: { field: 'type', op: 'eq', type: 'String', description: 'Only platforms of this type, e.g. `Email`.' },
      state: { field: 'state', op: 'eq', type: 'String', description: 'Only platforms in this state, e.g. `Enabled`.' },
    },
  },
  order: {
    fields: NAME_AND_DATE_ORDER_FIELDS,
  },
});

