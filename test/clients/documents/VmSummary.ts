import { graphql } from '../gql';

/** One VM as a row of the dashboard and of the VM list: its placement, its volumes and its NICs. */
export const VmSummaryFragment = graphql(/* GraphQL */ `
  fragment VmSummary on VmInstance {
    id
    uuid
    name
    state
    cpuNum
    memorySize
    lastOpDate
    volumes {
      id
      name
      type
      size
      actualSize
    }
    nics {
      id
      ip
      mac
      driverType
    }
  }
`);
