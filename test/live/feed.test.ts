/**
 * The change feed on its own, against the real simulator over HTTP: a recorder of the
 * `LiveInvalidation` calls it makes stands where the live-query store will (it is the feed's own
 * interface, not a stand-in for the upstream), and interest is declared through that interface as
 * live queries declare it.
 */
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/index.js';
import { createSharedStreams } from '../../src/jobs/backend.js';
import { createChangeFeed, type ChangeFeed } from '../../src/live/change-feed.js';
import { createFeedMetrics, type FeedMetrics } from '../../src/live/feed-metrics.js';
import { createRedisFeedReplicas } from '../../src/live/feed-replicas.js';
import { createTimestampFormatter } from '../../src/live/feed-watermark.js';
import { formatTimestamp } from '../../src/simulator/format.js';
import type { LiveChange, LiveInterestListener, LiveInvalidation, LiveScope } from '../../src/live/invalidation.js';
import { Caller } from '../../src/upstream/credentials.js';
import { createRedisConnection, type RedisConnection } from '../../src/redis/connection.js';
import { createSimulator, type Simulator, type TenantCredentials } from '../../src/simulator/server.js';
import { eventually } from '../support/process.js';
import { startRedis, type RedisServer } from '../support/redis.js';
import { createTestUpstreamClient } from '../support/upstream-client.js';

const POLL_MS = 150;
const logger = pino({ level: 'silent' });

interface Recorded {
  scopeKey: string;
  change: LiveChange;
  cause: string;
}

/** What the live-query store does with the feed: takes its invalidations, reports interest. */
class Recorder implements LiveInvalidation {
  readonly calls: Recorded[] = [];
  private readonly listeners = new Set<LiveInterestListener>();

  invalidate(scopeKey: string, change: LiveChange, cause: 'job' | 'feed'): void {
    this.calls.push({ scopeKey, change, cause });
  }

