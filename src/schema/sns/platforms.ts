/**
 * SNS application platforms (SNSApplicationPlatformInventory), read through the cursor
 * family (resourceType `sns-application-platform`): the spec gives them no query of their own.
 */
import { builder } from '../../builder.js';
import { snsApplicationPlatform } from '../../upstream/records.js';
import { cursorFamily, nodeByUuid } from '../kit/families.js';
import { anyOf, defineListQuery, equals, NAME_AND_DATE_ORDER_FIELDS, NAME_CONTAINS_FILTER, uuidsFilter } from '../kit/list-query.js';
import { recordEnum } from '../kit/enums.js';
import { ResourceState } from '../common-enums.js';
import { exposeRecordEnums, exposeRecordFields } from '../kit/record-fields.js';

const platforms = cursorFamily('sns-application-platform');

// The platforms' set, older than the endpoint records (2.3 against 5.0.0): a release between has the enum.
export const SnsEndpointType = recordEnum('SnsEndpointType', {
  record: 'snsApplicationPlatform',
  field: 'type',
  description: 'How an SNS platform and its endpoints deliver notifications. Since 2.3.',
  values: {
    HTTP: 'Posts to a webhook URL.',
    Email: 'Mails the endpoint\'s email addresses.',
    SMS: 'Texts the endpoint\'s receivers\' phone numbers.',
  },
});

export const SnsApplicationPlatformRef = builder.loadableNode('SnsApplicationPlatform', {
  description: 'A notification (SNS) application platform that endpoints deliver through (SNSApplicationPlatformInventory). Since 2.3.',
  extensions: { since: snsApplicationPlatform.since },
  ...nodeByUuid(platforms, 'SnsApplicationPlatform'),
  fields: (t) => ({
    ...exposeRecordFields(t, 'snsApplicationPlatform', 'uuid', 'name', 'description'),
    ...exposeRecordEnums(t, 'snsApplicationPlatform', SnsEndpointType, 'type'),
    ...exposeRecordEnums(t, 'snsApplicationPlatform', ResourceState, 'state'),
    ...exposeRecordFields(t, 'snsApplicationPlatform', 'createDate', 'lastOpDate'),
  }),
});

defineListQuery({
  record: 'snsApplicationPlatform',
  family: platforms,
  connectionDescription: 'A page of SNS application platforms.',
  naming: { a: 'an SNS platform', plural: 'SNS platforms' },
  since: '2.3',
  list: {
    name: 'snsApplicationPlatforms',
    description: 'SNS application platforms, read through the cursor family (resourceType `sns-application-platform`).',
  },
  one: {
    type: SnsApplicationPlatformRef,
    noun: 'SNS platform',
    argDescription: 'The platform\'s uuid.',
  },
  filter: {
    argDescription: 'Conditions the platforms must meet.',
    fields: {
      uuids: uuidsFilter('platforms'),
      nameContains: NAME_CONTAINS_FILTER,
      type: equals('Only platforms of this delivery type.', SnsEndpointType),
      typeIn: anyOf('type', 'Only platforms of one of these delivery types.', SnsEndpointType),
      state: equals('Only platforms in this state, e.g. `ENABLED`.', ResourceState),
      stateIn: anyOf('state', 'Only platforms in one of these states.', ResourceState),
    },
  },
  order: {
    fields: NAME_AND_DATE_ORDER_FIELDS,
  },
});

