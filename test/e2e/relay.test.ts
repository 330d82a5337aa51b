/**
 * The gateway under Relay: documents compiled by relay-compiler against the committed SDL
 * (`test/relay/documents.ts`; the compiler refuses a schema without what Relay needs, such as the
 * `Node` interface and `node(id:)` that `@refetchable` builds on), run by relay-runtime's store
 * over HTTP and graphql-ws. What Relay users rely on: a record refetched by its global id, a
 * connection's pages merged by the connection handler, a mutation's payload updating the stored
 * record, a subscription delivering.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createClient, type Client as WsClient } from 'graphql-ws';
import {
  commitMutation,
  ConnectionHandler,
  Environment,
  fetchQuery,
  Network,
  Observable,
  RecordSource,
  requestSubscription,
  Store,
  type GraphQLResponse,
  type RequestParameters,
  type Variables,
} from 'relay-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import CbtTasks from '../relay/__generated__/documentsCbtTasksQuery.graphql.js';
import DeleteCbtTask from '../relay/__generated__/documentsDeleteCbtTaskMutation.graphql.js';
import HostRefetch from '../relay/__generated__/documentsHostRefetchQuery.graphql.js';
import HostsPage from '../relay/__generated__/documentsHostsPageQuery.graphql.js';
import HostsPagination from '../relay/__generated__/documentsHostsPaginationQuery.graphql.js';
import JobEvents from '../relay/__generated__/documentsJobEventsSubscription.graphql.js';
import UpdateNqn from '../relay/__generated__/documentsUpdateNqnMutation.graphql.js';
import { startHarness, type Harness } from '../support/harness.js';
import { connectedHost } from '../support/replica-jobs.js';

const RELAY_DIR = fileURLToPath(new URL('../relay/', import.meta.url));

interface HostsPageData {
  hosts: { edges: { cursor: string; node: { id: string; uuid: string; name: string | null; nqn: string | null } }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
}

describe('Relay against the gateway', () => {
  let harness: Harness;
  let ws: WsClient;
  let environment: Environment;

  beforeAll(async () => {
    harness = await startHarness({ config: { jobPollAfterMs: 100 } });
    ws = createClient({ url: `${harness.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: harness.headers, retryAttempts: 0 });
    const fetchFn = async (params: RequestParameters, variables: Variables): Promise<GraphQLResponse> => {
      const response = await fetch(`${harness.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', ...harness.headers },
        body: JSON.stringify({ query: params.text, operationName: params.name, variables }),
      });
      return (await response.json()) as GraphQLResponse;
    };
    const subscribeFn = (params: RequestParameters, variables: Variables) =>
      Observable.create<GraphQLResponse>((sink) => ws.subscribe({ query: params.text!, operationName: params.name, variables }, { next: (value) => sink.next(value as GraphQLResponse), error: (error) => sink.error(error as Error), complete: () => sink.complete() }));
    environment = new Environment({ network: Network.create(fetchFn, subscribeFn), store: new Store(new RecordSource()) });
  });

  afterAll(async () => {
    await ws?.dispose();
    await harness?.close();
  });

  it('compiles: the committed artifacts are what relay-compiler makes of the documents and the committed SDL', async () => {
    // Exits 1 when an artifact is missing or stale, or when a document does not validate against the schema.
    const validated = await promisify(execFile)(process.execPath, [fileURLToPath(import.meta.resolve('relay-compiler/cli.js')), '--validate'], { cwd: RELAY_DIR }).then(
      () => 'current',
      (error: { stdout?: string; stderr?: string }) => `stale or invalid (run \`npm run relay\`): ${error.stdout ?? ''}${error.stderr ?? ''}`,
    );
    expect(validated).toBe('current');
  });

  it('refetches a record by its global id through node(id:) (@refetchable)', async () => {
    const page = (await fetchQuery(environment, HostsPage, { first: 1 }).toPromise()) as HostsPageData;
    const host = page.hosts.edges[0]!.node;
    // A fresh store: what it holds comes from the refetch alone.
    const fresh = new Environment({ network: environment.getNetwork(), store: new Store(new RecordSource()) });
    await fetchQuery(fresh, HostRefetch, { id: host.id }).toPromise();
    const record = fresh.getStore().getSource().get(host.id);
    expect(record).toMatchObject({ __typename: 'Host', id: host.id, name: host.name, nqn: host.nqn });
  });

  it("merges a connection's pages with Relay's connection handler", async () => {
    await fetchQuery(environment, HostsPagination, { first: 2 }).toPromise();
    const endCursor = readConnection(environment).endCursor;
    expect(endCursor).toEqual(expect.any(String));
    await fetchQuery(environment, HostsPagination, { first: 2, after: endCursor }).toPromise();
    const merged = readConnection(environment);
    expect(merged.ids).toHaveLength(4);
    expect(new Set(merged.ids).size).toBe(4);
  });

  it("updates the stored host from a mutation's payload", async () => {
    const hostUuid = connectedHost(harness.simulator);
    const page = (await fetchQuery(environment, HostsPage, { first: 20 }).toPromise()) as HostsPageData;
    const host = page.hosts.edges.map((edge) => edge.node).find((node) => node.uuid === hostUuid)!;
    const nqn = `nqn.2014-08.org.nvmexpress:uuid:${randomUUID()}`;
    await new Promise<void>((resolve, reject) => {
      commitMutation(environment, { mutation: UpdateNqn, variables: { input: { uuid: hostUuid, nqn } }, onCompleted: () => resolve(), onError: reject });
    });
    expect(environment.getStore().getSource().get(host.id)?.nqn).toBe(nqn);
  });

  it("drops a deleted record from the store with @deleteRecord on the payload's deleted<X>Id", async () => {
    const tenantId = harness.simulator.credentials.tenantId;
    const vm = [...harness.simulator.store.vms.list(tenantId)].find(
      (candidate) => candidate.state === 'Running' && harness.simulator.store.cbtTasks.by('vmInstanceUuid', candidate.uuid, tenantId).length === 0,
    )!;
    const created = await harness.gql<{ createCbtTask: { cbtTask: { uuid: string } } }>(
      'mutation($vm: Uuid!) { createCbtTask(input: { name: "relay-delete", taskType: "VM", resourceUuids: [$vm] }) { cbtTask { uuid } } }',
      { vm: vm.uuid },
    );
    const uuid = created.data!.createCbtTask.cbtTask.uuid;
    const listed = (await fetchQuery(environment, CbtTasks, {}).toPromise()) as { cbtTasks: { nodes: { id: string; uuid: string }[] } };
    const id = listed.cbtTasks.nodes.find((task) => task.uuid === uuid)!.id;
    expect(environment.getStore().getSource().get(id)).toMatchObject({ __typename: 'CbtTask', uuid });

    await new Promise<void>((resolve, reject) => {
      commitMutation(environment, { mutation: DeleteCbtTask, variables: { input: { uuid, deleteMode: 'ENFORCING' } }, onCompleted: () => resolve(), onError: reject });
    });
    // Relay marks a deleted record null in its source: gone for every query that read it.
    expect(environment.getStore().getSource().get(id)).toBeNull();
  });

  it('delivers a subscription over graphql-ws', async () => {
    const events: { id: string; status: string }[] = [];
    const subscription = requestSubscription(environment, {
      subscription: JobEvents,
      variables: {},
      onNext: (response) => {
        const event = (response as { jobEvents?: { id: string; status: string } } | null | undefined)?.jobEvents;
        if (event) events.push({ id: event.id, status: event.status });
      },
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const written = await harness.gql<{ updateHostNqn: { job: { id: string } } }>('mutation($input: UpdateHostNqnInput!) { updateHostNqn(input: $input) { job { id } } }', {
        input: { uuid: connectedHost(harness.simulator), nqn: `nqn.2014-08.org.nvmexpress:uuid:${randomUUID()}` },
      });
      const id = written.data!.updateHostNqn.job.id;
      for (let attempt = 0; attempt < 100 && !events.some((event) => event.id === id); attempt++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(events).toContainEqual({ id, status: 'SUCCEEDED' });
    } finally {
      subscription.dispose();
    }
  });
});

/** The `documents_hosts` connection as Relay's store holds it: its nodes' ids, in order, and its end cursor. */
function readConnection(environment: Environment): { ids: string[]; endCursor: string | null } {
  let read: { ids: string[]; endCursor: string | null } = { ids: [], endCursor: null };
  environment.commitUpdate((store) => {
    const connection = ConnectionHandler.getConnection(store.getRoot(), 'documents_hosts');
    const edges = connection?.getLinkedRecords('edges') ?? [];
    read = {
      ids: edges.map((edge) => edge?.getLinkedRecord('node')?.getDataID() ?? ''),
      endCursor: (connection?.getLinkedRecord('pageInfo')?.getValue('endCursor') as string | null | undefined) ?? null,
    };
  });
  return read;
}
