/**
 * The simulator's in-memory state: one `Table` per record kind, each a `Map<uuid, record>`
 * partitioned by tenant, with secondary indexes on the reference fields the handlers look up
 * by (a VM's volumes, a host's NICs, ...) and, built on first use, a sorted index per tenant and
 * field a page is ordered by (`order-index.ts`), so that a page costs what it returns whatever the
 * size of the estate.
 */
import type { Host, HostBonding, HostNic, Owned, RecordKind, RecordKinds, Tenant, VmInstance, VmNic, Volume } from './model.js';
import { WireFormat, type WireSource } from './wire.js';
import { OrderIndex } from './order-index.js';
import type { Condition, FieldTypes } from './query.js';
import { NEWEST_RELEASE } from '../upstream/releases.js';

/** Records of one kind, by uuid and by tenant, with equality indexes on chosen fields. */
export class Table<T extends Owned> {
  private readonly byUuid = new Map<string, T>();
  private readonly byTenant = new Map<string, Map<string, T>>();
  private readonly indexes = new Map<keyof T, Map<unknown, Map<string, T>>>();
  /** Sorted indexes by field, then tenant; each built when a page first asks for its order. */
  private readonly orders = new Map<string, Map<string, OrderIndex<T>>>();
  /** Each record's place in insertion order, the order unsorted answers keep. */
  private readonly sequence = new Map<string, number>();
  private nextSequence = 0;

  constructor(indexedFields: readonly (keyof T)[] = []) {
    for (const field of indexedFields) this.indexes.set(field, new Map());
  }

  /** The tenant's record with this uuid; another tenant's record is invisible. */
  get(tenantId: string, uuid: string): T | undefined {
    const record = this.byUuid.get(uuid);
    return record !== undefined && record.tenantId === tenantId ? record : undefined;
  }

  /** Any tenant's record (for the simulator's own bookkeeping, never for answering a caller). */
  getAny(uuid: string): T | undefined {
    return this.byUuid.get(uuid);
  }

  has(uuid: string): boolean {
    return this.byUuid.has(uuid);
  }

  /** The tenant's records in insertion order. */
  list(tenantId: string): IterableIterator<T> {
    return (this.byTenant.get(tenantId) ?? new Map<string, T>()).values();
  }

  count(tenantId: string): number {
    return this.byTenant.get(tenantId)?.size ?? 0;
  }

  /** Every tenant's records. */
  all(): IterableIterator<T> {
    return this.byUuid.values();
  }

  /** The tenant's records whose indexed `field` equals `value`. */
  by<K extends keyof T>(field: K, value: T[K], tenantId: string): T[] {
    const index = this.indexes.get(field);
    if (index === undefined) throw new Error(`field ${String(field)} is not indexed`);
    const bucket = index.get(value);
    if (bucket === undefined) return [];
    const found: T[] = [];
    for (const record of bucket.values()) if (record.tenantId === tenantId) found.push(record);
    return found;
  }

  /** The tenant's records sorted by `field` (then uuid), kept so through every insert, delete and update. */
  ordered(tenantId: string, field: string): OrderIndex<T> {
    let byTenant = this.orders.get(field);
    if (byTenant === undefined) {
      byTenant = new Map();
      this.orders.set(field, byTenant);
    }
    let index = byTenant.get(tenantId);
    if (index === undefined || index.stale) {
      index = new OrderIndex(field, this.list(tenantId));
      byTenant.set(tenantId, index);
    }
    return index;
  }

  /**
   * The tenant's records that can meet `conditions`, in insertion order, read from an index: the
   * smallest set named by an `eq`/`in` condition on `uuid` or on an indexed string field. Null
   * when no condition is one of those (the caller scans). A superset: the caller still applies
   * every condition.
   */
  candidates(tenantId: string, conditions: readonly Condition[], fields: FieldTypes): T[] | null {
    let best: Map<string, T> | null = null;
    for (const condition of conditions) {
      if (condition.op !== 'eq' && condition.op !== 'in') continue;
      const index = this.indexes.get(condition.field as keyof T);
      if (condition.field !== 'uuid' && (index === undefined || fields[condition.field] !== 'string')) continue;
      const found = new Map<string, T>();
      for (const value of condition.values) {
        if (index === undefined) {
          const record = this.get(tenantId, value);
          if (record !== undefined) found.set(record.uuid, record);
          continue;
        }
        for (const record of index.get(value)?.values() ?? []) if (record.tenantId === tenantId) found.set(record.uuid, record);
      }
      if (best === null || found.size < best.size) best = found;
    }
    if (best === null) return null;
    const order = (record: T): number => this.sequence.get(record.uuid) ?? 0;
    return [...best.values()].sort((a, b) => order(a) - order(b));
  }

