/**
 * The spec's 22 write operations as the simulator plays them: recognised by the method, path and
 * PUT action key the catalogue (`upstream/operations/`) declares, their parameters read with the
 * catalogue's types, and what each does to the store when its job runs.
 *
 * The handlers live in one module per resource (`hosts.ts`, `vm-instances.ts`, ...);
 * their failures follow the real service (see `context.ts`).
 */
import { RESOURCE_FAMILY_PREFIX, type ExecuteWrite, type MatchedWrite, type WriteRequest } from '../contracts.js';
import { SimBadRequest } from '../errors.js';
import { compilePathTemplate, pathParameters, type PathTemplate } from '../path-template.js';
import type { SimulatorStore } from '../store.js';
import { isDeclaredParam, OPERATIONS, type AnyOperation, type HttpMethod, type ParamSpec, type WireKind } from '../../upstream/operations/index.js';
import {
  readParameters,
  validateParameters,
  type ParameterSource,
  type ParameterSpec,
  type ParameterSpecs,
  type ParameterType,
} from './arguments.js';
import { createCbtTask, deleteCbtTask, disableCbtTask, enableCbtTask, exportNbdVolumes } from './cbt-tasks.js';
import { Arguments, type Result, type WriteContext } from './context.js';
import { deleteDirectory } from './directories.js';
import { setIpOnHostNetworkBonding, updateHostNqn } from './hosts.js';
import { createVolumeSnapshotGroup, deleteVolumeSnapshotGroup, updateVolumeSnapshotGroup } from './snapshot-groups.js';
import { changeSnsApplicationPlatformState, removeSnsSmsReceiver, updateSnsHttpEndpoint } from './sns.js';
import {
  createVmInstanceFromVolumeSnapshotGroup,
  deleteVmSshKey,
  destroyVmInstance,
  detachL3NetworkFromVm,
  primaryStorageMigrateVm,
  recoverVmInstance,
  setVmBootVolume,
  updateVmNicDriver,
} from './vm-instances.js';

/**
 * What the simulator adds to a write the catalogue (`upstream/operations/`) declares: the
 * parameters the catalogue leaves to the layer above to spell (an enumeration, an object) or
 * whose values the service checks further (a closed set), and what the write does to the store.
 * The method, the path, the action key and every other parameter's type and requiredness are the
 * catalogue's.
 */
interface SimulatedWrite {
  /** Parameters spelled here rather than read from the catalogue. */
  readonly spelled?: ParameterSpecs;
  execute(context: WriteContext): Result;
}

const DELETE_MODE: ParameterSpec = { type: 'string', values: ['Permissive', 'Enforcing'] };
const NIC_DRIVER_TYPES = ['virtio', 'e1000', 'rtl8139'] as const;

// ---------------------------------------------------------------------------------------------
// The operations, by the spec's name, in the spec's order

const SIMULATED_WRITES: Readonly<Record<string, SimulatedWrite>> = {
  UpdateHostNqn: { execute: updateHostNqn },
  SetIpOnHostNetworkBonding: { execute: setIpOnHostNetworkBonding },
  CreateCbtTask: { spelled: { taskType: { type: 'string', required: true, values: ['VM'] } }, execute: createCbtTask },
  DeleteCbtTask: { execute: deleteCbtTask },
  DisableCbtTask: { execute: disableCbtTask },
  EnableCbtTask: { execute: enableCbtTask },
  ExportNbdVolumes: { execute: exportNbdVolumes },
  CreateVolumeSnapshotGroup: { execute: createVolumeSnapshotGroup },
  DeleteVolumeSnapshotGroup: { execute: deleteVolumeSnapshotGroup },
  UpdateVolumeSnapshotGroup: { execute: updateVolumeSnapshotGroup },
  PrimaryStorageMigrateVm: { spelled: { volumeMigrationAOs: { type: 'objectList' } }, execute: primaryStorageMigrateVm },
  SetVmBootVolume: { execute: setVmBootVolume },
  RecoverVmInstance: { execute: recoverVmInstance },
  UpdateVmNicDriver: { spelled: { driverType: { type: 'string', required: true, values: NIC_DRIVER_TYPES } }, execute: updateVmNicDriver },
  CreateVmInstanceFromVolumeSnapshotGroup: {
    spelled: {
      type: { type: 'string', values: ['UserVm', 'ApplianceVm'] },
      strategy: { type: 'string', values: ['InstantStart', 'CreateStopped'] },
      dataVolumeSystemTags: { type: 'map' },
      volumeSnapshotEncryptions: { type: 'list' },
    },
    execute: createVmInstanceFromVolumeSnapshotGroup,
  },
  DetachL3NetworkFromVm: { execute: detachL3NetworkFromVm },
  DeleteVmSshKey: { execute: deleteVmSshKey },
  DestroyVmInstance: { execute: destroyVmInstance },
  DeleteDirectory: { execute: deleteDirectory },
  ChangeSNSApplicationPlatformState: {
    spelled: { stateEvent: { type: 'string', required: true, values: ['enable', 'disable'] } },
    execute: changeSnsApplicationPlatformState,
  },
  UpdateSNSHttpEndpoint: { execute: updateSnsHttpEndpoint },
  RemoveSNSSmsReceiver: { execute: removeSnsSmsReceiver },
};

