import { graphql } from '../gql';

/** The VM list, a page at a time: pass the last page's `pageInfo.endCursor` as `$after` for the next. */
export const VmListQuery = graphql(/* GraphQL */ `
  query VmList($first: Int!, $after: String, $filter: VmInstanceFilter) {
    vmInstances(first: $first, after: $after, filter: $filter, orderBy: { field: NAME }) {
      totalCount
      edges {
        cursor
        node {
          host {
            id
            name
          }
          ...VmSummary
        }
      }
      pageInfo {
        endCursor
        hasNextPage
      }
    }
  }
`);
