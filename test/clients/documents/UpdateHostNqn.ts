import { graphql } from '../gql';

/** The host form's save: the job that carried it out, the host as it is now, and the upstream's error when it failed. */
export const UpdateHostNqnMutation = graphql(/* GraphQL */ `
  mutation UpdateHostNqn($input: UpdateHostNqnInput!) {
    updateHostNqn(input: $input) {
      clientMutationId
      job {
        id
        status
      }
      host {
        id
        nqn
      }
      error {
        code
        description
      }
    }
  }
`);
