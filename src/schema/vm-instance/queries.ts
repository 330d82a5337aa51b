/**
 * VM queries: `vmInstances` and `vmInstance(uuid)` (CursorQuery / CursorNext, resourceType
 * `vm`), and `Host.vmInstances`.
 */
import { builder } from '../../builder.js';
import type { HostRecord } from '../../upstream/records.js';
import { loadListConnection, pageArgs } from '../kit/connections.js';
import { defineListQuery, NAME_AND_DATE_ORDER_FIELDS, NAME_CONTAINS_FILTER, uuidsFilter } from '../kit/list-query.js';
import { alsoReads, reads } from '../kit/record-fields.js';
import { HostRef } from '../host/index.js';
import { vmInstances, vmsOfHost } from './loaders.js';
import { VmInstanceConnection, VmInstanceRef } from './types.js';

defineListQuery({
  typeName: 'VmInstance',
  family: vmInstances,
  connection: VmInstanceConnection,
  naming: { a: 'a VM', plural: 'VMs' },
  list: {
    name: 'vmInstances',
    description: 'VMs, read through the generic cursor family (CursorQuery / CursorNext, resourceType `vm`).',
  },
  one: {
    name: 'vmInstance',
    type: VmInstanceRef,
    noun: 'VM',
    argDescription: 'The VM\'s uuid.',
  },
  filter: {
    argDescription: 'Conditions the VMs must meet.',
    fields: {
      uuids: uuidsFilter('VMs'),
      nameContains: NAME_CONTAINS_FILTER,
      state: { field: 'state', op: 'eq', type: 'String', description: 'Only VMs in this state, e.g. `Running`.' },
      hostUuid: { field: 'hostUuid', op: 'eq', type: 'Uuid', description: 'Only VMs running on this host.' },
      lastHostUuid: { field: 'lastHostUuid', op: 'eq', type: 'Uuid', description: 'Only VMs that last ran on this host.' },
      zoneUuid: { field: 'zoneUuid', op: 'eq', type: 'Uuid', description: 'Only VMs of this zone.' },
      clusterUuid: { field: 'clusterUuid', op: 'eq', type: 'Uuid', description: 'Only VMs of this cluster.' },
      imageUuid: { field: 'imageUuid', op: 'eq', type: 'Uuid', description: 'Only VMs created from this image.' },
      platform: { field: 'platform', op: 'eq', type: 'String', description: 'Only VMs of this platform: `Windows`, `Linux` or `Other`.' },
      architecture: { field: 'architecture', op: 'eq', type: 'String', description: 'Only VMs of this architecture, e.g. `x86_64`.' },
      hypervisorType: { field: 'hypervisorType', op: 'eq', type: 'String', description: 'Only VMs with this hypervisor, e.g. `KVM`.' },
      type: { field: 'type', op: 'eq', type: 'String', description: 'Only VMs of this type: `UserVm` or `ApplianceVm`.' },
    },
  },
  order: {
    fields: {
      ...NAME_AND_DATE_ORDER_FIELDS,
      STATE: { value: 'state', description: 'State.' },
      MEMORY_SIZE: { value: 'memorySize', description: 'Memory size.' },
      CPU_NUM: { value: 'cpuNum', description: 'CPU count.' },
    },
  },
});

builder.objectField(HostRef, 'vmInstances', (t) =>
  t.field({
    type: VmInstanceConnection,
    nullable: true,
    description:
      'VMs running on this host (CursorQuery, resourceType `vm`, by `hostUuid`; one query for all hosts of a page). Null when they cannot be read (with an error). Since 0.6.',
    args: { ...pageArgs },
    // The host's VMs are grouped by their `hostUuid`.
    extensions: { ...reads<HostRecord>('uuid'), ...alsoReads('vmInstance', 'hostUuid') },
    resolve: (host, args, context) => loadListConnection(context, vmsOfHost(context), host.uuid, args, 'Host.vmInstances'),
  }),
);
