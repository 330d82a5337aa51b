import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/harness.js';

describe('useCompression', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({ simulator: { vms: 60, hosts: 6 } });
  });

  afterAll(async () => {
    await harness?.close();
  });

  describe('compression', () => {
    it('serves a cached answer compressed, and the changed answer once a mutation changed it', async () => {
      const query = '{ hosts(first: 6) { nodes { uuid name nqn status description managementIp cpuStatus memoryStatus } } }';
      const read = async () => {
        const response = await post(harness, query, { 'accept-encoding': 'br' });
        expect(response.headers.get('content-encoding')).toBe('br');
        const body = (await response.json()) as { data: { hosts: { nodes: { uuid: string; nqn: string | null; status: string }[] } } };
        return { etag: response.headers.get('etag'), nodes: body.data.hosts.nodes };
      };
      const first = await read();
      const hit = await read();
      expect(hit).toEqual(first);
      const host = first.nodes.find((candidate) => candidate.status === 'CONNECTED')!;
      const nqn = `nqn.2014-08.org.example:br-${Date.now()}`;
      const mutation = await harness.gql('mutation ($input: UpdateHostNqnInput!) { updateHostNqn(input: $input) { error { code } } }', {
        input: { uuid: host.uuid, nqn },
      });
      expect(mutation.errors).toBeUndefined();
      const changed = await read();
      expect(changed.etag).not.toBe(first.etag);
      expect(changed.nodes.find((candidate) => candidate.uuid === host.uuid)?.nqn).toBe(nqn);
    });

    it('compresses a large answer for a client that accepts gzip, and not a small one', async () => {
      const large = await fetch(`${harness.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', 'accept-encoding': 'gzip', ...harness.headers },
        body: JSON.stringify({ query: '{ vmInstances(first: 50) { nodes { uuid name state nics { uuid ip mac } volumes { uuid size } } } }' }),
      });
      expect(large.headers.get('content-encoding')).toBe('gzip');
      expect(large.headers.get('vary')).toMatch(/Accept-Encoding/i);
      const body = (await large.json()) as { data: { vmInstances: { nodes: unknown[] } } };
      expect(body.data.vmInstances.nodes).toHaveLength(50);

      const small = await fetch(`${harness.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', 'accept-encoding': 'br, gzip', ...harness.headers },
        body: JSON.stringify({ query: '{ hosts(first: 1) { totalCount } }' }),
      });
      expect(small.headers.get('content-encoding')).toBeNull();
    });

    it('prefers brotli when the client accepts it', async () => {
      const response = await fetch(`${harness.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', 'accept-encoding': 'gzip, br', ...harness.headers },
        body: JSON.stringify({ query: '{ vmInstances(first: 40) { nodes { uuid name nics { uuid ip mac } } } }' }),
      });
      expect(response.headers.get('content-encoding')).toBe('br');
      expect(((await response.json()) as { data: { vmInstances: { nodes: unknown[] } } }).data.vmInstances.nodes).toHaveLength(40);
    });
  });

});

async function post(harness: Harness, query: string, extra: Record<string, string> = {}): Promise<Response> {
  return fetch(`${harness.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...harness.headers, ...extra },
    body: JSON.stringify({ query }),
  });
}
