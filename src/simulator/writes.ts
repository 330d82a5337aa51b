/**
 * The spec's 22 write operations: how each is recognised (method, path, PUT action key), which
 * parameters it takes, and what it does to the store when its job runs.
 *
 * The handlers live in one module per resource (`write-hosts.ts`, `write-vm-instances.ts`, ...);
 * their failures follow the real service (see `write-context.ts`).
 */
import type { ExecuteWrite, MatchedWrite, WriteRequest } from './contracts.js';
import { SimBadRequest } from './errors.js';
import { compilePathTemplate, pathParameters, type PathTemplate } from './path-template.js';
import type { SimulatorStore } from './store.js';
import { readParameters, validateParameters, type ParameterSource, type ParameterSpec, type ParameterSpecs } from './write-arguments.js';
import { createCbtTask, deleteCbtTask, disableCbtTask, enableCbtTask, exportNbdVolumes } from './write-cbt-tasks.js';
import { Arguments, type Result, type WriteContext } from './write-context.js';
import { deleteDirectory } from './write-directories.js';
import { setIpOnHostNetworkBonding, updateHostNqn } from './write-hosts.js';
import { createVolumeSnapshotGroup, deleteVolumeSnapshotGroup, updateVolumeSnapshotGroup } from './write-snapshot-groups.js';
import { changeSnsApplicationPlatformState, removeSnsSmsReceiver, updateSnsHttpEndpoint } from './write-sns.js';
import {
  createVmInstanceFromVolumeSnapshotGroup,
  deleteVmSshKey,
  destroyVmInstance,
  detachL3NetworkFromVm,
  primaryStorageMigrateVm,
  recoverVmInstance,
  setVmBootVolume,
  updateVmNicDriver,
} from './write-vm-instances.js';

/** One write operation of the spec, as the spec lists it. */
type WriteOperation = {
  operation: string;
  /** Path under `/svc/v1/`, with `{name}` for path parameters. */
  path: string;
  /**
   * The parameters besides the path's: each `{name}` of the path is a required uuid unless it is
   * declared here too.
   */
  parameters: ParameterSpecs;
  execute(context: WriteContext): Result;
} & (
  | { method: 'POST' | 'DELETE' }
  /** A PUT carries its parameters in the object under its action key. */
  | { method: 'PUT'; action: string }
);

const API_PREFIX = '/svc/v1/';
const DELETE_MODE: ParameterSpec = { type: 'string', values: ['Permissive', 'Enforcing'] };
const NIC_DRIVER_TYPES = ['virtio', 'e1000', 'rtl8139'] as const;

// ---------------------------------------------------------------------------------------------
// The operations

