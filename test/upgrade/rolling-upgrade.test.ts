/**
 * The previous release (the commit test/upgrade/previous-release.json pins, extracted with `git
 * archive` and started as a process) and the current code, side by side on one redis-server and
 * one simulator, as a rolling upgrade and a rollback run them: the replica that started a job is
 * stopped mid-job and the other finishes it; subscribers, live queries and cursors on one release
 * are served what the other wrote. Real clients over real HTTP, WebSocket and SSE.
 *
 * A caller's cost budget is not here: the previous release keeps budgets in each replica's memory,
 * so there is nothing of it for the current one to carry on (docs/operations/upgrades.md).
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, POLL_OPERATION, type Simulator } from '../../src/simulator/server.js';
import { credentialHeaders, errorCodes } from '../support/harness.js';
import { connectedHost, gql, nqn, UPDATE_NQN } from '../support/job-calls.js';
import { extractRelease, readPin, startReplica, type ReleaseTree } from '../support/previous-release.js';
import { eventually, type GatewayProcess } from '../support/process.js';
import { startRedis, type RedisServer } from '../support/redis.js';
import { subscribeSse, subscribeWs, type Collected } from '../support/subscriptions.js';

// Two gateways under tsx on a shared 2-core machine: a deadline for a hang, not a measure of speed.
const SLOW_TEST_MS = 120_000;
/** How long the job whose replica is stopped runs upstream: past that replica's exit. */
const ORPHAN_DELAY_MS = 3_000;
const CURSOR_SECRET = 'rolling-upgrade-cursor-secret-0123456789';

// Fields both releases' schemas serve (the previous one's `Job.operation` is a string).
const JOB = 'id status payload { ... on UpdateHostNqnPayload { host { uuid nqn } } }';
const JOB_EVENTS = `subscription { jobEvents { ${JOB} } }`;
const JOB_COMPLETED = `subscription($id: ID!) { jobCompleted(id: $id) { ${JOB} } }`;
const READ_JOB = `query($id: ID!) { job(id: $id) { ${JOB} } }`;
const VMS_PAGE = 'query($after: String) { vmInstances(first: 2, after: $after) { nodes { uuid } pageInfo { endCursor } } }';
const LIVE_HOSTS = 'query Hosts @live { hosts(first: 50) { nodes { uuid nqn } } }';
const LIVE_VMS = 'query Vms @live { vmInstances(first: 5) { nodes { uuid state } } }';

interface JobAnswer {
  id: string;
  status: string;
  payload: { host: { uuid: string; nqn: string } | null } | null;
}
type Page = { vmInstances: { nodes: { uuid: string }[]; pageInfo: { endCursor: string | null } } };
type LiveHosts = { hosts: { nodes: { uuid: string; nqn: string }[] } };
type LiveVms = { vmInstances: { nodes: { uuid: string; state: string }[] } };
type Release = 'previous' | 'current';

