/**
 * Caps and budgets per credential hold over the fleet, not per replica: two replicas (and, for a
 * replica that dies, a third as a process of its own) share one real redis-server. A credential
 * capped at 2 subscriptions gets 2 over both replicas, not 2 on each; a replica that stops or is
 * killed gives its places back; a budget spent on one replica is spent on the other.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { defaultConfig } from '../../src/config/index.js';
import { startAppReplicas, type AppReplicas } from '../support/app-replicas.js';
import { credentialHeaders, type CredentialHeaders } from '../support/harness.js';
import { eventually, spawnGateway } from '../support/process.js';
import { freePort, redisUpAt } from '../support/redis.js';
import { gql } from '../support/replica-jobs.js';
import { subscribeSse, subscribeWs, type Collected } from '../support/subscriptions.js';

const CAP = 2;
/** How long a replica's places stand unrenewed: a killed replica's are free again after it. */
const LEASE_MS = 600;
const JOB_EVENTS = 'subscription { jobEvents { id status } }';
const HOSTS_LIVE = 'query Hosts @live { hosts(first: 2) { nodes { uuid } } }';

/** How a subscription that answers nothing while open fared: refused (its one answer, then done), or open. */
async function outcomeOf(subscription: Collected, graceMs = 500): Promise<'open' | { refused: unknown }> {
  const refused = subscription.completed.then(() => ({ refused: subscription.results[0]?.errors?.[0]?.extensions }));
  return Promise.race([refused, new Promise<'open'>((resolve) => setTimeout(() => resolve('open'), graceMs))]);
}

const subscriptionsRefused = { refused: { code: 'TOO_MANY_SUBSCRIPTIONS', per: 'credential', limit: CAP } };
const liveRefused = { code: 'TOO_MANY_LIVE_QUERIES', per: 'credential', limit: CAP };

describe('caps per credential over two replicas sharing Redis', () => {
  let replicas: AppReplicas | undefined;
  let replicaA: App;
  let replicaB: App;
  let headers: CredentialHeaders;
  let otherHeaders: CredentialHeaders;
  const open: Collected[] = [];

  beforeAll(async () => {
    replicas = await startAppReplicas({ maxSubscriptionsPerCredential: CAP, liveMaxPerCredential: CAP, jobLeaseMs: LEASE_MS, livePollMs: 0 });
    ({ replicaA, replicaB } = replicas);
    headers = credentialHeaders(replicas.simulator.credentials);
    otherHeaders = credentialHeaders(replicas.simulator.credentials.second);
  });

  afterAll(async () => {
    await Promise.all(open.splice(0).map((subscription) => subscription.close()));
    await replicas?.stop();
  });

  /** Opens a subscription over SSE on `app`, kept open until the test's end. */
  async function sse(app: App, credential: Record<string, string> = headers): Promise<Collected> {
    const subscription = await subscribeSse(app.url, JOB_EVENTS, {}, credential);
    open.push(subscription);
    return subscription;
  }

  it('refuses a third subscription of a credential holding one on each replica, on either replica and over WebSocket, until one is closed', async () => {
    const onA = await sse(replicaA);
    const onB = await sse(replicaB);
    expect(await outcomeOf(onA)).toBe('open');
    expect(await outcomeOf(onB)).toBe('open');

    expect(await outcomeOf(await sse(replicaA))).toEqual(subscriptionsRefused);
    expect(await outcomeOf(await sse(replicaB))).toEqual(subscriptionsRefused);
    const overWs = await subscribeWs(replicaB.url, JOB_EVENTS, {}, headers);
    open.push(overWs);
    await overWs.completed;
    expect(overWs.results.map((result) => result.errors?.[0]?.extensions)).toEqual([subscriptionsRefused.refused]);

    // Another credential is not counted against this one.
    expect(await outcomeOf(await sse(replicaA, otherHeaders))).toBe('open');

    // Closed on A: its place is free for a subscription on B.
    await onA.close();
    const again = await eventually(async () => {
      const candidate = await sse(replicaB);
      const outcome = await outcomeOf(candidate, 300);
      return outcome === 'open' ? candidate : undefined;
    }, 'a subscription on B once the one on A closed', 20, 100);
    expect(await outcomeOf(await sse(replicaA))).toEqual(subscriptionsRefused);
    await Promise.all([onB.close(), again.close()]);
  });

  it('refuses a third live query of a credential holding one on each replica, until one ends', async () => {
    const onA = await subscribeWs(replicaA.url, HOSTS_LIVE, {}, headers);
    const onB = await subscribeSse(replicaB.url, HOSTS_LIVE, {}, headers);
    open.push(onA, onB);
    await Promise.all([onA.waitFor(1), onB.waitFor(1)]);
    expect([onA.results[0]?.errors, onB.results[0]?.errors]).toEqual([undefined, undefined]);

    for (const app of [replicaA, replicaB]) {
      const third = await subscribeSse(app.url, HOSTS_LIVE, {}, headers);
      open.push(third);
      await third.completed;
      expect(third.results.map((result) => result.errors?.[0]?.extensions)).toEqual([liveRefused]);
    }
    const other = await subscribeSse(replicaB.url, HOSTS_LIVE, {}, otherHeaders);
    open.push(other);
    await other.waitFor(1);
    expect(other.results[0]?.errors).toBeUndefined();

    await onB.close();
    await eventually(async () => {
      const candidate = await subscribeWs(replicaA.url, HOSTS_LIVE, {}, headers);
      open.push(candidate);
      await candidate.waitFor(1);
      return candidate.results[0]?.errors === undefined;
    }, 'a live query on A once the one on B ended', 20, 100);
  });

  it('gets back the places of a replica that stops, at once', async () => {
    // A credential of its own (the job family's header alone): the places the tests above gave
    // back may still be on their way.
    const jobsOnly = { authorization: headers.authorization };
    const config = { ...defaultConfig, port: 0, host: '127.0.0.1', upstreamUrl: replicas!.simulator.url, redisUrl: replicas!.redis.url };
    const replicaC = createApp({ ...config, maxSubscriptionsPerCredential: CAP, jobLeaseMs: 60_000 }, { logger: pino({ level: 'silent' }) });
    await replicaC.start();
    const onC = [await subscribeSse(replicaC.url, JOB_EVENTS, {}, jobsOnly), await subscribeSse(replicaC.url, JOB_EVENTS, {}, jobsOnly)];
    for (const subscription of onC) expect(await outcomeOf(subscription)).toBe('open');
    expect(await outcomeOf(await sse(replicaA, jobsOnly))).toEqual(subscriptionsRefused);

    // Its lease is a minute: only giving the places back at stop frees them this soon.
    await replicaC.stop();
    await Promise.all(onC.map((subscription) => subscription.close()));
    expect(await outcomeOf(await sse(replicaA, jobsOnly))).toBe('open');
  });
});

