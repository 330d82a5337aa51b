/**
 * Every GET operation of the resource family (all synchronous), at the spec's paths under
 * `svc/v1/`. Handlers answer the success body or throw `SimError` (503 `{error}`) or
 * `SimBadRequest` (400 plain text).
 */
import { SimBadRequest, SimError, errorCode } from './errors.js';
import type { Host, Owned, PrimaryStorage, Tenant, VmInstance } from './model.js';
import type { Wire } from './format.js';
import { compilePathTemplate, pathParameters } from './path-template.js';
import { namedUuids, parseResourceQuery, runResourceQuery } from './query.js';
import type { SimulatorStore, Table } from './store.js';
import {
  ATTACHABLE_VOLUME_WIRE,
  BLOCK_DEVICE_WIRE,
  BONDING_WIRE,
  CBT_TASK_WIRE,
  HBA_WIRE,
  HOST_NIC_WIRE,
  LUN_WIRE,
  SENSOR_WIRE,
  SNAPSHOT_GROUP_WIRE,
  SNS_EMAIL_WIRE,
  type WireRecord,
} from './wire.js';

export interface ReadContext {
  store: SimulatorStore;
  tenant: Tenant;
  /** Path parameters by the spec's names. */
  params: Record<string, string>;
  query: URLSearchParams;
}

export interface ReadRoute {
  /** The spec's operation name. */
  operation: string;
  /** Path below `svc/v1/`, `{name}` marking a parameter. */
  path: string;
  handle(context: ReadContext): Wire;
}

/** A route together with the parameters read from the path. */
export interface MatchedRead {
  route: ReadRoute;
  params: Record<string, string>;
}

/** Answers a resource-family query over one table: `{success, inventories[, total]}`. */
function queryRoute<T extends Owned>(operation: string, path: string, wire: WireRecord<T>, table: (store: SimulatorStore) => Table<T>): ReadRoute {
  return {
    operation,
    path,
    handle({ store, tenant, params, query }) {
      const effective = new URLSearchParams(query);
      if (params.uuid !== undefined) effective.append('q', `uuid=${params.uuid}`);
      const parsed = parseResourceQuery(effective, wire.queryable, store.timeZone);
      const records = table(store);
      const uuids = namedUuids(parsed);
      // Named uuids keep the order they were named in; other candidates come in insertion order,
      // from an equality index when a condition has one (`hostUuid?=...`), else the whole table.
      const candidates =
        uuids === null
          ? (records.candidates(tenant.id, parsed.conditions, wire.queryable) ?? records.list(tenant.id))
          : uuids.map((uuid) => records.get(tenant.id, uuid)).filter((record): record is T => record !== undefined);
      const { items, total } = runResourceQuery(candidates, parsed);
      if (parsed.countOnly) return { success: true, total };
      return {
        success: true,
        inventories: store.wire.writeAll(wire, items),
        ...(parsed.replyWithCount ? { total } : {}),
      };
    },
  };
}

/** Both `GET <collection>` and `GET <collection>/{uuid}`. */
function queryRoutes<T extends Owned>(operation: string, path: string, wire: WireRecord<T>, table: (store: SimulatorStore) => Table<T>): ReadRoute[] {
  return [queryRoute(operation, path, wire, table), queryRoute(operation, `${path}/{uuid}`, wire, table)];
}

/** A host's records of one kind, `{<key>: [...]}`. */
function hostRecordsRoute<T extends Owned & { hostUuid: string }>(
  operation: string,
  path: string,
  key: string,
  wire: WireRecord<T>,
  table: (store: SimulatorStore) => Table<T>,
): ReadRoute {
  return {
    operation,
    path,
    handle(context) {
      const host = requireHost(context, 'uuid');
      return { [key]: context.store.wire.writeAll(wire, table(context.store).by('hostUuid', host.uuid, host.tenantId)) };
    },
  };
}

function notFound(kind: string, uuid: string): SimError {
  return new SimError(
    errorCode('SYS.1003', 'Resource not found', `Unable to find ${kind}[uuid:${uuid}], it may have been deleted`),
  );
}

function requireHost(context: ReadContext, name: string): Host {
  const uuid = context.params[name] ?? '';
  const host = context.store.hosts.get(context.tenant.id, uuid);
  if (host === undefined) throw notFound('HostVO', uuid);
  return host;
}

function requireVm(context: ReadContext, name: string): VmInstance {
  const uuid = context.params[name] ?? '';
  const vm = context.store.vms.get(context.tenant.id, uuid);
  if (vm === undefined) throw notFound('VmInstanceVO', uuid);
  return vm;
}

/** A list parameter given repeated (`a=1&a=2`), comma-separated (`a=1,2`), or both. */
export function readList(query: URLSearchParams, name: string): string[] {
  return query
    .getAll(name)
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter((value) => value !== '');
}

function readBoolean(query: URLSearchParams, name: string): boolean {
  const text = query.get(name);
  if (text === null || text === '') return false;
  if (text === 'true' || text === 'false') return text === 'true';
  throw new SimBadRequest(`${name} must be true or false, got "${text}"`);
}

