/**
 * The gateway as a Federation v2 subgraph (`/subgraph`): its `_service` SDL, `_entities` through
 * the per-request loaders, and a real supergraph: this subgraph composed with a small "owners"
 * subgraph written here (`@apollo/subgraph`'s buildSubgraphSchema on yoga) by
 * `@theguild/federation-composition`, served by Hive Gateway's runtime in process, the
 * credentials forwarded as a router forwards them. Upstream requests are counted on the simulator.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { createGatewayRuntime } from '@graphql-hive/gateway-runtime';
import { composeServices } from '@theguild/federation-composition';
import { Kind, parse } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ENTITY_REPRESENTATIONS } from '../../../src/schema/kit/federation.js';
import { errorCodes, startHarness, type GraphQLResponse, type Harness } from '../../support/harness.js';

const CREDENTIAL_HEADERS = ['authorization', 'x-resources-authorization', 'x-tenant-id'] as const;

let harness: Harness;
let owners: { url: string; server: Server };
/** The uuids of the first 50 VMs, which the owners subgraph says team "storage" owns. */
let storageVms: string[];

/** Posts to the gateway's subgraph endpoint, as a router does. */
async function subgraphQuery<T = Record<string, unknown>>(
  query: string,
  variables?: Record<string, unknown>,
  headers: Record<string, string> = harness.headers,
): Promise<GraphQLResponse<T>> {
  const response = await fetch(`${harness.url}/subgraph`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, ...((await response.json()) as object) } as GraphQLResponse<T>;
}

const ENTITIES = 'query($r: [_Any!]!) { _entities(representations: $r) { ... on VmInstance { uuid name host { name } } ... on Host { uuid name } } }';

/** A subgraph another team might run: who owns each VM, and each team's VMs by uuid. */
function ownersTypeDefs(): string {
  return `
    extend schema @link(url: "https://specs.apollo.dev/federation/v2.6", import: ["@key", "@shareable"])
    scalar Uuid
    interface Node { id: ID! }
    type Query {
      node(id: ID!): Node
      team(name: String!): Team
    }
    type Team implements Node @key(fields: "id") {
      id: ID!
      name: String!
      vmInstances: [VmInstance!]!
    }
    type Owner { team: String! }
    type VmInstance @key(fields: "uuid") {
      uuid: Uuid!
      owner: Owner
    }
    type PageInfo @shareable {
      hasNextPage: Boolean!
      hasPreviousPage: Boolean!
      startCursor: String
      endCursor: String
    }
  `;
}

