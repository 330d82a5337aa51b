/**
 * A cursor outlives the upstream cursor behind it: a dashboard left open, or an app brought back
 * from the background, pages on with the cursor it holds, and gets the page a fresh walk gives.
 * The same when Redis, where upstream cursors are kept, is away: the cursor is issued anyway and
 * pages on, then and after Redis returns.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { errorCodes, startHarness, type GraphQLResponse, type Harness } from '../support/harness.js';
import { startRedis, type RedisServer } from '../support/redis.js';

interface Page {
  totalCount: number;
  edges: { cursor: string; node: { uuid: string } }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

const VMS = /* GraphQL */ `
  query ($first: Int, $after: String, $filter: VmInstanceFilter, $orderBy: VmInstanceOrder) {
    vmInstances(first: $first, after: $after, filter: $filter, orderBy: $orderBy) {
      totalCount edges { cursor node { uuid } } pageInfo { hasNextPage endCursor }
    }
  }
`;

const CBT_TASKS = 'query ($first: Int, $after: String) { cbtTasks(first: $first, after: $after) { edges { cursor node { uuid } } pageInfo { hasNextPage endCursor } } }';

/** The simulator forgets its cursors after this long; the gateway's own live a day. */
const UPSTREAM_CURSOR_TTL_MS = 300;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function uuidsOf(page: GraphQLResponse<{ vmInstances: Page }>): string[] {
  expect(errorCodes(page)).toEqual([]);
  return page.data!.vmInstances.edges.map((edge) => edge.node.uuid);
}

/** Walks (orders with ties in their key: STATE, CPU_NUM, MEMORY_SIZE; both directions; a filter). */
const WALKS: { name: string; orderBy?: { field: string; direction: 'ASC' | 'DESC' }; filter?: Record<string, unknown> }[] = [
  { name: 'the default order (creation time)' },
  { name: 'CREATE_DATE descending', orderBy: { field: 'CREATE_DATE', direction: 'DESC' } },
  { name: 'NAME ascending, filtered', orderBy: { field: 'NAME', direction: 'ASC' }, filter: { nameContains: '1' } },
  { name: 'STATE ascending (many ties)', orderBy: { field: 'STATE', direction: 'ASC' } },
  { name: 'CPU_NUM descending (many ties)', orderBy: { field: 'CPU_NUM', direction: 'DESC' } },
  { name: 'MEMORY_SIZE ascending, filtered (ties)', orderBy: { field: 'MEMORY_SIZE', direction: 'ASC' }, filter: { state: 'RUNNING' } },
  { name: 'LAST_OP_DATE descending, filtered', orderBy: { field: 'LAST_OP_DATE', direction: 'DESC' }, filter: { stateIn: ['RUNNING', 'STOPPED'] } },
];

describe('a cursor whose upstream cursor expired', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({ simulator: { cursorTtlMs: UPSTREAM_CURSOR_TTL_MS } });
  });
  afterAll(async () => {
    await harness?.close();
  });

  for (const walk of WALKS) {
    it(`resumes where it stood and gives the page a fresh walk gives: ${walk.name}`, async () => {
      const vars = { filter: walk.filter, orderBy: walk.orderBy };
      const all = uuidsOf(await harness.gql<{ vmInstances: Page }>(VMS, { ...vars, first: 100 }));
      expect(all.length).toBeGreaterThan(20);
      expect(new Set(all).size).toBe(all.length);
      const first = await harness.gql<{ vmInstances: Page }>(VMS, { ...vars, first: 7 });
      const second = await harness.gql<{ vmInstances: Page }>(VMS, { ...vars, first: 7, after: first.data!.vmInstances.pageInfo.endCursor });
      expect(uuidsOf(second)).toEqual(all.slice(7, 14));
      const end = second.data!.vmInstances.pageInfo.endCursor;
      const middle = second.data!.vmInstances.edges[2]!.cursor;

      await sleep(UPSTREAM_CURSOR_TTL_MS + 200);
      harness.resetStats();
      // `first: 9`: not an answer the response cache holds.
      const afterEnd = await harness.gql<{ vmInstances: Page }>(VMS, { ...vars, first: 9, after: end });
      expect(uuidsOf(afterEnd)).toEqual(all.slice(14, 23));
      expect(afterEnd.data!.vmInstances.totalCount).toBe(all.length);
      expect(afterEnd.data!.vmInstances.pageInfo.hasNextPage).toBe(all.length > 23);
      const afterMiddle = await harness.gql<{ vmInstances: Page }>(VMS, { ...vars, first: 9, after: middle });
      expect(uuidsOf(afterMiddle)).toEqual(all.slice(10, 19));

      // And the resumed page's own cursors walk on to the end, record for record.
      const walked = [...all.slice(0, 14), ...uuidsOf(afterEnd)];
      let after = afterEnd.data!.vmInstances.pageInfo.endCursor;
      for (let step = 0; step < 20 && after !== null; step++) {
        const page = await harness.gql<{ vmInstances: Page }>(VMS, { ...vars, first: 11, after });
        walked.push(...uuidsOf(page));
        after = page.data!.vmInstances.pageInfo.hasNextPage ? page.data!.vmInstances.pageInfo.endCursor : null;
      }
      expect(walked).toEqual(all);
    });
  }

  it('the last page resumed says there is no next page, and a cursor past the end gives an empty page', async () => {
    const all = uuidsOf(await harness.gql<{ vmInstances: Page }>(VMS, { first: 100 }));
    const near = await harness.gql<{ vmInstances: Page }>(VMS, { first: all.length - 3 });
    await sleep(UPSTREAM_CURSOR_TTL_MS + 200);
    const last = await harness.gql<{ vmInstances: Page }>(VMS, { first: 5, after: near.data!.vmInstances.pageInfo.endCursor });
    expect(uuidsOf(last)).toEqual(all.slice(-3));
    expect(last.data!.vmInstances.pageInfo.hasNextPage).toBe(false);
    const past = await harness.gql<{ vmInstances: Page }>(VMS, { first: 5, after: last.data!.vmInstances.pageInfo.endCursor });
    expect(uuidsOf(past)).toEqual([]);
  });
});