const OPERATIONS: readonly WriteOperation[] = [
  {
    operation: 'UpdateHostNqn',
    method: 'PUT',
    path: 'hosts/nqn/{uuid}/actions',
    action: 'updateHostNqn',
    parameters: { nqn: { type: 'string', required: true } },
    execute: updateHostNqn,
  },
  {
    operation: 'SetIpOnHostNetworkBonding',
    method: 'POST',
    path: 'hosts/bondings/{bondingUuid}/ip',
    parameters: { ipAddress: { type: 'string' }, netmask: { type: 'string' }, isDefaultRoute: { type: 'boolean' } },
    execute: setIpOnHostNetworkBonding,
  },
  {
    operation: 'CreateCbtTask',
    method: 'POST',
    path: 'cbt-task/create',
    parameters: {
      name: { type: 'string', required: true },
      description: { type: 'string' },
      taskType: { type: 'string', required: true, values: ['VM'] },
      resourceUuids: { type: 'uuidList', required: true },
      resourceUuid: { type: 'uuid' },
      tagUuids: { type: 'uuidList' },
      vmInstanceUuid: { type: 'uuid' },
    },
    execute: createCbtTask,
  },
  {
    operation: 'DeleteCbtTask',
    method: 'DELETE',
    path: 'cbt-task/{uuid}',
    parameters: { force: { type: 'boolean' }, deleteMode: DELETE_MODE },
    execute: deleteCbtTask,
  },
  {
    operation: 'DisableCbtTask',
    method: 'POST',
    path: 'cbt-task/disable/{uuid}',
    parameters: { force: { type: 'boolean' } },
    execute: disableCbtTask,
  },
  {
    operation: 'EnableCbtTask',
    method: 'POST',
    path: 'cbt-task/enable/{uuid}',
    parameters: { bitmapName: { type: 'string' } },
    execute: enableCbtTask,
  },
  {
    operation: 'ExportNbdVolumes',
    method: 'POST',
    path: 'cbt-task/exportvolume',
    parameters: {
      volumeUuids: { type: 'uuidList', required: true },
      vmInstanceUuid: { type: 'uuid', required: true },
      force: { type: 'boolean' },
    },
    execute: exportNbdVolumes,
  },
  {
    operation: 'CreateVolumeSnapshotGroup',
    method: 'POST',
    path: 'volume-snapshots/group',
    parameters: {
      rootVolumeUuid: { type: 'uuid', required: true },
      name: { type: 'string', required: true },
      description: { type: 'string' },
      resourceUuid: { type: 'uuid' },
      tagUuids: { type: 'uuidList' },
    },
    execute: createVolumeSnapshotGroup,
  },
  {
    operation: 'DeleteVolumeSnapshotGroup',
    method: 'DELETE',
    path: 'volume-snapshots/group/{uuid}',
    parameters: { deleteMode: DELETE_MODE },
    execute: deleteVolumeSnapshotGroup,
  },
  {
    operation: 'UpdateVolumeSnapshotGroup',
    method: 'PUT',
    path: 'volume-snapshots/group/{uuid}/actions',
    action: 'updateVolumeSnapshotGroup',
    parameters: { name: { type: 'string' }, description: { type: 'string' } },
    execute: updateVolumeSnapshotGroup,
  },
  {
    operation: 'PrimaryStorageMigrateVm',
    method: 'PUT',
    path: 'vm-instances/{vmInstanceUuid}/actions',
    action: 'primaryStorageMigrateVm',
    parameters: {
      dstPrimaryStorageUuid: { type: 'uuid' },
      withDataVolumes: { type: 'boolean' },
      withSnapshots: { type: 'boolean' },
      dstHostUuid: { type: 'uuid' },
      strategy: { type: 'string' },
      downTime: { type: 'integer' },
      bandwidth: { type: 'integer' },
      volumeMigrationAOs: { type: 'objectList' },
      enableMigrationTls: { type: 'boolean' },
    },
    execute: primaryStorageMigrateVm,
  },
  {
    operation: 'SetVmBootVolume',
    method: 'PUT',
    path: 'vm-instances/{vmInstanceUuid}/actions',
    action: 'setVmBootVolume',
    parameters: { volumeUuid: { type: 'uuid', required: true } },
    execute: setVmBootVolume,
  },
  {
    operation: 'RecoverVmInstance',
    method: 'PUT',
    path: 'vm-instances/{uuid}/actions',
    action: 'recoverVmInstance',
    parameters: {},
    execute: recoverVmInstance,
  },
  {
    operation: 'UpdateVmNicDriver',
    method: 'PUT',
    path: 'vm-instances/{vmInstanceUuid}/actions',
    action: 'updateVmNicDriver',
    parameters: {
      vmNicUuid: { type: 'uuid', required: true },
      driverType: { type: 'string', required: true, values: NIC_DRIVER_TYPES },
    },
    execute: updateVmNicDriver,
  },
  {
    operation: 'CreateVmInstanceFromVolumeSnapshotGroup',
    method: 'POST',
    path: 'vm-instances/from/volume-snapshots/group/{volumeSnapshotGroupUuid}',
    parameters: {
      name: { type: 'string', required: true },
      description: { type: 'string' },
      instanceOfferingUuid: { type: 'uuid' },
      zoneUuid: { type: 'uuid' },
      clusterUuid: { type: 'uuid' },
      hostUuid: { type: 'uuid' },
      primaryStorageUuidForRootVolume: { type: 'uuid' },
      defaultL3NetworkUuid: { type: 'uuid' },
      resourceUuid: { type: 'uuid' },
      cpuNum: { type: 'integer' },
      memorySize: { type: 'integer' },
      l3NetworkUuids: { type: 'uuidList' },
      type: { type: 'string', values: ['UserVm', 'ApplianceVm'] },
      strategy: { type: 'string', values: ['InstantStart', 'CreateStopped'] },
      tagUuids: { type: 'uuidList' },
      rootVolumeSystemTags: { type: 'stringList' },
      dataVolumeSystemTags: { type: 'map' },
      reservedMemorySize: { type: 'integer' },
      vmNicParams: { type: 'string' },
      resetTpm: { type: 'boolean' },
      volumeSnapshotEncryptions: { type: 'list' },
      vmEncryption: { type: 'boolean' },
    },
    execute: createVmInstanceFromVolumeSnapshotGroup,
  },
  {
    operation: 'DetachL3NetworkFromVm',
    method: 'DELETE',
    path: 'vm-instances/nics/{vmNicUuid}',
    parameters: {},
    execute: detachL3NetworkFromVm,
  },
  {
    operation: 'DeleteVmSshKey',
    method: 'DELETE',
    path: 'vm-instances/{uuid}/ssh-keys',
    parameters: {},
    execute: deleteVmSshKey,
  },
  {
    operation: 'DestroyVmInstance',
    method: 'DELETE',
    path: 'vm-instances/{uuid}',
    parameters: { deleteMode: DELETE_MODE },
    execute: destroyVmInstance,
  },
  {
    operation: 'DeleteDirectory',
    method: 'DELETE',
    path: 'delete/directory',
    parameters: { uuid: { type: 'uuid', required: true }, deleteMode: DELETE_MODE },
    execute: deleteDirectory,
  },
  {
    operation: 'ChangeSNSApplicationPlatformState',
    method: 'PUT',
    path: 'sns/application-platforms/{uuid}/actions',
    action: 'changeSNSApplicationPlatformState',
    parameters: { stateEvent: { type: 'string', required: true, values: ['enable', 'disable'] } },
    execute: changeSnsApplicationPlatformState,
  },
  {
    operation: 'UpdateSNSHttpEndpoint',
    method: 'PUT',
    path: 'sns/application-endpoints/http/{uuid}/actions',
    action: 'updateSNSHttpEndpoint',
    parameters: {
      url: { type: 'string' },
      username: { type: 'string' },
      password: { type: 'string' },
      name: { type: 'string' },
      description: { type: 'string' },
    },
    execute: updateSnsHttpEndpoint,
  },
  {
    operation: 'RemoveSNSSmsReceiver',
    method: 'DELETE',
    path: 'sns/sms-endpoints/{endpointUuid}/receivers/{phoneNumber}',
    parameters: { phoneNumber: { type: 'string', required: true }, deleteMode: DELETE_MODE },
    execute: removeSnsSmsReceiver,
  },
];