describe('the places of a replica that is killed', () => {
  let replicas: AppReplicas | undefined;

  beforeAll(async () => {
    replicas = await startAppReplicas({ maxSubscriptionsPerCredential: CAP, jobLeaseMs: LEASE_MS, livePollMs: 0 });
  });

  afterAll(async () => {
    await replicas?.stop();
  });

  it('are free again within its lease', async () => {
    const { replicaA, simulator, redis } = replicas!;
    const headers = credentialHeaders(simulator.credentials);
    const port = await freePort();
    const killed = await spawnGateway({
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      UPSTREAM_URL: simulator.url,
      REDIS_URL: redis.url,
      MAX_SUBSCRIPTIONS_PER_CREDENTIAL: String(CAP),
      JOB_LEASE_MS: String(LEASE_MS),
      LOG_LEVEL: 'warn',
    });
    const opened: Collected[] = [];
    try {
      for (let i = 0; i < CAP; i += 1) opened.push(await subscribeSse(killed.url, JOB_EVENTS, {}, headers));
      for (const subscription of opened) expect(await outcomeOf(subscription)).toBe('open');
      const refused = await subscribeSse(replicaA.url, JOB_EVENTS, {}, headers);
      expect(await outcomeOf(refused)).toEqual(subscriptionsRefused);

      await killed.kill('SIGKILL');
      const killedAt = Date.now();
      const accepted = await eventually(async () => {
        const candidate = await subscribeSse(replicaA.url, JOB_EVENTS, {}, headers);
        opened.push(candidate);
        return (await outcomeOf(candidate, 100)) === 'open' ? Date.now() : undefined;
      }, 'a subscription on A once the killed replica\'s lease ran out', 50, 50);
      // Within the lease, give or take a renewal and the checks' own time.
      expect(accepted - killedAt).toBeLessThan(LEASE_MS + 1_000);
    } finally {
      await killed.kill('SIGKILL');
      await Promise.all(opened.map((subscription) => subscription.close()));
    }
  });
});

