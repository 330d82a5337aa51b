/**
 * Shared subscription executions: WebSocket subscribers of the same events (same selection,
 * variables and credentials) share one execution, each still gets every event in its own
 * selection, a slow one is cut off instead of holding the others back, and nothing runs once
 * the last one leaves. End to end over graphql-ws, then the module's limits on a small schema.
 */
import {
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  parse,
  subscribe,
  type ExecutionArgs,
  type ExecutionResult,
} from 'graphql';
import { createPubSub } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Caller } from '../../src/upstream/credentials.js';
import { createSharedSubscriptions, SHARED_STREAM_EXTENSION } from '../../src/subscriptions/shared-subscriptions.js';
import { startHarness, type Harness } from '../support/harness.js';
import { eventually } from '../support/process.js';
import { subscribeSse, subscribeWs, type Collected } from '../support/subscriptions.js';

describe('shared subscription executions over graphql-ws and SSE', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness();
  });

  afterAll(async () => {
    await harness.close();
  });

  async function gauges(): Promise<{ executions: number; open: number }> {
    const text = await (await fetch(`${harness.url}/metrics`)).text();
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
    return { executions: value('gateway_subscription_executions'), open: value('gateway_subscriptions_open') };
  }

  function untilGauges(wanted: { executions: number; open: number }): Promise<unknown> {
    return eventually(async () => {
      const now = await gauges();
      return now.executions === wanted.executions && now.open === wanted.open && now;
    }, `gauges ${JSON.stringify(wanted)}`);
  }

  async function finishJob(nqnSuffix: string): Promise<string> {
    const { tenantId } = harness.simulator.credentials;
    const host = [...harness.simulator.store.hosts.list(tenantId)].find((candidate) => candidate.status === 'Connected')!;
    const response = await harness.gql<{ updateHostNqn: { job: { id: string; status: string } } }>(
      'mutation($input: UpdateHostNqnInput!) { updateHostNqn(input: $input) { job { id status } } }',
      { input: { uuid: host.uuid, nqn: `nqn.2014-08.org.nvmexpress:uuid:${nqnSuffix.padStart(8, '0')}-0000-4000-8000-000000000000` } },
    );
    const job = response.data!.updateHostNqn.job;
    expect(job.status).toBe('SUCCEEDED');
    return job.id;
  }

  it('runs one execution per selection and credential, gives every subscriber every event, and stops with the last one', async () => {
    const before = await gauges();
    const mine = { Authorization: harness.headers.authorization };
    const theirs = { Authorization: harness.secondHeaders.authorization };
    type Events = Collected<{ jobEvents: { id: string; status?: string } }>;
    const same: Events[] = [];
    for (let i = 0; i < 3; i++) same.push(await subscribeWs(harness.url, 'subscription { jobEvents { id status } }', {}, mine));
    const otherSelection: Events = await subscribeWs(harness.url, 'subscription { jobEvents { id } }', {}, mine);
    const otherCredential: Events = await subscribeWs(harness.url, 'subscription { jobEvents { id status } }', {}, theirs);
    // jobCompleted replays a finished job to whoever subscribes, so it never shares.
    const firstId = await finishJob('61');
    const completed = await subscribeWs(harness.url, 'subscription($id: ID!) { jobCompleted(id: $id) { id } }', { id: firstId }, mine);
    await completed.completed;
    await untilGauges({ executions: before.executions + 3, open: before.open + 5 });

    const id = await finishJob('62');
    await Promise.all([...same, otherSelection].map((events) => events.waitFor(2)));
    for (const events of same) {
      expect(events.results).toEqual([firstId, id].map((jobId) => ({ data: { jobEvents: { id: jobId, status: 'SUCCEEDED' } } })));
    }
    expect(otherSelection.results).toEqual([firstId, id].map((jobId) => ({ data: { jobEvents: { id: jobId } } })));

    // The first subscriber started the shared execution; the others keep it when it leaves.
    await same[0]!.close();
    await same[1]!.close();
    await untilGauges({ executions: before.executions + 3, open: before.open + 3 });
    const next = await finishJob('63');
    await same[2]!.waitFor(3);
    expect(same[2]!.results.at(-1)).toEqual({ data: { jobEvents: { id: next, status: 'SUCCEEDED' } } });
    expect(otherCredential.results).toEqual([]);

    await Promise.all([same[2]!.close(), otherSelection.close(), otherCredential.close(), completed.close()]);
    await untilGauges(before);
  });

  it('reads each event\'s records afresh: a subscription\'s loaders do not keep the first event\'s answers', async () => {
    const before = await gauges();
    const query = 'subscription { jobEvents { id payload { ... on UpdateHostNqnPayload { host { vmInstances(first: 100) { nodes { uuid name } } } } } } }';
    type Events = Collected<{ jobEvents: { id: string; payload: { host: { vmInstances: { nodes: { uuid: string; name: string }[] } } } } }>;
    const events: Events = await subscribeWs(harness.url, query, {}, harness.headers);
    const { store, credentials } = harness.simulator;
    const host = [...store.hosts.list(credentials.tenantId)].find((candidate) => candidate.status === 'Connected')!;
    const vm = [...store.vms.list(credentials.tenantId)].find((candidate) => candidate.hostUuid === host.uuid)!;
    const nameIn = (index: number) => events.results[index]?.data?.jobEvents.payload.host.vmInstances.nodes.find((node) => node.uuid === vm.uuid)?.name;
    const originalName = vm.name;

    await finishJob('66');
    await events.waitFor(1);
    expect(nameIn(0)).toBe(originalName);
    store.vms.update(vm, { name: 'renamed-over-websocket' });
    await finishJob('67');
    await events.waitFor(2);
    expect(nameIn(1)).toBe('renamed-over-websocket');
    store.vms.update(vm, { name: originalName });
    await events.close();
    await untilGauges(before);
  });

  it('shares one execution among SSE subscribers too, which reads each event afresh, also once its first subscriber has hung up', async () => {
    const before = await gauges();
    // Each event reads the upstream: the VMs of the job's host, under the job's payload.
    const query =
      'subscription { jobEvents { id payload { ... on UpdateHostNqnPayload { host { vmInstances(first: 100) { nodes { uuid name } } } } } } }';
    type Events = Collected<{ jobEvents: { id: string; payload: { host: { vmInstances: { nodes: { uuid: string; name: string }[] } } } } }>;
    const subscribers: Events[] = [];
    for (let i = 0; i < 3; i++) subscribers.push(await subscribeSse(harness.url, query, {}, harness.headers));
    await untilGauges({ executions: before.executions + 1, open: before.open + 3 });
    const { store, credentials } = harness.simulator;
    const host = [...store.hosts.list(credentials.tenantId)].find((candidate) => candidate.status === 'Connected')!;
    const vm = [...store.vms.list(credentials.tenantId)].find((candidate) => candidate.hostUuid === host.uuid)!;
    const nameIn = (events: Events, index: number) =>
      events.results[index]?.data?.jobEvents.payload.host.vmInstances.nodes.find((node) => node.uuid === vm.uuid)?.name;

    const firstId = await finishJob('64');
    await Promise.all(subscribers.map((events) => events.waitFor(1)));
    for (const events of subscribers) {
      expect(events.results[0]?.data?.jobEvents.id).toBe(firstId);
      expect(nameIn(events, 0)).toBe(vm.name);
    }

    // The VM is renamed upstream, and the subscriber that started the execution hangs up (its
    // request's signal aborts): the next event still reads the host's VMs, anew.
    const originalName = vm.name;
    store.vms.update(vm, { name: 'renamed-between-events' });
    await subscribers[0]!.close();
    await untilGauges({ executions: before.executions + 1, open: before.open + 2 });
    const nextId = await finishJob('65');
    await Promise.all(subscribers.slice(1).map((events) => events.waitFor(2)));
    for (const events of subscribers.slice(1)) {
      expect(events.results[1]?.errors).toBeUndefined();
      expect(events.results[1]?.data?.jobEvents.id).toBe(nextId);
      expect(nameIn(events, 1)).toBe('renamed-between-events');
    }

    store.vms.update(vm, { name: originalName });
    await Promise.all(subscribers.slice(1).map((events) => events.close()));
    await untilGauges(before);
  });

  it('answers every subscriber the same refusal when the credential is missing, and keeps nothing running', async () => {
    const before = await gauges();
    const refused = await Promise.all([1, 2].map(() => subscribeWs(harness.url, 'subscription { jobEvents { id } }')));
    await Promise.all(refused.map((events) => events.completed));
    for (const events of refused) expect(events.results.map((result) => result.errors?.[0]?.extensions?.code)).toEqual(['UNAUTHENTICATED']);
    await untilGauges(before);
    await Promise.all(refused.map((events) => events.close()));
  });
});

