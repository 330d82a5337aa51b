/** Host hardware and network (spec: Endpoints, "Host hardware and network"). */
import { defineOperation } from './define.js';
import { inventoryOf, withoutEnvelope } from './results.js';

export const GetHostBlockDevices = defineOperation({
  name: 'GetHostBlockDevices',
  method: 'GET',
  family: 'resource',
  path: 'hosts/{uuid}/get-block-devices',
  params: {},
  // The spec shows `{}`: the answer is passed on as parsed JSON.
  decode: (body) => withoutEnvelope(body),
});

export const GetHostSensors = defineOperation({
  name: 'GetHostSensors',
  method: 'GET',
  family: 'resource',
  path: 'hosts/{uuid}/get-sensors',
  params: {},
  decode: (body) => withoutEnvelope(body),
});

export const GetHostNetworkFacts = defineOperation({
  name: 'GetHostNetworkFacts',
  method: 'GET',
  family: 'resource',
  path: 'hosts/network-facts/{hostUuid}',
  params: {},
  decode: (body, decoder) => decoder.hostNetworkFacts(body, 'body'),
});

export const UpdateHostNqn = defineOperation({
  name: 'UpdateHostNqn',
  method: 'PUT',
  family: 'resource',
  path: 'hosts/nqn/{uuid}/actions',
  actionKey: 'updateHostNqn',
  params: { nqn: 'body' },
  decode: (body, decoder) => ({ inventory: inventoryOf(body, (value) => decoder.host(value)) }),
});

export const SetIpOnHostNetworkBonding = defineOperation({
  name: 'SetIpOnHostNetworkBonding',
  method: 'POST',
  family: 'resource',
  path: 'hosts/bondings/{bondingUuid}/ip',
  params: { ipAddress: 'body', netmask: 'body', isDefaultRoute: 'body' },
  decode: (body, decoder) => ({ inventory: inventoryOf(body, decoder.hostBonding) }),
});
