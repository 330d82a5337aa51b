/** What GraphiQL opens with at `/graphql` in a browser: a dashboard query and, for the demo, working credentials. */
import type { SimulatorCredentials } from './simulator/server.js';

const DEFAULT_QUERY = /* GraphQL */ `# The gateway federates the resource API and the generic cursor family.
# Credentials go in the Headers tab below (already filled in for the embedded simulator).
query Dashboard {
  vmInstances(first: 5) {
    totalCount
    nodes {
      name
      state
      host { name managementIp cpuStatus }
      rootVolume { name size }
      nics { ip mac driverType }
      snapshotGroups(first: 3) { totalCount nodes { name snapshotCount } }
    }
  }
}
`;

/** GraphiQL's options; `demoCredentials` (the embedded simulator's, never a real upstream's) fill its Headers tab. */
export function graphiqlOptions(demoCredentials: SimulatorCredentials | undefined): { title: string; defaultQuery: string; headers: string } {
  const headers = demoCredentials
    ? {
        Authorization: `OAuth ${demoCredentials.session}`,
        'X-Resources-Authorization': `Bearer ${demoCredentials.token}`,
        'X-Tenant-ID': demoCredentials.tenantId,
      }
    : {};
  return { title: 'Infrastructure GraphQL gateway', defaultQuery: DEFAULT_QUERY, headers: JSON.stringify(headers, null, 2) };
}
