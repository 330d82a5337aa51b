/**
 * `node(id:)` and `nodes(ids:)`: each malformed, unknown or unreadable id is null in its own slot
 * with a coded error, the others resolve; at most 100 ids, refused before any upstream request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCodes, startHarness, type GraphQLResponse, type Harness } from '../../support/harness.js';

const UNKNOWN_UUID = 'e'.repeat(32);

function globalId(typename: string, id: string): string {
  return Buffer.from(`${typename}:${id}`).toString('base64');
}

/** The upstream requests the simulator counted, as its own `GET /__sim/stats` reports them. */
async function simulatorRequests(harness: Harness): Promise<number> {
  const stats = (await (await fetch(`${harness.simulator.url}/__sim/stats`)).json()) as { total: number };
  return stats.total;
}

function errorAt(response: GraphQLResponse<unknown>, path: (string | number)[]) {
  return response.errors?.find((error) => JSON.stringify(error.path) === JSON.stringify(path));
}

describe('node ids', () => {
  let harness: Harness;
  let vmId: string;
  let hostId: string;

  beforeAll(async () => {
    harness = await startHarness();
    const page = await harness.gql<{ vmInstances: { nodes: { id: string }[] }; hosts: { nodes: { id: string }[] } }>(
      '{ vmInstances(first: 1) { nodes { id } } hosts(first: 1) { nodes { id } } }',
    );
    vmId = page.data!.vmInstances.nodes[0]!.id;
    hostId = page.data!.hosts.nodes[0]!.id;
  });

  afterAll(async () => {
    await harness.close();
  });

  it('nulls each bad or unknown id in its own slot with a coded error and resolves the others', async () => {
    const ids = [
      vmId,
      'garbage',
      globalId('VmInstance', UNKNOWN_UUID),
      hostId,
      globalId('NoSuchType', UNKNOWN_UUID),
      globalId('PageInfo', UNKNOWN_UUID),
      globalId('VmInstance', 'not-a-uuid'),
      globalId('VmNic', UNKNOWN_UUID),
    ];
    const response = await harness.gql<{ nodes: ({ __typename: string } | null)[] }>(
      'query($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }',
      { ids },
    );
    expect(response.data?.nodes.map((node) => node?.__typename ?? null)).toEqual(['VmInstance', null, null, 'Host', null, null, null, null]);
    expect(errorAt(response, ['nodes', 1])?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(errorAt(response, ['nodes', 2])?.extensions?.code).toBe('NOT_FOUND');
    expect(errorAt(response, ['nodes', 4])?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(errorAt(response, ['nodes', 5])?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(errorAt(response, ['nodes', 6])?.extensions?.code).toBe('BAD_USER_INPUT');
    // A VmNic id is `<vmUuid>.<nicUuid>`: a bare uuid names no NIC.
    expect(errorAt(response, ['nodes', 7])?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(response.errors).toHaveLength(6);
  });

  it('node(id:) of an id this API did not issue is a BAD_USER_INPUT null', async () => {
    const response = await harness.gql('{ node(id: "abc") { id } }');
    expect(response.data).toEqual({ node: null });
    expect(errorCodes(response)).toEqual(['BAD_USER_INPUT']);
  });

  it('refuses more than 100 ids before any upstream request, and takes 100', async () => {
    const before = await simulatorRequests(harness);
    const refused = await harness.gql('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids: Array.from({ length: 101 }, () => vmId) });
    expect(errorCodes(refused)).toEqual(['BAD_USER_INPUT']);
    expect(refused.errors?.[0]?.extensions).toMatchObject({ argument: 'ids', max: 100 });
    expect(await simulatorRequests(harness)).toBe(before);

    const taken = await harness.gql<{ nodes: { id: string }[] }>('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', {
      ids: Array.from({ length: 100 }, () => vmId),
    });
    expect(taken.errors).toBeUndefined();
    expect(taken.data?.nodes).toHaveLength(100);
  });

  describe('records embedded in a VM the caller cannot read', () => {
    let nicId: string;
    let usedIpId: string;

    beforeAll(async () => {
      // The second tenant's VM: invisible to the first tenant.
      const page = await harness.gql<{ vmInstances: { nodes: { nics: { id: string; usedIps: { id: string }[] }[] }[] } }>(
        '{ vmInstances(first: 20) { nodes { nics { id usedIps { id } } } } }',
        undefined,
        harness.secondHeaders,
      );
      const nic = page.data!.vmInstances.nodes.flatMap((vm) => vm.nics).find((candidate) => candidate.usedIps.length > 0)!;
      nicId = nic.id;
      usedIpId = nic.usedIps[0]!.id;
    });

    it('answers a NOT_FOUND null for a VmNic and a UsedIp of an invisible VM in one call', async () => {
      const response = await harness.gql('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids: [nicId, usedIpId, vmId] });
      expect(response.data?.nodes).toEqual([null, null, { id: vmId }]);
      expect(errorCodes(response)).toEqual(['NOT_FOUND', 'NOT_FOUND']);
    });

    it('gives each slot its own error when the VM cannot be read at all', async () => {
      const response = await harness.gql('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids: [nicId, usedIpId, vmId] }, {
        authorization: harness.headers.authorization,
      });
      expect(response.data?.nodes).toEqual([null, null, null]);
      expect(errorCodes(response)).toEqual(['UNAUTHENTICATED', 'UNAUTHENTICATED', 'UNAUTHENTICATED']);
    });
  });
});
