import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type CredentialHeaders, type Harness } from '../support/harness.js';

const HOSTS = /* GraphQL */ `
  query Hosts {
    hosts(first: 20) { totalCount nodes { id uuid name nqn status } }
  }
`;

interface HostsData {
  hosts: { totalCount: number; nodes: { id: string; uuid: string; name: string; nqn: string | null; status: string }[] };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A hash-only (or hash + text) APQ request over GET, as Apollo's persisted-query link sends it. */
function apqUrl(base: string, hash: string, query?: string): string {
  const params = new URLSearchParams({ extensions: JSON.stringify({ persistedQuery: { version: 1, sha256Hash: hash } }) });
  if (query) params.set('query', query);
  return `${base}/graphql?${params}`;
}

describe('performance features', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({ simulator: { vms: 60, hosts: 6 } });
  });

  afterAll(async () => {
    await harness?.close();
  });

  /** Runs a query and answers its data and the upstream requests it cost. */
  async function costOf<T>(query: string, headers: Record<string, string> = harness.headers, variables?: Record<string, unknown>) {
    harness.resetStats();
    const response = await harness.gql<T>(query, variables, headers);
    expect(response.errors).toBeUndefined();
    return { data: response.data!, upstream: harness.upstreamRequests() };
  }

  describe('response cache', () => {
    it('answers a repeated query from the cache, without upstream requests', async () => {
      const first = await costOf<HostsData>(HOSTS);
      const second = await costOf<HostsData>(HOSTS);
      expect(first.upstream).toBeGreaterThan(0);
      expect(second.upstream).toBe(0);
      expect(second.data).toEqual(first.data);
    });

    it('never serves one credential\'s cached answer to another', async () => {
      const mine = await costOf<HostsData>(HOSTS);
      expect(mine.upstream).toBe(0);
      const theirs = await costOf<HostsData>(HOSTS, harness.secondHeaders);
      expect(theirs.upstream).toBeGreaterThan(0);
      const tenant = harness.simulator.credentials.second.tenantId;
      expect(theirs.data.hosts.totalCount).toBe(harness.simulator.store.hosts.count(tenant));
      expect(theirs.data.hosts.nodes.map((host) => host.uuid)).not.toEqual(mine.data.hosts.nodes.map((host) => host.uuid));
    });

    it('keeps answers apart for callers that share only some credential headers', async () => {
      await costOf<HostsData>(HOSTS);
      const variants: Record<string, string>[] = [
        // The same bearer token under another tenant id (the upstream answers 403).
        { ...harness.headers, 'x-tenant-id': harness.simulator.credentials.second.tenantId },
        // The same session with the second tenant's cursor-family token.
        { ...harness.headers, 'x-resources-authorization': harness.secondHeaders['x-resources-authorization'] },
      ];
      for (const headers of variants) {
        harness.resetStats();
        const response = await harness.gql<HostsData>(HOSTS, undefined, headers);
        expect(harness.upstreamRequests()).toBeGreaterThan(0);
        expect(response.data?.hosts?.nodes.map((host) => host.uuid) ?? []).not.toEqual(
          (await harness.gql<HostsData>(HOSTS)).data!.hosts.nodes.map((host) => host.uuid),
        );
      }
    });

    it('serves one caller its cached answer whatever the spelling of its scheme and whitespace', async () => {
      const first = await costOf<HostsData>(HOSTS);
      const [scheme, token] = harness.headers['x-resources-authorization']!.split(' ');
      const respelled = { ...harness.headers, 'x-resources-authorization': `  ${scheme!.toLowerCase()}   ${token!} ` };
      const second = await costOf<HostsData>(HOSTS, respelled);
      expect(second.upstream).toBe(0);
      expect(second.data).toEqual(first.data);
    });

    it('does not cache answers for a caller without credentials', async () => {
      const anonymous: Record<string, string> = {};
      const first = await harness.gql(HOSTS, undefined, anonymous);
      expect(first.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
      const response = await fetch(`${harness.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: HOSTS }),
      });
      expect(response.headers.get('etag')).toBeNull();
    });

    it('is invalidated when a mutation returns a changed record', async () => {
      const before = await costOf<HostsData>(HOSTS);
      const host = before.data.hosts.nodes.find((candidate) => candidate.status === 'Connected')!;
      expect((await costOf<HostsData>(HOSTS)).upstream).toBe(0);
      const nqn = `nqn.2014-08.org.example:sync-${Date.now()}`;
      const mutation = await harness.gql<{ updateHostNqn: { host: { id: string; nqn: string } | null; error: unknown } }>(
        'mutation ($input: UpdateHostNqnInput!) { updateHostNqn(input: $input) { host { id nqn } error { code } } }',
        { input: { uuid: host.uuid, nqn } },
      );
      expect(mutation.data?.updateHostNqn).toEqual({ host: { id: host.id, nqn }, error: null });
      const after = await costOf<HostsData>(HOSTS);
      expect(after.upstream).toBeGreaterThan(0);
      expect(after.data.hosts.nodes.find((candidate) => candidate.uuid === host.uuid)?.nqn).toBe(nqn);
    });

    it('is invalidated when an asynchronous mutation\'s job finishes later', async () => {
      const before = await costOf<HostsData>(HOSTS);
      const host = before.data.hosts.nodes.find((candidate) => candidate.status === 'Connected')!;
      const nqn = `nqn.2014-08.org.example:async-${Date.now()}`;
      // Without its webhook the gateway learns the result only by polling, seconds later: until
      // then the job runs, and the read below caches the old NQN again.
      harness.simulator.configure({ dropWebhooks: true });
      const started = await harness.gql<{ updateHostNqn: { job: { id: string; status: string } } }>(
        'mutation ($input: UpdateHostNqnInput!) { updateHostNqn(input: $input) { job { id status } } }',
        { input: { uuid: host.uuid, nqn, async: true } },
      );
      expect(started.data?.updateHostNqn.job.status).toBe('RUNNING');
      // Cached again while the job runs: this answer still holds the old NQN.
      const during = await costOf<HostsData>(HOSTS);
      expect(during.data.hosts.nodes.find((candidate) => candidate.uuid === host.uuid)?.nqn).not.toBe(nqn);
      await waitForJob(harness, started.data!.updateHostNqn.job.id);
      harness.simulator.configure({ dropWebhooks: false });
      const after = await costOf<HostsData>(HOSTS);
      expect(after.upstream).toBeGreaterThan(0);
      expect(after.data.hosts.nodes.find((candidate) => candidate.uuid === host.uuid)?.nqn).toBe(nqn);
    });
  });

  describe('ETag', () => {
    it('answers 304 without a body when If-None-Match names the cached answer', async () => {
      const query = '{ hosts(first: 3) { nodes { uuid name } } }';
      const first = await post(harness, query);
      const second = await post(harness, query);
      const etag = second.headers.get('etag') ?? first.headers.get('etag');
      expect(etag).toBeTruthy();
      expect(second.headers.get('cache-control')).toBe('private, no-cache');
      // The first answer (executed, then cached) and the cached one carry the same ETag.
      expect(first.headers.get('etag')).toBe(second.headers.get('etag'));
      expect([...second.headers.keys()].filter((name) => name.startsWith('x-gateway'))).toEqual([]);
      const revalidated = await post(harness, query, { 'if-none-match': etag! });
      expect(revalidated.status).toBe(304);
      expect(await revalidated.text()).toBe('');
    });

    it('never answers 304 to a copy a mutation made stale, even once the answer is cached again', async () => {
      const query = '{ hosts(first: 6) { nodes { id uuid nqn status } } }';
      const first = await post(harness, query);
      const etag = first.headers.get('etag');
      expect(etag).toBeTruthy();
      const before = (await first.json()) as { data: { hosts: { nodes: { uuid: string; nqn: string | null; status: string }[] } } };
      const host = before.data.hosts.nodes.find((candidate) => candidate.status === 'Connected')!;
      const nqn = `nqn.2014-08.org.example:etag-${Date.now()}`;
      const mutation = await harness.gql('mutation ($input: UpdateHostNqnInput!) { updateHostNqn(input: $input) { error { code } } }', {
        input: { uuid: host.uuid, nqn },
      });
      expect(mutation.errors).toBeUndefined();
      // Another client of the same credential reads (and caches) the new answer first.
      const refreshed = await post(harness, query);
      expect(refreshed.status).toBe(200);
      await refreshed.arrayBuffer();
      // The old copy's ETag must not validate against the new answer.
      const revalidated = await post(harness, query, { 'if-none-match': etag! });
      expect(revalidated.status).toBe(200);
      const body = (await revalidated.json()) as typeof before;
      expect(body.data.hosts.nodes.find((candidate) => candidate.uuid === host.uuid)?.nqn).toBe(nqn);
      // The new copy's ETag does validate.
      const current = revalidated.headers.get('etag') ?? refreshed.headers.get('etag');
      expect(current).toBeTruthy();
      expect(current).not.toBe(etag);
      expect((await post(harness, query, { 'if-none-match': current! })).status).toBe(304);
    });
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
      const host = first.nodes.find((candidate) => candidate.status === 'Connected')!;
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

  describe('@defer', () => {
    it('delivers the slow host fields as an incremental payload after the first one', async () => {
      const response = await fetch(`${harness.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'multipart/mixed', ...harness.headers },
        body: JSON.stringify({
          query: '{ hosts(first: 1) { nodes { uuid name ... @defer(label: "slow") { sensors blockDevices } } } }',
        }),
      });
      expect(response.headers.get('content-type')).toMatch(/^multipart\/mixed/);
      const parts = parseMultipart(await response.text());
      expect(parts.length).toBeGreaterThanOrEqual(2);
      const [initial, ...rest] = parts as [Record<string, unknown>, ...Record<string, unknown>[]];
      expect(initial).toMatchObject({ hasNext: true });
      const host = (initial.data as { hosts: { nodes: Record<string, unknown>[] } }).hosts.nodes[0]!;
      expect(host.name).toEqual(expect.any(String));
      expect(host).not.toHaveProperty('sensors');
      const incremental = rest.flatMap((part) => (part.incremental as { label?: string; data: Record<string, unknown> }[] | undefined) ?? []);
      expect(incremental[0]).toMatchObject({ label: 'slow', data: { sensors: expect.any(Array), blockDevices: expect.any(Array) } });
      expect(rest.at(-1)).toMatchObject({ hasNext: false });
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

async function get(url: string, headers: CredentialHeaders): Promise<Response> {
  return fetch(url, { headers: { accept: 'application/json', ...headers } });
}

async function waitForJob(harness: Harness, id: string): Promise<void> {
  for (let attempt = 0; attempt < 400; attempt++) {
    const response = await harness.gql<{ job: { status: string } }>('query ($id: ID!) { job(id: $id) { status } }', { id });
    if (response.data?.job.status !== 'RUNNING') return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`job ${id} still running`);
}

/** The JSON parts of a `multipart/mixed` answer. */
function parseMultipart(text: string): unknown[] {
  return text
    .split(/\r?\n---/)
    .map((part) => part.slice(part.indexOf('{')).trim())
    .filter((part) => part.startsWith('{'))
    .map((part) => JSON.parse(part.slice(0, part.lastIndexOf('}') + 1)) as unknown);
}
