/**
 * The gateway as the GraphQL clients front ends use see it: Apollo Client (HttpLink, the
 * normalized cache, @defer over multipart, graphql-ws subscriptions) and urql (Graphcache with its
 * Relay pagination, subscriptions over graphql-sse). Each client is used as its documentation
 * shows, against a gateway and simulator on loopback; what is asserted is what its users rely on:
 * the cache finds every record by `__typename` and `id`, a mutation's payload updates the records
 * already shown, connections page and merge, streams deliver.
 */
import { randomUUID } from 'node:crypto';
import { ApolloClient, CombinedGraphQLErrors, gql, HttpLink, InMemoryCache, type TypedDocumentNode } from '@apollo/client';
import { Defer20220824Handler } from '@apollo/client/incremental';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { relayStylePagination } from '@apollo/client/utilities';
import { Client as UrqlClient, fetchExchange, subscriptionExchange, type Exchange } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import { relayPagination } from '@urql/exchange-graphcache/extras';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import { firstValueFrom, filter as rxFilter } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startHarness, type Harness } from '../support/harness.js';
import { connectedHost } from '../support/replica-jobs.js';

interface HostView {
  __typename: 'Host';
  id: string;
  uuid: string;
  name: string | null;
  nqn: string | null;
}

const HOSTS: TypedDocumentNode<{ hosts: { nodes: HostView[] } }> = gql`
  query Hosts {
    hosts(first: 20) {
      nodes {
        id
        uuid
        name
        nqn
      }
    }
  }
`;

const UPDATE_NQN: TypedDocumentNode<{ updateHostNqn: { job: { id: string; status: string }; host: HostView | null } }, { input: { uuid: string; nqn: string } }> = gql`
  mutation UpdateNqn($input: UpdateHostNqnInput!) {
    updateHostNqn(input: $input) {
      job {
        id
        status
      }
      host {
        id
        uuid
        name
        nqn
      }
    }
  }
`;

const CREATE_TASK: TypedDocumentNode<{ createCbtTask: { cbtTask: { __typename: 'CbtTask'; id: string; uuid: string } | null } | null }, { vm: string }> = gql`
  mutation CreateTask($vm: Uuid!) {
    createCbtTask(input: { name: "apollo-evict", taskType: "VM", resourceUuids: [$vm] }) {
      cbtTask {
        id
        uuid
      }
    }
  }
`;

const TASKS: TypedDocumentNode<{ cbtTasks: { nodes: ({ __typename: 'CbtTask'; id: string; uuid: string } | null)[] } | null }> = gql`
  query Tasks {
    cbtTasks(first: 100) {
      nodes {
        id
        uuid
      }
    }
  }
`;

const DELETE_TASK: TypedDocumentNode<
  { deleteCbtTask: { status: string; userErrors: { code: string; message: string }[]; deletedCbtTaskId: string | null } | null },
  { uuid: string }
> = gql`
  mutation DeleteTask($uuid: Uuid!) {
    deleteCbtTask(input: { uuid: $uuid, deleteMode: ENFORCING }) {
      status
      userErrors {
        code
        message
      }
      deletedCbtTaskId
    }
  }
`;

const VM_PAGE: TypedDocumentNode<
  { vmInstances: { totalCount: number; edges: { cursor: string; node: { id: string; uuid: string } }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } },
  { first: number; after?: string | null }
> = gql`
  query VmPage($first: Int!, $after: String) {
    vmInstances(first: $first, after: $after) {
      totalCount
      edges {
        cursor
        node {
          id
          uuid
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`;

const JOB_EVENTS = gql`
  subscription JobEvents {
    jobEvents {
      id
      status
    }
  }
`;

function nqn(): string {
  return `nqn.2014-08.org.nvmexpress:uuid:${randomUUID()}`;
}

