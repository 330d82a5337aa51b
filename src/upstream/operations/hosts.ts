/** Host hardware and network (spec: Endpoints, "Host hardware and network"). */
import { bodyParam, defineOperation, pathParam } from './define.js';
import { answersInventory, inventoryOf, withoutEnvelope } from './results.js';

export const GetHostBlockDevices = defineOperation('GetHostBlockDevices', 'GET hosts/{uuid}/get-block-devices', {
  since: '4.10.0',
  // The spec shows `{}`: the answer is passed on as parsed JSON.
  decode: (body) => withoutEnvelope(body),
});

export const GetHostSensors = defineOperation('GetHostSensors', 'GET hosts/{uuid}/get-sensors', {
  since: '4.10.0',
  decode: (body) => withoutEnvelope(body),
});

export const GetHostNetworkFacts = defineOperation('GetHostNetworkFacts', 'GET hosts/network-facts/{hostUuid}', {
  since: '3.5.0',
  decode: (body, decoder) => decoder.hostNetworkFacts(body, 'body'),
});

export const UpdateHostNqn = defineOperation('UpdateHostNqn', 'PUT hosts/nqn/{uuid}/actions', {
  since: '4.10.6',
  actionKey: 'updateHostNqn',
  params: {
    uuid: pathParam('uuid', 'The host.'),
    nqn: bodyParam('text', 'The new NVMe qualified name, e.g. `nqn.2014-08.org.nvmexpress:uuid:...`.', { required: true }),
  },
  decode: (body, decoder) => ({ inventory: inventoryOf(body, (value) => decoder.host(value)) }),
});

export const SetIpOnHostNetworkBonding = defineOperation('SetIpOnHostNetworkBonding', 'POST hosts/bondings/{bondingUuid}/ip', {
  since: '4.7.0',
  params: {
    bondingUuid: pathParam('uuid', 'The bond (path parameter).', { since: '4.7.0' }),
    ipAddress: bodyParam('text', 'The IP address to set on the bond, e.g. `192.168.10.5`.', { since: '4.7.0' }),
    netmask: bodyParam('text', 'The netmask of `ipAddress`, e.g. `255.255.255.0`.', { since: '4.7.0' }),
    isDefaultRoute: bodyParam('bool', 'Whether the bond becomes the host\'s default route.', { since: '4.7.0' }),
  },
  decode: answersInventory('hostBonding'),
});
