/**
 * The spec's 22 write operations: how each is recognised (method, path, PUT action key), which
 * parameters it takes, and what it does to the store when its job runs.
 *
 * The handlers live in one module per resource (`write-hosts.ts`, `write-vm-instances.ts`, ...);
 * their failures follow the real service (see `write-context.ts`).
 */
import { SimBadRequest, type ExecuteWrite, type MatchedWrite, type WriteRequest } from './contracts.js';
import type { SimulatorStore } from './store.js';
import { readParameters, validateParameters, type ParameterSource, type ParameterSpecs } from './write-arguments.js';
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

/** One write operation of the spec. */
interface WriteOperation {
  operation: string;
  method: 'POST' | 'PUT' | 'DELETE';
  /** Path under `/svc/v1/`, with `{name}` for path parameters. */
  path: string;
  source: ParameterSource;
  /** Every parameter, path parameters included. */
  parameters: ParameterSpecs;
  execute(context: WriteContext): Result;
}

const API_PREFIX = '/svc/v1/';
const DELETE_MODES = ['Permissive', 'Enforcing'] as const;
const NIC_DRIVER_TYPES = ['virtio', 'e1000', 'rtl8139'] as const;

// ---------------------------------------------------------------------------------------------
// The operations

const OPERATIONS: readonly WriteOperation[] = [
  {
    operation: 'UpdateHostNqn',
    method: 'PUT',
    path: 'hosts/nqn/{uuid}/actions',
    source: { kind: 'action', key: 'updateHostNqn' },
    parameters: { uuid: { type: 'uuid', required: true }, nqn: { type: 'string', required: true } },
    execute: updateHostNqn,
  },
  {
    operation: 'SetIpOnHostNetworkBonding',
    method: 'POST',
    path: 'hosts/bondings/{bondingUuid}/ip',
    source: { kind: 'params' },
    parameters: {
      bondingUuid: { type: 'uuid', required: true },
      ipAddress: { type: 'string' },
      netmask: { type: 'string' },
      isDefaultRoute: { type: 'boolean' },
    },
    execute: setIpOnHostNetworkBonding,
  },
  {
    operation: 'CreateCbtTask',
    method: 'POST',
    path: 'cbt-task/create',
    source: { kind: 'params' },
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
    source: { kind: 'delete' },
    parameters: {
      uuid: { type: 'uuid', required: true },
      force: { type: 'boolean' },
      deleteMode: { type: 'string', values: DELETE_MODES },
    },
    execute: deleteCbtTask,
  },
  {
    operation: 'DisableCbtTask',
    method: 'POST',
    path: 'cbt-task/disable/{uuid}',
    source: { kind: 'params' },
    parameters: { uuid: { type: 'uuid', required: true }, force: { type: 'boolean' } },
    execute: disableCbtTask,
  },
  {
    operation: 'EnableCbtTask',
    method: 'POST',
    path: 'cbt-task/enable/{uuid}',
    source: { kind: 'params' },
    parameters: { uuid: { type: 'uuid', required: true }, bitmapName: { type: 'string' } },
    execute: enableCbtTask,
  },
  {
    operation: 'ExportNbdVolumes',
    method: 'POST',
    path: 'cbt-task/exportvolume',
    source: { kind: 'params' },
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
    source: { kind: 'params' },
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
    source: { kind: 'delete' },
    parameters: { uuid: { type: 'uuid', required: true }, deleteMode: { type: 'string', values: DELETE_MODES } },
    execute: deleteVolumeSnapshotGroup,
  },
  {
    operation: 'UpdateVolumeSnapshotGroup',
    method: 'PUT',
    path: 'volume-snapshots/group/{uuid}/actions',
    source: { kind: 'action', key: 'updateVolumeSnapshotGroup' },
    parameters: { uuid: { type: 'uuid', required: true }, name: { type: 'string' }, description: { type: 'string' } },
    execute: updateVolumeSnapshotGroup,
  },
  {
    operation: 'PrimaryStorageMigrateVm',
    method: 'PUT',
    path: 'vm-instances/{vmInstanceUuid}/actions',
    source: { kind: 'action', key: 'primaryStorageMigrateVm' },
    parameters: {
      vmInstanceUuid: { type: 'uuid', required: true },
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
    source: { kind: 'action', key: 'setVmBootVolume' },
    parameters: { vmInstanceUuid: { type: 'uuid', required: true }, volumeUuid: { type: 'uuid', required: true } },
    execute: setVmBootVolume,
  },
  {
    operation: 'RecoverVmInstance',
    method: 'PUT',
    path: 'vm-instances/{uuid}/actions',
    source: { kind: 'action', key: 'recoverVmInstance' },
    parameters: { uuid: { type: 'uuid', required: true } },
    execute: recoverVmInstance,
  },
  {
    operation: 'UpdateVmNicDriver',
    method: 'PUT',
    path: 'vm-instances/{vmInstanceUuid}/actions',
    source: { kind: 'action', key: 'updateVmNicDriver' },
    parameters: {
      vmInstanceUuid: { type: 'uuid', required: true },
      vmNicUuid: { type: 'uuid', required: true },
      driverType: { type: 'string', required: true, values: NIC_DRIVER_TYPES },
    },
    execute: updateVmNicDriver,
  },
  {
    operation: 'CreateVmInstanceFromVolumeSnapshotGroup',
    method: 'POST',
    path: 'vm-instances/from/volume-snapshots/group/{volumeSnapshotGroupUuid}',
    source: { kind: 'params' },
    parameters: {
      volumeSnapshotGroupUuid: { type: 'uuid', required: true },
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
    source: { kind: 'delete' },
    parameters: { vmNicUuid: { type: 'uuid', required: true } },
    execute: detachL3NetworkFromVm,
  },
  {
    operation: 'DeleteVmSshKey',
    method: 'DELETE',
    path: 'vm-instances/{uuid}/ssh-keys',
    source: { kind: 'delete' },
    parameters: { uuid: { type: 'uuid', required: true } },
    execute: deleteVmSshKey,
  },
  {
    operation: 'DestroyVmInstance',
    method: 'DELETE',
    path: 'vm-instances/{uuid}',
    source: { kind: 'delete' },
    parameters: { uuid: { type: 'uuid', required: true }, deleteMode: { type: 'string', values: DELETE_MODES } },
    execute: destroyVmInstance,
  },
  {
    operation: 'DeleteDirectory',
    method: 'DELETE',
    path: 'delete/directory',
    source: { kind: 'delete' },
    parameters: { uuid: { type: 'uuid', required: true }, deleteMode: { type: 'string', values: DELETE_MODES } },
    execute: deleteDirectory,
  },
  {
    operation: 'ChangeSNSApplicationPlatformState',
    method: 'PUT',
    path: 'sns/application-platforms/{uuid}/actions',
    source: { kind: 'action', key: 'changeSNSApplicationPlatformState' },
    parameters: { uuid: { type: 'uuid', required: true }, stateEvent: { type: 'string', required: true, values: ['enable', 'disable'] } },
    execute: changeSnsApplicationPlatformState,
  },
  {
    operation: 'UpdateSNSHttpEndpoint',
    method: 'PUT',
    path: 'sns/application-endpoints/http/{uuid}/actions',
    source: { kind: 'action', key: 'updateSNSHttpEndpoint' },
    parameters: {
      uuid: { type: 'uuid', required: true },
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
    source: { kind: 'delete' },
    parameters: {
      endpointUuid: { type: 'uuid', required: true },
      phoneNumber: { type: 'string', required: true },
      deleteMode: { type: 'string', values: DELETE_MODES },
    },
    execute: removeSnsSmsReceiver,
  },
];

/** The spec's names of the write operations, in the spec's order. */
export const WRITE_OPERATIONS: readonly string[] = OPERATIONS.map((operation) => operation.operation);

// ---------------------------------------------------------------------------------------------
// Matching and executing

interface CompiledRoute {
  operation: WriteOperation;
  pattern: RegExp;
  names: string[];
}

const ROUTES: readonly CompiledRoute[] = OPERATIONS.map((operation) => {
  const names: string[] = [];
  const source = operation.path
    .split('/')
    .map((segment) => {
      const name = /^\{(\w+)\}$/.exec(segment)?.[1];
      if (name === undefined) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(name);
      return '([^/]+)';
    })
    .join('/');
  return { operation, pattern: new RegExp(`^${source}$`), names };
});

const OPERATIONS_BY_NAME = new Map(OPERATIONS.map((operation) => [operation.operation, operation]));

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
  const candidates: { route: CompiledRoute; values: string[] }[] = [];
  for (const route of ROUTES) {
    if (route.operation.method !== verb) continue;
    const match = route.pattern.exec(subPath);
    if (match !== null) candidates.push({ route, values: match.slice(1) });
  }
  const first = candidates[0];
  if (first === undefined) return null;
  const chosen = first.route.operation.source.kind === 'action' ? chooseAction(candidates, body) : first;
  const params: Record<string, string> = {};
  chosen.route.names.forEach((name, index) => {
    params[name] = decodeSegment(chosen.values[index] ?? '');
  });
  // Type problems in the body are the REST layer's to reject, before any job exists.
  readParameters(chosen.route.operation.source, chosen.route.operation.parameters, body, new URLSearchParams());
  return { operation: chosen.route.operation.operation, params };
}

function chooseAction<T extends { route: CompiledRoute }>(candidates: T[], body: Record<string, unknown>): T {
  const keys = candidates.map(({ route }) => (route.operation.source as { key: string }).key);
  const present = candidates.filter((_, index) => Object.hasOwn(body, keys[index] as string));
  if (present.length === 1) return present[0] as T;
  if (present.length === 0) throw new SimBadRequest(`the body must carry one action key of: ${keys.join(', ')}`);
  throw new SimBadRequest(`the body carries more than one action key: ${keys.filter((key) => Object.hasOwn(body, key)).join(', ')}`);
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
  const operation = OPERATIONS_BY_NAME.get(request.operation);
  if (operation === undefined) throw new Error(`not a write operation: ${request.operation}`);
  const values = readParameters(operation.source, operation.parameters, request.body, request.query);
  Object.assign(values, request.params);
  validateParameters(operation.parameters, values);
  return operation.execute({ store, tenant: request.tenant, now: new Date(), args: new Arguments(values) });
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
