/**
 * Fibre-channel LUNs of the resource family (QueryFiberChannelLun) and the hosts and VMs each is
 * mapped to.
 */
import { builder } from '../../builder.js';
import { fiberChannelLun, scsiLunHostRef, scsiLunVmInstanceRef, type HostRecord, type ScsiLunHostRefRecord, type ScsiLunVmInstanceRefRecord } from '../../upstream/records.js';
import { nodeByUuid, resourceFamily } from '../kit/families.js';
import { entityByUuid } from '../kit/federation.js';
import { anyOf, defineListQuery, DISCOVERY_DATE_ORDER_FIELDS, equals, NAME_CONTAINS_FILTER, NAME_ORDER_FIELD, uuidsFilter } from '../kit/list-query.js';
import { recordEnum } from '../kit/enums.js';
import { embeddedList, exposeRecordEnums, exposeRecordFields, follows } from '../kit/record-fields.js';
import { ResourceState } from '../common-enums.js';
import { readableItems } from '../../upstream/wire.js';
import { HostRef } from '../host/index.js';
import { VmInstanceRef } from '../vm-instance/index.js';

/**
 * Loads records through a node's per-request DataLoader, leaving out references to records that
 * no longer exist (or that the caller cannot see); any other failure is raised.
 */
async function loadExisting<T>(loader: { loadMany(keys: readonly string[]): Promise<(T | Error | null)[]> }, keys: readonly string[]): Promise<T[]> {
  const results = await loader.loadMany(keys);
  const found: T[] = [];
  for (const result of results) {
    if (result === null) continue;
    if (!(result instanceof Error)) found.push(result);
    else if ((result as { extensions?: { code?: unknown } }).extensions?.code !== 'NOT_FOUND') throw result;
  }
  return found;
}

const fiberChannelLuns = resourceFamily('fiberChannelLuns');

const ScsiLunHostRefType = builder.objectRef<ScsiLunHostRefRecord>('ScsiLunHostRef');

ScsiLunHostRefType.implement({
  extensions: { since: scsiLunHostRef.since },
  description: 'A mapping of a fibre-channel LUN to a host that sees it (scsiLunHostRefs item). Since 3.1.0.',
  fields: (t) => ({
    ...exposeRecordFields(t, 'scsiLunHostRef', 'scsiLunUuid', 'hostUuid'),
    host: follows(t, 'hostUuid', HostRef, 'The host that sees the LUN (read through the cursor family). Null when it cannot be read (with an error). Since 3.1.0.'),
    ...exposeRecordFields(t, 'scsiLunHostRef', 'createDate', 'lastOpDate'),
  }),
});

const ScsiLunVmInstanceRefType = builder.objectRef<ScsiLunVmInstanceRefRecord>('ScsiLunVmInstanceRef');

ScsiLunVmInstanceRefType.implement({
  extensions: { since: scsiLunVmInstanceRef.since },
  description: 'A mapping of a fibre-channel LUN to a VM that uses it directly (scsiLunVmInstanceRefs item). Since 3.1.0.',
  fields: (t) => ({
    ...exposeRecordFields(t, 'scsiLunVmInstanceRef', 'scsiLunUuid', 'vmInstanceUuid'),
    vmInstance: follows(t, 'vmInstanceUuid', VmInstanceRef, 'The VM using the LUN (read through the cursor family). Null when it cannot be read (with an error). Since 3.1.0.'),
    ...exposeRecordFields(t, 'scsiLunVmInstanceRef', 'createDate'),
  }),
});

export const FiberChannelLunType = recordEnum('FiberChannelLunType', {
  record: 'fiberChannelLun',
  field: 'type',
  description: 'The disk type of a LUN as the hosts see it. Since 3.1.0.',
  values: { disk: 'A whole disk (`disk`).' },
});

