/**
 * `@live` queries against the simulator, over graphql-ws and SSE: the first answer at once, a new
 * one after a write through the gateway changed what the query read (no polling in between),
 * each tenant re-run only by its own writes, the caps, the throttle, the cost of each run, and
 * JSON-patch deltas.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { applyJSONPatch } from '@n1ru4l/graphql-live-query-patch-json-patch';
import { startHarness, type Harness } from '../support/harness.js';
import { subscribeSse, subscribeWs, type Collected } from '../support/subscriptions.js';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

const DASHBOARD = /* GraphQL */ `
  query Dashboard @live {
    vmInstances(first: 50) { totalCount nodes { uuid name state nics { uuid driverType } } }
  }
`;
const HOSTS = /* GraphQL */ `
  query Hosts @live {
    hosts(first: 5) { nodes { uuid name } }
  }
`;

interface Dashboard {
  vmInstances: { totalCount: number; nodes: { uuid: string; name: string; state: string; nics: { uuid: string; driverType: string }[] }[] };
}

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function metric(harness: Harness, name: string): Promise<number> {
  const text = await (await fetch(`${harness.url}/metrics`)).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name} `) || candidate.startsWith(`${name}{`) && !candidate.startsWith('#'));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('@live queries', () => {
  let harness: Harness;
  const open: Collected<never>[] = [];

  beforeAll(async () => {
    harness = await startHarness({ config: { liveMinIntervalMs: 0, liveMaxPerSocket: 3, liveMaxPerCredential: 5, livePollMs: 0 } });
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((collected) => collected.close()));
    await until(async () => (await metric(harness, 'gateway_live_queries_open')) === 0, 'the live queries to close');
  });
  afterAll(async () => harness?.close());

  /** A VM of the answer with a NIC, as the mutation names it. */
  function vmIn(result: { data?: Dashboard | null } | undefined): { uuid: string; vmNics: { uuid: string }[] } {
    const vm = result?.data?.vmInstances.nodes.find((candidate) => candidate.state === 'RUNNING' && candidate.nics[0] !== undefined);
    if (!vm) throw new Error('no running VM with a NIC in the answer');
    return { uuid: vm.uuid, vmNics: vm.nics };
  }

  async function changeDriver(vm: { uuid: string; vmNics: { uuid: string }[] }, driverType: string, headers = harness.headers): Promise<void> {
    const response = await harness.gql(
      'mutation($input: UpdateVmNicDriverInput!) { updateVmNicDriver(input: $input) { error { code } job { status } } }',
      { input: { vmInstanceUuid: vm.uuid, vmNicUuid: vm.vmNics[0]!.uuid, driverType } },
      headers,
    );
    expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
  }

  function driverIn(result: { data?: Dashboard | null } | undefined, vmUuid: string): string | undefined {
    return result?.data?.vmInstances.nodes.find((vm) => vm.uuid === vmUuid)?.nics[0]?.driverType;
  }

  for (const transport of ['graphql-ws', 'SSE'] as const) {
    it(`a live 50-VM dashboard over ${transport} answers at once, then again after a write through the gateway, without polling between`, async () => {
      const subscribe = transport === 'SSE' ? subscribeSse<Dashboard> : subscribeWs<Dashboard>;
      const dashboard = await subscribe(harness.url, DASHBOARD, {}, harness.headers);
      open.push(dashboard as Collected<never>);
      await dashboard.waitFor(1);
      const vm = vmIn(dashboard.results[0]);
      expect(dashboard.results[0]!.errors).toBeUndefined();
      expect(dashboard.results[0]!.data!.vmInstances.nodes).toHaveLength(50);
      // Nothing changed: no run, no upstream request (not a timer in disguise).
      harness.resetStats();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(harness.upstreamRequests()).toBe(0);
      expect(dashboard.results).toHaveLength(1);

      const driver = driverIn(dashboard.results[0], vm.uuid) === 'E1000' ? 'VIRTIO' : 'E1000';
      await changeDriver(vm, driver);
      await until(() => dashboard.results.some((result) => driverIn(result, vm.uuid) === driver), 'the new driver in a live answer');
      expect(dashboard.results.at(-1)!.errors).toBeUndefined();
    });
  }

  it('works over graphql-sse\'s single connection mode and over multipart HTTP too', async () => {
    const sse = createSseClient({ url: `${harness.url}/graphql`, singleConnection: true, headers: () => ({ ...harness.headers }), retryAttempts: 0 });
    const overSse: { data?: Dashboard | null }[] = [];
    const stopSse = sse.subscribe<Dashboard>({ query: DASHBOARD }, { next: (result) => void overSse.push(result as never), error: () => undefined, complete: () => undefined });
    const abort = new AbortController();
    const overMultipart: { data?: Dashboard | null }[] = [];
    const response = await fetch(`${harness.url}/graphql`, {
      method: 'POST',
      signal: abort.signal,
      headers: { 'content-type': 'application/json', accept: 'multipart/mixed', ...harness.headers },
      body: JSON.stringify({ query: DASHBOARD }),
    });
    expect(response.headers.get('content-type')).toMatch(/^multipart\/mixed/);
    const reading = (async () => {
      let buffer = '';
      const decoder = new TextDecoder();
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          buffer += decoder.decode(chunk, { stream: true });
          const parts = buffer.split('\r\n---');
          buffer = parts.pop()!;
          for (const part of parts) {
            const body = part.slice(part.indexOf('\r\n\r\n') + 4).trim();
            if (body.startsWith('{')) overMultipart.push(JSON.parse(body) as never);
          }
        }
      } catch {
        // aborted below
      }
    })();
    try {
      await until(() => overSse.length === 1 && overMultipart.length === 1, 'the first answers');
      const vm = vmIn(overSse[0]);
      const driver = driverIn(overSse[0], vm.uuid) === 'E1000' ? 'VIRTIO' : 'E1000';
      await changeDriver(vm, driver);
      await until(() => driverIn(overSse.at(-1), vm.uuid) === driver && driverIn(overMultipart.at(-1), vm.uuid) === driver, 'the new driver in both');
    } finally {
      stopSse();
      sse.dispose();
      abort.abort();
      await reading;
    }
  });

  it('is never answered from, nor kept in, the response cache: the same live query opened again reads the upstream, and stays live', async () => {
    const earlier = await subscribeSse<Dashboard>(harness.url, DASHBOARD, {}, harness.headers);
    await earlier.waitFor(1);
    await earlier.close();
    await until(async () => (await metric(harness, 'gateway_live_queries_open')) === 0, 'the first live query to close');

    harness.resetStats();
    const dashboard = await subscribeSse<Dashboard>(harness.url, DASHBOARD, {}, harness.headers);
    open.push(dashboard as Collected<never>);
    await dashboard.waitFor(1);
    expect(harness.upstreamRequests()).toBeGreaterThan(0);
    const vm = vmIn(dashboard.results[0]);
    const driver = driverIn(dashboard.results[0], vm.uuid) === 'E1000' ? 'VIRTIO' : 'E1000';
    await changeDriver(vm, driver);
    await until(() => dashboard.results.some((result) => driverIn(result, vm.uuid) === driver), 'the new driver in a live answer');
  });

  it('two tenants: a write of one re-runs only its own live queries, never the other\'s', async () => {
    const first = await subscribeWs<Dashboard>(harness.url, DASHBOARD, {}, harness.headers);
    const second = await subscribeWs<Dashboard>(harness.url, DASHBOARD, {}, harness.secondHeaders);
    const secondSse = await subscribeSse<Dashboard>(harness.url, DASHBOARD, {}, harness.secondHeaders);
    open.push(first as Collected<never>, second as Collected<never>, secondSse as Collected<never>);
    await Promise.all([first.waitFor(1), second.waitFor(1), secondSse.waitFor(1)]);
    const firstUuids = new Set(first.results[0]!.data!.vmInstances.nodes.map((vm) => vm.uuid));
    expect(second.results[0]!.data!.vmInstances.nodes.some((vm) => firstUuids.has(vm.uuid))).toBe(false);
    const before = await metric(harness, 'gateway_live_reexecutions_total');

    const vm = vmIn(first.results[0]);
    await changeDriver(vm, driverIn(first.results[0], vm.uuid) === 'E1000' ? 'VIRTIO' : 'E1000');
    await first.waitFor(2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(second.results).toHaveLength(1);
    expect(secondSse.results).toHaveLength(1);
    expect((await metric(harness, 'gateway_live_reexecutions_total')) - before).toBe(1);

    // And the other way round.
    const theirs = vmIn(second.results[0]);
    await changeDriver(theirs, driverIn(second.results[0], theirs.uuid) === 'E1000' ? 'VIRTIO' : 'E1000', harness.secondHeaders);
    await Promise.all([second.waitFor(2), secondSse.waitFor(2)]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(first.results).toHaveLength(2);
  });

  it('re-runs only the live queries that read what the write changed', async () => {
    const hosts = await subscribeWs(harness.url, HOSTS, {}, harness.headers);
    const dashboard = await subscribeWs<Dashboard>(harness.url, DASHBOARD, {}, harness.headers);
    open.push(hosts as Collected<never>, dashboard as Collected<never>);
    await Promise.all([hosts.waitFor(1), dashboard.waitFor(1)]);
    const vm = vmIn(dashboard.results[0]);
    await changeDriver(vm, driverIn(dashboard.results[0], vm.uuid) === 'E1000' ? 'VIRTIO' : 'E1000');
    await dashboard.waitFor(2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hosts.results).toHaveLength(1);
  });

  it('refuses a live query past the cap of its socket, and past the cap of its credential, with TOO_MANY_LIVE_QUERIES', async () => {
    const client = createClient({ url: `${harness.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: harness.headers, retryAttempts: 0 });
    const answers: { errors?: readonly { extensions?: Record<string, unknown> }[] }[][] = [[], [], [], []];
    const stops = answers.map((into) => client.subscribe({ query: HOSTS }, { next: (result) => void into.push(result as never), error: () => undefined, complete: () => undefined }));
    try {
      await until(() => answers.every((into) => into.length > 0), 'an answer to each live query');
      const refused = answers.filter((into) => into[0]!.errors?.[0]?.extensions?.code === 'TOO_MANY_LIVE_QUERIES');
      expect(refused).toHaveLength(1);
      expect(refused[0]![0]!.errors![0]!.extensions).toMatchObject({ per: 'socket', limit: 3 });
      // 3 open on the socket; 2 more over SSE reach the credential's 5, the next is refused.
      const sse = await Promise.all([0, 1, 2].map(() => subscribeSse(harness.url, HOSTS, {}, harness.headers)));
      open.push(...(sse as Collected<never>[]));
      await Promise.all(sse.map((collected) => collected.waitFor(1)));
      const codes = sse.map((collected) => collected.results[0]!.errors?.[0]?.extensions?.code);
      expect(codes.filter((code) => code === 'TOO_MANY_LIVE_QUERIES')).toHaveLength(1);
      // Another tenant is not counted against this one.
      const other = await subscribeSse(harness.url, HOSTS, {}, harness.secondHeaders);
      open.push(other as Collected<never>);
      await other.waitFor(1);
      expect(other.results[0]!.errors).toBeUndefined();
    } finally {
      stops.forEach((stop) => stop());
      await client.dispose();
    }
  });

  it('sends JSON-patch deltas to a client that asks for them', async () => {
    const client = createClient({ url: `${harness.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: harness.headers, retryAttempts: 0 });
    const received: Record<string, unknown>[] = [];
    const stop = client.subscribe({ query: DASHBOARD, extensions: { livePatch: 'json-patch' } }, { next: (result) => void received.push(result as never), error: () => undefined, complete: () => undefined });
    try {
      await until(() => received.length === 1, 'the first answer');
      expect(received[0]).toMatchObject({ revision: 1 });
      const first = received[0]!.data as Dashboard;
      const vm = vmIn({ data: first });
      const driver = driverIn({ data: first }, vm.uuid) === 'E1000' ? 'VIRTIO' : 'E1000';
      await changeDriver(vm, driver);
      await until(() => received.length === 2, 'a patch');
      const patch = received[1]!;
      expect(patch.data).toBeUndefined();
      expect(patch).toMatchObject({ revision: 2 });
      expect(Array.isArray(patch.patch)).toBe(true);
      // The patch is small: only what changed, not the 50 VMs.
      expect(JSON.stringify(patch.patch).length).toBeLessThan(JSON.stringify(first).length / 10);
      const patched = applyJSONPatch(first as unknown as Record<string, unknown>, patch.patch as never) as unknown as Dashboard;
      expect(driverIn({ data: patched }, vm.uuid)).toBe(driver);
    } finally {
      stop();
      await client.dispose();
    }
  });
});
