/**
 * What a live query may cost: a burst of invalidations makes one run no sooner than
 * `LIVE_MIN_INTERVAL_MS` after the last, each run is charged to the caller's budget (and
 * reports it), and a run the budget refuses is the live query's last answer.
 */
import { afterEach, describe, expect, it } from 'vitest';
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
  const vms = answer.vmInstances.nodes.filter((vm) => vm.state === 'RUNNING' && vm.nics[0] !== undefined).slice(0, count);
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

  it('runs each live query under the admission limit: the runs one write wakes take their turns instead of running at once', async () => {
    // One operation at a time, and every upstream answer takes 150 ms.
    harness = await startHarness({
      config: { maxConcurrentOperations: 1, admissionTargetUtilization: 0, liveMinIntervalMs: 0, livePollMs: 0 },
      simulator: { latencyMs: 150 },
    });
    // Four different documents (so no run shares another's execution), each one upstream read.
    const pages = [1, 2, 3, 4].map((first) =>
      subscribeWs<Dashboard>(harness!.url, `query Page${first} @live { vmInstances(first: ${first}) { nodes { uuid state nics { uuid driverType } } } }`, {}, harness!.headers),
    );
    const live = await Promise.all(pages);
    open.push(...(live as Collected<never>[]));
    await Promise.all(live.map((page) => page.waitFor(1)));
    await changeDrivers(harness, live[3]!.results[0]!.data!, 1);
    const answeredAt = await Promise.all(live.map((page) => page.waitFor(2).then(() => Date.now())));
    // One at a time: the last answer comes at least three upstream answers after the first.
    expect(Math.max(...answeredAt) - Math.min(...answeredAt)).toBeGreaterThanOrEqual(400);
    for (const page of live) expect(page.results[1]!.errors).toBeUndefined();

    // Over multipart HTTP the request's own place is given back with its response, before the
    // first run takes one: a live query still answers under a limit of one.
    const abort = new AbortController();
    const response = await fetch(`${harness.url}/graphql`, {
      method: 'POST',
      signal: abort.signal,
      headers: { 'content-type': 'application/json', accept: 'multipart/mixed', ...harness.headers },
      body: JSON.stringify({ query: 'query Multipart @live { vmInstances(first: 1) { nodes { uuid } } }' }),
    });
    let received = '';
    const decoder = new TextDecoder();
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      received += decoder.decode(chunk, { stream: true });
      if (received.includes('"isLive":true')) break;
    }
    abort.abort();
    expect(received).toContain('"vmInstances"');
  });

  it('a live re-run refused by a full admission queue is tried again a second later, and the change still arrives; a refused first run answers OVERLOADED', async () => {
    // One operation at a time and none waiting: a run that finds the place taken is refused.
    harness = await startHarness({
      config: { maxConcurrentOperations: 1, maxQueuedOperations: 0, admissionTargetUtilization: 0, liveMinIntervalMs: 0, livePollMs: 0 },
      simulator: { latencyMs: 300 },
    });
    const read: { key: string; collection: string }[] = [];
    harness.app.live.onInterest((scope, collection, delta) => {
      if (delta > 0) read.push({ key: scope.key, collection });
    });
    const page = await subscribeWs<Dashboard>(harness.url, 'query Page @live { vmInstances(first: 2) { nodes { uuid state nics { uuid driverType } } } }', {}, harness.headers);
    open.push(page as Collected<never>);
    await page.waitFor(1);
    expect(page.results[0]!.errors).toBeUndefined();
    const shedBefore = await metric(harness, 'gateway_operations_shed_total');

    // A slow query holds the only place (two upstream answers one after the other: 600 ms or more)
    // while the live query's scope is told its VMs changed.
    const slow = harness.gql('{ vmInstances(first: 1) { nodes { host { uuid } } } }');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const invalidatedAt = Date.now();
    for (const { key, collection } of read) harness.app.live.invalidate(key, { collection }, 'feed');
    // A live query opened over SSE now (SSE takes no place for its request) finds its first run
    // refused: that is its one answer, OVERLOADED, and it completes.
    const refused = await subscribeSse<Dashboard>(harness.url, 'query Late @live { vmInstances(first: 1) { nodes { uuid state nics { uuid driverType } } } }', {}, harness.headers);
    await refused.completed;
    expect(refused.results.flatMap((result) => result.errors ?? []).map((error) => error.extensions?.code)).toEqual(['OVERLOADED']);
    expect((await slow).errors).toBeUndefined();

    await page.waitFor(2, 10_000);
    expect(page.results[1]!.errors).toBeUndefined();
    // The re-run refused once and the late first run (each counted as shed); the re-run tried
    // again no sooner than a second later.
    expect(await metric(harness, 'gateway_operations_shed_total')).toBe(shedBefore + 2);
    expect(Date.now() - invalidatedAt).toBeGreaterThanOrEqual(900);
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
