/** Notifications (spec: Endpoints, "Notifications (SNS)"; QuerySNSEmailAddress is in `queries.ts`). */
import { defineOperation } from './define.js';
import { EMPTY_RESULT, inventoryOf } from './results.js';

export const ChangeSNSApplicationPlatformState = defineOperation({
  name: 'ChangeSNSApplicationPlatformState',
  method: 'PUT',
  family: 'resource',
  path: 'sns/application-platforms/{uuid}/actions',
  actionKey: 'changeSNSApplicationPlatformState',
  params: { stateEvent: 'body' },
  decode: (body, decoder) => ({ inventory: inventoryOf(body, decoder.snsApplicationPlatform) }),
});

export const UpdateSNSHttpEndpoint = defineOperation({
  name: 'UpdateSNSHttpEndpoint',
  method: 'PUT',
  family: 'resource',
  path: 'sns/application-endpoints/http/{uuid}/actions',
  actionKey: 'updateSNSHttpEndpoint',
  params: { url: 'body', username: 'body', password: 'body', name: 'body', description: 'body' },
  decode: (body, decoder) => ({ inventory: inventoryOf(body, decoder.snsApplicationEndpoint) }),
});

export const RemoveSNSSmsReceiver = defineOperation({
  name: 'RemoveSNSSmsReceiver',
  method: 'DELETE',
  family: 'resource',
  path: 'sns/sms-endpoints/{endpointUuid}/receivers/{phoneNumber}',
  // "listed as body, also sent as a query parameter"
  params: { deleteMode: 'body+query' },
  decode: () => EMPTY_RESULT,
});