describe('a budget per credential over two replicas sharing Redis', () => {
  let replicas: AppReplicas | undefined;

  beforeAll(async () => {
    // A lease of a minute: no renewal in the test's time, only the writes made when Redis is back.
    replicas = await startAppReplicas({ costBudget: 100, costBudgetRefill: 1, liveMaxPerCredential: CAP, jobLeaseMs: 60_000, livePollMs: 0 });
  });

  afterAll(async () => {
    await replicas?.stop();
  });

  it('refuses on B, with RATE_LIMITED and Retry-After, what the budget spent on A no longer holds', async () => {
    const { replicaA, replicaB, simulator } = replicas!;
    const headers = credentialHeaders(simulator.credentials);
    const spent = await gql(replicaA.url, '{ vmInstances(first: 60) { nodes { name } } }', {}, headers); // requests 61, uses 61
    expect(spent.errors).toBeUndefined();
    const afterA = spent.extensions?.cost as { actualQueryCost: number; throttleStatus: Record<string, number> };
    expect(afterA.actualQueryCost).toBe(61);
    expect(afterA.throttleStatus).toEqual({ maximumAvailable: 100, currentlyAvailable: expect.any(Number), restoreRate: 1 });
    expect(afterA.throttleStatus.currentlyAvailable).toBeLessThanOrEqual(40);

    const response = await fetch(`${replicaB.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
      body: JSON.stringify({ query: '{ vmInstances(first: 50) { nodes { uuid } } }' }), // requests 51
    });
    expect(response.status).toBe(429);
    const body = (await response.json()) as { errors: { extensions: { code: string; retryAfter: number; cost: { throttleStatus: Record<string, number> } } }[] };
    const refusal = body.errors[0]!.extensions;
    expect(refusal.code).toBe('RATE_LIMITED');
    expect(response.headers.get('retry-after')).toBe(String(refusal.retryAfter));
    expect(refusal.retryAfter).toBeGreaterThanOrEqual(10);
    expect(refusal.cost.throttleStatus).toEqual({ maximumAvailable: 100, currentlyAvailable: expect.any(Number), restoreRate: 1 });
    expect(refusal.cost.throttleStatus.currentlyAvailable).toBeLessThan(51);

    // Another credential's budget is its own.
    expect((await gql(replicaB.url, '{ vmInstances(first: 5) { nodes { uuid } } }', {}, credentialHeaders(simulator.credentials.second))).errors).toBeUndefined();
  });

  it('while Redis is away, holds each credential to each replica\'s own budget and caps, refusing nothing for want of Redis', async () => {
    const { replicaA, replicaB, simulator, redis } = replicas!;
    const headers = credentialHeaders(simulator.credentials);
    const open: Collected[] = [];
    let back = false;
    await redis.stop();
    try {
      // B's own bucket is full: the budget spent through Redis above is not held against it meanwhile.
      const spent = await gql(replicaB.url, '{ vmInstances(first: 60) { nodes { name } } }', {}, headers);
      expect(spent.errors).toBeUndefined();
      const refused = await gql(replicaB.url, '{ vmInstances(first: 50) { nodes { uuid } } }', {}, headers);
      expect(refused.errors?.map((error) => error.extensions?.code)).toEqual(['RATE_LIMITED']);

      // B alone counts its live queries, to the cap.
      for (let i = 0; i < CAP; i += 1) open.push(await subscribeSse(replicaB.url, HOSTS_LIVE, {}, credentialHeaders(simulator.credentials.second)));
      const third = await subscribeSse(replicaB.url, HOSTS_LIVE, {}, credentialHeaders(simulator.credentials.second));
      open.push(third);
      await Promise.all(open.map((live) => live.waitFor(1)));
      expect(open.map((live) => live.results[0]?.errors?.[0]?.extensions?.code)).toEqual([undefined, undefined, 'TOO_MANY_LIVE_QUERIES']);

      // Redis back: B writes the counts it kept meanwhile as it reconnects (sent before its
      // /healthz reports Redis up), and A holds the credential to them.
      await redis.start();
      back = true;
      for (const app of [replicaA, replicaB]) await eventually(async () => redisUpAt(app.url), 'the replica connected to Redis again', 100, 50);
      const onA = await subscribeSse(replicaA.url, HOSTS_LIVE, {}, credentialHeaders(simulator.credentials.second));
      open.push(onA);
      await onA.waitFor(1);
      expect(onA.results[0]?.errors?.[0]?.extensions).toEqual(liveRefused);
    } finally {
      await Promise.all(open.map((live) => live.close()));
      if (!back) await redis.start();
    }
  });
});
