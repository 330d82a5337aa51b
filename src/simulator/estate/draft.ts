/**
 * A tenant's estate while it is generated: the records drawn so far that later ones refer to,
 * the streams it draws from, and the draws of dates and hardware statuses every part makes. The
 * parts (`infrastructure.ts`, `workloads.ts`, `services.ts`) each add their records to
 * it, in the order `index.ts` calls them.
 */
import type { Cluster, Host, HwMonitorStatus, InstanceOffering, L3Network, PrimaryStorage, Tenant, VmInstance, Zone } from '../model.js';
import type { Dice } from '../random.js';
import type { SimulatorStore } from '../store.js';

export interface EstateSize {
  hosts: number;
  vms: number;
}

/** The earliest date a generated record has. */
export const EPOCH = Date.UTC(2023, 0, 2, 8, 0, 0);
const SPAN_SECONDS = 540 * 24 * 3600;
export const GIB = 1024 ** 3;
export const TIB = 1024 ** 4;

/** The VMs' sizes: an instance offering per pair, which the VMs of that size reference. */
export const VM_CPUS = [1, 2, 4, 8, 16];
export const VM_MEMORY_GIB = [2, 4, 8, 16, 32];

/** One tenant's records as they are drawn. */
export class TenantDraft {
  readonly zones: Zone[] = [];
  readonly clusters: Cluster[] = [];
  readonly storagesByCluster = new Map<string, PrimaryStorage[]>();
  readonly l3ByZone = new Map<string, L3Network[]>();
  readonly hostsByCluster = new Map<string, Host[]>();
  readonly hosts: Host[] = [];
  readonly vms: VmInstance[] = [];
  readonly storages: PrimaryStorage[] = [];
  /** Instance offerings by `<cpuNum>/<memory bytes>`. */
  readonly offerings = new Map<string, InstanceOffering>();
  /** The next VM NIC address's host part. */
  nextIp = 10;

  constructor(
    readonly store: SimulatorStore,
    readonly tenant: Tenant,
    readonly dice: Dice,
    /** The stream of the records added later (offerings, tags). */
    readonly catalogue: Dice,
    readonly size: EstateSize,
    readonly tenantIndex: number,
  ) {}

  times(after = EPOCH): { createDate: Date; lastOpDate: Date } {
    const latest = EPOCH + SPAN_SECONDS * 1000;
    const start = Math.max(after, EPOCH);
    const created = start + this.dice.int(0, Math.max(0, Math.floor((latest - start) / 1000) - 86400)) * 1000;
    const updated = created + this.dice.int(0, Math.floor((latest - created) / 1000)) * 1000;
    return { createDate: new Date(created), lastOpDate: new Date(updated) };
  }

  hwStatus(): HwMonitorStatus {
    const roll = this.dice.next();
    return roll < 0.9 ? 'Normal' : roll < 0.96 ? 'Error' : 'Unknown';
  }
}
