/**
 * The example tabs GraphiQL opens with at `/graphql`: one real task each, with comments saying
 * what it shows and what to change. The texts live here alone, apart from how the page is served,
 * so that a change of the API is a change of this file (`test/graphiql/examples.test.ts` runs
 * every tab against the demo in a browser).
 *
 * Tabs do not share values: where one needs a value another answers (a job id, a cursor), its
 * comments say which tab and which field.
 */

/**
 * The records the tabs name. On the demo they are picked from its data when the page is served
 * (`pickExampleValues`); any left undefined becomes a placeholder that the tab says how to fill.
 */
export interface ExampleValues {
  /** A host that sees fibre-channel LUNs. */
  readonly hostUuid?: string;
  /** A volume snapshot group: the write tab sets its description, which changes nothing else. */
  readonly snapshotGroupUuid?: string;
  /** A VM's global id, for `node(id:)`. */
  readonly vmId?: string;
}

/** One tab: GraphiQL titles it with its operation's name. */
export interface ExampleTab {
  readonly query: string;
  /** The variables editor's text: JSON with `//` comments, which GraphiQL accepts. */
  readonly variables?: string;
}

/** What a new tab (the `+` button) opens with. */
export const NEW_TAB_QUERY = /* GraphQL */ `# A new tab. Type a query (Ctrl-Space completes), or open the Explorer
# (left) and tick fields: it writes the query for you.
`;

const DASHBOARD = /* GraphQL */ `# The dashboard: VMs with their host, root volume, NICs and latest
# snapshot groups, in one request. However many VMs the page holds, the
# gateway asks the upstream a handful of times.
# Credentials travel as headers: see the Headers tab below.
# Change \`first\` (up to 100) or add fields: Ctrl-Space completes, the
# Docs panel (left) explains each.
query Dashboard {
  vmInstances(first: 5) {
    totalCount
    nodes {
      name
      state
      host { name managementIp cpuStatus }
      rootVolume { name size }
      nics { ip mac driverType }
      snapshotGroups(first: 3) { totalCount nodes { name snapshotCount } }
    }
  }
}
`;

const HOST_LUNS = /* GraphQL */ `# The LUNs of one host, with a filter: \`hostUuid\` keeps the LUNs mapped
# to that host (the upstream filters them, by their host mappings). The
# host's HBA ports come with it. Other filter keys: \`wwid\`, \`wwn\`,
# \`serial\`, \`stateIn\`, \`fiberChannelStorageUuid\` (Ctrl-Space in the
# braces lists them all).
# Change \`hostUuid\` to any host's \`uuid\`.
query HostLuns($hostUuid: Uuid!) {
  host(uuid: $hostUuid) {
    name
    managementIp
    hbaDevices(first: 4) { nodes { portName portState speed } }
  }
  fiberChannelLuns(first: 20, filter: { hostUuid: $hostUuid }) {
    totalCount
    nodes {
      name
      wwid
      size
      vendor
      hosts { uuid name }
    }
  }
}
`;

const PAGED_VMS = /* GraphQL */ `# A page of VMs and the cursor to the next one. Run it, copy
# \`pageInfo.endCursor\` from the answer into the \`after\` variable, and
# run it again for the next page. Any edge's \`cursor\` works as \`after\`
# too (the page then starts after that edge).
# \`first\` is 20 when left out, at most 100; \`totalCount\` counts every
# VM, not just the page.
query PagedVms($first: Int, $after: String) {
  vmInstances(first: $first, after: $after) {
    totalCount
    pageInfo { hasNextPage endCursor }
    edges {
      cursor
      node { name state }
    }
  }
}
`;

const ASYNC_WRITE = /* GraphQL */ `# A write that answers at once. With \`async: true\` the mutation starts
# the upstream's job and answers \`status: RUNNING\` with its \`job { id }\`;
# the record stays null until the job has finished. Without \`async\` it
# waits for the job and answers SUCCEEDED with the updated record, or
# FAILED with \`userErrors\`: what went wrong, and the input field to
# blame (try an empty name).
# This one sets a volume snapshot group's description, which changes
# nothing else; every mutation answers the same way.
# Next: copy \`job.id\` from the answer into the JobCompleted tab's
# variables and run that tab. \`jobs(status: RUNNING)\` lists yours.
mutation AsyncWrite($input: UpdateVolumeSnapshotGroupInput!) {
  updateVolumeSnapshotGroup(input: $input) {
    clientMutationId
    status
    userErrors { field message code }
    volumeSnapshotGroup { id name description }
    job { id status }
  }
}
`;

