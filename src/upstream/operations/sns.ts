/** Notifications (spec: Endpoints, "Notifications (SNS)"; QuerySNSEmailAddress is in `queries.ts`). */
import { bodyParam, defineOperation, pathParam } from './define.js';
import { EMPTY_RESULT, answersInventory } from './results.js';

export const ChangeSNSApplicationPlatformState = defineOperation('ChangeSNSApplicationPlatformState', 'PUT sns/application-platforms/{uuid}/actions', {
  since: '2.3',
  actionKey: 'changeSNSApplicationPlatformState',
  params: { uuid: pathParam('uuid', 'The platform (path parameter).', { since: '2.3' }), stateEvent: 'body' },
  decode: answersInventory('snsApplicationPlatform'),
});

export const UpdateSNSHttpEndpoint = defineOperation('UpdateSNSHttpEndpoint', 'PUT sns/application-endpoints/http/{uuid}/actions', {
  since: '4.2.0',
  actionKey: 'updateSNSHttpEndpoint',
  params: {
    uuid: pathParam('uuid', 'The HTTP endpoint (path parameter).', { since: '4.2.0' }),
    url: bodyParam('text', 'The webhook URL notifications are posted to (http or https).', { since: '4.2.0' }),
    username: bodyParam(
      'text',
      'The user name sent to the webhook. The spec lists it as Boolean but it is sent as text, so it is a String here.',
      { since: '4.2.0' },
    ),
    password: bodyParam('text', 'The password sent to the webhook (never read back).', { since: '4.2.0' }),
    name: bodyParam('text', 'New name of the endpoint.', { since: '4.2.0' }),
    description: bodyParam('text', 'New description of the endpoint.', { since: '4.2.0' }),
  },
  decode: answersInventory('snsApplicationEndpoint'),
});

export const RemoveSNSSmsReceiver = defineOperation('RemoveSNSSmsReceiver', 'DELETE sns/sms-endpoints/{endpointUuid}/receivers/{phoneNumber}', {
  since: '3.7.0',
  // "listed as body, also sent as a query parameter"
  params: {
    endpointUuid: pathParam('uuid', 'The SMS endpoint (path parameter).', { since: '3.7.0' }),
    phoneNumber: pathParam('text', 'The receiver\'s phone number, e.g. `+8613800000000` (path parameter, URL-encoded by the gateway).', { since: '3.7.0' }),
    deleteMode: 'body+query',
  },
  decode: () => EMPTY_RESULT,
});