/** The spec's names of the write operations, in the spec's order. */
export const WRITE_OPERATIONS: readonly string[] = Object.keys(SIMULATED_WRITES);

// ---------------------------------------------------------------------------------------------
// Matching and executing

/** The simulator's parameter type of each wire kind the catalogue declares. */
const PARAMETER_TYPES: { readonly [Kind in WireKind]?: ParameterType } = {
  uuid: 'uuid',
  text: 'string',
  int: 'integer',
  long: 'integer',
  bool: 'boolean',
  uuids: 'uuidList',
  texts: 'stringList',
};

/** A write of the catalogue joined with what the simulator adds, checked once at load. */
function compile(name: string, simulated: SimulatedWrite): CompiledRoute {
  const declared = OPERATIONS.find((operation) => operation.name === name);
  if (declared === undefined || declared.method === 'GET') throw new TypeError(`${name}: not a write of the catalogue`);
  const stray = Object.keys(simulated.spelled ?? {}).find((parameter) => !Object.hasOwn(declared.params, parameter));
  if (stray !== undefined) throw new TypeError(`${name}: ${stray} is spelled but the catalogue does not declare it`);
  const parameters = Object.fromEntries(
    Object.entries(declared.params).map(([parameter, spec]) => [parameter, simulated.spelled?.[parameter] ?? parameterOf(name, parameter, spec)]),
  );
  return {
    operation: name,
    method: declared.method,
    execute: simulated.execute,
    path: compilePathTemplate(declared.path),
    source: sourceOf(declared),
    parameters,
  };
}

/**
 * The simulator's spec of a parameter the catalogue declares with its facts, or of `deleteMode`
 * (the one parameter declared by its location alone whose closed set the simulator knows itself).
 */
function parameterOf(operation: string, name: string, spec: ParamSpec): ParameterSpec {
  if (name === 'deleteMode' && !isDeclaredParam(spec)) return DELETE_MODE;
  const type = isDeclaredParam(spec) ? PARAMETER_TYPES[spec.kind] : undefined;
  if (!isDeclaredParam(spec) || type === undefined) throw new TypeError(`${operation}: the simulator must spell parameter ${name}`);
  return spec.required ? { type, required: true } : { type };
}

/** An operation ready to match and run: where its parameters travel, and all of them. */
interface CompiledRoute {
  operation: string;
  method: HttpMethod;
  execute(context: WriteContext): Result;
  path: PathTemplate;
  source: ParameterSource;
  /** Every parameter, in the catalogue's order (the path's first). */
  parameters: ParameterSpecs;
}

/** The spec's body rules: POST carries `params`, PUT its action object, DELETE the query or the body. */
function sourceOf(operation: AnyOperation): ParameterSource {
  if (operation.method === 'PUT') return { kind: 'action', key: operation.actionKey ?? '' };
  return operation.method === 'POST' ? { kind: 'params' } : { kind: 'delete' };
}

const ROUTES: readonly CompiledRoute[] = Object.entries(SIMULATED_WRITES).map(([name, simulated]) => compile(name, simulated));

const ROUTES_BY_NAME = new Map(ROUTES.map((route) => [route.operation, route]));

/**
 * The write operation a request names, or null when the route is not a write. Throws
 * `SimBadRequest` (400 plain text) for a REST-layer problem: a PUT on an actions path whose body
 * carries no action key that path knows, a body of the wrong shape, or a parameter of the wrong
 * JSON type.
 */
export function matchWrite(method: string, pathname: string, body: Record<string, unknown>): MatchedWrite | null {
  if (!pathname.startsWith(RESOURCE_FAMILY_PREFIX)) return null;
  const subPath = pathname.slice(RESOURCE_FAMILY_PREFIX.length).replace(/\/+$/, '');
  const verb = method.toUpperCase();
  const candidates: { route: CompiledRoute; match: RegExpExecArray }[] = [];
  for (const route of ROUTES) {
    if (route.method !== verb) continue;
    const match = route.path.pattern.exec(subPath);
    if (match !== null) candidates.push({ route, match });
  }
  const first = candidates[0];
  if (first === undefined) return null;
  const chosen = first.route.source.kind === 'action' ? chooseAction(candidates, body) : first;
  const params = pathParameters(chosen.route.path, chosen.match, decodeSegment);
  // Type problems in the body are the REST layer's to reject, before any job exists.
  readParameters(chosen.route.source, chosen.route.parameters, body, new URLSearchParams());
  return { operation: chosen.route.operation, params };
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
  return ROUTES.some((route) => route.method === method && route.path.pattern.test(subPath));
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
  return route.execute({ store, tenant: request.tenant, now: new Date(), args: new Arguments(values) });
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