  /** Adds (or replaces) a record. */
  insert(record: T): T {
    if (this.byUuid.has(record.uuid)) this.delete(record.uuid);
    this.byUuid.set(record.uuid, record);
    this.sequence.set(record.uuid, this.nextSequence++);
    for (const byTenant of this.orders.values()) byTenant.get(record.tenantId)?.add(record);
    let tenantRecords = this.byTenant.get(record.tenantId);
    if (tenantRecords === undefined) {
      tenantRecords = new Map();
      this.byTenant.set(record.tenantId, tenantRecords);
    }
    tenantRecords.set(record.uuid, record);
    for (const [field, index] of this.indexes) addToIndex(index, record[field], record);
    return record;
  }

  /** Removes a record; false when there was none. */
  delete(uuid: string): boolean {
    const record = this.byUuid.get(uuid);
    if (record === undefined) return false;
    this.byUuid.delete(uuid);
    this.sequence.delete(uuid);
    this.byTenant.get(record.tenantId)?.delete(uuid);
    for (const byTenant of this.orders.values()) byTenant.get(record.tenantId)?.remove(record);
    for (const [field, index] of this.indexes) removeFromIndex(index, record[field], record.uuid);
    return true;
  }

  /** Changes fields of a stored record in place, keeping the indexes right. */
  update(record: T, patch: Partial<T>): T {
    const stored = this.byUuid.get(record.uuid) === record;
    for (const key of Object.keys(patch) as (keyof T)[]) {
      const index = this.indexes.get(key);
      const order = stored ? this.orders.get(key as string)?.get(record.tenantId) : undefined;
      if (stored && index !== undefined) removeFromIndex(index, record[key], record.uuid);
      order?.remove(record);
      record[key] = patch[key] as T[keyof T];
      if (stored && index !== undefined) addToIndex(index, record[key], record);
      order?.add(record);
    }
    return record;
  }

  clear(): void {
    this.byUuid.clear();
    this.byTenant.clear();
    this.sequence.clear();
    this.orders.clear();
    for (const index of this.indexes.values()) index.clear();
  }
}

function addToIndex<T extends Owned>(index: Map<unknown, Map<string, T>>, value: unknown, record: T): void {
  if (value === null || value === undefined) return;
  let bucket = index.get(value);
  if (bucket === undefined) {
    bucket = new Map();
    index.set(value, bucket);
  }
  bucket.set(record.uuid, record);
}

function removeFromIndex<T>(index: Map<unknown, Map<string, T>>, value: unknown, uuid: string): void {
  if (value === null || value === undefined) return;
  const bucket = index.get(value);
  if (bucket === undefined) return;
  bucket.delete(uuid);
  if (bucket.size === 0) index.delete(value);
}

/** All of the simulator's state. Handlers receive it; `estate/` fills it. */
export class SimulatorStore implements WireSource {
  /** The accounts the simulator knows; `tenants[0]` is the first (larger) tenant. */
  readonly tenants: Tenant[] = [];

  /** IANA zone in which timestamps are written on the wire (`wire.ts`). */
  timeZone = 'UTC';
  /** The upstream release the simulator plays (`SIM_VERSION`): the wire leaves out newer fields. */
  release: string = NEWEST_RELEASE;

  /** Serializers to the wire records (timestamps in `timeZone`). */
  readonly wire: WireFormat = new WireFormat(this);

  /** Every table, by record kind, with the fields it keeps an equality index on. */
  private readonly tables: { readonly [K in RecordKind]: Table<RecordKinds[K]> } = {
    zone: new Table(),
    cluster: new Table(['zoneUuid']),
    primaryStorage: new Table(['zoneUuid']),
    l3Network: new Table(['zoneUuid']),
    instanceOffering: new Table(),
    tag: new Table(),
    host: new Table(['clusterUuid', 'zoneUuid']),
    bonding: new Table(['hostUuid']),
    hostNic: new Table(['hostUuid', 'bondingUuid']),
    blockDevice: new Table(['hostUuid']),
    sensor: new Table(['hostUuid']),
    hba: new Table(['hostUuid']),
    lun: new Table(),
    vm: new Table(['hostUuid', 'clusterUuid']),
    volume: new Table(['vmInstanceUuid', 'primaryStorageUuid']),
    snapshotGroup: new Table(['vmInstanceUuid']),
    cbtTask: new Table(['vmInstanceUuid']),
    snsPlatform: new Table(),
    snsEndpoint: new Table(['platformUuid']),
    snsEmail: new Table(['endpointUuid']),
    directory: new Table(['parentUuid']),
  };

