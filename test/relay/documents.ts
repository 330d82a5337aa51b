/**
 * Relay documents for `test/e2e/relay.test.ts`, compiled by relay-compiler against the committed SDL
 * (`npm run relay` writes `__generated__/`; the test checks the artifacts are current). Never
 * imported at run time: without Relay's Babel plugin, `graphql` only marks text for the compiler.
 */
import { graphql } from 'relay-runtime';

export const hostsPage = graphql`
  query documentsHostsPageQuery($first: Int!, $after: String) {
    hosts(first: $first, after: $after) {
      edges {
        cursor
        node {
          id
          uuid
          name
          nqn
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`;

// @refetchable needs what Relay needs of a schema: the Node interface and `node(id:)`.
export const hostFragment = graphql`
  fragment documents_host on Host @refetchable(queryName: "documentsHostRefetchQuery") {
    id
    name
    nqn
  }
`;

export const hostsConnection = graphql`
  fragment documents_hosts on Query
  @refetchable(queryName: "documentsHostsPaginationQuery")
  @argumentDefinitions(first: { type: "Int!" }, after: { type: "String" }) {
    hosts(first: $first, after: $after) @connection(key: "documents_hosts") {
      edges {
        node {
          id
          ...documents_host
        }
      }
    }
  }
`;

export const updateNqn = graphql`
  mutation documentsUpdateNqnMutation($input: UpdateHostNqnInput!) {
    updateHostNqn(input: $input) {
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
`;

export const jobEvents = graphql`
  subscription documentsJobEventsSubscription {
    jobEvents {
      id
      status
    }
  }
`;

export const cbtTasks = graphql`
  query documentsCbtTasksQuery {
    cbtTasks(first: 100) {
      nodes {
        id
        uuid
        name
      }
    }
  }
`;

// `@deleteRecord` removes the record whose global id the field answers from the store.
export const deleteCbtTask = graphql`
  mutation documentsDeleteCbtTaskMutation($input: DeleteCbtTaskInput!) {
    deleteCbtTask(input: $input) {
      status
      userErrors {
        code
        field
        message
      }
      deletedCbtTaskId @deleteRecord
    }
  }
`;
