/**
 * VM queries: `vmInstances` and `vmInstance(uuid)` (CursorQuery / CursorNext, resourceType
 * `vm`), and `Host.vmInstances`.
 */
import { builder } from '../../builder.js';
import type { HostRecord } from '../../upstream/records.js';
import { anyOf, childConnection, defineListQuery, equals, NAME_AND_DATE_ORDER_FIELDS, NAME_CONTAINS_FILTER, uuidsFilter } from '../kit/list-query.js';
import { alsoReads, reads } from '../kit/record-fields.js';
import { HostRef } from '../host/index.js';
import { vmsOfHost } from './loaders.js';
import { vmInstances, VmInstanceRef } from '../node-refs.js';
import { CpuArchitecture, HypervisorType } from '../common-enums.js';
import { VmInstanceType, VmPlatform, VmState } from './types.js';

/** `filter` and `orderBy` of every VM connection: `vmInstances` and `Host.vmInstances`. */
const vmListArgs = defineListQuery({
  record: 'vmInstance',
  family: vmInstances,
  naming: { a: 'a VM', plural: 'VMs' },
  list: {
    name: 'vmInstances',
    description: 'VMs, read through the cursor family (CursorQuery / CursorNext, resourceType `vm`).',
  },
  one: {
    type: VmInstanceRef,
    noun: 'VM',
    argDescription: 'The VM\'s uuid.',
  },
  filter: {
    argDescription: 'Conditions the VMs must meet.',
    fields: {
      uuids: uuidsFilter('VMs'),
      nameContains: NAME_CONTAINS_FILTER,
      state: equals('Only VMs in this state, e.g. `RUNNING`.', VmState),
      stateIn: anyOf('state', 'Only VMs in one of these states, e.g. `[RUNNING, STOPPED]`.', VmState),
      hostUuid: equals('Only VMs running on this host.'),
      lastHostUuid: equals('Only VMs that last ran on this host.'),
      zoneUuid: equals('Only VMs of this zone.'),
      clusterUuid: equals('Only VMs of this cluster.'),
      imageUuid: equals('Only VMs created from this image.'),
      rootVolumeUuid: equals('Only the VM whose root volume this is.'),
      instanceOfferingUuid: equals('Only VMs of this instance offering.'),
      defaultL3NetworkUuid: equals('Only VMs whose default L3 network this is.'),
      platform: equals('Only VMs of this guest platform.', VmPlatform),
      architecture: equals('Only VMs of this CPU architecture.', CpuArchitecture),
      hypervisorType: equals('Only VMs with this hypervisor, e.g. `KVM`.', HypervisorType),
      type: equals('Only VMs of this kind.', VmInstanceType),
      typeIn: anyOf('type', 'Only VMs of one of these kinds.', VmInstanceType),
    },
  },
  order: {
    fields: {
      ...NAME_AND_DATE_ORDER_FIELDS,
      state: 'State.',
      memorySize: 'Memory size.',
      cpuNum: 'CPU count.',
    },
  },
});

builder.objectField(HostRef, 'vmInstances', (t) =>
  t.field({
    description:
      'VMs running on this host that meet `filter`, in `orderBy`\'s order (CursorQuery, resourceType `vm`, by `hostUuid` and the conditions given; one query for all hosts of a page asking the same). Null when they cannot be read (with an error); as old as the cursor family\'s CursorQuery. Since 1.0.0.',
    // The host's VMs are grouped by their `hostUuid`.
    extensions: { ...reads<HostRecord>('uuid'), ...alsoReads('vmInstance', 'hostUuid'), since: vmInstances.since },
    ...childConnection(vmListArgs, vmsOfHost, 'Host.vmInstances'),
  }),
);
