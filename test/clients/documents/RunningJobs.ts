import { graphql } from '../gql';

/** A dashboard reloaded while a write runs finds its jobs again. */
export const RunningJobsQuery = graphql(/* GraphQL */ `
  query RunningJobs($after: String) {
    jobs(first: 20, after: $after, status: RUNNING) {
      totalCount
      nodes {
        id
        operation
        createdAt
      }
      pageInfo {
        endCursor
        hasNextPage
      }
    }
  }
`);