  readonly zones = this.tables.zone;
  readonly clusters = this.tables.cluster;
  readonly primaryStorages = this.tables.primaryStorage;
  readonly l3Networks = this.tables.l3Network;
  readonly instanceOfferings = this.tables.instanceOffering;
  readonly tags = this.tables.tag;
  readonly hosts = this.tables.host;
  readonly bondings = this.tables.bonding;
  readonly hostNics = this.tables.hostNic;
  readonly blockDevices = this.tables.blockDevice;
  readonly sensors = this.tables.sensor;
  readonly hbas = this.tables.hba;
  readonly luns = this.tables.lun;
  readonly vms = this.tables.vm;
  readonly volumes = this.tables.volume;
  readonly snapshotGroups = this.tables.snapshotGroup;
  readonly cbtTasks = this.tables.cbtTask;
  readonly snsPlatforms = this.tables.snsPlatform;
  readonly snsEndpoints = this.tables.snsEndpoint;
  readonly snsEmails = this.tables.snsEmail;
  readonly directories = this.tables.directory;

  /** VM NIC uuid → VM uuid; rebuilt when stale, so writers may edit `vm.vmNics` directly. */
  private nicOwners = new Map<string, string>();

  /** The table of a record kind. */
  table<K extends RecordKind>(kind: K): Table<RecordKinds[K]> {
    return this.tables[kind];
  }

  /** Further sessions and bearer tokens of the tenants (`POST /__sim/sessions`): several logins of one account. */
  readonly extraSessions = new Map<string, Tenant>();
  readonly extraTokens = new Map<string, Tenant>();

  tenantBySession(session: string): Tenant | undefined {
    return this.tenants.find((tenant) => tenant.session === session) ?? this.extraSessions.get(session);
  }

  tenantByToken(token: string): Tenant | undefined {
    return this.tenants.find((tenant) => tenant.token === token) ?? this.extraTokens.get(token);
  }

  tenantById(id: string): Tenant | undefined {
    return this.tenants.find((tenant) => tenant.id === id);
  }

  /** A VM's allVolumes: its attached volumes by `deviceId` (the boot volume, device 0, first). */
  volumesOfVm(vm: VmInstance): Volume[] {
    return this.volumes.by('vmInstanceUuid', vm.uuid, vm.tenantId).sort(compareByDevice);
  }

  /** A bond's slaves: the NICs whose `bondingUuid` is the bond. */
  slavesOfBond(bond: HostBonding): HostNic[] {
    return this.hostNics.by('bondingUuid', bond.uuid, bond.tenantId);
  }

  /** A host's bond slaves and plain NICs. */
  nicsOfHost(host: Host): HostNic[] {
    return this.hostNics.by('hostUuid', host.uuid, host.tenantId);
  }

  /** The tenant's VM NIC with this uuid and the VM that holds it. */
  findVmNic(tenantId: string, nicUuid: string): { vm: VmInstance; nic: VmNic } | undefined {
    const found = this.lookUpNic(nicUuid);
    if (found !== undefined) return found.vm.tenantId === tenantId ? found : undefined;
    this.rebuildNicOwners();
    const rebuilt = this.lookUpNic(nicUuid);
    return rebuilt !== undefined && rebuilt.vm.tenantId === tenantId ? rebuilt : undefined;
  }

  private lookUpNic(nicUuid: string): { vm: VmInstance; nic: VmNic } | undefined {
    const vmUuid = this.nicOwners.get(nicUuid);
    if (vmUuid === undefined) return undefined;
    const vm = this.vms.getAny(vmUuid);
    const nic = vm?.vmNics.find((candidate) => candidate.uuid === nicUuid);
    return vm !== undefined && nic !== undefined ? { vm, nic } : undefined;
  }

  private rebuildNicOwners(): void {
    const owners = new Map<string, string>();
    for (const vm of this.vms.all()) for (const nic of vm.vmNics) owners.set(nic.uuid, vm.uuid);
    this.nicOwners = owners;
  }

  /** Empties every table (tenants stay). */
  clear(): void {
    for (const table of Object.values(this.tables)) table.clear();
    this.nicOwners.clear();
  }
}

function compareByDevice(a: Volume, b: Volume): number {
  const da = a.deviceId ?? Number.MAX_SAFE_INTEGER;
  const db = b.deviceId ?? Number.MAX_SAFE_INTEGER;
  if (da !== db) return da - db;
  return a.createDate.getTime() - b.createDate.getTime() || (a.uuid < b.uuid ? -1 : 1);
}
