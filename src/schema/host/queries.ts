/**
 * Host queries: `hosts` and `host(uuid)` (CursorQuery / CursorNext, resourceType `host`).
 */
import { defineListQuery, equals, NAME_AND_DATE_ORDER_FIELDS, NAME_CONTAINS_FILTER, uuidsFilter } from '../kit/list-query.js';
import { hosts } from './loaders.js';
import { HostConnection, HostRef } from './types.js';

defineListQuery({
  typeName: 'Host',
  record: 'host',
  family: hosts,
  connection: HostConnection,
  naming: { a: 'a host', plural: 'hosts' },
  list: {
    name: 'hosts',
    description: 'Hosts, read through the generic cursor family (CursorQuery / CursorNext, resourceType `host`).',
  },
  one: {
    name: 'host',
    type: HostRef,
    noun: 'host',
    argDescription: 'The host\'s uuid.',
  },
  filter: {
    argDescription: 'Conditions the hosts must meet.',
    fields: {
      uuids: uuidsFilter('hosts'),
      nameContains: NAME_CONTAINS_FILTER,
      zoneUuid: equals('Only hosts of this zone.'),
      clusterUuid: equals('Only hosts of this cluster.'),
      state: equals('Only hosts in this state, e.g. `Enabled`.'),
      status: equals('Only hosts with this status, e.g. `Connected`.'),
      hypervisorType: equals('Only hosts with this hypervisor, e.g. `KVM`.'),
    },
  },
  order: {
    fields: {
      ...NAME_AND_DATE_ORDER_FIELDS,
      MANAGEMENT_IP: { value: 'managementIp', description: 'Management IP.' },
    },
  },
});
