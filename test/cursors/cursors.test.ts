/**
 * Cursors as a mobile client lives with them: short and opaque, honoured by any replica, and a
 * cursor the gateway will not honour (altered, another caller's or connection's, expired) answers
 * a code of its own that says to start again from the first page, never the upstream's text.
 */
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { ConfigError, defaultConfig, loadConfig, type GatewayConfig } from '../../src/config/index.js';
import { createSimulator, type Simulator } from '../../src/simulator/server.js';
import { credentialHeaders, errorCodes, startHarness, type GraphQLResponse, type Harness } from '../support/harness.js';
import { startRedis, type RedisServer } from '../support/redis.js';

interface Page {
  totalCount: number;
  edges: { cursor: string; node: { uuid: string } }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

const VMS = /* GraphQL */ `
  query ($first: Int, $after: String, $filter: VmInstanceFilter) {
    vmInstances(first: $first, after: $after, filter: $filter) {
      totalCount edges { cursor node { uuid } } pageInfo { hasNextPage endCursor }
    }
  }
`;
const HOSTS = 'query ($after: String) { hosts(first: 2, after: $after) { edges { cursor node { uuid } } } }';
const CBT_TASKS = 'query ($after: String) { cbtTasks(first: 3, after: $after) { edges { cursor node { uuid } } } }';

/** Says what to do, in the client's terms. */
const START_AGAIN = /start again from the first page.*without `after`/i;

/** The same cursor with one character in its middle changed. */
function tamper(cursor: string): string {
  const at = Math.floor(cursor.length / 2);
  return `${cursor.slice(0, at)}${cursor[at] === 'A' ? 'B' : 'A'}${cursor.slice(at + 1)}`;
}

function expectCursorError(response: GraphQLResponse<Record<string, unknown>>, code: string, field: string): void {
  expect(errorCodes(response)).toEqual([code]);
  expect(response.errors?.[0]?.message).toMatch(START_AGAIN);
  expect(response.errors?.[0]?.extensions?.upstream).toBeUndefined();
  expect(response.data?.[field] ?? null).toBeNull();
}

describe('cursors', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });

  async function vms(variables: Record<string, unknown>, headers = harness.headers): Promise<GraphQLResponse<{ vmInstances: Page }>> {
    return harness.gql<{ vmInstances: Page }>(VMS, variables, headers);
  }

  it('are at most 80 characters and show neither the tenant nor the filters', async () => {
    const filter = { state: 'RUNNING' };
    const first = await vms({ first: 20, filter });
    const second = await vms({ first: 20, filter, after: first.data!.vmInstances.pageInfo.endCursor });
    const cbt = await harness.gql<{ cbtTasks: Page }>(CBT_TASKS);
    const cursors = [first, second].flatMap((page) => page.data!.vmInstances.edges.map((edge) => edge.cursor));
    cursors.push(...cbt.data!.cbtTasks.edges.map((edge) => edge.cursor));
    expect(cursors.length).toBeGreaterThan(40);
    for (const cursor of cursors) {
      expect(cursor.length).toBeLessThanOrEqual(80);
      const decoded = Buffer.from(cursor, 'base64url').toString('latin1');
      expect(decoded).not.toContain(harness.simulator.credentials.tenantId);
      expect(decoded).not.toContain('Running');
    }
  });

  it('short as they are, continue right after any edge, on every page (a middle edge of a later page too)', async () => {
    const first = await vms({ first: 10 });
    const second = await vms({ first: 10, after: first.data!.vmInstances.pageInfo.endCursor });
    expect(second.data!.vmInstances.edges[3]!.cursor.length).toBeLessThanOrEqual(80);
    const all = await vms({ first: 30 });
    const expected = all.data!.vmInstances.edges.map((edge) => edge.node.uuid);
    expect(second.data!.vmInstances.edges.map((edge) => edge.node.uuid)).toEqual(expected.slice(10, 20));

    const fromMiddle = await vms({ first: 5, after: second.data!.vmInstances.edges[3]!.cursor });
    expect(fromMiddle.data!.vmInstances.edges.map((edge) => edge.node.uuid)).toEqual(expected.slice(14, 19));
    const fromFirstPageMiddle = await vms({ first: 5, after: first.data!.vmInstances.edges[6]!.cursor });
    expect(fromFirstPageMiddle.data!.vmInstances.edges.map((edge) => edge.node.uuid)).toEqual(expected.slice(7, 12));
  });

  it('an altered cursor is INVALID_CURSOR, answered without an upstream request', async () => {
    const first = await vms({ first: 5 });
    for (const after of [tamper(first.data!.vmInstances.pageInfo.endCursor!), tamper(first.data!.vmInstances.edges[1]!.cursor), 'garbage']) {
      harness.resetStats();
      expectCursorError(await vms({ first: 5, after }), 'INVALID_CURSOR', 'vmInstances');
      expect(harness.upstreamRequests()).toBe(0);
    }
    const cbt = await harness.gql<{ cbtTasks: Page }>(CBT_TASKS);
    harness.resetStats();
    expectCursorError(await harness.gql(CBT_TASKS, { after: tamper(cbt.data!.cbtTasks.edges[0]!.cursor) }), 'INVALID_CURSOR', 'cbtTasks');
    expect(harness.upstreamRequests()).toBe(0);
  });

  it('another credential\'s cursor is INVALID_CURSOR and never shows the other tenant\'s records', async () => {
    const first = await vms({ first: 5 });
    const own = new Set((await vms({ first: 100 })).data!.vmInstances.edges.map((edge) => edge.node.uuid));
    for (const after of [first.data!.vmInstances.pageInfo.endCursor!, first.data!.vmInstances.edges[1]!.cursor]) {
      const foreign = await vms({ first: 5, after }, harness.secondHeaders);
      expectCursorError(foreign, 'INVALID_CURSOR', 'vmInstances');
    }
    // The other way round too: the second tenant's cursor never pages the first tenant's data.
    const theirs = await vms({ first: 5 }, harness.secondHeaders);
    const crossed = await vms({ first: 5, after: theirs.data!.vmInstances.pageInfo.endCursor });
    expectCursorError(crossed, 'INVALID_CURSOR', 'vmInstances');
    expect(own.size).toBeGreaterThan(0);

    const cbt = await harness.gql<{ cbtTasks: Page }>(CBT_TASKS);
    const foreignCbt = await harness.gql(CBT_TASKS, { after: cbt.data!.cbtTasks.edges[0]!.cursor }, harness.secondHeaders);
    expectCursorError(foreignCbt, 'INVALID_CURSOR', 'cbtTasks');
  });

  it('a cursor of another connection or of other filters is INVALID_CURSOR', async () => {
    const hosts = await harness.gql<{ hosts: Page }>(HOSTS);
    expectCursorError(await vms({ first: 5, after: hosts.data!.hosts.edges[0]!.cursor }), 'INVALID_CURSOR', 'vmInstances');
    const filtered = await vms({ first: 5, filter: { state: 'RUNNING' } });
    expectCursorError(await vms({ first: 5, after: filtered.data!.vmInstances.pageInfo.endCursor }), 'INVALID_CURSOR', 'vmInstances');
  });
});