export const FiberChannelLunRef = builder.loadableNode('FiberChannelLun', {
  description: 'A fibre-channel SAN disk (LUN) and the hosts and VMs it is mapped to (QueryFiberChannelLun). Since 3.1.0.',
  extensions: { since: fiberChannelLun.since },
  ...nodeByUuid(fiberChannelLuns, 'FiberChannelLun'),
  fields: (t) => ({
    ...exposeRecordFields(t, 'fiberChannelLun', 'uuid', 'name', 'fiberChannelStorageUuid', 'wwid', 'wwn', 'serial', 'vendor', 'model'),
    ...exposeRecordEnums(t, 'fiberChannelLun', FiberChannelLunType, 'type'),
    ...exposeRecordFields(t, 'fiberChannelLun', 'path', 'size'),
    ...exposeRecordEnums(t, 'fiberChannelLun', ResourceState, 'state'),
    ...exposeRecordFields(t, 'fiberChannelLun', 'createDate', 'lastOpDate'),
    scsiLunHostRefs: embeddedList(t, 'scsiLunHostRefs', ScsiLunHostRefType, 'Mappings of this LUN to the hosts that see it; one the upstream sent malformed is null with an error at its index. Since 3.1.0.'),
    scsiLunVmInstanceRefs: embeddedList(t, 'scsiLunVmInstanceRefs', ScsiLunVmInstanceRefType, 'Mappings of this LUN to the VMs that use it directly; one the upstream sent malformed is null with an error at its index. Since 3.1.0.'),
    hosts: t.field({
      type: [HostRef],
      nullable: true,
      description:
        'The hosts that see this LUN (from `scsiLunHostRefs`, batched with every other host of the request); hosts that no longer exist are left out. Null, with an error, only when the hosts could not be read. Since 3.1.0.',
      resolve: (lun, _args, context) =>
        loadExisting<HostRecord>(HostRef.getDataloader(context), readableItems(lun.scsiLunHostRefs).map((ref) => ref.hostUuid)),
    }),
    vmInstances: t.field({
      type: [VmInstanceRef],
      nullable: true,
      description:
        'The VMs that use this LUN directly (from `scsiLunVmInstanceRefs`, batched with every other VM of the request); VMs that no longer exist are left out. Null, with an error, only when the VMs could not be read. Since 3.1.0.',
      resolve: (lun, _args, context) =>
        loadExisting(VmInstanceRef.getDataloader(context), readableItems(lun.scsiLunVmInstanceRefs).map((ref) => ref.vmInstanceUuid)),
    }),
  }),
});

// A Federation entity: other subgraphs reference it by uuid (or id), `_entities` loads it like a page does.
entityByUuid(FiberChannelLunRef, 'FiberChannelLun');

defineListQuery({
  record: 'fiberChannelLun',
  family: fiberChannelLuns,
  connectionDescription: 'A page of fibre-channel LUNs.',
  naming: { a: 'a LUN', plural: 'LUNs' },
  since: '3.1.0',
  list: {
    name: 'fiberChannelLuns',
    description: 'Fibre-channel LUNs (QueryFiberChannelLun).',
  },
  one: {
    type: FiberChannelLunRef,
    noun: 'fibre-channel LUN',
    argDescription: 'The LUN\'s uuid.',
  },
  filter: {
    description:
      'Conditions on LUNs; all given conditions must hold. `hostUuid` and `vmInstanceUuid` are conditions on the LUN\'s mappings (the service\'s expanded query on `scsiLunHostRefs.hostUuid` and `scsiLunVmInstanceRefs.vmInstanceUuid`).',
    argDescription: 'Conditions the LUNs must meet.',
    fields: {
      uuids: uuidsFilter('LUNs'),
      nameContains: NAME_CONTAINS_FILTER,
      fiberChannelStorageUuid: equals('Only LUNs of this FC SAN storage.'),
      hostUuid: { field: 'scsiLunHostRefs.hostUuid', op: 'eq', type: 'Uuid', description: 'Only LUNs this host sees (mapped to it by `scsiLunHostRefs`).' },
      vmInstanceUuid: { field: 'scsiLunVmInstanceRefs.vmInstanceUuid', op: 'eq', type: 'Uuid', description: 'Only LUNs this VM uses directly (mapped to it by `scsiLunVmInstanceRefs`).' },
      wwid: equals('Only the LUN with this world wide identifier.'),
      wwn: equals('Only the LUN with this world wide name.'),
      serial: equals('Only the LUN with this serial number.'),
      state: equals('Only LUNs in this state, e.g. `ENABLED`.', ResourceState),
      stateIn: anyOf('state', 'Only LUNs in one of these states.', ResourceState),
    },
  },
  order: {
    fields: {
      ...DISCOVERY_DATE_ORDER_FIELDS,
      ...NAME_ORDER_FIELD,
      size: 'Disk size.',
    },
  },
});