const JOB_COMPLETED = /* GraphQL */ `# Follows one job to its end: \`jobCompleted\` sends the job once it has
# finished (at once if it already has), then the subscription ends. Tabs
# do not share values: run the AsyncWrite tab first, copy \`job.id\` from
# its answer into \`id\` below, then run this.
# To hear of every job your credentials start instead, subscribe to
# \`jobEvents\` (no argument).
subscription JobCompleted($id: ID!) {
  jobCompleted(id: $id) {
    id
    operation
    status
    finishedAt
    payload {
      ... on WritePayload { status userErrors { field message code } }
      ... on UpdateVolumeSnapshotGroupPayload {
        volumeSnapshotGroup { name description }
      }
    }
  }
}
`;

const LIVE_QUERY = /* GraphQL */ `# A live query: with \`@live\` the answer comes now, and again whenever
# what it read may have changed (a write through the gateway finished,
# or the upstream's change feed, polled every LIVE_POLL_MS, saw a
# change). It runs until you press stop or leave the tab.
# Try it: run it, open this page in a second window, run the AsyncWrite
# tab there with another description, and watch that group's description
# change here.
query LiveQuery @live {
  volumeSnapshotGroups(first: 5) {
    totalCount
    nodes { name description snapshotCount }
  }
}
`;

const REFETCH_NODE = /* GraphQL */ `# One record by its global \`id\`, whatever its type: how a client
# refreshes a record it holds.
# Every record's \`id\` works (select \`id\` in another tab and paste one
# here), a job's too (\`job.id\` from the AsyncWrite tab); add the fields
# you need under \`... on <Type>\` (the Docs panel lists the types that
# implement Node).
query RefetchNode($id: ID!) {
  node(id: $id) {
    __typename
    id
    ... on VmInstance {
      name
      state
      platform
      cpuNum
      memorySize
      host { name }
      rootVolume { name size }
      volumes { name size }
      nics { ip mac }
    }
    # A host's state is a ResourceState, a VM's a VmState: two types in one
    # place of the answer need an alias.
    ... on Host { name hostState: state managementIp }
    ... on Job { operation status finishedAt }
  }
}
`;

/** One variable: its value, or a placeholder, and the comment line above it. */
interface Variable {
  readonly name: string;
  readonly value: unknown;
  readonly comment: string;
}

/** The variables editor's text: one commented line per variable. */
function variablesText(variables: readonly Variable[]): string {
  const lines = variables.map(({ name, value, comment }, index) => {
    const comma = index < variables.length - 1 ? ',' : '';
    return `  // ${comment}\n  ${JSON.stringify(name)}: ${JSON.stringify(value, null, 2).replace(/\n/g, '\n  ')}${comma}`;
  });
  return `{\n${lines.join('\n')}\n}\n`;
}

/** `value` when the demo gave one; else a placeholder and a comment saying where to find it. */
function valueOr(value: string | undefined, picked: string, placeholder: string, howToFind: string): { value: string; comment: string } {
  return value === undefined ? { value: placeholder, comment: howToFind } : { value, comment: picked };
}

/**
 * The tabs, in the order they open (Dashboard, HostLuns, PagedVms, AsyncWrite,
 * JobCompleted, LiveQuery, RefetchNode), with `values` filled in.
 */
export function exampleTabs(values: ExampleValues = {}): ExampleTab[] {
  const host = valueOr(values.hostUuid, 'A host of the demo that sees LUNs; any host\'s uuid works.', 'paste a host uuid', 'Any host\'s uuid: `hosts { nodes { uuid name } }` lists them.');
  const group = valueOr(
    values.snapshotGroupUuid,
    'A snapshot group of the demo; any group\'s uuid works.',
    'paste a snapshot group uuid',
    'Any snapshot group\'s uuid: `volumeSnapshotGroups { nodes { uuid name } }` lists them.',
  );
  const vm = valueOr(values.vmId, 'A VM of the demo (its `id`, not its `uuid`).', 'paste a record id', 'Any record\'s `id` (not its `uuid`): `vmInstances(first: 1) { nodes { id } }`.');
  return [
    { query: DASHBOARD },
    {
      query: HOST_LUNS,
      variables: variablesText([{ name: 'hostUuid', ...host }]),
    },
    {
      query: PAGED_VMS,
      variables: variablesText([
        { name: 'first', value: 3, comment: 'Records per page: 1 to 100.' },
        { name: 'after', value: null, comment: 'null: the first page. Then the last answer\'s `pageInfo.endCursor`, in quotes.' },
      ]),
    },
    {
      query: ASYNC_WRITE,
      variables: variablesText([
        {
          name: 'input',
          value: { uuid: group.value, description: 'Described from GraphiQL', async: true, clientMutationId: 'graphiql-example' },
          comment: `uuid: ${group.comment} async: true answers at once with the job.`,
        },
      ]),
    },
    {
      query: JOB_COMPLETED,
      variables: variablesText([{ name: 'id', value: '', comment: 'Paste `job.id` from the AsyncWrite tab\'s answer.' }]),
    },
    { query: LIVE_QUERY },
    { query: REFETCH_NODE, variables: variablesText([{ name: 'id', ...vm }]) },
  ];
}
