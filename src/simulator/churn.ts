/**
 * `SIM_CHURN`: the estate changing by itself, as a real one does under the platform's own
 * schedulers and other consoles. Each change is one of: a VM started or stopped, a host's
 * connection status flipped, a VM created (with its root volume) or a VM removed (with its
 * volumes, snapshot groups and CBT tasks). Every record a change touches gets a fresh
 * `lastOpDate`, so a reader asking for `lastOpDate>…` sees it; a removed record simply stops
 * being answered (the real service keeps no tombstones either).
 *
 * Changes happen at a rate (per tenant, per second) on a timer, and on demand through
 * `POST /__sim/churn` (tests, demos).
 */
import { SimBadRequest } from './errors.js';
import type { Host, Tenant, VmInstance } from './model.js';
import type { ChurnSpec } from './options.js';
import { createRandom } from './random.js';
import type { SimulatorStore } from './store.js';
import { randomUuid } from './writes/context.js';

/** What one change did. */
export type ChurnKind = 'vmState' | 'hostStatus' | 'vmCreate' | 'vmDelete';

export const CHURN_KINDS: readonly ChurnKind[] = ['vmState', 'hostStatus', 'vmCreate', 'vmDelete'];


/** Changes asked for on demand (`POST /__sim/churn`). */
export interface ChurnRequest {
  tenant: 'first' | 'second';
  kind?: ChurnKind | undefined;
  count?: number | undefined;
  /** The record to change (a VM; a host for `hostStatus`); not for `vmCreate`. */
  uuid?: string | undefined;
}

/** One change as it happened. */
export interface ChurnChange {
  kind: ChurnKind;
  /** The gateway's record name of the changed record: `vmInstance` or `host`. */
  record: 'vmInstance' | 'host';
  uuid: string;
  tenantId: string;
}

export interface Churn {
  /** The rate and tenants in force. */
  spec(): ChurnSpec;
  /** Changes the rate (and tenants) at once; rate 0 stops the timer. */
  setSpec(spec: ChurnSpec): void;
  /**
   * Makes `count` changes now in one tenant (of `kind`, else mixed as the timer mixes them), to
   * the record `uuid` names when given (a VM, or a host for `hostStatus`).
   */
  apply(options: ChurnRequest): ChurnChange[];
  /** Stops the timer. */
  stop(): void;
}

/** How often the timer wakes; each wake makes the changes owed since the last one. */
const TICK_MS = 100;

