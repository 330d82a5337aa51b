/**
 * The baseline the gateway is measured against: a hand-written REST client for the dashboard,
 * optimally batched. It makes the same upstream calls the gateway makes (one CursorQuery for the
 * page of VMs, one CursorQuery for their hosts by uuid, one QueryHBADevice by host uuid, one
 * QueryVolumeSnapshotGroup by VM uuid) over undici, running the last three in parallel (the
 * VMs already name their hosts, so HBAs need not wait for the hosts), and shapes the answer
 * exactly as the gateway's JSON.
 */
import { Agent, request } from 'undici';
import { ORDER_FIELDS, type DashboardResult, type DashboardVm } from './dashboard.js';

/** Credentials as the caller sent them (the three headers of docs/reference/api-promise.md#credentials). */
export interface DirectCredentials {
  authorization: string;
  cursorAuthorization: string;
  tenantId: string | undefined;
}

interface CursorPage<T> {
  items: T[];
  total: number;
  nextCursor: string | null;
  hasMore: boolean;
}

interface QueryPage<T> {
  inventories: T[];
  total?: number;
}

interface RawVm {
  uuid: string;
  name?: string;
  state?: string;
  hostUuid?: string | null;
  rootVolumeUuid?: string | null;
  allVolumes?: { uuid: string; size?: number; type?: string }[];
  vmNics?: { uuid: string; ip?: string; driverType?: string; usedIps?: { ip?: string }[] }[];
}

interface RawHost {
  uuid: string;
  name?: string;
  managementIp?: string;
}

interface RawHba {
  uuid: string;
  hostUuid?: string;
  portName?: string;
}

interface RawSnapshotGroup {
  uuid: string;
  name?: string;
  vmInstanceUuid?: string;
  snapshotCount?: number;
}

const PAGE = 1000;
const NIC_DRIVERS = new Map([
  ['virtio', 'VIRTIO'],
  ['e1000', 'E1000'],
  ['rtl8139', 'RTL8139'],
]);
const VOLUME_TYPES = new Map([
  ['Root', 'ROOT'],
  ['Data', 'DATA'],
]);

/** The upstream's spelling of a filter value the GraphQL document gives as an enum name (`LINUX` → `Linux`). */
const UPSTREAM_VALUES: Readonly<Record<string, ReadonlyMap<string, string>>> = {
  platform: new Map([
    ['WINDOWS', 'Windows'],
    ['LINUX', 'Linux'],
    ['OTHER', 'Other'],
  ]),
  architecture: new Map([
    ['X86_64', 'x86_64'],
    ['AARCH64', 'aarch64'],
    ['OTHER', 'Other'],
  ]),
  state: new Map([
    ['RUNNING', 'Running'],
    ['STOPPED', 'Stopped'],
    ['DESTROYED', 'Destroyed'],
  ]),
};

/** The distinct-dashboards scenario's variables, as the GraphQL document has them. */
export interface DirectFilter {
  filter?: Record<string, string> | null | undefined;
  orderBy?: { field: string; direction?: string } | null | undefined;
}

export interface DirectClient {
  dashboard(credentials: DirectCredentials, filter?: DirectFilter): Promise<DashboardResult>;
  close(): Promise<void>;
}

