/** Host hardware and network (spec: Endpoints, "Host hardware and network"). */
import { defineOperation } from './define.js';
import { inventoryOf, withoutEnvelope } from './results.js';

export const GetHostBlockDevices = defineOperation('GetHostBlockDevices', 'GET hosts/{uuid}/get-block-devices', {
  // The spec shows `{}`: the answer is passed on as parsed JSON.
  decode: (body) => withoutEnvelope(body),
});

export const GetHostSensors = defineOperation('GetHostSensors', 'GET hosts/{uuid}/get-sensors', {
  decode: (body) => withoutEnvelope(body),
});

export const GetHostNetworkFacts = defineOperation('GetHostNetworkFacts', 'GET hosts/network-facts/{hostUuid}', {
  decode: (body, decoder) => decoder.hostNetworkFacts(body, 'body'),
});

export const UpdateHostNqn = defineOperation('UpdateHostNqn', 'PUT hosts/nqn/{uuid}/actions', {
  actionKey: 'updateHostNqn',
  params: { nqn: 'body' },
  decode: (body, decoder) => ({ inventory: inventoryOf(body, (value) => decoder.host(value)) }),
});

export const SetIpOnHostNetworkBonding = defineOperation('SetIpOnHostNetworkBonding', 'POST hosts/bondings/{bondingUuid}/ip', {
  params: { ipAddress: 'body', netmask: 'body', isDefaultRoute: 'body' },
  decode: (body, decoder) => ({ inventory: inventoryOf(body, decoder.hostBonding) }),
});
