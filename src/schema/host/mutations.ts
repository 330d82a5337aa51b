/**
 * The spec's host writes as mutations: set the NQN, set the IP of a network bond.
 */
import { SetIpOnHostNetworkBonding, UpdateHostNqn } from '../../upstream/operations/index.js';
import { defineWriteMutation, resultInventory } from '../kit/mutation-kit.js';
import { HostNetworkBondingRef } from './network-facts.js';
import { HostRef } from './types.js';

defineWriteMutation({
  name: 'updateHostNqn',
  operation: UpdateHostNqn,
  description: 'Sets the NVMe qualified name of a host (UpdateHostNqn: `PUT hosts/nqn/{uuid}/actions`). Since 4.10.6.',
  payloadFields: (t, result) => ({
    host: t.field({
      type: HostRef,
      nullable: true,
      description: 'The host with its new NQN; null until the job succeeded.',
      resolve: resultInventory(result),
    }),
  }),
  touches: { types: ['Host'], uuids: (input) => [input.uuid] },
});

defineWriteMutation({
  name: 'setIpOnHostNetworkBonding',
  operation: SetIpOnHostNetworkBonding,
  description:
    'Sets (or, without `ipAddress` and `netmask`, clears) the IP address of a host network bond (SetIpOnHostNetworkBonding: `POST hosts/bondings/{bondingUuid}/ip`). Since 4.7.0.',
  payloadFields: (t, result) => ({
    bonding: t.field({
      type: HostNetworkBondingRef,
      nullable: true,
      description: 'The bond with its new addresses (HostNetworkBondingInventory); null until the job succeeded. Since 4.7.0.',
      resolve: resultInventory(result),
    }),
  }),
  touches: { types: ['HostNetworkBonding'], uuids: (input) => [input.bondingUuid] },
});
