/**
 * The generated demo estate: a deterministic function of the seed and the sizes, in which every
 * reference resolves (a VM's host is in its cluster, its root volume is among its volumes, a
 * snapshot ref names a volume of the group's VM, an email address belongs to an Email endpoint).
 */
import { buildCatalogue, buildHost, buildLuns, buildTopology } from './infrastructure.js';
import { buildDirectories, buildSns } from './services.js';
import { buildCbtTasks, buildFreeVolumes, buildSnapshotGroups, buildVm } from './workloads.js';
import { TenantDraft, type EstateSize } from './draft.js';
import type { Tenant } from '../model.js';
import type { TenantOverrides } from '../options.js';
import { createRandom, Dice, mixSeed } from '../random.js';
import type { SimulatorStore } from '../store.js';

export type { EstateSize } from './draft.js';

/** The two tenants: fixed values where given, else derived from the seed. */
export function deriveTenants(seed: number, first: TenantOverrides = {}, second: TenantOverrides = {}): Tenant[] {
  const dice = new Dice(createRandom(mixSeed(seed, 0)));
  return [first, second].map((overrides) => {
    const accountUuid = dice.uuid();
    const session = dice.uuid();
    const token = `simtok-${dice.hex(40)}`;
    const id = `tenant-${dice.hex(8)}`;
    return {
      id: overrides.tenantId ?? id,
      accountUuid,
      session: overrides.session ?? session,
      token: overrides.token ?? token,
    };
  });
}

/** The second tenant's size: a tenth of the first, at least 2 hosts and 5 VMs. */
export function secondTenantSize(size: EstateSize): EstateSize {
  return { hosts: Math.max(2, Math.round(size.hosts / 10)), vms: Math.max(5, Math.round(size.vms / 10)) };
}

/** Fills `store` with `tenants[0]`'s estate of `size` and `tenants[1]`'s of a tenth. */
export function generateEstate(store: SimulatorStore, seed: number, size: EstateSize, tenants: readonly Tenant[]): void {
  store.tenants.splice(0, store.tenants.length, ...tenants);
  const drawn = new Set<string>(tenants.flatMap((tenant) => [tenant.session, tenant.accountUuid]));
  tenants.forEach((tenant, index) => {
    const tenantSize = index === 0 ? size : secondTenantSize(size);
    const dice = new Dice(createRandom(mixSeed(seed, index + 1)), drawn);
    // A stream of its own for the records added later (offerings, tags), so that a seed's other
    // records stay what they were before them.
    const catalogue = new Dice(createRandom(mixSeed(seed, CATALOGUE_STREAM + index)), drawn);
    buildTenant(new TenantDraft(store, tenant, dice, catalogue, tenantSize, index));
  });
}

/** The first PRNG stream of the tenants' catalogues (offerings, tags); streams 0..2 are the tenants'. */
const CATALOGUE_STREAM = 100;

/** Draws one tenant's records, part by part: the order is the order of the draws, so of a seed's estate. */
function buildTenant(draft: TenantDraft): void {
  buildTopology(draft);
  buildCatalogue(draft);
  for (let i = 0; i < draft.size.hosts; i++) buildHost(draft, i);
  buildLuns(draft);
  const roleCounters = new Map<string, number>();
  for (let i = 0; i < draft.size.vms; i++) buildVm(draft, roleCounters);
  buildFreeVolumes(draft);
  buildSnapshotGroups(draft);
  buildCbtTasks(draft);
  buildSns(draft);
  buildDirectories(draft);
}