async function startOwners(): Promise<{ url: string; server: Server }> {
  const team = { id: 'team-storage', name: 'storage' };
  const schema = buildSubgraphSchema({
    typeDefs: parse(ownersTypeDefs()),
    resolvers: {
      Query: {
        team: (_root: unknown, args: { name: string }) => (args.name === team.name ? team : null),
        node: (_root: unknown, args: { id: string }) => (args.id === team.id ? { __typename: 'Team', ...team } : null),
      },
      Team: { vmInstances: () => storageVms.map((uuid) => ({ uuid })) },
      VmInstance: {
        __resolveReference: (reference: { uuid: string }) => reference,
        owner: (vm: { uuid: string }) => ({ team: storageVms.includes(vm.uuid) ? 'storage' : 'unowned' }),
      },
    } as never,
  });
  const yoga = createYoga({ schema, graphqlEndpoint: '/graphql', logging: false });
  const server = createServer(yoga);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`, server };
}

/** The composed supergraph of the gateway's subgraph (its SDL as `_service` answers it) and the owners subgraph. */
async function composeSupergraph(): Promise<string> {
  const service = await subgraphQuery<{ _service: { sdl: string } }>('{ _service { sdl } }');
  const composed = composeServices([
    { name: 'infra', typeDefs: parse(service.data!._service.sdl), url: `${harness.url}/subgraph` },
    { name: 'owners', typeDefs: parse(ownersTypeDefs()), url: owners.url },
  ]);
  expect(composed.errors ?? []).toEqual([]);
  // The clients' API: both subgraphs' `Node` merge into one interface, `node` is the owners' own.
  const api = parse(composed.publicSdl!);
  const query = api.definitions.find((definition) => definition.kind === Kind.OBJECT_TYPE_DEFINITION && definition.name.value === 'Query');
  const fields = query?.kind === Kind.OBJECT_TYPE_DEFINITION ? (query.fields ?? []).map((field) => field.name.value) : [];
  expect(fields).toEqual(expect.arrayContaining(['node', 'team', 'vmInstances', 'hosts']));
  expect(fields).not.toContain('nodes');
  expect(fields).not.toContain('_entities');
  return composed.supergraphSdl!;
}

/** Hive Gateway on the supergraph, forwarding the three credential headers (its `propagateHeaders`). */
/**
 * How the router subscribes at the gateway: graphql-ws to /graphql with the credentials as
 * connectionParams (`ws-params`) or as headers of the upgrade request (`ws-headers`, as Apollo
 * Router's header propagation sends them), or SSE to /subgraph (Hive Gateway's default).
 */
type SubscriptionTransport = 'ws-params' | 'ws-headers' | 'sse';

function startRouter(supergraph: string, subscriptions: SubscriptionTransport = 'ws-params') {
  return createGatewayRuntime({
    supergraph,
    logging: false,
    propagateHeaders: {
      fromClientToSubgraphs: ({ request }) =>
        Object.fromEntries(CREDENTIAL_HEADERS.flatMap((name) => (request.headers.has(name) ? [[name, request.headers.get(name)!]] : []))),
    },
    // The subgraph's subscription fields are the standalone API's: over graphql-ws they are
    // served at /graphql.
    transportEntries: subscriptions === 'sse' ? {} : { infra: { options: { subscriptions: webSocketSubscriptions(subscriptions) } } },
  });
}

function webSocketSubscriptions(transport: 'ws-params' | 'ws-headers') {
  const interpolated = CREDENTIAL_HEADERS.map((name) => [name, `{context.headers.${name}}`] as const);
  return transport === 'ws-params'
    ? { kind: 'ws', location: '/graphql', options: { connectionParams: Object.fromEntries(interpolated) } }
    : { kind: 'ws', location: '/graphql', headers: interpolated };
}

beforeAll(async () => {
  // No response cache: every query below is counted at the upstream.
  harness = await startHarness({ config: { responseCacheTtlMs: 0 } });
  owners = await startOwners();
  const page = await harness.gql<{ vmInstances: { nodes: { uuid: string }[] } }>('{ vmInstances(first: 50) { nodes { uuid } } }');
  storageVms = page.data!.vmInstances.nodes.map((vm) => vm.uuid);
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => owners?.server.close(resolve));
  await harness?.close();
});

describe('the subgraph endpoint', () => {
  it('answers _service { sdl } with the committed schema/subgraph.graphql: @link to Federation v2, @key(fields: "uuid") on the seven records', async () => {
    const response = await subgraphQuery<{ _service: { sdl: string } }>('{ _service { sdl } }');
    const sdl = response.data!._service.sdl;
    expect(`${sdl}\n`).toBe(readFileSync(new URL('../../../schema/subgraph.graphql', import.meta.url), 'utf8'));
    expect(sdl).toContain('@link(url: "https://specs.apollo.dev/federation/v2.6"');
    for (const type of ['Host', 'VmInstance', 'Volume', 'VolumeSnapshotGroup', 'CbtTask', 'HbaDevice', 'FiberChannelLun']) {
      expect(sdl).toMatch(new RegExp(`type ${type} implements Node\\s+@key\\(fields: "uuid"\\)\\s+@key\\(fields: "id"\\)`));
    }
    // node/nodes stay out of the subgraph (see docs/features/federation.md); /graphql keeps them and has no _entities.
    expect(sdl).not.toMatch(/^\s+node\(/m);
    const standalone = await harness.gql('{ _service { sdl } }');
    expect(errorCodes(standalone)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
  });

  it('_entities for 50 VMs and their hosts costs the upstream requests of the same page read directly', async () => {
    harness.resetStats();
    const direct = await harness.gql<{ vmInstances: { nodes: { uuid: string; name: string; host: { name: string } | null }[] } }>(
      '{ vmInstances(first: 50) { nodes { uuid name host { name } } } }',
    );
    const directRequests = harness.upstreamRequests();
    expect(direct.errors).toBeUndefined();

    harness.resetStats();
    const entities = await subgraphQuery<{ _entities: { uuid: string; name: string; host: { name: string } | null }[] }>(ENTITIES, {
      r: storageVms.map((uuid) => ({ __typename: 'VmInstance', uuid })),
    });
    expect(entities.errors).toBeUndefined();
    expect(entities.data!._entities).toEqual(direct.data!.vmInstances.nodes);
    expect(harness.upstreamRequests()).toBe(directRequests);

    // And 5 cost what 50 do: one batched read per type, whatever the count.
    harness.resetStats();
    await subgraphQuery(ENTITIES, { r: storageVms.slice(0, 5).map((uuid) => ({ __typename: 'VmInstance', uuid })) });
    expect(harness.upstreamRequests()).toBe(directRequests);
  });

  it('resolves a representation by global id too, and a bad one fails only its own slot, before any upstream call', async () => {
    const ids = await harness.gql<{ hosts: { nodes: { id: string; uuid: string; name: string }[] } }>('{ hosts(first: 1) { nodes { id uuid name } } }');
    const host = ids.data!.hosts.nodes[0]!;
    harness.resetStats();
    const bad = await subgraphQuery<{ _entities: unknown[] }>(ENTITIES, {
      r: [
        { __typename: 'Host', uuid: 'not-a-uuid,or:a:filter' },
        { __typename: 'Host', id: Buffer.from(`VmInstance:${host.uuid}`).toString('base64') },
        { __typename: 'Host' },
      ],
    });
    expect(bad.data!._entities).toEqual([null, null, null]);
    expect(errorCodes(bad)).toEqual(['BAD_USER_INPUT', 'BAD_USER_INPUT', 'BAD_USER_INPUT']);
    expect(harness.upstreamRequests()).toBe(0);

    const mixed = await subgraphQuery<{ _entities: unknown[] }>(ENTITIES, {
      r: [{ __typename: 'Host', id: host.id }, { __typename: 'Host', uuid: 'f'.repeat(32) }],
    });
    expect(mixed.data!._entities).toEqual([{ uuid: host.uuid, name: host.name }, null]);
    expect(errorCodes(mixed)).toEqual(['NOT_FOUND']);

    // RFC 9562's hyphenated form names the same host, answered in the upstream's spelling.
    const rfcForm = host.uuid.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5').toUpperCase();
    const hyphenated = await subgraphQuery<{ _entities: unknown[] }>(ENTITIES, { r: [{ __typename: 'Host', uuid: rfcForm }] });
    expect(hyphenated.data!._entities).toEqual([{ uuid: host.uuid, name: host.name }]);
  });

  it('refuses more than the most representations, and callers without credentials, before any upstream call', async () => {
    harness.resetStats();
    const tooMany = await subgraphQuery(ENTITIES, {
      r: Array.from({ length: MAX_ENTITY_REPRESENTATIONS + 1 }, () => ({ __typename: 'Host', uuid: storageVms[0] })),
    });
    expect(errorCodes(tooMany)).toEqual(['BAD_USER_INPUT']);
    const anonymous = await subgraphQuery(ENTITIES, { r: [{ __typename: 'VmInstance', uuid: storageVms[0] }] }, {});
    expect(errorCodes(anonymous)).toEqual(['UNAUTHENTICATED']);
    expect(harness.upstreamRequests()).toBe(0);
  });

  it('charges the query cost per representation, as `nodes` charges per id', async () => {
    const costOf = async (count: number): Promise<number> => {
      const response = await subgraphQuery<unknown>('query($r: [_Any!]!) { _entities(representations: $r) { ... on VmInstance { name } } }', {
        r: storageVms.slice(0, count).map((uuid) => ({ __typename: 'VmInstance', uuid })),
      });
      return (response.extensions as { cost: { requestedQueryCost: number } }).cost.requestedQueryCost;
    };
    expect(await costOf(50)).toBe(50 * (await costOf(1)));
  });

  it("another tenant's VMs are not found through _entities", async () => {
    const other = await subgraphQuery<{ _entities: unknown[] }>(ENTITIES, { r: [{ __typename: 'VmInstance', uuid: storageVms[0] }] }, harness.secondHeaders);
    expect(other.data!._entities).toEqual([null]);
    expect(errorCodes(other)).toEqual(['NOT_FOUND']);
  });
});

describe('a supergraph served by Hive Gateway', () => {
  let router: ReturnType<typeof startRouter>;

  beforeAll(async () => {
    router = startRouter(await composeSupergraph());
  });

  afterAll(async () => {
    await router?.dispose();
  });

  async function routerQuery<T>(query: string, headers: Record<string, string> = harness.headers): Promise<GraphQLResponse<T>> {
    const response = await router.fetch('http://router.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query }),
    });
    return { status: response.status, ...((await response.json()) as object) } as GraphQLResponse<T>;
  }

  it('answers 50 VMs with their owner (the owners subgraph) and host for the upstream requests of the direct page', async () => {
    harness.resetStats();
    const direct = await harness.gql<{ vmInstances: { nodes: { name: string; host: { name: string } | null }[] } }>(
      '{ vmInstances(first: 50) { nodes { name host { name } } } }',
    );
    const directRequests = harness.upstreamRequests();

    harness.resetStats();
    const routed = await routerQuery<{ vmInstances: { nodes: { name: string; owner: { team: string }; host: { name: string } | null }[] } }>(
      '{ vmInstances(first: 50) { nodes { name owner { team } host { name } } } }',
    );
    expect(routed.errors).toBeUndefined();
    expect(routed.data!.vmInstances.nodes).toEqual(direct.data!.vmInstances.nodes.map((vm) => ({ ...vm, owner: { team: 'storage' } })));
    expect(harness.upstreamRequests()).toBe(directRequests);
  });

  it("answers a team's 50 VMs with their hosts through _entities, for the upstream requests of the direct page", async () => {
    harness.resetStats();
    const direct = await harness.gql<{ vmInstances: { nodes: { name: string; host: { name: string } | null }[] } }>(
      '{ vmInstances(first: 50) { nodes { name host { name } } } }',
    );
    const directRequests = harness.upstreamRequests();

    harness.resetStats();
    const routed = await routerQuery<{ team: { vmInstances: { name: string; host: { name: string } | null }[] } }>(
      '{ team(name: "storage") { name vmInstances { name host { name } } } }',
    );
    expect(routed.errors).toBeUndefined();
    expect(routed.data!.team.vmInstances).toEqual(direct.data!.vmInstances.nodes);
    expect(harness.upstreamRequests()).toBe(directRequests);
  });

  it("passes each caller's own credentials: without them the gateway's fields fail UNAUTHENTICATED, the other tenant sees its own", async () => {
    const anonymous = await routerQuery<{ team: { name: string; vmInstances: unknown[] | null } | null }>(
      '{ team(name: "storage") { name vmInstances { name } } }',
      {},
    );
    expect(errorCodes(anonymous)).toContain('UNAUTHENTICATED');
    const second = await routerQuery<{ vmInstances: { totalCount: number } }>('{ vmInstances(first: 1) { totalCount } }', harness.secondHeaders);
    const first = await routerQuery<{ vmInstances: { totalCount: number } }>('{ vmInstances(first: 1) { totalCount } }');
    expect(second.data!.vmInstances.totalCount).toBeLessThan(first.data!.vmInstances.totalCount);
  });
});

describe.each([
  { transport: 'ws-params' as const, how: 'graphql-ws to /graphql, credentials as connectionParams' },
  { transport: 'ws-headers' as const, how: 'graphql-ws to /graphql, credentials as upgrade headers' },
  { transport: 'sse' as const, how: 'SSE to /subgraph' },
])('subscriptions through Hive Gateway ($how)', ({ transport }) => {
  let router: ReturnType<typeof startRouter>;

  beforeAll(async () => {
    router = startRouter(await composeSupergraph(), transport);
  });

  afterAll(async () => {
    await router?.dispose();
  });

  it('deliver jobCompleted of a job the same credential started through the router', async () => {
    const host = await harness.gql<{ hosts: { nodes: { uuid: string }[] } }>('{ hosts(first: 1) { nodes { uuid } } }');
    const uuid = host.data!.hosts.nodes[0]!.uuid;
    const nqn = `nqn.2014-08.org.example:federated-${transport}`;
    const started = await router.fetch('http://router.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...harness.headers },
      body: JSON.stringify({ query: `mutation { updateHostNqn(input: { uuid: "${uuid}", nqn: "${nqn}", async: true }) { job { id } } }` }),
    });
    const { data } = (await started.json()) as { data: { updateHostNqn: { job: { id: string } } } };
    const response = await router.fetch('http://router.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...harness.headers },
      body: JSON.stringify({
        query: `subscription { jobCompleted(id: "${data.updateHostNqn.job.id}") { status payload { ... on UpdateHostNqnPayload { host { nqn } } } } }`,
      }),
    });
    const events = await response.text();
    const next = events
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as { data?: { jobCompleted: unknown } })
      .find((event) => event.data !== undefined);
    expect(next?.data).toEqual({ jobCompleted: { status: 'SUCCEEDED', payload: { host: { nqn } } } });
  });
});

describe('the subgraph endpoint under TRUSTED_DOCUMENTS', () => {
  it('runs only the manifest operations too: /subgraph is no way around it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'federation-trusted-'));
    const path = join(dir, 'manifest.json');
    writeFileSync(path, JSON.stringify({ 'doc-hosts': '{ hosts(first: 1) { totalCount } }' }));
    const trusted = await startHarness({ config: { trustedDocuments: path, graphiql: false } });
    try {
      const post = (body: unknown) =>
        fetch(`${trusted.url}/subgraph`, { method: 'POST', headers: { 'content-type': 'application/json', ...trusted.headers }, body: JSON.stringify(body) });
      trusted.resetStats();
      for (const query of ['{ _service { sdl } }', ENTITIES]) {
        const refused = await post({ query, variables: { r: [] } });
        expect(refused.status).toBe(400);
        expect(errorCodes((await refused.json()) as GraphQLResponse)).toEqual(['PERSISTED_QUERY_ONLY']);
      }
      expect(trusted.upstreamRequests()).toBe(0);
      const byId = (await (await post({ documentId: 'doc-hosts' })).json()) as GraphQLResponse<{ hosts: { totalCount: number } }>;
      expect(byId.data!.hosts.totalCount).toBeGreaterThan(0);
    } finally {
      await trusted.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the subgraph endpoint with the response cache on', () => {
  it('answers _entities from its cache until a write changes the record, also one made through /graphql', async () => {
    const cached = await startHarness();
    try {
      const post = async <T>(query: string, variables?: Record<string, unknown>): Promise<GraphQLResponse<T>> => {
        const response = await fetch(`${cached.url}/subgraph`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...cached.headers },
          body: JSON.stringify({ query, variables }),
        });
        return (await response.json()) as GraphQLResponse<T>;
      };
      const hosts = await cached.gql<{ hosts: { nodes: { uuid: string }[] } }>('{ hosts(first: 1) { nodes { uuid } } }');
      const uuid = hosts.data!.hosts.nodes[0]!.uuid;
      const read = () => post<{ _entities: { nqn: string | null }[] }>('query($r: [_Any!]!) { _entities(representations: $r) { ... on Host { nqn } } }', { r: [{ __typename: 'Host', uuid }] });
      const before = await read();
      cached.resetStats();
      expect((await read()).data).toEqual(before.data);
      expect(cached.upstreamRequests()).toBe(0);
      const nqn = 'nqn.2014-08.org.example:after-write';
      // Written by a client of /graphql: the subgraph's cache must drop it too.
      const written = await cached.gql(`mutation { updateHostNqn(input: { uuid: "${uuid}", nqn: "${nqn}" }) { host { nqn } } }`);
      expect(written.errors).toBeUndefined();
      expect((await read()).data!._entities).toEqual([{ nqn }]);
    } finally {
      await cached.close();
    }
  });
});

describe('the subgraph of an older upstream release (UPSTREAM_VERSION)', () => {
  let older: Harness;

  beforeAll(async () => {
    older = await startHarness({ config: { responseCacheTtlMs: 0, upstreamVersion: '4.7.0' } });
  }, 60_000);

  afterAll(async () => {
    await older?.close();
  });

  async function olderSubgraph<T>(query: string, variables?: Record<string, unknown>): Promise<GraphQLResponse<T>> {
    const response = await fetch(`${older.url}/subgraph`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...older.headers },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.status, ...((await response.json()) as object) } as GraphQLResponse<T>;
  }

  it('gives a router only what that release offers: its SDL has no newer field and keeps every @key, and it composes', async () => {
    const service = await olderSubgraph<{ _service: { sdl: string } }>('{ _service { sdl } }');
    const sdl = service.data!._service.sdl;
    const host = parse(sdl).definitions.find((definition) => definition.kind === Kind.OBJECT_TYPE_DEFINITION && definition.name.value === 'Host');
    expect(host?.kind).toBe(Kind.OBJECT_TYPE_DEFINITION);
    if (host?.kind !== Kind.OBJECT_TYPE_DEFINITION) return;
    const fields = (host.fields ?? []).map((field) => field.name.value);
    expect(fields).toContain('managementIp');
    // NVMe qualified name: Since 4.10.6.
    expect(fields).not.toContain('nqn');
    expect(host.directives?.map((directive) => directive.name.value)).toContain('key');
    expect(sdl).not.toMatch(/updateHostNqn/);

    const composed = composeServices([
      { name: 'infra', typeDefs: parse(sdl), url: `${older.url}/subgraph` },
      { name: 'owners', typeDefs: parse(ownersTypeDefs()), url: 'http://127.0.0.1:1/graphql' },
    ]);
    expect(composed.errors ?? []).toEqual([]);
    expect(composed.publicSdl).not.toMatch(/\bnqn\b/);
  });

  it('answers _entities with the fields that release has, and names the release of one it lacks', async () => {
    const host = await older.gql<{ hosts: { nodes: { uuid: string; name: string }[] } }>('{ hosts(first: 1) { nodes { uuid name } } }');
    const { uuid, name } = host.data!.hosts.nodes[0]!;
    const entities = await olderSubgraph<{ _entities: { name: string }[] }>('query($r: [_Any!]!) { _entities(representations: $r) { ... on Host { name } } }', {
      r: [{ __typename: 'Host', uuid }],
    });
    expect(entities.errors).toBeUndefined();
    expect(entities.data!._entities[0]!.name).toBe(name);

    const newer = await olderSubgraph('query($r: [_Any!]!) { _entities(representations: $r) { ... on Host { nqn } } }', { r: [{ __typename: 'Host', uuid }] });
    expect(errorCodes(newer)).toEqual(['NOT_IN_UPSTREAM_RELEASE']);
    expect(newer.errors![0]!.message).toMatch(/4\.10\.6/);
  });
});