describe('shared subscription executions and the cost budget', () => {
  let harness: Harness;

  beforeAll(async () => {
    // A budget of two subscriptions (each costs 1 point: one Job per event), barely refilling.
    harness = await startHarness({ config: { costBudget: 2, costBudgetRefill: 1 } });
  });

  afterAll(async () => {
    await harness.close();
  });

  it('charges every subscriber, not only the one that started the execution', async () => {
    const mine = { Authorization: harness.headers.authorization };
    const subscribers = [];
    for (let i = 0; i < 3; i++) subscribers.push(await subscribeWs(harness.url, 'subscription { jobEvents { id } }', {}, mine));
    const refused = await Promise.race(subscribers.map((events, index) => events.completed.then(() => index)));
    expect(subscribers[refused]!.results.map((result) => result.errors?.[0]?.extensions?.code)).toEqual(['RATE_LIMITED']);
    const text = await (await fetch(`${harness.url}/metrics`)).text();
    expect(/^gateway_subscriptions_open (\S+)$/m.exec(text)?.[1]).toBe('2');
    expect(/^gateway_subscription_executions (\S+)$/m.exec(text)?.[1]).toBe('1');
    await Promise.all(subscribers.map((events) => events.close()));
  });
});

describe('shared executions on their own', () => {
  /** A subscription field marked shareable, fed by yoga's pub/sub as `jobEvents` is; counts its listeners. */
  function eventSource() {
    const target = new EventTarget();
    const listeners = { size: 0 };
    const counted = {
      addEventListener: (...args: Parameters<EventTarget['addEventListener']>) => (listeners.size++, target.addEventListener(...args)),
      removeEventListener: (...args: Parameters<EventTarget['removeEventListener']>) => (listeners.size--, target.removeEventListener(...args)),
      dispatchEvent: (event: Event) => target.dispatchEvent(event),
    };
    const pubsub = createPubSub<{ tick: [string] }>({ eventTarget: counted });
    const Query = new GraphQLObjectType({ name: 'Query', fields: { ok: { type: GraphQLString } } });
    const Subscription = new GraphQLObjectType({
      name: 'Subscription',
      fields: {
        ticks: {
          type: new GraphQLNonNull(GraphQLString),
          extensions: { [SHARED_STREAM_EXTENSION]: true },
          subscribe: () => pubsub.subscribe('tick'),
          resolve: (value: string) => value,
        },
      },
    });
    const schema = new GraphQLSchema({ query: Query, subscription: Subscription });
    const args = (authorization: string): ExecutionArgs => ({
      schema,
      document: parse('subscription { ticks }'),
      contextValue: { caller: new Caller({ authorization }, undefined) },
    });
    return { args, listeners, publish: (value: string) => pubsub.publish('tick', value) };
  }

  async function read(iterator: AsyncIterator<ExecutionResult>, count: number): Promise<unknown[]> {
    const values: unknown[] = [];
    for (let i = 0; i < count; i++) values.push((await iterator.next()).value);
    return values;
  }

  it('ends a subscriber that falls too far behind with SUBSCRIBER_TOO_SLOW while the others get everything', async () => {
    const source = eventSource();
    const shared = createSharedSubscriptions({ maxQueued: 3 });
    const reader = (await shared.subscribe(source.args('OAuth a'), subscribe)) as AsyncIterableIterator<ExecutionResult>;
    const stalled = (await shared.subscribe(source.args('OAuth a'), subscribe)) as AsyncIterableIterator<ExecutionResult>;
    expect(source.listeners.size).toBe(1);

    const received: unknown[] = [];
    for (let i = 1; i <= 6; i++) {
      source.publish(`t${i}`);
      received.push(...(await read(reader, 1)));
    }
    expect(received).toEqual([1, 2, 3, 4, 5, 6].map((i) => ({ data: { ticks: `t${i}` } })));
    // Three events queued, the fourth one too many: what was queued is still delivered, then the error.
    expect(await read(stalled, 3)).toEqual([1, 2, 3].map((i) => ({ data: { ticks: `t${i}` } })));
    await expect(stalled.next()).rejects.toMatchObject({ extensions: { code: 'SUBSCRIBER_TOO_SLOW' } });

    await reader.return!();
    expect(source.listeners.size).toBe(0);
  });

  it('writes each event as JSON straight to every direct writer, and ends a subscriber whose connection is backed up', async () => {
    const source = eventSource();
    const written = { fast: [] as string[], stuck: [] as string[] };
    let stuckIsBackedUp = false;
    const fastArgs = source.args('OAuth a');
    const stuckArgs = source.args('OAuth a');
    const shared = createSharedSubscriptions({
      writerOf: (args) =>
        args === fastArgs
          ? (payload) => (written.fast.push(payload), true)
          : (payload) => (stuckIsBackedUp ? false : (written.stuck.push(payload), true)),
    });
    const fast = (await shared.subscribe(fastArgs, subscribe)) as AsyncIterableIterator<ExecutionResult>;
    const stuck = (await shared.subscribe(stuckArgs, subscribe)) as AsyncIterableIterator<ExecutionResult>;
    expect(source.listeners.size).toBe(1);
    const stuckEnded = stuck.next();
    source.publish('t1');
    await new Promise((resolve) => setImmediate(resolve));
    stuckIsBackedUp = true;
    source.publish('t2');
    await expect(stuckEnded).rejects.toMatchObject({ extensions: { code: 'SUBSCRIBER_TOO_SLOW' } });
    await new Promise((resolve) => setImmediate(resolve));
    const tick = (value: string) => JSON.stringify({ data: { ticks: value } });
    expect(written).toEqual({ fast: [tick('t1'), tick('t2')], stuck: [tick('t1')] });
    await fast.return!();
    expect(source.listeners.size).toBe(0);
  });

  it('hands a large fan-out over in chunks, letting the event loop run in between', async () => {
    const source = eventSource();
    const shared = createSharedSubscriptions({ chunkSize: 10 });
    const subscribers = await Promise.all(
      Array.from({ length: 100 }, async () => (await shared.subscribe(source.args('OAuth a'), subscribe)) as AsyncIterableIterator<ExecutionResult>),
    );
    let delivered = 0;
    let deliveredWhenTheLoopRan = -1;
    const all = Promise.all(subscribers.map((iterator) => iterator.next().then(() => delivered++)));
    source.publish('tick');
    setImmediate(() => (deliveredWhenTheLoopRan = delivered));
    await all;
    expect(delivered).toBe(100);
    expect(deliveredWhenTheLoopRan).toBeGreaterThan(0);
    expect(deliveredWhenTheLoopRan).toBeLessThan(100);
    await Promise.all(subscribers.map((iterator) => iterator.return!()));
    expect(source.listeners.size).toBe(0);
  });

  it('keeps credentials apart: another credential gets its own execution', async () => {
    const source = eventSource();
    const shared = createSharedSubscriptions();
    const mine = (await shared.subscribe(source.args('OAuth a'), subscribe)) as AsyncIterableIterator<ExecutionResult>;
    const theirs = (await shared.subscribe(source.args('OAuth b'), subscribe)) as AsyncIterableIterator<ExecutionResult>;
    expect(source.listeners.size).toBe(2);
    await mine.return!();
    expect(source.listeners.size).toBe(1);
    await theirs.return!();
    expect(source.listeners.size).toBe(0);
  });
});