describe('the gateway\'s own cursor lifetime', () => {
  let harness: Harness;

  beforeAll(async () => {
    // The defaults: the simulator's cursors live 15 minutes, the gateway's CURSOR_TTL_MS a day.
    harness = await startHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a cursor older than the former 15-minute lifetime (and than the upstream\'s) still pages on; one older than a day is CURSOR_EXPIRED', async () => {
    const all = uuidsOf(await harness.gql<{ vmInstances: Page }>(VMS, { first: 30 }));
    const first = await harness.gql<{ vmInstances: Page }>(VMS, { first: 10 });
    const after = first.data!.vmInstances.pageInfo.endCursor;
    // Only the clock moves (gateway and simulator read the same one): timers and sockets run on.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 20 * 60_000 });
    const later = await harness.gql<{ vmInstances: Page }>(VMS, { first: 6, after });
    expect(uuidsOf(later)).toEqual(all.slice(10, 16));

    vi.setSystemTime(Date.now() + 24 * 60 * 60_000);
    harness.resetStats();
    const tooOld = await harness.gql<{ vmInstances: Page }>(VMS, { first: 7, after });
    expect(errorCodes(tooOld)).toEqual(['CURSOR_EXPIRED']);
    expect(tooOld.errors?.[0]?.message).toMatch(/start again from the first page.*without `after`/i);
    expect(harness.upstreamRequests()).toBe(0);
  });
});

describe('cursors while Redis is away', () => {
  let redis: RedisServer;
  let harness: Harness;

  beforeAll(async () => {
    redis = await startRedis();
    harness = await startHarness({ config: { redisUrl: redis.url } });
  });
  afterAll(async () => {
    await harness?.close();
    await redis?.stop();
  });

  it('a page asked with endCursor during the outage answers a usable cursor, which pages on while Redis is away and after it returns', async () => {
    const all = uuidsOf(await harness.gql<{ vmInstances: Page }>(VMS, { first: 40 }));
    // A cursor issued (and its upstream cursor kept) before the outage.
    const before = await harness.gql<{ vmInstances: Page }>(VMS, { first: 5 });
    await redis.stop();
    try {
      const during = await harness.gql<{ vmInstances: Page }>(VMS, { first: 6, after: before.data!.vmInstances.pageInfo.endCursor });
      expect(uuidsOf(during)).toEqual(all.slice(5, 11));
      const issued = during.data!.vmInstances.pageInfo.endCursor;
      expect(issued).toEqual(expect.any(String));
      const fresh = await harness.gql<{ vmInstances: Page }>(VMS, { first: 8 });
      expect(uuidsOf(fresh)).toEqual(all.slice(0, 8));
      expect(fresh.data!.vmInstances.pageInfo.endCursor).toEqual(expect.any(String));

      // The resource family's (offset) cursors need no Redis either.
      const cbtAll = await harness.gql<{ cbtTasks: Page }>(CBT_TASKS, { first: 6 });
      const cbtFirst = await harness.gql<{ cbtTasks: Page }>(CBT_TASKS, { first: 3 });
      expect(errorCodes(cbtFirst)).toEqual([]);
      const cbtNext = await harness.gql<{ cbtTasks: Page }>(CBT_TASKS, { first: 3, after: cbtFirst.data!.cbtTasks.pageInfo.endCursor });
      expect(errorCodes(cbtNext)).toEqual([]);
      expect(cbtNext.data!.cbtTasks.edges.map((edge) => edge.node.uuid)).toEqual(cbtAll.data!.cbtTasks.edges.slice(3, 6).map((edge) => edge.node.uuid));

      const stillAway = await harness.gql<{ vmInstances: Page }>(VMS, { first: 7, after: issued });
      expect(uuidsOf(stillAway)).toEqual(all.slice(11, 18));
      const fromFresh = await harness.gql<{ vmInstances: Page }>(VMS, { first: 4, after: fresh.data!.vmInstances.pageInfo.endCursor });
      expect(uuidsOf(fromFresh)).toEqual(all.slice(8, 12));

      await redis.start();
      let back: GraphQLResponse<{ vmInstances: Page }> | undefined;
      // The client reconnects on its own schedule; a page answers throughout, so ask until the
      // kept cursors are Redis' again (the answer is the same either way).
      for (let attempt = 0; attempt < 5; attempt++) {
        back = await harness.gql<{ vmInstances: Page }>(VMS, { first: 9 + attempt, after: stillAway.data!.vmInstances.pageInfo.endCursor });
        expect(uuidsOf(back)).toEqual(all.slice(18, 18 + 9 + attempt));
        await sleep(200);
      }
      const onward = await harness.gql<{ vmInstances: Page }>(VMS, { first: 5, after: back!.data!.vmInstances.pageInfo.endCursor });
      const shown = uuidsOf(back!).length;
      expect(uuidsOf(onward)).toEqual(all.slice(18 + shown, 18 + shown + 5));
    } finally {
      await redis.start().catch(() => undefined);
    }
  });
});
