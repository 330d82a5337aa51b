/**
 * The change feed end to end: live dashboards over graphql-ws and SSE against the simulator,
 * changed directly on the simulator (not through the gateway), so only the feed can tell them.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import type { Simulator } from '../../src/simulator/server.js';
import { credentialHeaders, metricTotal, startHarness, type Harness } from '../support/harness.js';
import { eventually } from '../support/process.js';
import { subscribeSse, subscribeWs, type Collected } from '../support/subscriptions.js';
import { startAppReplicas, type AppReplicas } from '../support/app-replicas.js';

const POLL_MS = 250;

const DASHBOARD = /* GraphQL */ `
  query Dashboard @live {
    vmInstances(first: 50) { totalCount nodes { uuid name state } }
  }
`;

interface Dashboard {
  vmInstances: { totalCount: number; nodes: { uuid: string; name: string; state: string }[] };
}

type Live = Collected<Dashboard>;

async function churn(simulator: Simulator, body: Record<string, unknown>): Promise<{ uuid: string }[]> {
  const response = await fetch(`${simulator.url}/__sim/churn`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { changes: { uuid: string }[] }).changes;
}

/** The change feed's polls the simulator journaled under a cursor-family token. */
function feedPolls(simulator: Simulator, token: string): number {
  return simulator.journal().filter((entry) => entry.headers.authorization === `Bearer ${token}` && entry.query.includes('sort=lastOpDate')).length;
}

/** Every other upstream read under the token: a live query's run, never the feed's. */
function otherReads(simulator: Simulator, token: string): number {
  return simulator.journal().filter((entry) => entry.headers.authorization === `Bearer ${token}` && !entry.query.includes('sort=lastOpDate')).length;
}

async function morePolls(simulator: Simulator, token: string, polls: number): Promise<void> {
  const from = feedPolls(simulator, token);
  await eventually(() => feedPolls(simulator, token) >= from + polls, `${polls} polls of the change feed`, 600, 25);
}

function last(live: Live): Dashboard['vmInstances'] {
  const data = live.results.at(-1)?.data;
  if (!data) throw new Error(`no data in the last answer: ${JSON.stringify(live.results.at(-1))}`);
  return data.vmInstances;
}

describe('live queries kept fresh by the upstream change feed', () => {
  let harness: Harness;
  const open: Live[] = [];

  beforeAll(async () => {
    harness = await startHarness({ config: { livePollMs: POLL_MS, liveMinIntervalMs: 0 } });
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((live) => live.close()));
  });
  afterAll(async () => harness?.close());

  for (const transport of ['graphql-ws', 'SSE'] as const) {
    it(`a live 50-VM dashboard over ${transport} shows a VM changed directly on the upstream, then one removed there`, async () => {
      const subscribe = transport === 'SSE' ? subscribeSse<Dashboard> : subscribeWs<Dashboard>;
      const dashboard = await subscribe(harness.url, DASHBOARD, {}, harness.headers);
      open.push(dashboard);
      await dashboard.waitFor(1);
      expect(last(dashboard).nodes).toHaveLength(50);
      const { simulator } = harness;
      await morePolls(simulator, simulator.credentials.token, 1);

      const vm = last(dashboard).nodes.find((node) => node.state === 'RUNNING')!;
      await churn(simulator, { kind: 'vmState', uuid: vm.uuid });
      await eventually(() => last(dashboard).nodes.find((node) => node.uuid === vm.uuid)?.state === 'STOPPED', 'the stopped VM in a live answer', 600, 25);

      const total = last(dashboard).totalCount;
      const removed = last(dashboard).nodes[10]!;
      await churn(simulator, { kind: 'vmDelete', uuid: removed.uuid });
      await eventually(() => !last(dashboard).nodes.some((node) => node.uuid === removed.uuid), 'the removed VM gone from a live answer', 600, 25);
      expect(last(dashboard).totalCount).toBe(total - 1);
      expect(last(dashboard).nodes).toHaveLength(50);
      expect(dashboard.results.every((result) => result.errors === undefined)).toBe(true);
    });
  }

  it('a dashboard of VMs and their hosts runs once for changes of both in one interval, not once per collection', async () => {
    const { simulator } = harness;
    const query = 'query VmsAndHosts @live { vmInstances(first: 50) { nodes { uuid state host { uuid status } } } }';
    type VmsAndHosts = { vmInstances: { nodes: { uuid: string; state: string; host: { uuid: string; status: string } | null }[] } };
    const live = await subscribeWs<VmsAndHosts>(harness.url, query, {}, harness.headers);
    open.push(live as unknown as Live);
    await live.waitFor(1);
    await morePolls(simulator, simulator.credentials.token, 4);
    const answers = live.results.length;
    const nodes = live.results.at(-1)!.data!.vmInstances.nodes;
    const vm = nodes.find((node) => node.state === 'RUNNING' && node.host !== null)!;
    const host = nodes.find((node) => node.host !== null && node.host.uuid !== vm.host!.uuid)!.host!;
    // Both at once, so no poll falls between them.
    simulator.churn.apply({ tenant: 'first', kind: 'vmState', uuid: vm.uuid });
    simulator.churn.apply({ tenant: 'first', kind: 'hostStatus', uuid: host.uuid });
    const shows = () => {
      const latest = live.results.at(-1)?.data?.vmInstances.nodes ?? [];
      return latest.find((node) => node.uuid === vm.uuid)?.state === 'STOPPED' && latest.some((node) => node.host?.uuid === host.uuid && node.host.status !== host.status);
    };
    await eventually(shows, 'both changes in a live answer', 600, 25);
    await morePolls(simulator, simulator.credentials.token, 4);
    expect(live.results.length - answers).toBe(1);
  });

  it("two tenants: churn on one updates its own dashboards and never re-runs the other's", async () => {
    const { simulator } = harness;
    const first = await subscribeWs<Dashboard>(harness.url, DASHBOARD, {}, harness.headers);
    const second = await subscribeWs<Dashboard>(harness.url, DASHBOARD, {}, harness.secondHeaders);
    const secondSse = await subscribeSse<Dashboard>(harness.url, DASHBOARD, {}, harness.secondHeaders);
    open.push(first, second, secondSse);
    await Promise.all([first.waitFor(1), second.waitFor(1), secondSse.waitFor(1)]);
    await morePolls(simulator, simulator.credentials.token, 2);
    await morePolls(simulator, simulator.credentials.second.token, 2);
    const firstReads = otherReads(simulator, simulator.credentials.token);
    const firstAnswers = first.results.length;

    const theirs = last(second).nodes.slice(0, 3);
    for (const vm of theirs) await churn(simulator, { tenant: 'second', kind: 'vmState', uuid: vm.uuid });
    const changed = (live: Live) => theirs.every((vm) => last(live).nodes.find((node) => node.uuid === vm.uuid)?.state !== vm.state);
    await eventually(() => changed(second) && changed(secondSse), "the second tenant's changes in its live answers", 600, 25);

    // Several more polls of the first tenant: still no run of its dashboard, no read but the feed's.
    await morePolls(simulator, simulator.credentials.token, 3);
    expect(first.results).toHaveLength(firstAnswers);
    expect(otherReads(simulator, simulator.credentials.token)).toBe(firstReads);
  });
});