  onInterest(listener: LiveInterestListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  interest(scope: LiveScope, collection: string, delta: 1 | -1): void {
    for (const listener of this.listeners) listener(scope, collection, delta);
  }

  /** Every uuid invalidated for `scopeKey` in `collection`. */
  uuids(scopeKey: string, collection = 'vmInstance'): Set<string> {
    return new Set(this.calls.filter((call) => call.scopeKey === scopeKey && call.change.collection === collection).flatMap((call) => call.change.uuids ?? []));
  }

  /** Whole-collection invalidations (no uuids) of `scopeKey`. */
  wholeCollection(scopeKey: string, collection = 'vmInstance'): number {
    return this.calls.filter((call) => call.scopeKey === scopeKey && call.change.collection === collection && call.change.uuids === undefined).length;
  }
}

function scopeOf(tenant: TenantCredentials): LiveScope {
  return new Caller({ authorization: `OAuth ${tenant.session}` }, { authorization: `Bearer ${tenant.token}`, tenantId: tenant.tenantId });
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startSimulator(): Promise<Simulator> {
  const simulator = createSimulator({ seed: 11, hosts: 4, vms: 40 });
  await simulator.start(0);
  cleanups.push(() => simulator.stop());
  return simulator;
}

function startFeed(simulator: Simulator, recorder: Recorder, extra: Partial<Parameters<typeof createChangeFeed>[0]> = {}): { feed: ChangeFeed; metrics: FeedMetrics; registry: Registry } {
  const registry = new Registry();
  const metrics = createFeedMetrics(registry);
  const feed = createChangeFeed({
    invalidation: recorder,
    upstream: createTestUpstreamClient({ upstreamUrl: simulator.url }),
    livePollMs: POLL_MS,
    upstreamTimezone: 'UTC',
    logger,
    metrics,
    ...extra,
  });
  cleanups.push(() => feed.stop());
  return { feed, metrics, registry };
}

async function churn(simulator: Simulator, body: Record<string, unknown>): Promise<{ uuid: string; record: string }[]> {
  const response = await fetch(`${simulator.url}/__sim/churn`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  return ((await response.json()) as { changes: { uuid: string; record: string }[] }).changes;
}

/** Upstream requests the simulator journaled under a bearer token (the cursor family's polls). */
function pollsUnder(simulator: Simulator, token: string): number {
  return simulator.journal().filter((entry) => entry.headers.authorization === `Bearer ${token}`).length;
}

async function counted(metrics: FeedMetrics, name: 'pollRequests' | 'pollErrors'): Promise<number> {
  const values = (await metrics[name].get()).values;
  return values.reduce((sum, value) => sum + value.value, 0);
}

/** Waits until the feed has read `simulator` for `scope` at least `polls` more times than now. */
async function pollsPass(simulator: Simulator, token: string, polls: number): Promise<void> {
  const from = pollsUnder(simulator, token);
  await eventually(() => pollsUnder(simulator, token) >= from + polls, `${polls} polls`, 400, 25);
}

describe('the change feed', () => {
  it('writes its lastOpDate>=… watermark as the upstream writes timestamps, in the upstream zone', () => {
    for (const zone of ['UTC', 'Asia/Shanghai', 'America/New_York']) {
      const format = createTimestampFormatter(zone);
      for (const instant of [Date.UTC(2026, 0, 1, 0, 0, 5), Date.UTC(2026, 10, 26, 12, 30, 59), Date.UTC(2026, 6, 4, 23, 59, 0)]) {
        expect(format(instant)).toBe(formatTimestamp(new Date(instant), zone));
      }
    }
  });

  it('hands a VM changed directly on the upstream to its scope, with its uuid, at the next poll', async () => {
    const simulator = await startSimulator();
    const recorder = new Recorder();
    startFeed(simulator, recorder);
    const scope = scopeOf(simulator.credentials);
    recorder.interest(scope, 'vmInstance', 1);
    await pollsPass(simulator, simulator.credentials.token, 1);
    expect(recorder.calls).toEqual([]);

    const [changed] = await churn(simulator, { kind: 'vmState' });
    await eventually(() => recorder.uuids(scope.key).has(changed!.uuid), 'the changed VM invalidated');
    expect(recorder.calls.every((call) => call.cause === 'feed' && call.scopeKey === scope.key)).toBe(true);
    // Reported once, though later polls read it again in their overlap window.
    await pollsPass(simulator, simulator.credentials.token, 3);
    expect(recorder.calls.filter((call) => call.change.uuids?.includes(changed!.uuid))).toHaveLength(1);
  });

  it('hands on hosts flipping status, and created VMs', async () => {
    const simulator = await startSimulator();
    const recorder = new Recorder();
    startFeed(simulator, recorder);
    const scope = scopeOf(simulator.credentials);
    recorder.interest(scope, 'vmInstance', 1);
    recorder.interest(scope, 'host', 1);
    await pollsPass(simulator, simulator.credentials.token, 2);
    const [host] = await churn(simulator, { kind: 'hostStatus' });
    const [created] = await churn(simulator, { kind: 'vmCreate' });
    await eventually(() => recorder.uuids(scope.key, 'host').has(host!.uuid), 'the host invalidated');
    await eventually(() => recorder.uuids(scope.key).has(created!.uuid), 'the new VM invalidated');
  });

  it('a removed VM invalidates the collection of its scope (the count no longer adds up)', async () => {
    const simulator = await startSimulator();
    const recorder = new Recorder();
    startFeed(simulator, recorder);
    const scope = scopeOf(simulator.credentials);
    recorder.interest(scope, 'vmInstance', 1);
    await pollsPass(simulator, simulator.credentials.token, 2);
    expect(recorder.wholeCollection(scope.key)).toBe(0);
    await churn(simulator, { kind: 'vmDelete' });
    await eventually(() => recorder.wholeCollection(scope.key) > 0, 'the collection invalidated');

    // A removal hidden by a creation in the same interval is still seen: the new VM was not counted.
    const before = recorder.wholeCollection(scope.key);
    await churn(simulator, { kind: 'vmDelete' });
    await churn(simulator, { kind: 'vmCreate' });
    await eventually(() => recorder.wholeCollection(scope.key) > before, 'the collection invalidated again');
  });

  it('reads every change when more changed than one page holds (lastOpDate>=…)', async () => {
    const simulator = await startSimulator();
    const recorder = new Recorder();
    startFeed(simulator, recorder, { pageSize: 5 });
    const scope = scopeOf(simulator.credentials);
    recorder.interest(scope, 'vmInstance', 1);
    await pollsPass(simulator, simulator.credentials.token, 2);
    const changes = await churn(simulator, { kind: 'vmState', count: 15 });
    const uuids = new Set(changes.map((change) => change.uuid));
    await eventually(() => [...uuids].every((uuid) => recorder.uuids(scope.key).has(uuid)), 'all 15 changed VMs invalidated');
    expect(simulator.journal().some((entry) => decodeURIComponent(entry.query).includes('filter=lastOpDate:ge:'))).toBe(true);
  });

  it('polls a pair once per interval whatever the number of its live queries, and stops with the last one', async () => {
    const simulator = await startSimulator();
    const recorder = new Recorder();
    const { feed } = startFeed(simulator, recorder);
    const many = scopeOf(simulator.credentials);
    const one = scopeOf(simulator.credentials.second);
    for (let index = 0; index < 50; index++) recorder.interest(many, 'vmInstance', 1);
    recorder.interest(one, 'vmInstance', 1);
    await eventually(() => feed.pollers() === 2, 'two pollers');
    simulator.resetStats();
    await pollsPass(simulator, simulator.credentials.second.token, 6);
    const manyPolls = pollsUnder(simulator, simulator.credentials.token);
    const onePolls = pollsUnder(simulator, simulator.credentials.second.token);
    expect(manyPolls).toBeLessThanOrEqual(onePolls + 1);

    for (let index = 0; index < 49; index++) recorder.interest(many, 'vmInstance', -1);
    await pollsPass(simulator, simulator.credentials.token, 2);
    recorder.interest(many, 'vmInstance', -1);
    expect(feed.pollers()).toBe(1);
    const stoppedAt = pollsUnder(simulator, simulator.credentials.token);
    await pollsPass(simulator, simulator.credentials.second.token, 4);
    expect(pollsUnder(simulator, simulator.credentials.token)).toBe(stoppedAt);
  });

  it("one tenant's churn reaches only its own scope", async () => {
    const simulator = await startSimulator();
    const recorder = new Recorder();
    startFeed(simulator, recorder);
    const first = scopeOf(simulator.credentials);
    const second = scopeOf(simulator.credentials.second);
    recorder.interest(first, 'vmInstance', 1);
    recorder.interest(second, 'vmInstance', 1);
    await pollsPass(simulator, simulator.credentials.token, 2);
    await pollsPass(simulator, simulator.credentials.second.token, 2);
    const changes = await churn(simulator, { tenant: 'second', kind: 'vmState', count: 3 });
    await eventually(() => changes.every((change) => recorder.uuids(second.key).has(change.uuid)), "the second tenant's VMs invalidated");
    await pollsPass(simulator, simulator.credentials.token, 2);
    expect(recorder.calls.filter((call) => call.scopeKey === first.key)).toEqual([]);
  });

  it('backs off while the upstream fails, keeps going, and catches up when it returns', async () => {
    const simulator = await startSimulator();
    const recorder = new Recorder();
    const { metrics } = startFeed(simulator, recorder);
    const scope = scopeOf(simulator.credentials);
    recorder.interest(scope, 'vmInstance', 1);
    await pollsPass(simulator, simulator.credentials.token, 1);
    simulator.configure({ faultRate: 1 });
    const [changed] = await churn(simulator, { kind: 'vmState' });
    await eventually(async () => (await counted(metrics, 'pollErrors')) >= 1, 'a failed poll');
    simulator.configure({ faultRate: 0 });
    await eventually(() => recorder.uuids(scope.key).has(changed!.uuid), 'the change after the outage', 600, 50);
  });

  it('stops polling a scope whose credential the upstream rejects', async () => {
    const simulator = await startSimulator();
    const recorder = new Recorder();
    const { metrics, feed } = startFeed(simulator, recorder);
    const stolen = scopeOf({ ...simulator.credentials, token: 'not-a-token' });
    recorder.interest(stolen, 'vmInstance', 1);
    recorder.interest(stolen, 'host', 1);
    await eventually(async () => (await counted(metrics, 'pollErrors')) >= 1, 'the rejected poll');
    const valid = scopeOf(simulator.credentials.second);
    recorder.interest(valid, 'vmInstance', 1);
    await pollsPass(simulator, simulator.credentials.second.token, 4);
    expect(pollsUnder(simulator, 'not-a-token')).toBeLessThanOrEqual(2);
    expect(feed.pollers()).toBe(1);
    expect(recorder.calls).toEqual([]);
  });
});

describe('the change feed under made-up credentials', () => {
  it('probes the upstream no more than one unverified-call budget allows, however many scopes ask', async () => {
    const simulator = await startSimulator();
    const recorder = new Recorder();
    const { metrics } = startFeed(simulator, recorder);
    const tokens = Array.from({ length: 40 }, (_, index) => `made-up-${index}`);
    for (const token of tokens) recorder.interest(scopeOf({ ...simulator.credentials, token }), 'vmInstance', 1);
    await eventually(async () => (await counted(metrics, 'pollErrors')) >= tokens.length, 'every scope tried once');
    const probes = tokens.reduce((sum, token) => sum + pollsUnder(simulator, token), 0);
    // The gate's burst (20) and what it refilled meanwhile (60 a minute), not one per scope.
    expect(probes).toBeLessThanOrEqual(25);
    expect(recorder.calls).toEqual([]);
  });
});

describe('the change feed across replicas (Redis)', () => {
  let redis: RedisServer | undefined;

  async function connect(url: string): Promise<RedisConnection> {
    const connection = createRedisConnection({ url, logger });
    expect(await connection.waitUntilReady(5000)).toBe(true);
    cleanups.push(() => connection.close());
    return connection;
  }

  it('one replica polls a pair, every replica hears its changes, and the other takes over when it lets go', async () => {
    redis = await startRedis();
    cleanups.push(() => redis!.stop());
    const simulator = await startSimulator();
    const scope = scopeOf(simulator.credentials);
    const replicaA = new Recorder();
    const replicaB = new Recorder();
    const replicasOf = async () => {
      const connection = await connect(redis!.url);
      const streams = createSharedStreams(connection, { ...defaultConfig, logger });
      return createRedisFeedReplicas({ connection, ...streams, leaseMs: POLL_MS * 3, stateTtlMs: 60_000, logger });
    };
    const a = startFeed(simulator, replicaA, { replicas: await replicasOf() });
    const b = startFeed(simulator, replicaB, { replicas: await replicasOf() });
    replicaA.interest(scope, 'vmInstance', 1);
    await pollsPass(simulator, simulator.credentials.token, 1);
    replicaB.interest(scope, 'vmInstance', 1);

    // Over 8 intervals, 8 polls or so: one poller, not two.
    simulator.resetStats();
    await new Promise((resolve) => setTimeout(resolve, POLL_MS * 8));
    const polls = pollsUnder(simulator, simulator.credentials.token);
    expect(polls).toBeGreaterThan(0);
    expect(polls).toBeLessThanOrEqual(8 + 2);
    expect(a.feed.pollers() + b.feed.pollers()).toBe(1);
    expect(a.feed.pollers()).toBe(1);

    const [changed] = await churn(simulator, { kind: 'vmState' });
    await eventually(() => replicaB.uuids(scope.key).has(changed!.uuid), 'the change on replica B');
    expect(replicaA.uuids(scope.key).has(changed!.uuid)).toBe(true);

    // A's last live query ends: B takes over, from A's watermark.
    replicaA.interest(scope, 'vmInstance', -1);
    await eventually(() => b.feed.pollers() === 1, 'B polling');
    const [later] = await churn(simulator, { kind: 'vmState' });
    await eventually(() => replicaB.uuids(scope.key).has(later!.uuid), 'the later change on replica B');
    expect(a.feed.pollers()).toBe(0);
  });
});
