/**
 * The spec's SNS writes as mutations: platform state, HTTP endpoint update, SMS receiver removal.
 */
import { ChangeSNSApplicationPlatformState, RemoveSNSSmsReceiver, UpdateSNSHttpEndpoint } from '../../upstream/operations/index.js';
import { deleteModeField } from '../kit/delete-mode.js';
import { closedSetEnum } from '../kit/enums.js';
import { defineWriteMutation, resultInventory } from '../kit/mutation-kit.js';
import { InputRefusal } from '../kit/user-errors.js';
import { SnsApplicationEndpointRef } from './endpoints.js';
import { SnsApplicationPlatformRef } from './platforms.js';

export const SnsStateEvent = closedSetEnum('SnsStateEvent', {
  description: 'The state change ChangeSNSApplicationPlatformState applies (`stateEvent`).',
  since: ChangeSNSApplicationPlatformState.since,
  values: {
    enable: 'Enable the platform; its state becomes `Enabled`.',
    disable: 'Disable the platform (the resulting state\'s name is not shown in the spec; `Disabled` is seen).',
  },
});

defineWriteMutation({
  name: 'changeSnsApplicationPlatformState',
  operation: ChangeSNSApplicationPlatformState,
  description:
    'Enables or disables an SNS application platform (ChangeSNSApplicationPlatformState: `PUT sns/application-platforms/{uuid}/actions`). Since 2.3.',
  inputFields: (t) => ({
    stateEvent: t.field({ type: SnsStateEvent, required: true, description: 'The state change to apply: enable or disable. Since 2.3.' }),
  }),
  payloadFields: (t, result) => ({
    platform: t.field({
      type: SnsApplicationPlatformRef,
      nullable: true,
      description: 'The platform in its new state (SNSApplicationPlatformInventory); null until the job succeeded. Since 2.3.',
      resolve: resultInventory(result),
    }),
  }),
  touches: { types: ['SnsApplicationPlatform'], uuids: (input) => [input.uuid] },
});

defineWriteMutation({
  name: 'updateSnsHttpEndpoint',
  operation: UpdateSNSHttpEndpoint,
  description:
    'Changes an HTTP (webhook) SNS endpoint; only the fields given change (UpdateSNSHttpEndpoint: `PUT sns/application-endpoints/http/{uuid}/actions`). Since 4.2.0.',
  payloadFields: (t, result) => ({
    endpoint: t.field({
      type: SnsApplicationEndpointRef,
      nullable: true,
      description:
        'The endpoint as changed (SNSApplicationEndpointInventory; `url` and `username` only when the upstream includes them); null until the job succeeded. Since 4.2.0.',
      resolve: resultInventory(result),
    }),
  }),
  touches: { types: ['SnsApplicationEndpoint'], uuids: (input) => [input.uuid] },
});

/**
 * A phone number fit for its path segment: `.` and `..` would be read as path navigation, so
 * they are refused as the caller's mistake before any job starts (a `VALIDATION` user error).
 */
function checkedPhoneNumber(phoneNumber: string): string {
  if (phoneNumber === '' || phoneNumber === '.' || phoneNumber === '..') {
    throw new InputRefusal('phoneNumber', `phoneNumber ${JSON.stringify(phoneNumber)} is not a phone number.`);
  }
  return phoneNumber;
}

defineWriteMutation({
  name: 'removeSnsSmsReceiver',
  operation: RemoveSNSSmsReceiver,
  description:
    'Removes a receiver (phone number) from an SMS SNS endpoint (RemoveSNSSmsReceiver: `DELETE sns/sms-endpoints/{endpointUuid}/receivers/{phoneNumber}`). Since 3.7.0.',
  inputFields: (t) => ({
    deleteMode: deleteModeField(t, RemoveSNSSmsReceiver, ' Sent in the body and on the query string, as the spec does.'),
  }),
  params: (input) => ({ phoneNumber: checkedPhoneNumber(input.phoneNumber) }),
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