function selectStorages(context: ReadContext): PrimaryStorage[] {
  const { store, tenant, query } = context;
  const storageUuids = readList(query, 'primaryStorageUuids');
  const clusterUuids = new Set(readList(query, 'clusterUuids'));
  const zoneUuids = new Set(readList(query, 'zoneUuids'));
  const all = readBoolean(query, 'all');
  if (storageUuids.length > 0) {
    return storageUuids
      .map((uuid) => store.primaryStorages.get(tenant.id, uuid))
      .filter((storage): storage is PrimaryStorage => storage !== undefined);
  }
  const storages = [...store.primaryStorages.list(tenant.id)];
  if (clusterUuids.size > 0 || zoneUuids.size > 0) {
    return storages.filter(
      (storage) =>
        (zoneUuids.size === 0 || zoneUuids.has(storage.zoneUuid)) &&
        (clusterUuids.size === 0 || storage.clusterUuids.some((uuid) => clusterUuids.has(uuid))),
    );
  }
  if (all) return storages;
  throw new SimError(
    errorCode(
      'SYS.1007',
      'One or more API argument is invalid',
      'zoneUuids, clusterUuids, primaryStorageUuids must have at least one non-empty list, or all must be true',
    ),
  );
}

/** Every GET of the spec. */
export const READ_ROUTES: readonly ReadRoute[] = [
  hostRecordsRoute('GetHostBlockDevices', 'hosts/{uuid}/get-block-devices', 'blockDevices', BLOCK_DEVICE_WIRE, (store) => store.blockDevices),
  hostRecordsRoute('GetHostSensors', 'hosts/{uuid}/get-sensors', 'sensors', SENSOR_WIRE, (store) => store.sensors),
  {
    operation: 'GetHostNetworkFacts',
    path: 'hosts/network-facts/{hostUuid}',
    handle(context) {
      const host = requireHost(context, 'hostUuid');
      const { store } = context;
      return {
        success: true,
        bondings: store.wire.writeAll(BONDING_WIRE, store.bondings.by('hostUuid', host.uuid, host.tenantId)),
        nics: store.wire.writeAll(HOST_NIC_WIRE, store.nicsOfHost(host)),
      };
    },
  },
  ...queryRoutes('QueryHBADevice', 'storage-devices/hba', HBA_WIRE, (store) => store.hbas),
  ...queryRoutes('QueryFiberChannelLun', 'storage-devices/fiber-channel/luns', LUN_WIRE, (store) => store.luns),
  {
    operation: 'GetPrimaryStorageCapacity',
    path: 'primary-storage/capacities',
    handle(context) {
      const totals = { totalCapacity: 0, availableCapacity: 0, totalPhysicalCapacity: 0, availablePhysicalCapacity: 0 };
      for (const storage of selectStorages(context)) {
        totals.totalCapacity += storage.totalCapacity;
        totals.availableCapacity += storage.availableCapacity;
        totals.totalPhysicalCapacity += storage.totalPhysicalCapacity;
        totals.availablePhysicalCapacity += storage.availablePhysicalCapacity;
      }
      return { success: true, ...totals };
    },
  },
  ...queryRoutes('QueryCbtTask', 'cbt-task', CBT_TASK_WIRE, (store) => store.cbtTasks),
  ...queryRoutes('QueryVolumeSnapshotGroup', 'volume-snapshots/group', SNAPSHOT_GROUP_WIRE, (store) => store.snapshotGroups),
  {
    operation: 'GetVmAttachableDataVolume',
    path: 'vm-instances/{vmInstanceUuid}/data-volume-candidates',
    handle(context) {
      const vm = requireVm(context, 'vmInstanceUuid');
      const { store } = context;
      const zoneStorages = new Set(store.primaryStorages.by('zoneUuid', vm.zoneUuid, vm.tenantId).map((storage) => storage.uuid));
      // The zone's storages' volumes from their index, in the table's order, rather than every volume.
      const onZoneStorages = store.volumes.candidates(vm.tenantId, [{ field: 'primaryStorageUuid', op: 'in', values: [...zoneStorages] }], { primaryStorageUuid: 'string' });
      const candidates = (onZoneStorages ?? []).filter(
        (volume) =>
          volume.type === 'Data' &&
          volume.vmInstanceUuid === null &&
          volume.state === 'Enabled' &&
          volume.status === 'Ready' &&
          zoneStorages.has(volume.primaryStorageUuid),
      );
      return { success: true, inventories: store.wire.writeAll(ATTACHABLE_VOLUME_WIRE, candidates) };
    },
  },
  ...queryRoutes('QuerySNSEmailAddress', 'sns/application-endpoints/emails/email-addresses', SNS_EMAIL_WIRE, (store) => store.snsEmails),
];

const COMPILED = READ_ROUTES.map((route) => ({ route, path: compilePathTemplate(route.path) }));

/** The read route for a path below `svc/v1/` (fixed segments win over parameters). */
export function matchRead(subPath: string): MatchedRead | null {
  let best: MatchedRead | null = null;
  let bestFixed = -1;
  for (const { route, path } of COMPILED) {
    if (path.fixedSegments <= bestFixed) continue;
    const match = path.pattern.exec(subPath);
    if (match === null) continue;
    best = { route, params: pathParameters(path, match, decodeURIComponent) };
    bestFixed = path.fixedSegments;
  }
  return best;
}
