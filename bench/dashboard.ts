/**
 * The dashboard every scenario measures: 50 VMs with their host (and its HBA devices), root
 * volume, volumes, NICs and snapshot groups, as in `test/schema/batching.test.ts`.
 */
export const DASHBOARD_QUERY = /* GraphQL */ `
  query Dashboard {
    vmInstances(first: 50) {
      totalCount
      nodes {
        uuid name state
        host { uuid name managementIp hbaDevices(first: 10) { totalCount nodes { uuid portName } } }
        rootVolume { uuid size }
        volumes { uuid size type }
        nics { uuid ip driverType usedIps { ip } }
        snapshotGroups(first: 5) { totalCount nodes { uuid name snapshotCount } }
      }
    }
  }
`;

/**
 * Whether an answer under load is the dashboard's data with no GraphQL error (the gateway and the
 * direct client both answer `{"data":...}`): a GraphQL error comes with status 200 and would
 * otherwise count as a fast success.
 */
export function isDashboardData(body: string): boolean {
  return body.startsWith('{"data":{"vmInstances":{') && !body.includes('"errors":');
}

/** The JSON body a GraphQL client POSTs for the dashboard. */
export const DASHBOARD_BODY = JSON.stringify({ query: DASHBOARD_QUERY, operationName: 'Dashboard' });

/**
 * The same dashboard with its VM page filtered and sorted by variables: each client of the
 * distinct scenario sends its own pair, and every pair still selects a full page of 50 VMs.
 */
export const DISTINCT_DASHBOARD_QUERY = DASHBOARD_QUERY.replace('query Dashboard {', 'query Dashboard($filter: VmInstanceFilter, $orderBy: VmInstanceOrder) {').replace(
  'vmInstances(first: 50)',
  'vmInstances(first: 50, filter: $filter, orderBy: $orderBy)',
);

/** Filters that each leave hundreds of the bench estate's VMs, and the sort keys the API offers (GraphQL name, wire name). */
// Enum-valued keys take the GraphQL enum's names (the direct client spells them as the upstream does).
const DISTINCT_FILTERS: readonly Record<string, string>[] = [{}, { state: 'RUNNING' }, { state: 'STOPPED' }, { platform: 'LINUX' }, { architecture: 'X86_64' }];
export const ORDER_FIELDS: Readonly<Record<string, string>> = {
  CPU_NUM: 'cpuNum',
  CREATE_DATE: 'createDate',
  LAST_OP_DATE: 'lastOpDate',
  MEMORY_SIZE: 'memorySize',
  NAME: 'name',
  STATE: 'state',
};

/** `count` distinct bodies of the dashboard (at most 60): every sort key and direction, with each filter in turn. */
export function distinctDashboardBodies(count: number): string[] {
  const orders = Object.keys(ORDER_FIELDS).flatMap((field) => ['ASC', 'DESC'].map((direction) => ({ field, direction })));
  const bodies: string[] = [];
  for (let index = 0; index < count && index < orders.length * DISTINCT_FILTERS.length; index++) {
    const variables = { orderBy: orders[index % orders.length], filter: DISTINCT_FILTERS[Math.floor(index / orders.length)] };
    bodies.push(JSON.stringify({ query: DISTINCT_DASHBOARD_QUERY, operationName: 'Dashboard', variables }));
  }
  return bodies;
}

export interface DashboardVm {
  uuid: string;
  name: string | null;
  state: string | null;
  host: {
    uuid: string;
    name: string | null;
    managementIp: string | null;
    hbaDevices: { totalCount: number; nodes: { uuid: string; portName: string | null }[] };
  } | null;
  rootVolume: { uuid: string; size: number | null } | null;
  volumes: { uuid: string; size: number | null; type: string | null }[];
  nics: { uuid: string; ip: string | null; driverType: string | null; usedIps: { ip: string | null }[] }[];
  snapshotGroups: { totalCount: number; nodes: { uuid: string; name: string | null; snapshotCount: number | null }[] };
}

export interface DashboardResult {
  data: { vmInstances: { totalCount: number; nodes: DashboardVm[] } };
}
