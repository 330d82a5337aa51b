import { graphql } from '../gql';

/** The operations dashboard: each host's health and capacity, and the VMs it runs. */
export const DashboardQuery = graphql(/* GraphQL */ `
  query Dashboard($hosts: Int = 20, $vmsPerHost: Int = 10) {
    hosts(first: $hosts) {
      totalCount
      nodes {
        id
        name
        state
        status
        managementIp
        cpuStatus
        memoryStatus
        diskStatus
        availableMemoryCapacity
        totalMemoryCapacity
        vmInstances(first: $vmsPerHost) {
          totalCount
          nodes {
            ...VmSummary
          }
        }
      }
    }
  }
`);