describe('replicas of the previous release and of this one on one Redis', () => {
  let tree: ReleaseTree;
  let redis: RedisServer;
  let simulator: Simulator;
  let upstreamUrl: string;
  const replicas: GatewayProcess[] = [];
  const clients: Collected<unknown>[] = [];

  beforeAll(async () => {
    tree = await extractRelease((await readPin()).commit);
    redis = await startRedis();
    simulator = createSimulator({ asyncDelayMs: 5 });
    upstreamUrl = await simulator.start(0, '127.0.0.1');
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await Promise.all(replicas.splice(0).map((replica) => replica.kill('SIGKILL')));
    simulator.configure({ asyncDelayMs: 5 });
    const commands = new Redis(redis.url);
    await commands.flushall();
    commands.disconnect();
  });

  afterAll(async () => {
    await simulator?.stop();
    await redis?.stop();
    await tree?.remove();
  });

  /** Starts a replica of `release`, its webhook address its own, and waits until it is ready. */
  async function start(release: Release, env: Record<string, string>): Promise<GatewayProcess> {
    const replica = await startReplica(release === 'previous' ? tree.dir : undefined, {
      UPSTREAM_URL: upstreamUrl,
      REDIS_URL: redis.url,
      JOB_POLL_AFTER_MS: '100',
      JOB_LEASE_MS: '3000',
      LIVE_MIN_INTERVAL_MS: '0',
      ...env,
    });
    replicas.push(replica);
    return replica;
  }

  const headers = () => credentialHeaders(simulator.credentials);

  async function subscribe<T>(over: 'ws' | 'sse', url: string, query: string, variables: Record<string, unknown> = {}): Promise<Collected<T>> {
    const client = over === 'ws' ? await subscribeWs<T>(url, query, variables, headers()) : await subscribeSse<T>(url, query, variables, headers());
    clients.push(client as Collected<unknown>);
    return client;
  }

  /** Starts `updateHostNqn` setting NQN `suffix` on a connected host: `wait` for its end, or return it running. */
  async function startJob(url: string, suffix: string, wait: boolean): Promise<string> {
    const started = await gql<{ updateHostNqn: { job: { id: string; status: string } } }>(url, UPDATE_NQN, { input: { uuid: connectedHost(simulator), nqn: nqn(suffix), async: !wait } }, headers());
    expect(errorCodes(started)).toEqual([]);
    expect(started.data?.updateHostNqn.job.status).toBe(wait ? 'SUCCEEDED' : 'RUNNING');
    return started.data!.updateHostNqn.job.id;
  }

  const succeeded = (id: string, suffix: string): JobAnswer => ({ id, status: 'SUCCEEDED', payload: { host: { uuid: connectedHost(simulator), nqn: nqn(suffix) } } });

  /** The next page of VMs on `url` after `cursor`, and the VMs it should hold (read in one page). */
  async function pageAfter(url: string, cursor: string): Promise<{ page: string[]; expected: string[] }> {
    const next = await gql<Page>(url, VMS_PAGE, { after: cursor }, headers());
    expect(errorCodes(next)).toEqual([]);
    const all = await gql<{ vmInstances: { nodes: { uuid: string }[] } }>(url, '{ vmInstances(first: 4) { nodes { uuid } } }', {}, headers());
    return { page: next.data!.vmInstances.nodes.map((node) => node.uuid), expected: all.data!.vmInstances.nodes.slice(2, 4).map((node) => node.uuid) };
  }

  /** Flips the state of a VM `live` shows, and resolves once `live` shows the new state. */
  async function changeVmSeenBy(live: Collected<LiveVms>): Promise<void> {
    await live.waitFor(1);
    const vm = live.results[0]!.data!.vmInstances.nodes.find((node) => ['RUNNING', 'STOPPED'].includes(node.state.toUpperCase()))!;
    simulator.churn.apply({ tenant: 'first', kind: 'vmState', uuid: vm.uuid });
    // This release answers VmState (`RUNNING`), the previous one the upstream's text (`Running`).
    const state = simulator.store.vms.getAny(vm.uuid)!.state.toUpperCase();
    expect(state).not.toBe(vm.state.toUpperCase());
    await eventually(() => live.results.at(-1)?.data?.vmInstances.nodes.find((node) => node.uuid === vm.uuid)?.state.toUpperCase() === state, 'the live query shows the changed VM', 200, 50);
  }

  /** `updateHostNqn` to `suffix`, as a live query of the hosts shows it. */
  function showsNqn(live: Collected<LiveHosts>, suffix: string): boolean {
    return live.results.at(-1)?.data?.hosts.nodes.find((host) => host.uuid === connectedHost(simulator))?.nqn === nqn(suffix);
  }

  /** `job(id)` on `url`: the job for the credential that started it, FORBIDDEN for another. */
  async function expectReadByItsOwnerOnly(url: string, id: string, suffix: string): Promise<void> {
    expect((await gql(url, READ_JOB, { id }, headers())).data).toEqual({ job: succeeded(id, suffix) });
    expect(errorCodes(await gql(url, READ_JOB, { id }, credentialHeaders(simulator.credentials.second)))).toEqual(['FORBIDDEN']);
  }

  /** Where the upstream's webhook for `job` went, and whether any replica answered it. */
  function webhookAnswers(job: string): (number | null)[] {
    return simulator.jobs.deliveries.filter((delivery) => delivery.jobUuid === job).map((delivery) => delivery.answeredStatus);
  }

  /**
   * The job whose replica stops: started on `from` (its webhook address is `from`'s own), followed
   * by a `jobCompleted` subscriber on `to`, then `from` stops as a rollout stops it (SIGTERM).
   */
  async function orphanJob(from: GatewayProcess, to: GatewayProcess, suffix: string): Promise<{ id: string; completed: Collected<{ jobCompleted: JobAnswer }> }> {
    simulator.configure({ asyncDelayMs: ORPHAN_DELAY_MS });
    const submittedAt = Date.now();
    const id = await startJob(from.url, suffix, false);
    simulator.configure({ asyncDelayMs: 5 });
    const completed = await subscribe<{ jobCompleted: JobAnswer }>('ws', to.url, JOB_COMPLETED, { id });
    expect(await from.kill('SIGTERM')).toBe(0);
    const stoppedAfterMs = Date.now() - submittedAt;
    expect(stoppedAfterMs, 'the replica stopped after its job ended upstream: raise ORPHAN_DELAY_MS').toBeLessThan(ORPHAN_DELAY_MS);
    await completed.waitFor(1, 20_000);
    await completed.completed;
    return { id, completed };
  }

  /**
   * What a rollout from `first` to `second` must keep, in either direction: `first` runs alone,
   * issues a cursor and polls the change feed (its live query came first, so it holds the lease);
   * `second` joins, and its subscribers and live queries follow what `first` writes: a job `first`
   * finishes, a change its poller finds. Then `first` stops mid-job and `second` finishes that job.
   * Resolves with `second` and the two jobs, once `second` has answered for everything.
   */
  async function rollOut(first: Release, second: Release, env: Record<string, string>, suffix: string): Promise<{ successor: GatewayProcess; jobs: string[] }> {
    const predecessor = await start(first, { ...env, LIVE_POLL_MS: '300' });
    const firstPage = await gql<Page>(predecessor.url, VMS_PAGE, {}, headers());
    await subscribe<LiveVms>('ws', predecessor.url, LIVE_VMS).then((live) => live.waitFor(1));

    // The successor's feed does not poll within the test: its live queries move only on what the predecessor writes.
    const successor = await start(second, { ...env, LIVE_POLL_MS: '600000' });
    const events = await subscribe<{ jobEvents: JobAnswer }>('ws', successor.url, JOB_EVENTS);
    const liveHosts = await subscribe<LiveHosts>('sse', successor.url, LIVE_HOSTS);
    const liveVms = await subscribe<LiveVms>('ws', successor.url, LIVE_VMS);
    await liveHosts.waitFor(1);

    // A job the predecessor starts and finishes (its webhook lands there), and a change its poller finds.
    const finished = await startJob(predecessor.url, `${suffix}1`, true);
    await events.waitFor(1);
    await eventually(() => showsNqn(liveHosts, `${suffix}1`), `the live query on the ${second} release shows the NQN set through the ${first} one`);
    await changeVmSeenBy(liveVms);

    const orphan = await orphanJob(predecessor, successor, `${suffix}2`);
    expect(orphan.completed.results).toEqual([{ data: { jobCompleted: succeeded(orphan.id, `${suffix}2`) } }]);
    // The webhook found nobody: the successor claimed the job and polled the upstream for it.
    await eventually(() => webhookAnswers(orphan.id).length > 0, 'the upstream tried the webhook');
    expect(webhookAnswers(orphan.id).every((status) => status === null)).toBe(true);
    expect(simulator.journal().some((entry) => entry.operation === POLL_OPERATION && entry.path.endsWith(orphan.id))).toBe(true);

    await events.waitFor(2);
    // Nothing arrives twice.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(events.results).toEqual([{ data: { jobEvents: succeeded(finished, `${suffix}1`) } }, { data: { jobEvents: succeeded(orphan.id, `${suffix}2`) } }]);
    await expectReadByItsOwnerOnly(successor.url, finished, `${suffix}1`);
    await expectReadByItsOwnerOnly(successor.url, orphan.id, `${suffix}2`);

    const cursor = firstPage.data!.vmInstances.pageInfo.endCursor!;
    if (first === 'current' && second === 'previous') {
      // 2.0's cursors name a position, a kind the 1.x release does not know: it answers the
      // coded error that says to start again, never another page (docs/operations/upgrades.md).
      const refused = await gql<Page>(successor.url, VMS_PAGE, { after: cursor }, headers());
      expect(errorCodes(refused)).toEqual(['INVALID_CURSOR']);
      expect(refused.errors?.[0]?.message).toMatch(/start again from the first page/i);
    } else {
      const { page, expected } = await pageAfter(successor.url, cursor);
      expect(page).toEqual(expected);
    }
    return { successor, jobs: [finished, orphan.id] };
  }

  it('rolling upgrade: the previous release first, then this one, the previous one stopped mid-job; nothing is lost', { timeout: SLOW_TEST_MS }, async () => {
    const { successor, jobs } = await rollOut('previous', 'current', { CURSOR_SECRET }, '1');
    // Read on this release, the previous release's jobs are in their caller's list.
    const listed = await gql<{ jobs: { nodes: { id: string }[] } }>(successor.url, '{ jobs(first: 10) { nodes { id } } }', {}, headers());
    expect(listed.data?.jobs.nodes.map((node) => node.id).sort()).toEqual([...jobs].sort());
  });

  it('rollback: this release first, then the previous one, this one stopped mid-job; the previous release reads what it wrote', { timeout: SLOW_TEST_MS }, async () => {
    // No CURSOR_SECRET: the key this release agrees through Redis is the one the previous release reads.
    await rollOut('current', 'previous', {}, '2');
  });
});