/** The spec's names of the write operations, in the spec's order. */
export const WRITE_OPERATIONS: readonly string[] = OPERATIONS.map((operation) => operation.operation);

// ---------------------------------------------------------------------------------------------
// Matching and executing

/** An operation ready to match and run: where its parameters travel, and all of them. */
interface CompiledRoute {
  operation: WriteOperation;
  path: PathTemplate;
  source: ParameterSource;
  /** The path's parameters first, then the declared ones. */
  parameters: ParameterSpecs;
}

const PATH_PARAMETER: ParameterSpec = { type: 'uuid', required: true };

const ROUTES: readonly CompiledRoute[] = OPERATIONS.map((operation) => {
  const path = compilePathTemplate(operation.path);
  const pathParameters = Object.fromEntries(path.names.map((name) => [name, PATH_PARAMETER]));
  return { operation, path, source: sourceOf(operation), parameters: { ...pathParameters, ...operation.parameters } };
});

/** The spec's body rules: POST carries `params`, PUT its action object, DELETE the query or the body. */
function sourceOf(operation: WriteOperation): ParameterSource {
  if (operation.method === 'PUT') return { kind: 'action', key: operation.action };
  return operation.method === 'POST' ? { kind: 'params' } : { kind: 'delete' };
}

const ROUTES_BY_NAME = new Map(ROUTES.map((route) => [route.operation.operation, route]));

