/**
 * `jobEvents(after:)`: a subscriber that drops and subscribes again with the last `eventCursor`
 * it saw is sent every job that finished meanwhile, in order and once, then the live ones; over
 * graphql-ws and SSE, in one process and across replicas on Redis. A cursor whose events are no
 * longer kept says to list `jobs` instead.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeEventCursor } from '../../src/jobs/event-log.js';
import { startAppReplicas, type AppReplicas } from '../support/app-replicas.js';
import { credentialHeaders, startHarness, type Harness } from '../support/harness.js';
import { connectedHost, gql, nqn } from '../support/job-calls.js';
import { subscribeSse, subscribeWs, type Collected } from '../support/subscriptions.js';

const JOB_EVENTS = 'subscription($after: String) { jobEvents(after: $after) { id status eventCursor } }';
const UPDATE = 'mutation($input: UpdateHostNqnInput!) { updateHostNqn(input: $input) { job { id status } } }';

interface JobEvent {
  id: string;
  status: string;
  eventCursor: string | null;
}
type Events = Collected<{ jobEvents: JobEvent }>;

let counter = 0;

/** Runs one write to its end (`async: false`) on the gateway at `url`; answers its job id. */
async function finishJob(url: string, host: string, headers: Record<string, string>): Promise<string> {
  const answer = await gql<{ updateHostNqn: { job: { id: string; status: string } } }>(url, UPDATE, { input: { uuid: host, nqn: nqn(String(++counter)) } }, headers);
  expect(answer.data?.updateHostNqn.job.status).toBe('SUCCEEDED');
  return answer.data!.updateHostNqn.job.id;
}

const ids = (events: Events): unknown[] => events.results.map((result) => result.data?.jobEvents.id ?? result.errors?.[0]?.extensions?.code);
const cursorOf = (events: Events, index: number): string => events.results[index]!.data!.jobEvents.eventCursor!;

describe('jobEvents(after:) in one process', () => {
  let harness: Harness;
  let host: string;
  let params: Record<string, string>;

  beforeAll(async () => {
    harness = await startHarness();
    host = connectedHost(harness.simulator);
    params = { Authorization: harness.headers.authorization };
  });
  afterAll(() => harness?.close());

  it('each event carries a cursor; a job read any other way carries none', async () => {
    const events: Events = await subscribeWs(harness.url, JOB_EVENTS, {}, params);
    const id = await finishJob(harness.url, host, harness.headers);
    await events.waitFor(1);
    await events.close();
    expect(events.results[0]!.data!.jobEvents).toMatchObject({ id, status: 'SUCCEEDED', eventCursor: expect.stringMatching(/^[\w-]{20,80}$/) });
    const read = await harness.gql<{ job: { eventCursor: string | null } }>('query($id: ID!) { job(id: $id) { eventCursor } }', { id });
    expect(read.data?.job.eventCursor).toBeNull();
  });

  for (const transport of ['graphql-ws', 'SSE'] as const) {
    it(`a ${transport} subscriber that drops is sent what finished meanwhile, in order and once, then the live ones; never another credential's`, async () => {
      const subscribe = (after: string | undefined): Promise<Events> =>
        transport === 'SSE' ? subscribeSse(harness.url, JOB_EVENTS, { after }, harness.headers) : subscribeWs(harness.url, JOB_EVENTS, { after }, params);
      const first = await subscribe(undefined);
      const seen = await finishJob(harness.url, host, harness.headers);
      await first.waitFor(1);
      await first.close();

      // While away: three of its own jobs finish, and one of another tenant's.
      const missed = [];
      for (let index = 0; index < 3; index += 1) missed.push(await finishJob(harness.url, host, harness.headers));
      const second = harness.simulator.credentials.second.tenantId;
      const other = [...harness.simulator.store.hosts.list(second)].find((candidate) => candidate.status === 'Connected')!.uuid;
      await finishJob(harness.url, other, harness.secondHeaders);

      const resumed = await subscribe(cursorOf(first, 0));
      await resumed.waitFor(3);
      const live = await finishJob(harness.url, host, harness.headers);
      await resumed.waitFor(4);
      // Nothing more comes: each once.
      await new Promise((resolve) => setTimeout(resolve, 200));
      await resumed.close();
      expect(ids(first)).toEqual([seen]);
      expect(ids(resumed)).toEqual([...missed, live]);
      // The cursors go on: resuming from the second missed one replays the third and the live one.
      const again = await subscribe(cursorOf(resumed, 1));
      await again.waitFor(2);
      await again.close();
      expect(ids(again)).toEqual([missed[2], live]);
    });
  }

  it('a cursor this gateway did not give is INVALID_CURSOR; one from another log (a restart) is CURSOR_EXPIRED and says to list jobs', async () => {
    const forged = await subscribeWs(harness.url, JOB_EVENTS, { after: 'bm90IGEgY3Vyc29y' }, params);
    await forged.completed;
    expect(forged.results[0]?.errors?.[0]?.extensions).toMatchObject({ code: 'INVALID_CURSOR' });

    const restarted = await subscribeWs(harness.url, JOB_EVENTS, { after: encodeEventCursor({ epoch: 'abcdef', id: '1-0' }) }, params);
    await restarted.completed;
    const error = restarted.results[0]?.errors?.[0];
    expect(error?.extensions).toMatchObject({ code: 'CURSOR_EXPIRED' });
    expect(error?.message).toMatch(/list `jobs`/);
  });
});

describe('jobEvents(after:) across replicas on Redis', () => {
  let fleet: AppReplicas;
  let redis: Redis;
  let host: string;
  let headers: ReturnType<typeof credentialHeaders>;

  beforeAll(async () => {
    fleet = await startAppReplicas({});
    redis = new Redis(fleet.redis.url);
    host = connectedHost(fleet.simulator);
    headers = credentialHeaders(fleet.simulator.credentials);
  });
  afterAll(async () => {
    redis?.disconnect();
    await fleet?.stop();
  });

  it('a cursor given by one replica resumes on the other, from the shared stream', async () => {
    const [a, b] = [fleet.replicaA.url, fleet.replicaB.url] as [string, string];
    const params = { Authorization: headers.authorization };
    const onA: Events = await subscribeWs(a, JOB_EVENTS, {}, params);
    const seen = await finishJob(a, host, headers);
    await onA.waitFor(1);
    await onA.close();
    const missed = [await finishJob(b, host, headers), await finishJob(a, host, headers)];

    const onB: Events = await subscribeSse(b, JOB_EVENTS, { after: cursorOf(onA, 0) }, headers);
    await onB.waitFor(2);
    const live = await finishJob(a, host, headers);
    await onB.waitFor(3);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await onB.close();
    expect(ids(onA)).toEqual([seen]);
    expect(ids(onB)).toEqual([...missed, live]);
  });

  it('a cursor whose event the stream no longer keeps is CURSOR_EXPIRED', async () => {
    const params = { Authorization: headers.authorization };
    const events: Events = await subscribeWs(fleet.replicaA.url, JOB_EVENTS, {}, params);
    await finishJob(fleet.replicaA.url, host, headers);
    await events.waitFor(1);
    await events.close();
    // As REDIS_STREAM_MAX_LEN does once enough jobs finished: the oldest entries are trimmed.
    await finishJob(fleet.replicaA.url, host, headers);
    await redis.xtrim('gw:{jobs-finished}', 'MAXLEN', 1);

    const late: Events = await subscribeWs(fleet.replicaB.url, JOB_EVENTS, { after: cursorOf(events, 0) }, params);
    await late.completed;
    expect(ids(late)).toEqual(['CURSOR_EXPIRED']);
  });
});