describe('real GraphQL clients against the gateway', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({ config: { jobPollAfterMs: 100 } });
  });

  afterAll(async () => {
    await harness?.close();
  });

  describe('Apollo Client', () => {
    function apollo(headers: Record<string, string> = harness.headers): ApolloClient {
      return new ApolloClient({
        link: new HttpLink({ uri: `${harness.url}/graphql`, headers }),
        cache: new InMemoryCache(),
        incrementalHandler: new Defer20220824Handler(),
      });
    }

    it('normalizes records by __typename and id, and a mutation payload updates the host already cached', async () => {
      const client = apollo();
      const { data } = await client.query({ query: HOSTS });
      expect(data?.hosts.nodes.length).toBeGreaterThan(0);
      const hostUuid = connectedHost(harness.simulator);
      const cached = data!.hosts.nodes.find((node) => node.uuid === hostUuid)!;
      const cacheId = client.cache.identify({ __typename: cached.__typename, id: cached.id });
      expect(cacheId).toBe(`Host:${cached.id}`);
      expect((client.cache.extract() as Record<string, unknown>)[cacheId!]).toMatchObject({ uuid: hostUuid, nqn: cached.nqn });

      const next = nqn();
      const { data: written } = await client.mutate({ mutation: UPDATE_NQN, variables: { input: { uuid: hostUuid, nqn: next } } });
      expect(written?.updateHostNqn.job.status).toBe('SUCCEEDED');
      expect(written?.updateHostNqn.host?.id).toBe(cached.id);
      // The list query, read back from the cache alone, shows the new NQN: the payload's host merged into the same record.
      const fromCache = client.readQuery({ query: HOSTS });
      expect(fromCache?.hosts.nodes.find((node) => node.uuid === hostUuid)?.nqn).toBe(next);
    });

    it("evicts a deleted record from the normalized cache by the payload's deleted<X>Id", async () => {
      const client = apollo();
      const tenantId = harness.simulator.credentials.tenantId;
      const vm = [...harness.simulator.store.vms.list(tenantId)].find(
        (candidate) => candidate.state === 'Running' && harness.simulator.store.cbtTasks.by('vmInstanceUuid', candidate.uuid, tenantId).length === 0,
      )!;
      const { data: created } = await client.mutate({ mutation: CREATE_TASK, variables: { vm: vm.uuid } });
      const task = created!.createCbtTask!.cbtTask!;
      await client.query({ query: TASKS });
      const cacheId = client.cache.identify({ __typename: 'CbtTask', id: task.id })!;
      expect((client.cache.extract() as Record<string, unknown>)[cacheId]).toMatchObject({ uuid: task.uuid });

      const { data: deleted } = await client.mutate({
        mutation: DELETE_TASK,
        variables: { uuid: task.uuid },
        update: (cache, { data }) => {
          const id = data?.deleteCbtTask?.deletedCbtTaskId;
          if (id) cache.evict({ id: cache.identify({ __typename: 'CbtTask', id }) });
          cache.gc();
        },
      });
      expect(deleted?.deleteCbtTask).toMatchObject({ status: 'SUCCEEDED', userErrors: [], deletedCbtTaskId: task.id });
      expect((client.cache.extract() as Record<string, unknown>)[cacheId]).toBeUndefined();
      // The list, read from the cache alone, no longer holds it.
      const fromCache = client.readQuery({ query: TASKS });
      expect(fromCache?.cbtTasks?.nodes.some((node) => node?.uuid === task.uuid) ?? false).toBe(false);
    });

    it('pages a connection with its cursors and pageInfo', async () => {
      const client = apollo();
      const first = await client.query({ query: VM_PAGE, variables: { first: 3 } });
      const page = first.data!.vmInstances;
      expect(page.edges).toHaveLength(3);
      expect(page.pageInfo).toEqual({ __typename: 'PageInfo', hasNextPage: true, endCursor: page.edges[2]!.cursor });
      const second = await client.query({ query: VM_PAGE, variables: { first: 3, after: page.pageInfo.endCursor } });
      const uuids = [...page.edges, ...second.data!.vmInstances.edges].map((edge) => edge.node.uuid);
      expect(new Set(uuids).size).toBe(6);
    });

    it('merges the pages fetchMore brings into one list with relayStylePagination, as the clients page configures it', async () => {
      const client = new ApolloClient({
        link: new HttpLink({ uri: `${harness.url}/graphql`, headers: harness.headers }),
        cache: new InMemoryCache({ typePolicies: { Query: { fields: { vmInstances: relayStylePagination(['filter', 'orderBy']) } } } }),
      });
      const pages = client.watchQuery({ query: VM_PAGE, variables: { first: 3 } });
      const lengths: number[] = [];
      const subscription = pages.subscribe((result) => {
        if (result.dataState === 'complete') lengths.push(result.data.vmInstances.edges.length);
      });
      const complete = () => {
        const result = pages.getCurrentResult();
        if (result.dataState !== 'complete') throw new Error(`the query is ${result.dataState}`);
        return result.data.vmInstances;
      };
      try {
        await firstValueFrom(pages.pipe(rxFilter((result) => result.dataState === 'complete')));
        const { endCursor } = complete().pageInfo;
        expect(endCursor).toBeTruthy();
        // The watched query hears the merged list once the cache broadcasts it.
        const mergedSix = firstValueFrom(pages.pipe(rxFilter((result) => result.dataState === 'complete' && result.data.vmInstances.edges.length === 6)));
        await pages.fetchMore({ variables: { after: endCursor } });
        await mergedSix;
        const merged = complete();
        // The six records a fresh walk of six gives, in its order, under the first page's query.
        const fresh = await apollo().query({ query: VM_PAGE, variables: { first: 6 } });
        expect(merged.edges.map((edge) => edge.node.uuid)).toEqual(fresh.data!.vmInstances.edges.map((edge) => edge.node.uuid));
        expect(merged.pageInfo.endCursor).toBe(merged.edges[5]!.cursor);
        // What a component rendering the watched query shows: the first page, then both.
        expect([lengths[0], lengths.at(-1)]).toEqual([3, 6]);
      } finally {
        subscription.unsubscribe();
      }
    });

    it('receives a @defer query in parts over multipart/mixed', async () => {
      const client = apollo();
      const DEFERRED: TypedDocumentNode<{ hosts: { nodes: { id: string; uuid: string; name?: string | null }[] } }> = gql`
        query Deferred {
          hosts(first: 2) {
            nodes {
              id
              uuid
              ... @defer {
                name
              }
            }
          }
        }
      `;
      const results: { dataState: string; data?: unknown }[] = [];
      const done = new Promise<void>((resolve, reject) => {
        client.watchQuery({ query: DEFERRED }).subscribe({
          next: (result) => {
            results.push(result);
            if (result.dataState === 'complete') resolve();
          },
          error: reject,
        });
      });
      await done;
      // Loading, the first part without the deferred names, then the whole: Apollo saw the parts.
      expect(results.map((result) => result.dataState)).toEqual(['empty', 'streaming', 'complete']);
      const last = results.at(-1) as unknown as { data: { hosts: { nodes: { uuid: string; name?: string | null }[] } } };
      expect(last.data.hosts.nodes).toHaveLength(2);
      for (const node of last.data.hosts.nodes) expect(typeof node.name).toBe('string');
    });

    it('subscribes through HttpLink alone, over Apollo\'s multipart HTTP protocol', async () => {
      const client = apollo();
      await client.query({ query: HOSTS });
      const events: unknown[] = [];
      const subscription = client.subscribe({ query: JOB_EVENTS }).subscribe({ next: (result) => void events.push(result.data) });
      try {
        await new Promise((resolve) => setTimeout(resolve, 300));
        const { data } = await client.mutate({ mutation: UPDATE_NQN, variables: { input: { uuid: connectedHost(harness.simulator), nqn: nqn() } } });
        const expected = { jobEvents: { __typename: 'Job', id: data!.updateHostNqn.job.id, status: 'SUCCEEDED' } };
        // Well before the first 5 s heartbeat: a part is handed on as soon as it is written.
        for (let attempt = 0; attempt < 40 && events.length === 0; attempt++) await new Promise((resolve) => setTimeout(resolve, 50));
        expect(events).toEqual([expected]);
      } finally {
        subscription.unsubscribe();
      }
    });

    it('gives partial data with typed errors under errorPolicy "all"', async () => {
      const client = apollo({ ...harness.headers, authorization: `OAuth ${randomUUID().replaceAll('-', '')}`, 'x-resources-authorization': `Bearer ${randomUUID()}` });
      const MIXED = gql`
        query Mixed {
          __typename
          hosts(first: 1) {
            totalCount
          }
        }
      `;
      const result = await client.query({ query: MIXED, errorPolicy: 'all' });
      expect(result.data).toMatchObject({ __typename: 'Query', hosts: null });
      expect(CombinedGraphQLErrors.is(result.error)).toBe(true);
      expect((result.error as CombinedGraphQLErrors).errors.map((error) => error.extensions?.code)).toEqual(['UNAUTHENTICATED']);
    });

    it('subscribes through GraphQLWsLink and hears its own job finish', async () => {
      const ws = createWsClient({ url: `${harness.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: harness.headers, retryAttempts: 0 });
      const client = new ApolloClient({ link: new GraphQLWsLink(ws), cache: new InMemoryCache() });
      try {
        const write = apollo();
        // The credential is known to the upstream before it subscribes, as for any dashboard.
        await write.query({ query: HOSTS });
        const heard = firstValueFrom(client.subscribe({ query: JOB_EVENTS }).pipe(rxFilter((result) => result.data !== undefined)));
        await new Promise((resolve) => setTimeout(resolve, 300));
        const { data } = await write.mutate({ mutation: UPDATE_NQN, variables: { input: { uuid: connectedHost(harness.simulator), nqn: nqn() } } });
        const event = await heard;
        expect(event.data).toEqual({ jobEvents: { __typename: 'Job', id: data!.updateHostNqn.job.id, status: 'SUCCEEDED' } });
      } finally {
        await ws.dispose();
      }
    });
  });

  describe('urql', () => {
    function urql(exchanges: Exchange[] = []): UrqlClient {
      return new UrqlClient({
        url: `${harness.url}/graphql`,
        fetchOptions: { headers: harness.headers },
        exchanges: [
          cacheExchange({ resolvers: { Query: { vmInstances: relayPagination() } } }),
          fetchExchange,
          ...exchanges,
        ],
      });
    }

    it('merges pages of a connection with Graphcache relayPagination', async () => {
      const client = urql();
      const first = await client.query(VM_PAGE, { first: 4 }).toPromise();
      expect(first.error).toBeUndefined();
      const endCursor = (first.data as { vmInstances: { pageInfo: { endCursor: string } } }).vmInstances.pageInfo.endCursor;
      const merged = await client.query(VM_PAGE, { first: 4, after: endCursor }).toPromise();
      const edges = (merged.data as { vmInstances: { edges: { node: { uuid: string } }[] } }).vmInstances.edges;
      // relayPagination shows both pages as one list, in order, each record once.
      expect(edges).toHaveLength(8);
      expect(new Set(edges.map((edge) => edge.node.uuid)).size).toBe(8);
    });

    it('updates the cached host from a mutation payload (Graphcache keys by id)', async () => {
      const client = urql();
      const hostUuid = connectedHost(harness.simulator);
      const listed = await client.query(HOSTS, {}).toPromise();
      expect(listed.error).toBeUndefined();
      const next = nqn();
      const written = await client.mutation(UPDATE_NQN, { input: { uuid: hostUuid, nqn: next } }).toPromise();
      expect(written.error).toBeUndefined();
      const again = await client.query(HOSTS, {}, { requestPolicy: 'cache-only' }).toPromise();
      expect((again.data as { hosts: { nodes: HostView[] } }).hosts.nodes.find((node) => node.uuid === hostUuid)?.nqn).toBe(next);
    });

    it('subscribes with fetchSubscriptions alone (the fetch exchange over SSE)', async () => {
      const client = new UrqlClient({ url: `${harness.url}/graphql`, fetchOptions: { headers: harness.headers }, fetchSubscriptions: true, exchanges: [fetchExchange] });
      const events: { id: string; status: string }[] = [];
      const { unsubscribe } = client.subscription(JOB_EVENTS, {}).subscribe((result) => {
        if (result.data) events.push((result.data as { jobEvents: { id: string; status: string } }).jobEvents);
      });
      try {
        await new Promise((resolve) => setTimeout(resolve, 300));
        const written = await client.mutation(UPDATE_NQN, { input: { uuid: connectedHost(harness.simulator), nqn: nqn() } }).toPromise();
        const jobId = (written.data as { updateHostNqn: { job: { id: string } } }).updateHostNqn.job.id;
        for (let attempt = 0; attempt < 100 && !events.some((event) => event.id === jobId); attempt++) await new Promise((resolve) => setTimeout(resolve, 50));
        expect(events).toContainEqual({ id: jobId, status: 'SUCCEEDED' });
      } finally {
        unsubscribe();
      }
    });

    it('subscribes over graphql-sse with subscriptionExchange', async () => {
      const sse = createSseClient({ url: `${harness.url}/graphql`, headers: harness.headers, retryAttempts: 0 });
      const client = urql([
        subscriptionExchange({
          forwardSubscription: (operation) => ({
            subscribe: (sink) => ({ unsubscribe: sse.subscribe({ query: operation.query!, variables: operation.variables as Record<string, unknown> }, sink) }),
          }),
        }),
      ]);
      try {
        const events: { id: string; status: string }[] = [];
        const { unsubscribe } = client.subscription(JOB_EVENTS, {}).subscribe((result) => {
          if (result.data) events.push((result.data as { jobEvents: { id: string; status: string } }).jobEvents);
        });
        await new Promise((resolve) => setTimeout(resolve, 300));
        const written = await client.mutation(UPDATE_NQN, { input: { uuid: connectedHost(harness.simulator), nqn: nqn() } }).toPromise();
        const jobId = (written.data as { updateHostNqn: { job: { id: string } } }).updateHostNqn.job.id;
        for (let attempt = 0; attempt < 100 && !events.some((event) => event.id === jobId); attempt++) await new Promise((resolve) => setTimeout(resolve, 50));
        expect(events).toContainEqual(expect.objectContaining({ id: jobId, status: 'SUCCEEDED' }));
        unsubscribe();
      } finally {
        sse.dispose();
      }
    });
  });
});