/** `upstreamUrl` is the resource family's `{base_url}`; the cursor family is at its origin. */
export function createDirectClient(upstreamUrl: string, connections = 32): DirectClient {
  const resourceBase = new URL('svc/v1/', upstreamUrl.endsWith('/') ? upstreamUrl : `${upstreamUrl}/`);
  const cursorBase = new URL('/api/v1/resources/', upstreamUrl);
  const agent = new Agent({ connections, keepAliveTimeout: 30_000 });

  async function getJson<T>(url: URL, headers: Record<string, string>): Promise<T> {
    const response = await request(url, { dispatcher: agent, headers: { accept: 'application/json', ...headers } });
    if (response.statusCode !== 200) {
      const text = await response.body.text();
      throw new Error(`${url.pathname} answered ${response.statusCode}: ${text.slice(0, 200)}`);
    }
    return (await response.body.json()) as T;
  }

  function cursorHeaders(credentials: DirectCredentials): Record<string, string> {
    return {
      authorization: credentials.cursorAuthorization,
      ...(credentials.tenantId ? { 'x-tenant-id': credentials.tenantId } : {}),
    };
  }

  async function cursorQuery<T>(credentials: DirectCredentials, params: URLSearchParams, all: boolean): Promise<CursorPage<T>> {
    const headers = cursorHeaders(credentials);
    const first = await getJson<CursorPage<T>>(new URL(`cursor-query?${params}`, cursorBase), headers);
    const items = [...first.items];
    let page = first;
    while (all && page.hasMore && page.nextCursor) {
      const next = new URLSearchParams({ cursor: page.nextCursor, pageSize: String(PAGE) });
      page = await getJson<CursorPage<T>>(new URL(`cursor-next?${next}`, cursorBase), headers);
      items.push(...page.items);
    }
    return { ...first, items };
  }

  async function queryWhereIn<T>(credentials: DirectCredentials, path: string, field: string, values: string[]): Promise<T[]> {
    if (values.length === 0) return [];
    const records: T[] = [];
    for (;;) {
      const params = new URLSearchParams({
        q: values.length === 1 ? `${field}=${values[0]}` : `${field}?=${values.join(',')}`,
        limit: String(PAGE),
        start: String(records.length),
        replyWithCount: 'true',
      });
      const page = await getJson<QueryPage<T>>(new URL(`${path}?${params}`, resourceBase), { authorization: credentials.authorization });
      records.push(...page.inventories);
      if (page.inventories.length === 0 || records.length >= (page.total ?? records.length)) return records;
    }
  }

  async function dashboard(credentials: DirectCredentials, filter: DirectFilter = {}): Promise<DashboardResult> {
    const vmParams = new URLSearchParams({ resourceType: 'vm' });
    if (filter.orderBy) {
      vmParams.set('sort', ORDER_FIELDS[filter.orderBy.field] ?? filter.orderBy.field);
      vmParams.set('order', (filter.orderBy.direction ?? 'ASC').toLowerCase());
    }
    vmParams.set('pageSize', '50');
    for (const [field, value] of Object.entries(filter.filter ?? {})) vmParams.append('filter', `${field}:eq:${UPSTREAM_VALUES[field]?.get(value) ?? value}`);
    const vmPage = await cursorQuery<RawVm>(credentials, vmParams, false);
    const vms = vmPage.items;
    const hostUuids = distinct(vms.map((vm) => vm.hostUuid));
    const hostFilter = new URLSearchParams({ resourceType: 'host', pageSize: String(PAGE) });
    hostFilter.append('filter', hostUuids.length === 1 ? `uuid:eq:${hostUuids[0]}` : `uuid:in:${hostUuids.join(',')}`);
    const [hosts, hbas, groups] = await Promise.all([
      hostUuids.length > 0 ? cursorQuery<RawHost>(credentials, hostFilter, true).then((page) => page.items) : [],
      queryWhereIn<RawHba>(credentials, 'storage-devices/hba', 'hostUuid', hostUuids),
      queryWhereIn<RawSnapshotGroup>(
        credentials,
        'volume-snapshots/group',
        'vmInstanceUuid',
        vms.map((vm) => vm.uuid),
      ),
    ]);
    const hostByUuid = new Map(hosts.map((host) => [host.uuid, host]));
    const hbasByHost = groupBy(hbas, (hba) => hba.hostUuid);
    const groupsByVm = groupBy(groups, (group) => group.vmInstanceUuid);

    const nodes = vms.map((vm): DashboardVm => {
      const host = vm.hostUuid ? hostByUuid.get(vm.hostUuid) : undefined;
      const hostHbas = host ? (hbasByHost.get(host.uuid) ?? []) : [];
      const vmGroups = groupsByVm.get(vm.uuid) ?? [];
      const volumes = vm.allVolumes ?? [];
      const root = volumes.find((volume) => volume.uuid === vm.rootVolumeUuid);
      return {
        uuid: vm.uuid,
        name: vm.name ?? null,
        // As VmState names it: the upstream's states are single words (`Running` is `RUNNING`).
        state: vm.state?.toUpperCase() ?? null,
        host: host
          ? {
              uuid: host.uuid,
              name: host.name ?? null,
              managementIp: host.managementIp ?? null,
              hbaDevices: {
                totalCount: hostHbas.length,
                nodes: hostHbas.slice(0, 10).map((hba) => ({ uuid: hba.uuid, portName: hba.portName ?? null })),
              },
            }
          : null,
        rootVolume: root ? { uuid: root.uuid, size: root.size ?? null } : vm.rootVolumeUuid ? { uuid: vm.rootVolumeUuid, size: null } : null,
        volumes: volumes.map((volume) => ({ uuid: volume.uuid, size: volume.size ?? null, type: VOLUME_TYPES.get(volume.type ?? '') ?? null })),
        nics: (vm.vmNics ?? []).map((nic) => ({
          uuid: nic.uuid,
          ip: nic.ip ?? null,
          driverType: NIC_DRIVERS.get(nic.driverType?.toLowerCase() ?? '') ?? null,
          usedIps: (nic.usedIps ?? []).map((usedIp) => ({ ip: usedIp.ip ?? null })),
        })),
        snapshotGroups: {
          totalCount: vmGroups.length,
          nodes: vmGroups.slice(0, 5).map((group) => ({ uuid: group.uuid, name: group.name ?? null, snapshotCount: group.snapshotCount ?? null })),
        },
      };
    });
    return { data: { vmInstances: { totalCount: vmPage.total, nodes } } };
  }

  return { dashboard, close: () => agent.close() };
}

function distinct(values: (string | null | undefined)[]): string[] {
  return [...new Set(values.filter((value): value is string => typeof value === 'string' && value !== ''))];
}

function groupBy<T>(items: T[], keyOf: (item: T) => string | undefined): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    if (key === undefined) continue;
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}