export function createChurn(store: SimulatorStore, seed: number, initial: ChurnSpec): Churn {
  const random = createRandom(seed ^ 0x5eed_c4a5);
  let current: ChurnSpec = { ...initial };
  let timer: NodeJS.Timeout | null = null;
  let owed = 0;
  let last = Date.now();
  let created = 0;

  function pick<T>(items: readonly T[]): T | undefined {
    return items.length === 0 ? undefined : items[Math.floor(random() * items.length)];
  }

  function tenantOf(which: 'first' | 'second'): Tenant {
    const tenant = store.tenants[which === 'first' ? 0 : 1];
    if (tenant === undefined) throw new SimBadRequest(`no ${which} tenant`);
    return tenant;
  }

  /** A mix that keeps the estate's size steady: as many creations as removals on average. */
  function chooseKind(): ChurnKind {
    const roll = random();
    if (roll < 0.5) return 'vmState';
    if (roll < 0.7) return 'hostStatus';
    return roll < 0.85 ? 'vmCreate' : 'vmDelete';
  }

  function changeVmState(tenant: Tenant, now: Date, uuid: string | undefined): ChurnChange | null {
    const vm = uuid === undefined ? pick([...store.vms.list(tenant.id)].filter((candidate) => candidate.state !== 'Destroyed')) : store.vms.get(tenant.id, uuid);
    if (vm === undefined) return null;
    if (vm.state === 'Running') {
      store.vms.update(vm, { state: 'Stopped', hostUuid: null, lastHostUuid: vm.hostUuid ?? vm.lastHostUuid, lastOpDate: now });
    } else {
      const host = vm.lastHostUuid === null ? pick(store.hosts.by('clusterUuid', vm.clusterUuid, tenant.id)) : undefined;
      store.vms.update(vm, { state: 'Running', hostUuid: vm.lastHostUuid ?? host?.uuid ?? null, lastOpDate: now });
    }
    return { kind: 'vmState', record: 'vmInstance', uuid: vm.uuid, tenantId: tenant.id };
  }

  function flipHostStatus(tenant: Tenant, now: Date, uuid: string | undefined): ChurnChange | null {
    const host: Host | undefined = uuid === undefined ? pick([...store.hosts.list(tenant.id)]) : store.hosts.get(tenant.id, uuid);
    if (host === undefined) return null;
    store.hosts.update(host, { status: host.status === 'Connected' ? 'Disconnected' : 'Connected', lastOpDate: now });
    return { kind: 'hostStatus', record: 'host', uuid: host.uuid, tenantId: tenant.id };
  }

  /** A copy of one of the tenant's VMs (same placement and sizes) with a root volume of its own. */
  function createVm(tenant: Tenant, now: Date): ChurnChange | null {
    const source = pick([...store.vms.list(tenant.id)]);
    if (source === undefined) return null;
    const sourceRoot = store.volumes.get(tenant.id, source.rootVolumeUuid);
    const uuid = randomUuid();
    const rootUuid = randomUuid();
    created++;
    if (sourceRoot !== undefined) {
      store.volumes.insert({
        ...sourceRoot,
        uuid: rootUuid,
        name: `ROOT-for-churn-${created}`,
        vmInstanceUuid: uuid,
        lastVmInstanceUuid: uuid,
        installPath: sourceRoot.installPath.replace(sourceRoot.uuid, rootUuid),
        createDate: now,
        lastOpDate: now,
      });
    }
    const vm: VmInstance = {
      ...source,
      uuid,
      name: `churn-${String(created).padStart(3, '0')}`,
      description: null,
      rootVolumeUuid: sourceRoot === undefined ? source.rootVolumeUuid : rootUuid,
      state: 'Running',
      hostUuid: source.hostUuid ?? source.lastHostUuid,
      sshKey: null,
      vmNics: [],
      vmCdRoms: [],
      createDate: now,
      lastOpDate: now,
    };
    store.vms.insert(vm);
    return { kind: 'vmCreate', record: 'vmInstance', uuid, tenantId: tenant.id };
  }

  /** Removes a VM and what hangs off it (volumes, snapshot groups, CBT tasks). */
  function deleteVm(tenant: Tenant, uuid: string | undefined): ChurnChange | null {
    const vm = uuid === undefined ? pick([...store.vms.list(tenant.id)]) : store.vms.get(tenant.id, uuid);
    if (vm === undefined) return null;
    for (const volume of store.volumes.by('vmInstanceUuid', vm.uuid, tenant.id)) store.volumes.delete(volume.uuid);
    for (const group of store.snapshotGroups.by('vmInstanceUuid', vm.uuid, tenant.id)) store.snapshotGroups.delete(group.uuid);
    for (const task of store.cbtTasks.by('vmInstanceUuid', vm.uuid, tenant.id)) store.cbtTasks.delete(task.uuid);
    store.vms.delete(vm.uuid);
    return { kind: 'vmDelete', record: 'vmInstance', uuid: vm.uuid, tenantId: tenant.id };
  }

  function change(tenant: Tenant, kind: ChurnKind, uuid: string | undefined): ChurnChange | null {
    const now = new Date();
    switch (kind) {
      case 'vmState':
        return changeVmState(tenant, now, uuid);
      case 'hostStatus':
        return flipHostStatus(tenant, now, uuid);
      case 'vmCreate':
        return createVm(tenant, now);
      case 'vmDelete':
        return deleteVm(tenant, uuid);
    }
  }

  function apply(options: ChurnRequest): ChurnChange[] {
    const tenant = tenantOf(options.tenant);
    const changes: ChurnChange[] = [];
    for (let index = 0; index < (options.count ?? 1); index++) {
      const made = change(tenant, options.kind ?? chooseKind(), options.uuid);
      if (made !== null) changes.push(made);
    }
    return changes;
  }

  function tick(): void {
    const now = Date.now();
    owed += (current.rate * (now - last)) / 1000;
    last = now;
    const count = Math.floor(owed);
    if (count === 0) return;
    owed -= count;
    const tenants: ('first' | 'second')[] = current.tenants === 'all' ? ['first', 'second'] : [current.tenants];
    for (const tenant of tenants) apply({ tenant, count });
  }

  function schedule(): void {
    if (timer !== null) clearInterval(timer);
    timer = null;
    owed = 0;
    last = Date.now();
    if (current.rate <= 0) return;
    timer = setInterval(tick, TICK_MS);
    timer.unref();
  }

  schedule();
  return {
    spec: () => ({ ...current }),
    setSpec(spec) {
      current = { ...spec };
      schedule();
    },
    apply,
    stop() {
      if (timer !== null) clearInterval(timer);
      timer = null;
    },
  };
}

/** Reads the body of `POST /__sim/churn`: `{tenant?, kind?, count?, uuid?}` and/or `{rate, tenants?}`. */
export function readChurnRequest(body: Record<string, unknown>): { apply: ChurnRequest | null; spec: ChurnSpec | null } {
  const { tenant = 'first', kind, count, rate, tenants = 'all', uuid } = body;
  if (uuid !== undefined && (typeof uuid !== 'string' || !/^[0-9a-f]{32}$/.test(uuid))) throw new SimBadRequest('uuid must be 32 lowercase hex characters');
  if (tenant !== 'first' && tenant !== 'second') throw new SimBadRequest('tenant must be "first" or "second"');
  if (kind !== undefined && !CHURN_KINDS.includes(kind as ChurnKind)) throw new SimBadRequest(`kind must be one of ${CHURN_KINDS.join(', ')}`);
  if (count !== undefined && (typeof count !== 'number' || !Number.isInteger(count) || count < 0 || count > 1000)) {
    throw new SimBadRequest('count must be an integer from 0 to 1000');
  }
  if (rate !== undefined && (typeof rate !== 'number' || !Number.isFinite(rate) || rate < 0 || rate > 10_000)) {
    throw new SimBadRequest('rate must be a number from 0 to 10000');
  }
  if (tenants !== 'first' && tenants !== 'second' && tenants !== 'all') throw new SimBadRequest('tenants must be "first", "second" or "all"');
  const spec: ChurnSpec | null = rate === undefined ? null : { rate, tenants };
  const wantsChanges = kind !== undefined || count !== undefined || uuid !== undefined || spec === null;
  return { apply: wantsChanges ? { tenant, kind: kind as ChurnKind | undefined, count: (count as number | undefined) ?? 1, uuid: uuid as string | undefined } : null, spec };
}
