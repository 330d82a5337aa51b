import { graphql } from '../gql';

/** The host health wall: a live query, re-sent by the server whenever a host changes. */
export const LiveHostsQuery = graphql(/* GraphQL */ `
  query LiveHosts @live {
    hosts(first: 100) {
      nodes {
        id
        name
        status
        cpuStatus
        memoryStatus
        powerSupplyStatus
      }
    }
  }
`);
