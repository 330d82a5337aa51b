import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';

const HOSTS = /* GraphQL */ `
  query Hosts {
    hosts(first: 20) { totalCount nodes { id uuid name nqn status } }
  }
`;

interface HostsData {
  hosts: { totalCount: number; nodes: { id: string; uuid: string; name: string; nqn: string | null; status: string }[] };
}

describe('useResponseCache', () => {
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
      const host = before.data.hosts.nodes.find((candidate) => candidate.status === 'CONNECTED')!;
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
      const host = before.data.hosts.nodes.find((candidate) => candidate.status === 'CONNECTED')!;
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
      const host = before.data.hosts.nodes.find((candidate) => candidate.status === 'CONNECTED')!;
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

});

async function post(harness: Harness, query: string, extra: Record<string, string> = {}): Promise<Response> {
  return fetch(`${harness.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...harness.headers, ...extra },
    body: JSON.stringify({ query }),
  });
}

async function waitForJob(harness: Harness, id: string): Promise<void> {
  for (let attempt = 0; attempt < 400; attempt++) {
    const response = await harness.gql<{ job: { status: string } }>('query ($id: ID!) { job(id: $id) { status } }', { id });
    if (response.data?.job.status !== 'RUNNING') return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`job ${id} still running`);
}
