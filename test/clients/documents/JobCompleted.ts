import { graphql } from '../gql';

/** Follows a job started with `input: { async: true }` until it finishes, with what went wrong if it failed. */
export const JobCompletedSubscription = graphql(/* GraphQL */ `
  subscription JobCompleted($id: ID!) {
    jobCompleted(id: $id) {
      id
      operation
      status
      finishedAt
      payload {
        ... on WritePayload {
          userErrors {
            code
            message
          }
        }
      }
    }
  }
`);
