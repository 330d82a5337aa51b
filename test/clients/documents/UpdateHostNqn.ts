import { graphql } from '../gql';

/**
 * The host form's save: how it stands, what to show next to the fields when it failed, the job
 * that carried it out, and the host as it is now.
 */
export const UpdateHostNqnMutation = graphql(/* GraphQL */ `
  mutation UpdateHostNqn($input: UpdateHostNqnInput!) {
    updateHostNqn(input: $input) {
      clientMutationId
      status
      userErrors {
        message
        field
        code
      }
      job {
        id
        status
      }
      host {
        id
        nqn
      }
    }
  }
`);
