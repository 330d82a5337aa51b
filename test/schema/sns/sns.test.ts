import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SnsApplicationEndpoint, SnsApplicationPlatform, SnsEmailAddress } from '../../../src/simulator/model.js';
import { errorCodes, startHarness, type GraphQLResponse, type Harness } from '../../support/harness.js';

interface Page<T> {
  totalCount: number;
  edges: { cursor: string; node: T }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

interface PlatformNode {
  id: string;
  uuid: string;
  name: string;
  description: string | null;
  type: string;
  state: string;
  createDate: string;
  lastOpDate: string;
  endpoints: { totalCount: number; nodes: { uuid: string }[] };
}

interface EmailNode {
  id: string;
  uuid: string;
  emailAddress: string;
  endpointUuid: string;
  createDate: string;
  lastOpDate: string;
  endpoint: { uuid: string; name: string; type: string } | null;
}

interface EndpointNode {
  id: string;
  uuid: string;
  name: string;
  description: string | null;
  type: string;
  platformUuid: string;
  state: string;
  createDate: string;
  lastOpDate: string;
  url: string | null;
  username: string | null;
  receivers: { phoneNumber: string }[];
  platform: { uuid: string; name: string } | null;
  emailAddresses: { uuid: string; emailAddress: string }[] | null;
}

const PLATFORM_FIELDS = 'id uuid name description type state createDate lastOpDate endpoints(first: 100) { totalCount nodes { uuid } }';
const EMAIL_FIELDS = 'id uuid emailAddress endpointUuid createDate lastOpDate endpoint { uuid name type }';
const ENDPOINT_FIELDS = `id uuid name description type platformUuid state createDate lastOpDate url username
  receivers { phoneNumber } platform { uuid name } emailAddresses { uuid emailAddress }`;
const TYPE_ENUM: Record<SnsApplicationEndpoint['type'], string> = { HTTP: 'HTTP', Email: 'EMAIL', SMS: 'SMS' };
const MISSING_UUID = 'fedcba9876543210fedcba9876543210';

describe('SNS records', () => {
  let harness: Harness;
  let tenantId: string;
  let secondTenantId: string;

  beforeAll(async () => {
    // 200 VMs give 10 CBT tasks, enough to cover several statuses.
    harness = await startHarness({ simulator: { hosts: 8, vms: 200 } });
    tenantId = harness.simulator.store.tenants[0]!.id;
    secondTenantId = harness.simulator.store.tenants[1]!.id;
  });

  afterAll(async () => {
    await harness.close();
  });

  const store = () => harness.simulator.store;

  describe('SNS platforms and endpoints (cursor family)', () => {
    it('returns every platform with its endpoints', async () => {
      const platforms = [...store().snsPlatforms.list(tenantId)];
      harness.resetStats();
      const response = await harness.gql<{ snsApplicationPlatforms: Page<PlatformNode> }>(
        `{ snsApplicationPlatforms(first: 100) { totalCount edges { node { ${PLATFORM_FIELDS} } } } }`,
      );
      expect(response.errors).toBeUndefined();
      expect(response.data!.snsApplicationPlatforms.totalCount).toBe(platforms.length);
      expect(response.data!.snsApplicationPlatforms.edges).toHaveLength(platforms.length);
      for (const { node } of response.data!.snsApplicationPlatforms.edges) {
        const platform: SnsApplicationPlatform = store().snsPlatforms.get(tenantId, node.uuid)!;
        const endpoints = store().snsEndpoints.by('platformUuid', platform.uuid, tenantId).map((endpoint) => endpoint.uuid);
        expect(node).toEqual({
          id: expect.any(String),
          uuid: platform.uuid,
          name: platform.name,
          description: platform.description,
          type: TYPE_ENUM[platform.type as keyof typeof TYPE_ENUM],
          state: platform.state.toUpperCase(),
          createDate: platform.createDate.toISOString(),
          lastOpDate: platform.lastOpDate.toISOString(),
          endpoints: { totalCount: endpoints.length, nodes: expect.any(Array) },
        });
        expect(node.endpoints.nodes.map((endpoint) => endpoint.uuid).sort()).toEqual(endpoints.sort());
      }
      // The platforms and all their endpoints: two CursorQuery requests, whatever the count.
      expect(harness.simulator.stats().byOperation).toEqual({ CursorQuery: 2 });
    });

    it('returns every endpoint with its type, HTTP url, SMS receivers, platform and email addresses', async () => {
      const endpoints = [...store().snsEndpoints.list(tenantId)];
      expect(new Set(endpoints.map((endpoint) => endpoint.type))).toEqual(new Set(['HTTP', 'Email', 'SMS']));
      harness.resetStats();
      const response = await harness.gql<{ snsApplicationEndpoints: Page<EndpointNode> }>(
        `{ snsApplicationEndpoints(first: 100) { totalCount edges { node { ${ENDPOINT_FIELDS} } } } }`,
      );
      expect(response.errors).toBeUndefined();
      expect(response.data!.snsApplicationEndpoints.totalCount).toBe(endpoints.length);
      expect(response.data!.snsApplicationEndpoints.edges).toHaveLength(endpoints.length);
      for (const { node } of response.data!.snsApplicationEndpoints.edges) {
        const endpoint = store().snsEndpoints.get(tenantId, node.uuid)!;
        const platform = store().snsPlatforms.get(tenantId, endpoint.platformUuid)!;
        const addresses: SnsEmailAddress[] = store().snsEmails.by('endpointUuid', endpoint.uuid, tenantId);
        expect(node).toEqual({
          id: expect.any(String),
          uuid: endpoint.uuid,
          name: endpoint.name,
          description: endpoint.description,
          type: TYPE_ENUM[endpoint.type],
          platformUuid: endpoint.platformUuid,
          state: endpoint.state.toUpperCase(),
          createDate: endpoint.createDate.toISOString(),
          lastOpDate: endpoint.lastOpDate.toISOString(),
          url: endpoint.type === 'HTTP' ? endpoint.url : null,
          username: endpoint.type === 'HTTP' ? endpoint.username : null,
          receivers: endpoint.receivers.map((phoneNumber) => ({ phoneNumber })),
          platform: { uuid: platform.uuid, name: platform.name },
          emailAddresses: expect.any(Array),
        });
        expect(node.emailAddresses!.map((address) => address.uuid).sort()).toEqual(addresses.map((address) => address.uuid).sort());
        expect(node.emailAddresses!.map((address) => address.emailAddress).sort()).toEqual(
          addresses.map((address) => address.emailAddress).sort(),
        );
        if (endpoint.type === 'Email') expect(addresses.length).toBeGreaterThan(0);
        if (endpoint.type === 'SMS') expect(node.receivers.length).toBeGreaterThan(0);
      }
      // Endpoints, their platforms, their email addresses: one request each for the whole page.
      expect(harness.simulator.stats().byOperation).toEqual({ CursorQuery: 2, QuerySNSEmailAddress: 1 });
    });

    it('filters endpoints by type and platform, and walks them page by page', async () => {
      const sms = [...store().snsEndpoints.list(tenantId)].filter((endpoint) => endpoint.type === 'SMS');
      const byType = await harness.gql<{ snsApplicationEndpoints: Page<{ uuid: string; type: string }> }>(
        '{ snsApplicationEndpoints(filter: { type: SMS }) { totalCount edges { node { uuid type } } } }',
      );
      expect(byType.data!.snsApplicationEndpoints.totalCount).toBe(sms.length);
      expect(byType.data!.snsApplicationEndpoints.edges.map((edge) => edge.node.uuid).sort()).toEqual(sms.map((endpoint) => endpoint.uuid).sort());

      const platform = sms[0]!.platformUuid;
      const byPlatform = await harness.gql<{ snsApplicationEndpoints: Page<{ platformUuid: string }> }>(
        'query ($platform: Uuid) { snsApplicationEndpoints(filter: { platformUuid: $platform }) { totalCount edges { node { platformUuid } } } }',
        { platform },
      );
      expect(byPlatform.data!.snsApplicationEndpoints.totalCount).toBe(store().snsEndpoints.by('platformUuid', platform, tenantId).length);
      expect(byPlatform.data!.snsApplicationEndpoints.edges.every((edge) => edge.node.platformUuid === platform)).toBe(true);

      const seen: string[] = [];
      let after: string | null = null;
      for (let pages = 0; pages < 10; pages += 1) {
        const page: GraphQLResponse<{ snsApplicationEndpoints: Page<{ uuid: string }> }> = await harness.gql(
          'query ($after: String) { snsApplicationEndpoints(first: 4, after: $after, orderBy: { field: NAME }) { edges { node { uuid } } pageInfo { hasNextPage endCursor } } }',
          { after },
        );
        seen.push(...page.data!.snsApplicationEndpoints.edges.map((edge) => edge.node.uuid));
        if (!page.data!.snsApplicationEndpoints.pageInfo.hasNextPage) break;
        after = page.data!.snsApplicationEndpoints.pageInfo.endCursor;
      }
      const byName = [...store().snsEndpoints.list(tenantId)].sort((a, b) => (a.name < b.name ? -1 : 1)).map((endpoint) => endpoint.uuid);
      expect(seen).toEqual(byName);
    });

    it('node(id) resolves a platform and an endpoint', async () => {
      const response = await harness.gql<{ snsApplicationEndpoints: { nodes: { id: string; uuid: string; platform: { id: string; uuid: string } }[] } }>(
        '{ snsApplicationEndpoints(first: 1) { nodes { id uuid platform { id uuid } } } }',
      );
      const endpoint = response.data!.snsApplicationEndpoints.nodes[0]!;
      const nodes = await harness.gql<{ nodes: { __typename: string; uuid: string }[] }>(
        'query ($ids: [ID!]!) { nodes(ids: $ids) { __typename ... on SnsApplicationEndpoint { uuid } ... on SnsApplicationPlatform { uuid } } }',
        { ids: [endpoint.id, endpoint.platform.id] },
      );
      expect(nodes.data!.nodes).toEqual([
        { __typename: 'SnsApplicationEndpoint', uuid: endpoint.uuid },
        { __typename: 'SnsApplicationPlatform', uuid: endpoint.platform.uuid },
      ]);
    });
  });

  describe('snsEmailAddresses', () => {
    it('returns every address with its endpoint', async () => {
      const addresses = [...store().snsEmails.list(tenantId)];
      const response = await harness.gql<{ snsEmailAddresses: Page<EmailNode> }>(
        `{ snsEmailAddresses(first: 100) { totalCount edges { node { ${EMAIL_FIELDS} } } } }`,
      );
      expect(response.errors).toBeUndefined();
      expect(response.data!.snsEmailAddresses.totalCount).toBe(addresses.length);
      expect(response.data!.snsEmailAddresses.edges).toHaveLength(addresses.length);
      for (const { node } of response.data!.snsEmailAddresses.edges) {
        const address = store().snsEmails.get(tenantId, node.uuid)!;
        const endpoint = store().snsEndpoints.get(tenantId, address.endpointUuid)!;
        expect(node).toEqual({
          id: expect.any(String),
          uuid: address.uuid,
          emailAddress: address.emailAddress,
          endpointUuid: address.endpointUuid,
          createDate: address.createDate.toISOString(),
          lastOpDate: address.lastOpDate.toISOString(),
          endpoint: { uuid: endpoint.uuid, name: endpoint.name, type: 'EMAIL' },
        });
      }
    });

    it('filters by endpoint and uuids; snsEmailAddress(uuid) returns one, an unknown uuid NOT_FOUND', async () => {
      const addresses = [...store().snsEmails.list(tenantId)];
      const endpointUuid = addresses[0]!.endpointUuid;
      const byEndpoint = await harness.gql<{ snsEmailAddresses: Page<{ uuid: string }> }>(
        'query ($endpoint: Uuid) { snsEmailAddresses(filter: { endpointUuid: $endpoint }) { totalCount edges { node { uuid } } } }',
        { endpoint: endpointUuid },
      );
      const expected = addresses.filter((address) => address.endpointUuid === endpointUuid).map((address) => address.uuid);
      expect(byEndpoint.data!.snsEmailAddresses.totalCount).toBe(expected.length);
      expect(byEndpoint.data!.snsEmailAddresses.edges.map((edge) => edge.node.uuid).sort()).toEqual(expected.sort());

      const byUuids = await harness.gql<{ snsEmailAddresses: { totalCount: number } }>(
        'query ($uuids: [Uuid!]) { snsEmailAddresses(filter: { uuids: $uuids }) { totalCount } }',
        { uuids: [addresses[0]!.uuid, addresses[addresses.length - 1]!.uuid, MISSING_UUID] },
      );
      expect(byUuids.data!.snsEmailAddresses.totalCount).toBe(2);

      const one = await harness.gql<{ snsEmailAddress: EmailNode }>(`query ($uuid: Uuid!) { snsEmailAddress(uuid: $uuid) { ${EMAIL_FIELDS} } }`, {
        uuid: addresses[1]!.uuid,
      });
      expect(one.data!.snsEmailAddress.emailAddress).toBe(addresses[1]!.emailAddress);
      expect(one.data!.snsEmailAddress.endpoint!.uuid).toBe(addresses[1]!.endpointUuid);

      const missing = await harness.gql<{ snsEmailAddress: null }>(`{ snsEmailAddress(uuid: "${MISSING_UUID}") { uuid } }`);
      expect(missing.data!.snsEmailAddress).toBeNull();
      expect(errorCodes(missing)).toEqual(['NOT_FOUND']);
    });
  });

  describe('credentials and tenants', () => {
    it('a missing credential is UNAUTHENTICATED with no upstream request', async () => {
      harness.resetStats();
      const { authorization: _session, ...cursorOnly } = harness.headers;
      const { 'x-resources-authorization': _token, ...resourceOnly } = harness.headers;
      const cbt = await harness.gql('{ cbtTasks { totalCount } }', undefined, cursorOnly);
      expect(errorCodes(cbt)).toEqual(['UNAUTHENTICATED']);
      const emails = await harness.gql('{ snsEmailAddresses { totalCount } }', undefined, cursorOnly);
      expect(errorCodes(emails)).toEqual(['UNAUTHENTICATED']);
      const platforms = await harness.gql('{ snsApplicationPlatforms { totalCount } }', undefined, resourceOnly);
      expect(errorCodes(platforms)).toEqual(['UNAUTHENTICATED']);
      const endpoints = await harness.gql('{ snsApplicationEndpoints { totalCount } }', undefined, {});
      expect(errorCodes(endpoints)).toEqual(['UNAUTHENTICATED']);
      expect(harness.upstreamRequests()).toBe(0);
    });

    it('a malformed Uuid is rejected before any upstream request', async () => {
      harness.resetStats();
      const task = await harness.gql('{ cbtTask(uuid: "1234") { uuid } }');
      expect(errorCodes(task)).toContain('BAD_USER_INPUT');
      const endpoints = await harness.gql('query ($p: Uuid) { snsApplicationEndpoints(filter: { platformUuid: $p }) { totalCount } }', {
        p: 'zz'.repeat(16),
      });
      expect(errorCodes(endpoints)).toContain('BAD_USER_INPUT');
      expect(harness.upstreamRequests()).toBe(0);
    });

    it('the second tenant sees only its own tasks, platforms, endpoints and addresses', async () => {
      const response = await harness.gql<{
        cbtTasks: Page<{ uuid: string }>;
        snsApplicationPlatforms: Page<{ uuid: string }>;
        snsApplicationEndpoints: Page<{ uuid: string }>;
        snsEmailAddresses: Page<{ uuid: string }>;
      }>(
        `{ cbtTasks(first: 100) { edges { node { uuid } } } snsApplicationPlatforms(first: 100) { edges { node { uuid } } }
           snsApplicationEndpoints(first: 100) { edges { node { uuid } } } snsEmailAddresses(first: 100) { edges { node { uuid } } } }`,
        undefined,
        harness.secondHeaders,
      );
      expect(response.errors).toBeUndefined();
      const uuids = (page: Page<{ uuid: string }>) => new Set(page.edges.map((edge) => edge.node.uuid));
      const data = response.data!;
      expect(uuids(data.cbtTasks)).toEqual(new Set([...store().cbtTasks.list(secondTenantId)].map((record) => record.uuid)));
      expect(uuids(data.snsApplicationPlatforms)).toEqual(new Set([...store().snsPlatforms.list(secondTenantId)].map((record) => record.uuid)));
      expect(uuids(data.snsApplicationEndpoints)).toEqual(new Set([...store().snsEndpoints.list(secondTenantId)].map((record) => record.uuid)));
      expect(uuids(data.snsEmailAddresses)).toEqual(new Set([...store().snsEmails.list(secondTenantId)].map((record) => record.uuid)));
      expect(data.snsEmailAddresses.edges.length).toBeGreaterThan(0);

      const foreign = await harness.gql<{ cbtTask: null; snsEmailAddress: null }>(
        'query ($task: Uuid!, $email: Uuid!) { cbtTask(uuid: $task) { uuid } snsEmailAddress(uuid: $email) { uuid } }',
        { task: [...store().cbtTasks.list(tenantId)][0]!.uuid, email: [...store().snsEmails.list(tenantId)][0]!.uuid },
        harness.secondHeaders,
      );
      expect(foreign.data).toEqual({ cbtTask: null, snsEmailAddress: null });
      expect(errorCodes(foreign)).toEqual(['NOT_FOUND', 'NOT_FOUND']);
    });
  });
});
