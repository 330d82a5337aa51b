/**
 * The seam the upstream change feed plugs into (`src/live/invalidation.ts`), on the real app:
 * interest events name each (scope, collection) open live queries read, with the scope's
 * credentials; an invalidation of a scope's collection re-runs exactly the live queries of that
 * scope reading it, and the run reads the upstream afresh.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LiveScope } from '../../src/live/invalidation.js';
import { Caller } from '../../src/upstream/credentials.js';
import { startHarness, type Harness } from '../support/harness.js';
import { subscribeSse, subscribeWs, type Collected } from '../support/subscriptions.js';

const DASHBOARD = /* GraphQL */ `
  query Dashboard @live {
    vmInstances(first: 50) { nodes { uuid state nics { uuid driverType } } }
  }
`;

interface Dashboard {
  vmInstances: { nodes: { uuid: string; state: string; nics: { uuid: string; driverType: string }[] }[] };
}

async function metric(harness: Harness, name: string, labels = ''): Promise<number> {
  const text = await (await fetch(`${harness.url}/metrics`)).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name}${labels} `));
  return line ? Number(line.split(' ').pop()) : 0;
}

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('live invalidation seam', () => {
  let harness: Harness;
  const open: Collected<never>[] = [];
  const firstScope = (): string =>
    new Caller({ authorization: harness.headers.authorization }, { authorization: harness.headers['x-resources-authorization'], tenantId: harness.headers['x-tenant-id'] }).key;

  beforeAll(async () => {
    harness = await startHarness({ config: { liveMinIntervalMs: 0, upstreamBreakerThreshold: 1_000, livePollMs: 0 } });
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((collected) => collected.close()));
    await until(async () => (await metric(harness, 'gateway_live_queries_open')) === 0, 'the live queries to close');
  });
  afterAll(async () => harness?.close());

  it('tells which collections of which scope open live queries read, with the scope\'s credentials, until they end', async () => {
    const counts = new Map<string, number>();
    let seen: LiveScope | undefined;
    const stop = harness.app.live.onInterest((scope, collection, delta) => {
      seen = scope;
      counts.set(`${scope.key}/${collection}`, (counts.get(`${scope.key}/${collection}`) ?? 0) + delta);
    });
    try {
      const dashboard = await subscribeWs<Dashboard>(harness.url, DASHBOARD, {}, harness.headers);
      open.push(dashboard as Collected<never>);
      await dashboard.waitFor(1);
      expect(Object.fromEntries(counts)).toEqual({ [`${firstScope()}/vmInstance`]: 1, [`${firstScope()}/vmNic`]: 1 });
      expect(seen?.resource?.authorization).toBe(harness.headers.authorization);
      expect(seen?.cursor).toEqual({ authorization: harness.headers['x-resources-authorization'], tenantId: harness.headers['x-tenant-id'] });

      // A listener that comes later hears of the live queries already open.
      const late: string[] = [];
      harness.app.live.onInterest((scope, collection, delta) => late.push(`${collection}${delta}`))();
      expect(late.sort()).toEqual(['vmInstance1', 'vmNic1']);

      await dashboard.close();
      await until(() => [...counts.values()].every((count) => count === 0), 'the interest to drop to 0');
    } finally {
      stop();
    }
  });

  it('an invalidation of a scope\'s collection re-runs the live queries of that scope reading it, from the upstream afresh, and no other', async () => {
    const mine = await subscribeWs<Dashboard>(harness.url, DASHBOARD, {}, harness.headers);
    // The same session spelled otherwise is the same scope.
    const respelled = await subscribeSse<Dashboard>(harness.url, DASHBOARD, {}, { ...harness.headers, authorization: harness.headers.authorization.replace('OAuth ', 'oauth   ') });
    const theirs = await subscribeWs<Dashboard>(harness.url, DASHBOARD, {}, harness.secondHeaders);
    open.push(mine as Collected<never>, respelled as Collected<never>, theirs as Collected<never>);
    await Promise.all([mine.waitFor(1), respelled.waitFor(1), theirs.waitFor(1)]);

    // A collection they do not read, or another scope: nothing runs.
    harness.app.live.invalidate(firstScope(), { collection: 'host' }, 'feed');
    harness.app.live.invalidate('0'.repeat(64), { collection: 'vmInstance' }, 'feed');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect([mine.results.length, respelled.results.length, theirs.results.length]).toEqual([1, 1, 1]);

    // Changed on the simulator directly, as outside the gateway.
    const vm = mine.results[0]!.data!.vmInstances.nodes.find((candidate) => candidate.state === 'RUNNING')!;
    const tenant = harness.simulator.credentials.tenantId;
    const record = [...harness.simulator.store.vms.list(tenant)].find((candidate) => candidate.uuid === vm.uuid)!;
    harness.simulator.store.vms.update(record, { state: 'Stopped' });
    harness.app.live.invalidate(firstScope(), { collection: 'vmInstance', uuids: [vm.uuid] }, 'feed');
    await Promise.all([mine.waitFor(2), respelled.waitFor(2)]);
    for (const live of [mine, respelled]) expect(live.results[1]!.data!.vmInstances.nodes.find((candidate) => candidate.uuid === vm.uuid)?.state).toBe('STOPPED');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(theirs.results).toHaveLength(1);
    expect(await metric(harness, 'gateway_live_reexecutions_total', '{cause="feed"}')).toBe(2);
  });

  it('an upstream failing mid-live: the run\'s answer carries the error, the live query stays open and recovers', async () => {
    const dashboard = await subscribeWs<Dashboard>(harness.url, DASHBOARD, {}, harness.headers);
    open.push(dashboard as Collected<never>);
    await dashboard.waitFor(1);
    harness.simulator.configure({ faultRate: 1 });
    try {
      harness.app.live.invalidate(firstScope(), { collection: 'vmInstance' }, 'feed');
      await dashboard.waitFor(2);
    } finally {
      harness.simulator.configure({ faultRate: 0 });
    }
    expect(dashboard.results[1]!.data?.vmInstances ?? null).toBeNull();
    expect(dashboard.results[1]!.errors?.[0]?.extensions?.code).toMatch(/^UPSTREAM_/);
    harness.app.live.invalidate(firstScope(), { collection: 'vmInstance' }, 'feed');
    await dashboard.waitFor(3);
    expect(dashboard.results[2]!.errors).toBeUndefined();
    expect(dashboard.results[2]!.data!.vmInstances.nodes).toHaveLength(50);
  });

  it('answers a live query without credentials once, and keeps nothing open', async () => {
    const anonymous = await subscribeSse(harness.url, DASHBOARD, {}, {});
    open.push(anonymous as Collected<never>);
    await anonymous.waitFor(1);
    expect(anonymous.results[0]!.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    await anonymous.completed;
    expect(await metric(harness, 'gateway_live_queries_open')).toBe(0);
  });

  it('refuses @live beside @defer, and on a mutation', async () => {
    const deferred = await harness.gql('query @live { vmInstances(first: 1) { nodes { uuid ... @defer { name } } } }');
    expect(deferred.errors?.[0]?.message).toMatch(/live/i);
    const mutation = await harness.gql('mutation @live { __typename }');
    expect(mutation.errors?.[0]?.message).toMatch(/live/);
  });
});

describe('live runs sharing an execution', () => {
  it('a run woken by a change never joins an identical run that started before it', async () => {
    const harness = await startHarness({ config: { liveMinIntervalMs: 1_000, livePollMs: 0 } });
    const scope = new Caller({ authorization: harness.headers.authorization }, { authorization: harness.headers['x-resources-authorization'], tenantId: harness.headers['x-tenant-id'] }).key;
    // Two upstream reads, one after the other: the VMs, then their hosts.
    const query = DASHBOARD.replace('state nics', 'state host { name } nics');
    const idle = await subscribeWs<Dashboard>(harness.url, query, {}, harness.headers);
    let slow: Collected<Dashboard> | undefined;
    try {
      await idle.waitFor(1);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      // Opened a second later: after the next change, it runs a second after the idle one.
      slow = await subscribeWs<Dashboard>(harness.url, query, {}, harness.headers);
      await slow.waitFor(1);
      harness.app.live.invalidate(scope, { collection: 'vmInstance' }, 'feed');
      await idle.waitFor(2);
      // The slow one's run now reads a slow upstream; once it has read the VMs and waits for the hosts...
      harness.simulator.configure({ latencyMs: 600 });
      harness.resetStats();
      const hostsAsked = (): boolean => harness.simulator.journal().some((entry) => entry.query.includes('resourceType=host') && decodeURIComponent(entry.query).includes('uuid:in:'));
      await until(hostsAsked, 'the slow run to read the VMs and ask for their hosts');
      // ...a VM changes: the idle one runs at once, while the slow run (which read the VM before) goes on.
      const vm = idle.results[0]!.data!.vmInstances.nodes.find((candidate) => candidate.state === 'RUNNING')!;
      const record = [...harness.simulator.store.vms.list(harness.simulator.credentials.tenantId)].find((candidate) => candidate.uuid === vm.uuid)!;
      harness.simulator.store.vms.update(record, { state: 'Stopped' });
      harness.app.live.invalidate(scope, { collection: 'vmInstance', uuids: [vm.uuid] }, 'feed');
      const stateIn = (live: Collected<Dashboard>): string | undefined => live.results.at(-1)?.data?.vmInstances.nodes.find((candidate) => candidate.uuid === vm.uuid)?.state;
      await until(() => stateIn(idle) === 'STOPPED' && stateIn(slow!) === 'STOPPED', 'both live queries to show the change', 15_000);
    } finally {
      harness.simulator.configure({ latencyMs: 0 });
      await slow?.close();
      await idle.close();
      await harness.close();
    }
  });
});
