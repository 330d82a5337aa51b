import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type CredentialHeaders, type Harness } from '../support/harness.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A hash-only (or hash + text) APQ request over GET, as Apollo's persisted-query link sends it. */
function apqUrl(base: string, hash: string, query?: string): string {
  const params = new URLSearchParams({ extensions: JSON.stringify({ persistedQuery: { version: 1, sha256Hash: hash } }) });
  if (query) params.set('query', query);
  return `${base}/graphql?${params}`;
}

describe('usePersistedQueries', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({ simulator: { vms: 60, hosts: 6 } });
  });

  afterAll(async () => {
    await harness?.close();
  });

  describe('automatic persisted queries', () => {
    it('round-trips: hash-only GET → PersistedQueryNotFound → register → hash-only GET runs it', async () => {
      const query = `query Apq${Date.now()} { hosts(first: 2) { nodes { uuid } } }`;
      const hash = sha256(query);
      const missing = await get(apqUrl(harness.url, hash), harness.headers);
      const missingBody = (await missing.json()) as { errors: { message: string; extensions: { code: string } }[] };
      expect(missingBody.errors[0]).toMatchObject({ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } });
      expect(missing.headers.get('cache-control')).toBe('no-store');

      const registered = await fetch(`${harness.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...harness.headers },
        body: JSON.stringify({ query, extensions: { persistedQuery: { version: 1, sha256Hash: hash } } }),
      });
      const registeredBody = (await registered.json()) as { data: { hosts: { nodes: unknown[] } } };
      expect(registeredBody.data.hosts.nodes).toHaveLength(2);

      const byHash = await get(apqUrl(harness.url, hash), harness.headers);
      expect(byHash.status).toBe(200);
      expect(((await byHash.json()) as typeof registeredBody).data).toEqual(registeredBody.data);
    });

    it('rejects a hash that does not match the query sent with it', async () => {
      const response = await get(apqUrl(harness.url, sha256('something else'), '{ hosts(first: 1) { totalCount } }'), harness.headers);
      expect(response.status).toBe(400);
      const body = (await response.json()) as { errors: { extensions: { code: string } }[] };
      expect(body.errors[0]?.extensions.code).toBe('BAD_REQUEST');
    });
  });

});

async function get(url: string, headers: CredentialHeaders): Promise<Response> {
  return fetch(url, { headers: { accept: 'application/json', ...headers } });
}
