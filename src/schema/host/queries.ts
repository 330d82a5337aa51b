/**
 * Host queries: `hosts` and `host(uuid)` (CursorQuery / CursorNext, resourceType `host`).
 */
import { anyOf, defineListQuery, equals, NAME_AND_DATE_ORDER_FIELDS, NAME_CONTAINS_FILTER, uuidsFilter } from '../kit/list-query.js';
import { hosts } from './loaders.js';
import { HypervisorType, ResourceState } from '../common-enums.js';
import { HostRef, HostStatus } from './types.js';

defineListQuery({
  record: 'host',
  family: hosts,
  naming: { a: 'a host', plural: 'hosts' },
  list: {
    name: 'hosts',
    description: 'Hosts, read through the cursor family (CursorQuery / CursorNext, resourceType `host`).',
  },
  one: {
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
      managementIp: equals('Only the host with this management IP address.'),
      hostname: equals('Only the host with this host name.'),
      state: equals('Only hosts in this state, e.g. `ENABLED`.', ResourceState),
      stateIn: anyOf('state', 'Only hosts in one of these states, e.g. `[ENABLED, DISABLED]`.', ResourceState),
      status: equals('Only hosts with this status, e.g. `CONNECTED`.', HostStatus),
      statusIn: anyOf('status', 'Only hosts with one of these statuses, e.g. `[CONNECTED, DISCONNECTED]`.', HostStatus),
      hypervisorType: equals('Only hosts with this hypervisor, e.g. `KVM`.', HypervisorType),
    },
  },
  order: {
    fields: {
      ...NAME_AND_DATE_ORDER_FIELDS,
      managementIp: 'Management IP.',
    },
  },
});
