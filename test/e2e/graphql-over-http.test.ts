/**
 * The GraphQL over HTTP specification's own audits (graphql-http's `auditServer`, the suite the
 * spec's implementations list is checked with) against `/graphql` and `/subgraph`: every MUST and
 * every SHOULD holds, so any spec-following client gets the status codes and media types it
 * expects.
 */
import { auditServer } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';

describe('GraphQL over HTTP audits', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness();
  });

  afterAll(async () => {
    await harness?.close();
  });

  it.each(['/graphql', '/subgraph'])('%s passes every audit', async (path) => {
    const results = await auditServer({
      url: `${harness.url}${path}`,
      fetchFn: (input: RequestInfo | URL, init?: RequestInit) => fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers).entries()), ...harness.headers } }),
    });
    expect(results.length).toBeGreaterThan(50);
    expect(results.filter((result) => result.status !== 'ok').map((result) => `${result.status} ${result.id}: ${result.name}`)).toEqual([]);
  });
});