const VMS_ORDERED = /* GraphQL */ `
  query ($first: Int, $after: String, $orderBy: VmInstanceOrder) {
    vmInstances(first: $first, after: $after, orderBy: $orderBy) { edges { cursor node { uuid } } pageInfo { hasNextPage endCursor } }
  }
`;

/**
 * Makes `count` of the tenant's VMs the newest, created within one second (0.3 s apart, oldest
 * first in the answer): the Timestamp text shows them all at the same second. Their uuids.
 */
function createVmsInOneSecond(harness: Harness, count: number): string[] {
  const { store, credentials } = harness.simulator;
  const vms = [...store.vms.list(credentials.tenantId)];
  const newest = Math.max(...vms.map((vm) => vm.createDate.getTime()));
  const second = Math.ceil(newest / 1000) * 1000 + 1000;
  return vms.slice(0, count).map((vm, index) => store.vms.update(vm, { createDate: new Date(second + 100 + index * 300) }).uuid);
}

describe('expired cursors', () => {
  it('a cursor whose position cannot be resumed (its record gone from a run of ties in one second) is CURSOR_EXPIRED, without the upstream\'s text', async () => {
    // The simulator forgets its cursors after 300 ms; the gateway's live a day.
    const harness = await startHarness({ simulator: { cursorTtlMs: 300 } });
    try {
      // Three VMs made within one second: their creation times read the same to the second,
      // while the upstream orders them by finer instants.
      const uuids = await createVmsInOneSecond(harness, 3);
      const order = { field: 'CREATE_DATE', direction: 'DESC' };
      const first = await harness.gql<{ vmInstances: Page }>(VMS_ORDERED, { first: 2, orderBy: order });
      expect(first.data!.vmInstances.edges.map((edge) => edge.node.uuid).every((uuid) => uuids.includes(uuid))).toBe(true);
      expect(first.data!.vmInstances.edges.map((edge) => edge.node.uuid)).toEqual([uuids[2], uuids[1]]);
      const after = first.data!.vmInstances.pageInfo.endCursor;
      await new Promise((resolve) => setTimeout(resolve, 400));
      // While the record is there, its position resumes exactly, ties in the second or not.
      const resumed = await harness.gql<{ vmInstances: Page }>(VMS_ORDERED, { first: 3, orderBy: order, after: first.data!.vmInstances.edges[0]!.cursor });
      expect(resumed.data!.vmInstances.edges.map((edge) => edge.node.uuid).slice(0, 2)).toEqual([uuids[1], uuids[0]]);
      harness.simulator.store.vms.delete(uuids[1]!);
      const expired = await harness.gql(VMS_ORDERED, { first: 5, orderBy: order, after });
      expectCursorError(expired, 'CURSOR_EXPIRED', 'vmInstances');
      expect(expired.errors?.[0]?.message).not.toMatch(/cursor-query|CursorNext|400/);
      // Starting again works.
      expect(errorCodes(await harness.gql(VMS_ORDERED, { first: 5, orderBy: order }))).toEqual([]);
    } finally {
      await harness.close();
    }
  });

  it('a cursor older than CURSOR_TTL_MS is CURSOR_EXPIRED without an upstream request', async () => {
    const harness = await startHarness({ config: { cursorTtlMs: 300 } });
    try {
      const first = await harness.gql<{ vmInstances: Page }>(VMS, { first: 5 });
      const after = first.data!.vmInstances.pageInfo.endCursor;
      expect(errorCodes(await harness.gql(VMS, { first: 5, after }))).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 400));
      harness.resetStats();
      // `first: 6`: not the answer the response cache holds for `first: 5`.
      expectCursorError(await harness.gql(VMS, { first: 6, after }), 'CURSOR_EXPIRED', 'vmInstances');
      expect(harness.upstreamRequests()).toBe(0);
    } finally {
      await harness.close();
    }
  });

  it('a client paging forever keeps the kept cursors within CURSOR_STORE_MAX_BYTES; a cursor whose kept cursor went first still pages on', async () => {
    const harness = await startHarness({ config: { cursorStoreMaxBytes: 8_192 } });
    try {
      const issued: string[] = [];
      let after: string | null = null;
      // Walk the VMs one by one, well past what 8 KB can keep (each kept cursor is ~500 bytes).
      for (let index = 0; index < 40; index++) {
        const page: GraphQLResponse<{ vmInstances: Page }> = await harness.gql<{ vmInstances: Page }>(VMS, { first: 1, after });
        expect(errorCodes(page)).toEqual([]);
        after = page.data!.vmInstances.pageInfo.endCursor;
        issued.push(after!);
      }
      const all = (await harness.gql<{ vmInstances: Page }>(VMS, { first: 50 })).data!.vmInstances.edges.map((edge) => edge.node.uuid);
      // `first: 2`: not the answers the response cache holds from the walk.
      const oldest = await harness.gql<{ vmInstances: Page }>(VMS, { first: 2, after: issued[0] });
      expect(oldest.data!.vmInstances.edges.map((edge) => edge.node.uuid)).toEqual(all.slice(1, 3));
      expect(errorCodes(await harness.gql(VMS, { first: 2, after: issued.at(-1) }))).toEqual([]);
    } finally {
      await harness.close();
    }
  });
});

