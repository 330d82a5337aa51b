/**
 * The dashboard every scenario measures: 50 VMs with their host (and its HBA devices), root
 * volume, volumes, NICs and snapshot groups, as in `test/schema-batching.test.ts`.
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

/** The JSON body a GraphQL client POSTs for the dashboard. */
export const DASHBOARD_BODY = JSON.stringify({ query: DASHBOARD_QUERY, operationName: 'Dashboard' });

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
