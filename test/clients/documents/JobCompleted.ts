import { graphql } from '../gql';

/** Follows a job started with `input: { async: true }` until it finishes. */
export const JobCompletedSubscription = graphql(/* GraphQL */ `
  subscription JobCompleted($id: ID!) {
    jobCompleted(id: $id) {
      id
      operation
      status
      finishedAt
      error {
        code
        description
      }
    }
  }
`);