describe('cursors across replicas', () => {
  let simulator: Simulator;
  let simulatorUrl: string;
  let redis: RedisServer;
  const apps: App[] = [];

  beforeAll(async () => {
    simulator = createSimulator({ asyncDelayMs: 5 });
    simulatorUrl = await simulator.start(0, '127.0.0.1');
    redis = await startRedis();
  });
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.stop()));
    await simulator?.stop();
    await redis?.stop();
  });

  async function replica(config: Partial<GatewayConfig>): Promise<string> {
    const app = createApp(
      { ...defaultConfig, port: 0, host: '127.0.0.1', upstreamUrl: simulatorUrl, ...config },
      { logger: pino({ level: 'silent' }) },
    );
    apps.push(app);
    return app.start();
  }

  async function gql<T>(url: string, query: string, variables: Record<string, unknown>): Promise<GraphQLResponse<T>> {
    const response = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...credentialHeaders(simulator.credentials) },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.status, ...((await response.json()) as Omit<GraphQLResponse<T>, 'status'>) };
  }

  it('with REDIS_URL and no CURSOR_SECRET, a (short) cursor one replica issued pages on another', async () => {
    const [a, b] = await Promise.all([replica({ redisUrl: redis.url }), replica({ redisUrl: redis.url })]);
    const all = await gql<{ vmInstances: Page }>(a, VMS, { first: 30 });
    const expected = all.data!.vmInstances.edges.map((edge) => edge.node.uuid);
    const first = await gql<{ vmInstances: Page }>(a, VMS, { first: 10 });
    expect(first.data!.vmInstances.pageInfo.endCursor!.length).toBeLessThanOrEqual(80);
    const second = await gql<{ vmInstances: Page }>(b, VMS, { first: 10, after: first.data!.vmInstances.pageInfo.endCursor });
    expect(errorCodes(second)).toEqual([]);
    expect(second.data!.vmInstances.edges.map((edge) => edge.node.uuid)).toEqual(expected.slice(10, 20));
    const third = await gql<{ vmInstances: Page }>(a, VMS, { first: 5, after: second.data!.vmInstances.edges[4]!.cursor });
    expect(third.data!.vmInstances.edges.map((edge) => edge.node.uuid)).toEqual(expected.slice(15, 20));
    const cbt = await gql<{ cbtTasks: Page }>(a, CBT_TASKS, {});
    const nextCbt = await gql<{ cbtTasks: Page }>(b, CBT_TASKS, { after: cbt.data!.cbtTasks.edges[2]!.cursor });
    expect(errorCodes(nextCbt)).toEqual([]);
  });

  it('with REDIS_URL, the cursors kept in Redis stay within CURSOR_STORE_MAX_BYTES, the oldest going first (its cursor still pages on)', async () => {
    const budget = 16_384;
    const url = await replica({ redisUrl: redis.url, cursorStoreMaxBytes: budget });
    const issued: string[] = [];
    let after: string | null = null;
    // Each step keeps one upstream cursor of about 450 bytes: 60 of them need 27 KB.
    for (let index = 0; index < 60; index++) {
      const page: GraphQLResponse<{ vmInstances: Page }> = await gql<{ vmInstances: Page }>(url, VMS, { first: 1, after});
      expect(errorCodes(page)).toEqual([]);
      after = page.data!.vmInstances.pageInfo.endCursor;
      if (after === null) break;
      issued.push(after);
    }
    expect(issued).toHaveLength(60);
    const client = new Redis(redis.url);
    try {
      const keys = await client.keys('gateway:cursor:*');
      const sizes = await Promise.all(keys.map((key) => client.strlen(key)));
      expect(sizes.reduce((sum, size) => sum + size, 0)).toBeLessThanOrEqual(budget);
      expect(keys.length).toBeLessThan(issued.length);
    } finally {
      client.disconnect();
    }
    const all = (await gql<{ vmInstances: Page }>(url, VMS, { first: 70 })).data!.vmInstances.edges.map((edge) => edge.node.uuid);
    const oldest = await gql<{ vmInstances: Page }>(url, VMS, { first: 2, after: issued[0] });
    expect(errorCodes(oldest)).toEqual([]);
    expect(oldest.data!.vmInstances.edges.map((edge) => edge.node.uuid)).toEqual(all.slice(1, 3));
    expect(errorCodes(await gql(url, VMS, { first: 2, after: issued.at(-1) }))).toEqual([]);
  });

  it('with the same CURSOR_SECRET, replicas honour each other\'s cursors; with another, they are INVALID_CURSOR', async () => {
    const secret = 'one secret the replicas share';
    const [a, b, other] = await Promise.all([
      replica({ cursorSecret: secret }),
      replica({ cursorSecret: secret }),
      replica({ cursorSecret: 'a secret of another deployment' }),
    ]);
    const cbt = await gql<{ cbtTasks: Page }>(a, CBT_TASKS, {});
    const after = cbt.data!.cbtTasks.edges[2]!.cursor;
    expect(errorCodes(await gql(b, CBT_TASKS, { after }))).toEqual([]);
    expect(errorCodes(await gql(other, CBT_TASKS, { after }))).toEqual(['INVALID_CURSOR']);
    const first = await gql<{ vmInstances: Page }>(a, VMS, { first: 10 });
    expect(errorCodes(await gql(b, VMS, { first: 3, after: first.data!.vmInstances.edges[4]!.cursor }))).toEqual([]);
  });
});

describe('cursor settings', () => {
  it('reads CURSOR_SECRET, CURSOR_TTL_MS and CURSOR_STORE_MAX_BYTES, and refuses a secret too short to be one', () => {
    expect(loadConfig({})).toMatchObject({ cursorSecret: undefined, cursorTtlMs: 86_400_000, cursorStoreMaxBytes: 33_554_432 });
    expect(loadConfig({ CURSOR_SECRET: 'sixteen chars ok', CURSOR_TTL_MS: '60000', CURSOR_STORE_MAX_BYTES: '1048576' })).toMatchObject({
      cursorSecret: 'sixteen chars ok',
      cursorTtlMs: 60_000,
      cursorStoreMaxBytes: 1_048_576,
    });
    expect(() => loadConfig({ CURSOR_SECRET: 'short' })).toThrow(ConfigError);
    expect(() => loadConfig({ CURSOR_TTL_MS: '0' })).toThrow(ConfigError);
  });
});
