/**
 * VM queries: `vmInstances` and `vmInstance(uuid)` (CursorQuery / CursorNext, resourceType
 * `vm`), and `Host.vmInstances`.
 */
import { builder } from '../../builder.js';
import type { HostRecord } from '../../upstream/records.js';
import { loadListConnection, pageArgs } from '../kit/connections.js';
import { defineListQuery, equals, NAME_AND_DATE_ORDER_FIELDS, NAME_CONTAINS_FILTER, uuidsFilter } from '../kit/list-query.js';
import { alsoReads, reads } from '../kit/record-fields.js';
import { HostRef } from '../host/index.js';
import { vmInstances, vmsOfHost } from './loaders.js';
import { VmInstanceConnection, VmInstanceRef } from './types.js';

defineListQuery({
  typeName: 'VmInstance',
  record: 'vmInstance',
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
      state: equals('Only VMs in this state, e.g. `Running`.'),
      hostUuid: equals('Only VMs running on this host.'),
      lastHostUuid: equals('Only VMs that last ran on this host.'),
      zoneUuid: equals('Only VMs of this zone.'),
      clusterUuid: equals('Only VMs of this cluster.'),
      imageUuid: equals('Only VMs created from this image.'),
      platform: equals('Only VMs of this platform: `Windows`, `Linux` or `Other`.'),
      architecture: equals('Only VMs of this architecture, e.g. `x86_64`.'),
      hypervisorType: equals('Only VMs with this hypervisor, e.g. `KVM`.'),
      type: equals('Only VMs of this type: `UserVm` or `ApplianceVm`.'),
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
    extensions: { ...reads<HostRecord>('uuid'), ...alsoReads('vmInstance', 'hostUuid'), since: vmInstances.since },
    resolve: (host, args, context) => loadListConnection(context, vmsOfHost(context), host.uuid, args, 'Host.vmInstances'),
  }),
);
