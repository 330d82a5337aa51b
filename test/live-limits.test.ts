/**
 * What a live query may cost: a burst of invalidations makes one run no sooner than
 * `LIVE_MIN_INTERVAL_MS` after the last, each run is charged to the caller's budget (and
 * reports it), and a run the budget refuses is the live query's last answer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness.js';
import { subscribeWs, type Collected } from './support/subscriptions.js';

const DASHBOARD = /* GraphQL */ `
  query Dashboard @live {
    vmInstances(first: 50) { nodes { uuid state nics { uuid driverType } } }
  }
`;

interface Dashboard {
  vmInstances: { nodes: { uuid: string; state: string; nics: { uuid: string; driverType: string }[] }[] };
}

interface Cost {
  requestedQueryCost: number;
  actualQueryCost: number;
  throttleStatus?: { currentlyAvailable: number };
}

async function metric(harness: Harness, name: string): Promise<number> {
  const text = await (await fetch(`${harness.url}/metrics`)).text();
  const line = text.split('\n').find((candidate) => !candidate.startsWith('#') && (candidate.startsWith(`${name} `) || candidate.startsWith(`${name}{`)));
  return line ? Number(line.split(' ').pop()) : 0;
}

/** Changes the driver of the first NIC of `count` running VMs of the answer, all at once. */
async function changeDrivers(harness: Harness, answer: Dashboard, count: number): Promise<void> {
  const vms = answer.vmInstances.nodes.filter((vm) => vm.state === 'Running' && vm.nics[0] !== undefined).slice(0, count);
  expect(vms).toHaveLength(count);
  const responses = await Promise.all(
    vms.map((vm) =>
      harness.gql(
        'mutation($input: UpdateVmNicDriverInput!) { updateVmNicDriver(input: $input) { error { code } job { status } } }',
        { input: { vmInstanceUuid: vm.uuid, vmNicUuid: vm.nics[0]!.uuid, driverType: vm.nics[0]!.driverType === 'E1000' ? 'VIRTIO' : 'E1000' } },
      ),
    ),
  );
  for (const response of responses) expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
}

describe('live query limits', () => {
  let harness: Harness | undefined;
  const open: Collected<never>[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((collected) => collected.close()));
    await harness?.close();
    harness = undefined;
  });

  it('coalesces a burst of invalidations into one run, no sooner than LIVE_MIN_INTERVAL_MS after the last', async () => {
    harness = await startHarness({ config: { liveMinIntervalMs: 2_000, livePollMs: 0 } });
    const dashboard = await subscribeWs<Dashboard>(harness.url, DASHBOARD, {}, harness.headers);
    open.push(dashboard as Collected<never>);
    await dashboard.waitFor(1);
    const firstAt = Date.now();
    await changeDrivers(harness, dashboard.results[0]!.data!, 3);
    await dashboard.waitFor(2);
    const secondAt = Date.now();
    // The run reads all three writes: it started after the last of them finished.
    const changed = dashboard.results[1]!.data!.vmInstances.nodes;
    const before = dashboard.results[0]!.data!.vmInstances.nodes;
    expect(changed.filter((vm, index) => vm.nics[0]?.driverType !== before[index]!.nics[0]?.driverType)).toHaveLength(3);
    expect(secondAt - firstAt).toBeGreaterThanOrEqual(1_500);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(dashboard.results).toHaveLength(2);
    expect(await metric(harness, 'gateway_live_reexecutions_total')).toBe(1);
    // Three jobs (each heard twice: where it finished, and on the finished-jobs topic): at least the
    // later two folded into the run the first one scheduled.
    expect(await metric(harness, 'gateway_live_invalidations_coalesced_total')).toBeGreaterThanOrEqual(2);
  });

  it('a client asking @live(throttle:) for more than LIVE_MIN_INTERVAL_MS gets its runs that far apart', async () => {
    harness = await startHarness({ config: { liveMinIntervalMs: 0 } });
    const dashboard = await subscribeWs<Dashboard>(harness.url, DASHBOARD.replace('@live', '@live(throttle: 1500)'), {}, harness.headers);
    open.push(dashboard as Collected<never>);
    await dashboard.waitFor(1);
    const firstAt = Date.now();
    await changeDrivers(harness, dashboard.results[0]!.data!, 1);
    await dashboard.waitFor(2);
    expect(Date.now() - firstAt).toBeGreaterThanOrEqual(1_000);
  });

  it('charges each run to the caller\'s budget, and ends the live query with RATE_LIMITED when a run exceeds it', async () => {
    // What one run of the dashboard costs, measured on a gateway of its own.
    const probe = await startHarness();
    const measured = await probe.gql<Dashboard>(DASHBOARD.replace('@live', ''));
    await probe.close();
    const cost = measured.extensions!.cost as Cost;

    // Room for the first run (charged what it requests, refunded what it did not read) and the
    // write, not for a second run.
    const left = Math.floor(cost.actualQueryCost / 2);
    harness = await startHarness({ config: { costBudget: cost.requestedQueryCost + left, costBudgetRefill: 1 } });
    const dashboard = await subscribeWs<Dashboard>(harness.url, DASHBOARD, {}, harness.headers);
    open.push(dashboard as Collected<never>);
    await dashboard.waitFor(1);
    expect(dashboard.results[0]!.errors).toBeUndefined();
    const first = (dashboard.results[0] as { extensions?: { cost?: Cost } }).extensions?.cost;
    expect(first).toMatchObject({ requestedQueryCost: cost.requestedQueryCost, actualQueryCost: cost.actualQueryCost });
    expect(first?.throttleStatus?.currentlyAvailable).toBe(cost.requestedQueryCost + left - cost.actualQueryCost);

    await changeDrivers(harness, dashboard.results[0]!.data!, 1);
    await dashboard.waitFor(2);
    expect(dashboard.results[1]!.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED' });
    await dashboard.completed;
    expect(await metric(harness, 'gateway_live_queries_open')).toBe(0);
  });
});
