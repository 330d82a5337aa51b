/**
 * Every GET operation of the resource family (all synchronous), at the spec's paths under
 * `svc/v1/`. Handlers answer the success body or throw `SimError` (503 `{error}`) or
 * `SimBadRequest` (400 plain text).
 */
import { SimBadRequest, SimError, errorCode, type Tenant } from './contracts.js';
import type { Wire } from './format.js';
import type { Host, Owned, PrimaryStorage, VmInstance } from './model.js';
import { compilePathTemplate, pathParameters } from './path-template.js';
import {
  CBT_TASK_FIELDS,
  HBA_FIELDS,
  LUN_FIELDS,
  SNAPSHOT_GROUP_FIELDS,
  SNS_EMAIL_FIELDS,
  namedUuids,
  parseResourceQuery,
  runResourceQuery,
  type FieldTypes,
} from './query.js';
import type { SimulatorStore, Table } from './store.js';

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
function queryRoute<T extends Owned>(
  operation: string,
  path: string,
  fields: FieldTypes,
  table: (store: SimulatorStore) => Table<T>,
  toWire: (store: SimulatorStore, record: T) => Wire,
): ReadRoute {
  return {
    operation,
    path,
    handle({ store, tenant, params, query }) {
      const effective = new URLSearchParams(query);
      if (params.uuid !== undefined) effective.append('q', `uuid=${params.uuid}`);
      const parsed = parseResourceQuery(effective, fields, store.timeZone);
      const records = table(store);
      const uuids = namedUuids(parsed);
      const candidates =
        uuids === null
          ? records.list(tenant.id)
          : uuids.map((uuid) => records.get(tenant.id, uuid)).filter((record): record is T => record !== undefined);
      const { items, total } = runResourceQuery(candidates, parsed);
      if (parsed.countOnly) return { success: true, total };
      return {
        success: true,
        inventories: items.map((record) => toWire(store, record)),
        ...(parsed.replyWithCount ? { total } : {}),
      };
    },
  };
}

/** Both `GET <collection>` and `GET <collection>/{uuid}`. */
function queryRoutes<T extends Owned>(
  operation: string,
  path: string,
  fields: FieldTypes,
  table: (store: SimulatorStore) => Table<T>,
  toWire: (store: SimulatorStore, record: T) => Wire,
): ReadRoute[] {
  return [
    queryRoute(operation, path, fields, table, toWire),
    queryRoute(operation, `${path}/{uuid}`, fields, table, toWire),
  ];
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
  {
    operation: 'GetHostBlockDevices',
    path: 'hosts/{uuid}/get-block-devices',
    handle(context) {
      const host = requireHost(context, 'uuid');
      const { store } = context;
      return { blockDevices: store.blockDevices.by('hostUuid', host.uuid, host.tenantId).map((device) => store.wire.blockDevice(device)) };
    },
  },
  {
    operation: 'GetHostSensors',
    path: 'hosts/{uuid}/get-sensors',
    handle(context) {
      const host = requireHost(context, 'uuid');
      const { store } = context;
      return { sensors: store.sensors.by('hostUuid', host.uuid, host.tenantId).map((sensor) => store.wire.sensor(sensor)) };
    },
  },
  {
    operation: 'GetHostNetworkFacts',
    path: 'hosts/network-facts/{hostUuid}',
    handle(context) {
      const host = requireHost(context, 'hostUuid');
      const { store } = context;
      return {
        success: true,
        bondings: store.bondings.by('hostUuid', host.uuid, host.tenantId).map((bond) => store.wire.bonding(bond)),
        nics: store.nicsOfHost(host).map((nic) => store.wire.hostNic(nic)),
      };
    },
  },
  ...queryRoutes('QueryHBADevice', 'storage-devices/hba', HBA_FIELDS, (store) => store.hbas, (store, record) => store.wire.hba(record)),
  ...queryRoutes(
    'QueryFiberChannelLun',
    'storage-devices/fiber-channel/luns',
    LUN_FIELDS,
    (store) => store.luns,
    (store, record) => store.wire.lun(record),
  ),
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
  ...queryRoutes('QueryCbtTask', 'cbt-task', CBT_TASK_FIELDS, (store) => store.cbtTasks, (store, record) => store.wire.cbtTask(record)),
  ...queryRoutes(
    'QueryVolumeSnapshotGroup',
    'volume-snapshots/group',
    SNAPSHOT_GROUP_FIELDS,
    (store) => store.snapshotGroups,
    (store, record) => store.wire.snapshotGroup(record),
  ),
  {
    operation: 'GetVmAttachableDataVolume',
    path: 'vm-instances/{vmInstanceUuid}/data-volume-candidates',
    handle(context) {
      const vm = requireVm(context, 'vmInstanceUuid');
      const { store } = context;
      const zoneStorages = new Set(store.primaryStorages.by('zoneUuid', vm.zoneUuid, vm.tenantId).map((storage) => storage.uuid));
      const candidates = [...store.volumes.list(vm.tenantId)].filter(
        (volume) =>
          volume.type === 'Data' &&
          volume.vmInstanceUuid === null &&
          volume.state === 'Enabled' &&
          volume.status === 'Ready' &&
          zoneStorages.has(volume.primaryStorageUuid),
      );
      return { success: true, inventories: candidates.map((volume) => store.wire.attachableVolume(volume)) };
    },
  },
  ...queryRoutes(
    'QuerySNSEmailAddress',
    'sns/application-endpoints/emails/email-addresses',
    SNS_EMAIL_FIELDS,
    (store) => store.snsEmails,
    (store, record) => store.wire.snsEmail(record),
  ),
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
