/** Notifications (spec: Endpoints, "Notifications (SNS)"; QuerySNSEmailAddress is in `queries.ts`). */
import { defineOperation, inBody } from './define.js';
import { EMPTY_RESULT, inventoryOf } from './results.js';

export const ChangeSNSApplicationPlatformState = defineOperation('ChangeSNSApplicationPlatformState', 'PUT sns/application-platforms/{uuid}/actions', {
  actionKey: 'changeSNSApplicationPlatformState',
  params: { stateEvent: 'body' },
  decode: (body, decoder) => ({ inventory: inventoryOf(body, decoder.snsApplicationPlatform) }),
});

export const UpdateSNSHttpEndpoint = defineOperation('UpdateSNSHttpEndpoint', 'PUT sns/application-endpoints/http/{uuid}/actions', {
  actionKey: 'updateSNSHttpEndpoint',
  params: inBody('url', 'username', 'password', 'name', 'description'),
  decode: (body, decoder) => ({ inventory: inventoryOf(body, decoder.snsApplicationEndpoint) }),
});

export const RemoveSNSSmsReceiver = defineOperation('RemoveSNSSmsReceiver', 'DELETE sns/sms-endpoints/{endpointUuid}/receivers/{phoneNumber}', {
  // "listed as body, also sent as a query parameter"
  params: { deleteMode: 'body+query' },
  decode: () => EMPTY_RESULT,
});
