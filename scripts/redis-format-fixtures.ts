/**
 * `npx tsx scripts/redis-format-fixtures.ts`: writes what the previous release keeps in Redis into
 * `test/fixtures/redis-formats/<commit>/`, for `test/upgrade/previous-formats.test.ts` to read
 * with the current decoders. Run it when the pin (`test/upgrade/previous-release.json`) moves, at
 * each release, and commit what it writes.
 *
 * It runs that release for real (`git archive` of the pinned commit, started as a process) against
 * a fresh redis-server and the simulator, makes it write one record of every kind (a job left
 * running, a finished job and its stream entry, a kept upstream cursor and the agreed cursor key, a
 * live query's lease and watermark, a change message of its poller, its heartbeat), then dumps
 * every key. A key of a kind this script does not know stops it: a new kind of record needs a
 * fixture and a reader test.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { createSimulator } from '../src/simulator/server.js';
import { credentialHeaders } from '../test/support/harness.js';
import { connectedHost, gql, nqn, UPDATE_NQN } from '../test/support/job-calls.js';
import { extractRelease, readPin, startReplica, type DumpedKey } from '../test/support/previous-release.js';
import { eventually } from '../test/support/process.js';
import { startRedis } from '../test/support/redis.js';
import { subscribeWs } from '../test/support/subscriptions.js';

/** Which fixture file each key goes to, by its name. */
const KINDS: readonly [kind: string, pattern: RegExp][] = [
  ['job', /^gw:job:/],
  ['job-indexes', /^gw:jobs:/],
  ['heartbeat', /^gw:replica:/],
  ['finished-jobs', /^gw:\{jobs-finished\}/],
  ['kept-cursor', /^gateway:(cursor:|cursors:|cursor-bytes:)\{cursors\}/],
  ['cursor-secret', /^gateway:cursor-secret$/],
  ['live-lease', /^gateway:live:lease:/],
  ['live-watermark', /^gateway:live:watermark:/],
];
const CHANGES_CHANNEL = 'gateway:live:changes';
const VMS = '{ vmInstances(first: 2) { pageInfo { endCursor } } }';
const LIVE_VMS = 'query Fixture @live { vmInstances(first: 5) { nodes { uuid state } } }';

const root = fileURLToPath(new URL('../', import.meta.url));
const pin = await readPin();
const tree = await extractRelease(pin.commit);
const redis = await startRedis();
const simulator = createSimulator({ asyncDelayMs: 5 });
const upstreamUrl = await simulator.start(0, '127.0.0.1');
const gateway = await startReplica(tree.dir, { UPSTREAM_URL: upstreamUrl, REDIS_URL: redis.url, LIVE_POLL_MS: '200', LIVE_MIN_INTERVAL_MS: '0' });
const commands = new Redis(redis.url);
const channel = new Redis(redis.url);
try {
  const messages: string[] = [];
  channel.on('message', (_channel: string, message: string) => messages.push(message));
  await channel.subscribe(CHANGES_CHANNEL);
  const headers = credentialHeaders(simulator.credentials);
  const host = connectedHost(simulator);

  simulator.configure({ asyncDelayMs: 600_000 });
  const running = await gql<{ updateHostNqn: { job: { id: string; status: string } } }>(gateway.url, UPDATE_NQN, { input: { uuid: host, nqn: nqn('1'), async: true } }, headers);
  simulator.configure({ asyncDelayMs: 5 });
  const finished = await gql<{ updateHostNqn: { job: { id: string; status: string } } }>(gateway.url, UPDATE_NQN, { input: { uuid: host, nqn: nqn('2') } }, headers);
  // Reading the page's last cursor keeps the upstream cursor it stands for.
  const page = await gql<{ vmInstances: { pageInfo: { endCursor: string | null } } }>(gateway.url, VMS, {}, headers);
  const cursor = page.data?.vmInstances.pageInfo.endCursor;
  if (running.data?.updateHostNqn.job.status !== 'RUNNING' || finished.data?.updateHostNqn.job.status !== 'SUCCEEDED' || !cursor) {
    throw new Error(`the previous release did not answer as expected: ${JSON.stringify({ running, finished, page })}`);
  }

  const live = await subscribeWs(gateway.url, LIVE_VMS, {}, headers);
  await live.waitFor(1);
  // Its poller finds the change, tells the other replicas (none here) and leaves its watermark.
  simulator.churn.apply({ tenant: 'first', kind: 'vmState', count: 1 });
  await eventually(() => messages.length > 0, 'a change message of the previous release');
  await live.waitFor(2);

  const dumped = await Promise.all((await commands.keys('*')).sort().map((key) => dumpKey(commands, key)));
  await live.close();

  const dir = join(root, 'test/fixtures/redis-formats', pin.commit.slice(0, 7));
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const byKind = new Map<string, DumpedKey[]>();
  for (const record of dumped) {
    const kind = KINDS.find(([, pattern]) => pattern.test(record.key))?.[0];
    if (kind === undefined) throw new Error(`${record.key}: a key of a kind this script does not know; add it to KINDS and a reader test to test/upgrade/previous-formats.test.ts`);
    byKind.set(kind, [...(byKind.get(kind) ?? []), record]);
  }
  const write = (name: string, content: object) => writeFile(join(dir, `${name}.json`), `${JSON.stringify({ commit: pin.commit, ...content }, null, 2)}\n`);
  for (const [kind] of KINDS) {
    if (!byKind.has(kind)) throw new Error(`the previous release wrote no record of kind ${kind}`);
    await write(kind, { keys: byKind.get(kind) });
  }
  await write('live-change', { channel: CHANGES_CHANNEL, messages });
  // What clients hold, to check against the records: the jobs' ids and the cursor of the next page.
  await write('client', { runningJob: running.data.updateHostNqn.job.id, finishedJob: finished.data.updateHostNqn.job.id, cursor });
  process.stdout.write(`wrote ${resolve(dir)}: ${dumped.length} keys, ${messages.length} change messages\n`);
} finally {
  commands.disconnect();
  channel.disconnect();
  await gateway.kill('SIGTERM');
  await simulator.stop();
  await redis.stop();
  await tree.remove();
}

async function dumpKey(client: Redis, key: string): Promise<DumpedKey> {
  const type = await client.type(key);
  const ttlMs = await client.pttl(key);
  const read: Record<string, () => Promise<unknown>> = {
    string: () => client.get(key),
    hash: () => client.hgetall(key),
    set: async () => (await client.smembers(key)).sort(),
    zset: () => client.zrange(key, 0, -1, 'WITHSCORES'),
    stream: async () => (await client.xrange(key, '-', '+')).map(([id, fields]) => ({ id, fields })),
  };
  const reader = read[type];
  if (reader === undefined) throw new Error(`${key}: a ${type}, which this script cannot dump`);
  return { key, type, ttlMs, value: await reader() };
}
