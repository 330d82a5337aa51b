/**
 * Host queries: `hosts` and `host(uuid)` (CursorQuery / CursorNext, resourceType `host`).
 */
import { defineListQuery } from '../kit/list-query.js';
import { hosts } from './loaders.js';
import { HostConnection, HostRef } from './types.js';

defineListQuery({
  typeName: 'Host',
  family: hosts,
  connection: HostConnection,
  list: {
    name: 'hosts',
    description:
      'Hosts, read through the generic cursor family (CursorQuery / CursorNext, resourceType `host`). Null when they cannot be read (with an error): no `X-Resources-Authorization` sent (`UNAUTHENTICATED`) or the upstream failing; the other fields of the query still answer.',
  },
  one: {
    name: 'host',
    type: HostRef,
    description:
      'One host by uuid; null when it does not exist (with a `NOT_FOUND` error) or cannot be read (with the error that stopped it, e.g. `UNAUTHENTICATED`).',
    argDescription: 'The host\'s uuid.',
  },
  filter: {
    description: 'Conditions on hosts; all given conditions must hold.',
    argDescription: 'Conditions the hosts must meet.',
    fields: {
      uuids: { field: 'uuid', op: 'in', type: ['Uuid'], description: 'Only these hosts.' },
      nameContains: { field: 'name', op: 'contains', type: 'String', description: 'Name contains this text.' },
      zoneUuid: { field: 'zoneUuid', op: 'eq', type: 'Uuid', description: 'Only hosts of this zone.' },
      clusterUuid: { field: 'clusterUuid', op: 'eq', type: 'Uuid', description: 'Only hosts of this cluster.' },
      state: { field: 'state', op: 'eq', type: 'String', description: 'Only hosts in this state, e.g. `Enabled`.' },
      status: { field: 'status', op: 'eq', type: 'String', description: 'Only hosts with this status, e.g. `Connected`.' },
      hypervisorType: { field: 'hypervisorType', op: 'eq', type: 'String', description: 'Only hosts with this hypervisor, e.g. `KVM`.' },
    },
  },
  order: {
    fieldsDescription: 'Fields hosts can be sorted by.',
    description: 'Order of a host connection.',
    argDescription: 'Sort order. Default: creation time, ascending.',
    fields: {
      CREATE_DATE: { value: 'createDate', description: 'Creation time.' },
      NAME: { value: 'name', description: 'Name.' },
      MANAGEMENT_IP: { value: 'managementIp', description: 'Management IP.' },
      LAST_OP_DATE: { value: 'lastOpDate', description: 'Last update time.' },
    },
  },
});