/**
 * The write operation a request names, or null when the route is not a write. Throws
 * `SimBadRequest` (400 plain text) for a REST-layer problem: a PUT on an actions path whose body
 * carries no action key that path knows, a body of the wrong shape, or a parameter of the wrong
 * JSON type.
 */
export function matchWrite(method: string, pathname: string, body: Record<string, unknown>): MatchedWrite | null {
  if (!pathname.startsWith(API_PREFIX)) return null;
  const subPath = pathname.slice(API_PREFIX.length).replace(/\/+$/, '');
  const verb = method.toUpperCase();
  const candidates: { route: CompiledRoute; match: RegExpExecArray }[] = [];
  for (const route of ROUTES) {
    if (route.operation.method !== verb) continue;
    const match = route.path.pattern.exec(subPath);
    if (match !== null) candidates.push({ route, match });
  }
  const first = candidates[0];
  if (first === undefined) return null;
  const chosen = first.route.source.kind === 'action' ? chooseAction(candidates, body) : first;
  const params = pathParameters(chosen.route.path, chosen.match, decodeSegment);
  // Type problems in the body are the REST layer's to reject, before any job exists.
  readParameters(chosen.route.source, chosen.route.parameters, body, new URLSearchParams());
  return { operation: chosen.route.operation.operation, params };
}

function chooseAction<T extends { route: CompiledRoute }>(candidates: T[], body: Record<string, unknown>): T {
  const keys = candidates.map(({ route }) => (route.source as { key: string }).key);
  const present = candidates.filter((_, index) => Object.hasOwn(body, keys[index] as string));
  if (present.length === 1) return present[0] as T;
  if (present.length === 0) throw new SimBadRequest(`the body must carry one action key of: ${keys.join(', ')}`);
  throw new SimBadRequest(`the body carries more than one action key: ${keys.filter((key) => Object.hasOwn(body, key)).join(', ')}`);
}

/** Whether `method subPath` is one of the spec's writes, whatever its body (`method` as sent). */
export function isWritePath(method: string, subPath: string): boolean {
  return ROUTES.some((route) => route.operation.method === method && route.path.pattern.test(subPath));
}

/** Whether some write of the spec is at `subPath`, whatever its method. */
export function isWriteSubPath(subPath: string): boolean {
  return ROUTES.some((route) => route.path.pattern.test(subPath));
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new SimBadRequest(`malformed path segment: ${segment}`);
  }
}

/**
 * Runs one write against the store (when its job runs) and returns the success body; throws
 * `SimError` for a business or validation failure.
 */
export const executeWrite: ExecuteWrite = (request: WriteRequest, store: SimulatorStore): Result => {
  const route = ROUTES_BY_NAME.get(request.operation);
  if (route === undefined) throw new Error(`not a write operation: ${request.operation}`);
  const values = readParameters(route.source, route.parameters, request.body, request.query);
  Object.assign(values, request.params);
  validateParameters(route.parameters, values);
  return route.operation.execute({ store, tenant: request.tenant, now: new Date(), args: new Arguments(values) });
};

/**
 * What a write does at once, when its job is accepted: EnableCbtTask moves its task to
 * `Starting` for the time the job runs. Never throws; `executeWrite` validates and reports.
 */
export function beginWrite(request: WriteRequest, store: SimulatorStore): void {
  if (request.operation !== 'EnableCbtTask') return;
  const task = store.cbtTasks.get(request.tenant.id, request.params.uuid ?? '');
  if (task !== undefined) store.cbtTasks.update(task, { status: 'Starting', lastOpDate: new Date() });
}