describe('the change feed across two replicas sharing Redis', () => {
  let replicas: AppReplicas | undefined;
  let simulator: Simulator;
  let replicaA: App;
  let replicaB: App;

  beforeAll(async () => {
    replicas = await startAppReplicas({ liveMinIntervalMs: 0, livePollMs: POLL_MS });
    ({ simulator, replicaA, replicaB } = replicas);
  });

  afterAll(async () => {
    await replicas?.stop();
  });

  it("a change A's poller sees reaches a live query on B, and the upstream sees one poller, not two", async () => {
    const headers = credentialHeaders(simulator.credentials);
    const onA = await subscribeWs<Dashboard>(replicaA.url, DASHBOARD, {}, headers);
    try {
      await onA.waitFor(1);
      await eventually(async () => (await metricTotal(replicaA.url, 'gateway_live_pollers')) === 1, 'A polling');
      const onB = await subscribeSse<Dashboard>(replicaB.url, DASHBOARD, {}, headers);
      try {
        await onB.waitFor(1);
        // Both replicas read the pair; A keeps the lease, B polls nothing.
        simulator.resetStats();
        await morePolls(simulator, simulator.credentials.token, 6);
        expect(await metricTotal(replicaA.url, 'gateway_live_pollers')).toBe(1);
        expect(await metricTotal(replicaB.url, 'gateway_live_pollers')).toBe(0);
        expect(await metricTotal(replicaB.url, 'gateway_live_poll_requests_total')).toBe(0);

        const vm = last(onB).nodes.find((node) => node.state === 'RUNNING')!;
        await churn(simulator, { kind: 'vmState', uuid: vm.uuid });
        await eventually(() => last(onB).nodes.find((node) => node.uuid === vm.uuid)?.state === 'STOPPED', 'the change on replica B', 600, 25);
        await eventually(() => last(onA).nodes.find((node) => node.uuid === vm.uuid)?.state === 'STOPPED', 'the change on replica A', 600, 25);

        // A's live query ends: B takes the pair over and keeps its dashboard fresh.
        await onA.close();
        await eventually(async () => (await metricTotal(replicaB.url, 'gateway_live_pollers')) === 1, 'B polling', 600, 25);
        const other = last(onB).nodes.find((node) => node.state === 'RUNNING')!;
        await churn(simulator, { kind: 'vmState', uuid: other.uuid });
        await eventually(() => last(onB).nodes.find((node) => node.uuid === other.uuid)?.state === 'STOPPED', 'the later change on replica B', 600, 25);
      } finally {
        await onB.close();
      }
    } finally {
      await onA.close();
    }
  });
});
