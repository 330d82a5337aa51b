/**
 * What every write handler shares: its context, typed access to its checked parameters, and the
 * failures and lookups of the real service (SYS.1003 not found, SYS.1006 with a cause beneath,
 * SYS.1007 invalid argument).
 */
import { randomUUID } from 'node:crypto';
import { SimError, errorCode, type WireErrorCode } from '../errors.js';
import type { Host, Owned, RecordKind, RecordKinds, Tenant, Timestamped, VmInstance, VmState } from '../model.js';
import type { SimulatorStore } from '../store.js';
import { invalidArgument, isPlainObject } from './arguments.js';

/** A write's success body. */
export type Result = Record<string, unknown>;

/** What an operation's handler works with. */
export interface WriteContext {
  store: SimulatorStore;
  tenant: Tenant;
  /** The moment the write happens: every record it touches gets this `lastOpDate`. */
  now: Date;
  args: Arguments;
}

/** Typed reads of parameters that `readParameters` and `validateParameters` have checked. */
export class Arguments {
  constructor(private readonly values: Record<string, unknown>) {}

  text(name: string): string | undefined {
    const value = this.values[name];
    return typeof value === 'string' ? value : undefined;
  }

  /** A required parameter (validation has guaranteed its presence). */
  required(name: string): string {
    const value = this.text(name);
    if (value === undefined) throw invalidArgument(`missing required parameter [${name}]`);
    return value;
  }

  flag(name: string): boolean | undefined {
    const value = this.values[name];
    return typeof value === 'boolean' ? value : undefined;
  }

  integer(name: string): number | undefined {
    const value = this.values[name];
    return typeof value === 'number' ? value : undefined;
  }

  texts(name: string): string[] | undefined {
    const value = this.values[name];
    return Array.isArray(value) ? (value as string[]) : undefined;
  }

  /** A map parameter (a JSON object), e.g. `dataVolumeSystemTags`. */
  map(name: string): Record<string, unknown> | undefined {
    const value = this.values[name];
    return isPlainObject(value) ? value : undefined;
  }

  objects(name: string): Record<string, unknown>[] | undefined {
    const value = this.values[name];
    return Array.isArray(value) ? value.filter(isPlainObject) : undefined;
  }
}

export function notFound(kind: string, uuid: string): SimError {
  return new SimError(errorCode('SYS.1003', 'Unable to find resource', `${kind}[uuid:${uuid}] is not found`));
}

export function operationFailed(details: string, cause?: WireErrorCode): SimError {
  return new SimError(errorCode('SYS.1006', 'Operation failed', details, cause));
}

export function wrongVmState(vm: VmInstance, action: string, allowed: readonly VmState[]): SimError {
  return operationFailed(
    `unable to ${action} vm[uuid:${vm.uuid}]`,
    errorCode(
      'VM.1010',
      'The VM is in a wrong state for this operation',
      `vm[uuid:${vm.uuid}] is ${vm.state}; ${action} needs ${allowed.join(' or ')}`,
    ),
  );
}

export function requireVmState(vm: VmInstance, action: string, allowed: readonly VmState[]): void {
  if (!allowed.includes(vm.state)) throw wrongVmState(vm, action, allowed);
}

/** The states in which a VM can be worked on. */
export const LIVE_VM_STATES: readonly VmState[] = ['Running', 'Stopped'];

export function requireConnectedHost(host: Host, action: string): void {
  if (host.status === 'Connected') return;
  throw operationFailed(
    `unable to ${action} on host[uuid:${host.uuid}]`,
    errorCode('HOST.1010', 'The host is disconnected', `host[uuid:${host.uuid}] is ${host.status}`),
  );
}

/** What a not-found error calls each kind of record a write looks up. */
const NOT_FOUND_NAMES = {
  vm: 'VmInstance',
  host: 'Host',
  volume: 'Volume',
  primaryStorage: 'PrimaryStorage',
  cbtTask: 'CbtTask',
  snapshotGroup: 'VolumeSnapshotGroup',
  bonding: 'HostNetworkBonding',
  directory: 'Directory',
  snsPlatform: 'SNSApplicationPlatform',
  cluster: 'Cluster',
  zone: 'Zone',
  l3Network: 'L3Network',
  instanceOffering: 'InstanceOffering',
  tag: 'Tag',
} as const satisfies Partial<Record<RecordKind, string>>;

/** The caller's record of `kind` with this uuid; another tenant's is not found (SYS.1003). */
export function find<K extends keyof typeof NOT_FOUND_NAMES>({ store, tenant }: WriteContext, kind: K, uuid: string): RecordKinds[K] {
  return store.table(kind).get(tenant.id, uuid) ?? notFoundThrow(NOT_FOUND_NAMES[kind], uuid);
}

/** The caller's records of `kind` that the list parameter `name` names, each found or SYS.1003. */
export function findEach<K extends keyof typeof NOT_FOUND_NAMES>(context: WriteContext, kind: K, name: string): RecordKinds[K][] {
  return (context.args.texts(name) ?? []).map((uuid) => find(context, kind, uuid));
}

export function notFoundThrow(kind: string, uuid: string): never {
  throw notFound(kind, uuid);
}

/** A caller-chosen uuid for a new record must be well formed and unused anywhere. */
export function newUuid(store: SimulatorStore, chosen: string | undefined): string {
  if (chosen === undefined) return randomUuid();
  const taken = [store.vms, store.volumes, store.cbtTasks, store.snapshotGroups].some((table) => table.has(chosen));
  if (taken) throw invalidArgument(`resourceUuid[${chosen}] is already in use`);
  return chosen;
}

/**
 * What a create operation's new record starts with: `uuid` (by default the caller's
 * `resourceUuid`, checked, else a fresh one), the caller as owner, the `name` and `description`
 * parameters, and `now` as both dates.
 */
export function newNamedRecord(
  context: WriteContext,
  uuid = newUuid(context.store, context.args.text('resourceUuid')),
): Owned & Timestamped & { name: string; description: string | null } {
  const { tenant, args, now } = context;
  return { uuid, tenantId: tenant.id, name: args.required('name'), description: args.text('description') ?? null, createDate: now, lastOpDate: now };
}

export function randomUuid(): string {
  return randomUUID().replaceAll('-', '');
}

export function inventoryResult(inventory: Result): Result {
  return { success: true, inventory };
}

export { parseIpv4 } from '../builders.js';
