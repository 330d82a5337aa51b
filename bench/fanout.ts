/**
 * Scenario 3: subscription fan-out. N graphql-ws clients subscribe to `jobEvents` with one
 * credential; each round starts a job (`updateHostNqn`, `async: true`), and the bench itself
 * delivers the upstream's webhook (the simulator is told to drop its own), so the clock starts
 * exactly when the webhook POST is sent and stops when each client receives the job.
 * Memory per idle subscription is the gateway's growth (after a forced GC) divided by N.
 */
import { readFile } from 'node:fs/promises';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { percentile } from './load.js';
import type { SimulatorProcess, Spawned } from './processes.js';

export interface FanoutResult {
  subscribers: number;
  rounds: number;
  warmupRounds: number;
  /** Deliveries measured (subscribers × rounds when nothing was lost). */
  deliveries: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Each measured round's own p99, in order: one slow round is enough to move the overall p99. */
  roundP99Ms: number[];
  /** Gateway RSS growth per idle subscription, bytes. */
  rssPerSubscription: number;
  /** Gateway V8 heap growth per idle subscription (after GC), bytes. */
  heapPerSubscription: number;
}

interface MemorySample {
  rss: number;
  heapUsed: number;
}

const SUBSCRIPTION = 'subscription { jobEvents { id operation status finishedAt } }';

/** Asks the gateway (started with `heap-probe.ts`) to collect garbage and report its memory. */
export async function sampleMemory(gateway: Spawned, heapFile: string): Promise<MemorySample> {
  const before = await readFile(heapFile, 'utf8').catch(() => '');
  process.kill(gateway.pid, 'SIGUSR2');
  for (let attempt = 0; attempt < 100; attempt++) {
    await sleep(50);
    const text = await readFile(heapFile, 'utf8').catch(() => '');
    if (text !== '' && text !== before) {
      const usage = JSON.parse(text) as { rss: number; heapUsed: number };
      return { rss: usage.rss, heapUsed: usage.heapUsed };
    }
  }
  throw new Error('the gateway did not report its memory (started without heap-probe?)');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Subscribes one client; resolves once its socket is acknowledged. */
async function subscribe(url: string, connectionParams: Record<string, string>, onJob: (id: string) => void): Promise<Client> {
  const client = createClient({ url, webSocketImpl: WebSocket, connectionParams, retryAttempts: 0, lazy: false });
  await new Promise<void>((resolve, reject) => {
    client.on('connected', () => resolve());
    client.on('error', (error) => reject(error instanceof Error ? error : new Error('WebSocket error')));
  });
  client.subscribe<{ jobEvents: { id: string } }>(
    { query: SUBSCRIPTION },
    {
      next: (result) => {
        const id = result.data?.jobEvents.id;
        if (id) onJob(id);
      },
      // A refused subscription would leave its rounds waiting forever: fail the bench instead.
      error: (error) => {
        throw new Error(`fan-out subscription failed: ${JSON.stringify(error).slice(0, 300)}`);
      },
      complete: () => undefined,
    },
  );
  return client;
}

export async function measureFanout(options: {
  gateway: Spawned;
  heapFile: string;
  simulator: SimulatorProcess;
  hostUuid: string;
  subscribers: number;
  rounds: number;
  /** Unmeasured rounds first: they confirm every subscriber is live and warm the delivery path up. */
  warmupRounds: number;
}): Promise<FanoutResult> {
  const { gateway, simulator } = options;
  const wsUrl = `${gateway.url.replace(/^http/, 'ws')}/graphql`;
  const arrivals = new Map<string, number[]>();
  const onJob = (id: string) => {
    const list = arrivals.get(id);
    if (list) list.push(performance.now());
  };

  await fetch(`${simulator.url}/__sim/config`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ dropWebhooks: true }),
  });
  // The subscribers' credential reads something first, as a dashboard does: until the upstream has
  // accepted it, one address may hold only UNVERIFIED_SUBSCRIPTIONS_PER_ADDRESS subscriptions under it.
  const read = await fetch(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...simulator.headers },
    body: JSON.stringify({ query: '{ hosts(first: 1) { totalCount } }' }),
  });
  if (!read.ok) throw new Error(`the subscribers' first read answered ${read.status}`);
  await read.text();
  // Warm the process (first WebSocket, first subscription) before the baseline.
  const warm = await subscribe(wsUrl, simulator.headers, () => undefined);
  await sleep(200);
  await warm.dispose();
  // Collect, then give the allocator time to hand startup's garbage back to the system, so the
  // baseline's RSS is not inflated by memory about to be returned (the idle sample waits as long).
  await sampleMemory(gateway, options.heapFile);
  await sleep(2_000);
  const baseline = await sampleMemory(gateway, options.heapFile);

  const clients: Client[] = [];
  try {
    await connectInBatches(options.subscribers, () => subscribe(wsUrl, simulator.headers, onJob), clients);
    // Let every `subscribe` message reach the server's pub/sub before measuring idle memory.
    await sleep(2_000);
    const idle = await sampleMemory(gateway, options.heapFile);

    const timed = await timeRounds(options, async () => {
      const { id, sentAt } = await deliverOneJob(options, arrivals);
      return { sentAt, arrivals: arrivals.get(id)! };
    });
    return {
      subscribers: options.subscribers,
      rounds: options.rounds,
      warmupRounds: Math.max(1, options.warmupRounds),
      deliveries: timed.latencies.length,
      ...summarize(timed),
      rssPerSubscription: (idle.rss - baseline.rss) / options.subscribers,
      heapPerSubscription: (idle.heapUsed - baseline.heapUsed) / options.subscribers,
    };
  } finally {
    await Promise.all(clients.map((client) => client.dispose()));
    await fetch(`${simulator.url}/__sim/config`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ dropWebhooks: false }),
    });
  }
}

/**
 * Starts a job, finds its webhook address in the simulator's journal, takes the result the
 * simulator would have pushed, and POSTs it; answers the job id and when (performance.now()) it was sent.
 */
async function deliverOneJob(
  options: { gateway: Spawned; simulator: SimulatorProcess; hostUuid: string },
  arrivals: Map<string, number[]>,
): Promise<{ id: string; sentAt: number }> {
  const { gateway, simulator } = options;
  const started = await fetch(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...simulator.headers },
    body: JSON.stringify({
      query: 'mutation ($input: UpdateHostNqnInput!) { updateHostNqn(input: $input) { job { id status } } }',
      variables: { input: { uuid: options.hostUuid, nqn: `nqn.2014-08.org.example:bench-${Date.now()}`, async: true } },
    }),
  });
  const body = (await started.json()) as { data?: { updateHostNqn: { job: { id: string } } }; errors?: unknown[] };
  const id = body.data?.updateHostNqn.job.id;
  if (!id) throw new Error(`updateHostNqn failed: ${JSON.stringify(body.errors ?? body).slice(0, 300)}`);
  arrivals.set(id, []);

  // Only this operation's entries: the whole journal (1,000 requests after the load scenarios)
  // would be megabytes to parse every round, and the bench's own garbage collection would then
  // land in the middle of the next round's measurement.
  const journal = (await (await fetch(`${simulator.url}/__sim/requests?operation=UpdateHostNqn`)).json()) as {
    requests: { operation: string; headers: { 'x-job-uuid'?: string; 'x-web-hook'?: string } }[];
  };
  const entry = journal.requests.find((request) => request.headers['x-job-uuid'] === id);
  const webHook = entry?.headers['x-web-hook'];
  if (!webHook) throw new Error(`no webhook address for job ${id} in the simulator's journal`);

  let result = '';
  for (let attempt = 0; attempt < 200 && result === ''; attempt++) {
    const poll = await fetch(`${simulator.url}/svc/v1/api-jobs/${id}`);
    if (poll.status === 200) result = await poll.text();
    else {
      await poll.arrayBuffer();
      await sleep(5);
    }
  }
  if (result === '') throw new Error(`job ${id} did not finish on the simulator`);

  const sentAt = performance.now();
  const delivered = await fetch(webHook, {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8', 'x-job-uuid': id, 'x-job-success': 'true' },
    body: result,
  });
  await delivered.arrayBuffer();
  if (!delivered.ok) throw new Error(`the gateway refused the webhook: ${delivered.status}`);
  return { id, sentAt };
}

export interface BroadcastFloorResult {
  subscribers: number;
  rounds: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Each measured round's own p99, in order. */
  roundP99Ms: number[];
}

/**
 * The same fan-out with no GraphQL at all: `subscribers` plain WebSockets on the bare broadcaster
 * (`broadcast-server.ts`), each round one POST and one message to every socket, timed from the
 * POST to each arrival (parsed as JSON, as the graphql-ws client does). The floor the machine
 * itself sets under the gateway's figure.
 */
export async function measureBroadcastFloor(options: { broadcaster: Spawned; subscribers: number; rounds: number; warmupRounds: number }): Promise<BroadcastFloorResult> {
  const wsUrl = options.broadcaster.url.replace(/^http/, 'ws');
  let arrivals: number[] = [];
  const sockets: WebSocket[] = [];
  const connect = async (): Promise<WebSocket> => {
    const socket = new WebSocket(wsUrl);
    socket.on('message', (data) => {
      JSON.parse(String(data));
      arrivals.push(performance.now());
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return socket;
  };
  try {
    await connectInBatches(options.subscribers, connect, sockets);
    const timed = await timeRounds(options, async () => {
      arrivals = [];
      const sentAt = performance.now();
      const response = await fetch(`${options.broadcaster.url}/broadcast`, { method: 'POST' });
      await response.arrayBuffer();
      return { sentAt, arrivals };
    });
    return { subscribers: options.subscribers, rounds: options.rounds, ...summarize(timed) };
  } finally {
    for (const socket of sockets) socket.terminate();
  }
}

/** Opens `count` connections 50 at a time, adding each to `into` (so the caller can close what opened if one fails). */
async function connectInBatches<T>(count: number, connect: () => Promise<T>, into: T[]): Promise<void> {
  for (let start = 0; start < count; start += 50) {
    into.push(...(await Promise.all(Array.from({ length: Math.min(50, count - start) }, connect))));
  }
}

const collectGarbage = (globalThis as { gc?: () => void }).gc;

/**
 * Runs the warm-up rounds (at least one: it confirms every subscriber is live, and the rest let V8
 * optimize the delivery path) and the measured rounds. `deliver` sends one event and answers when
 * it left and the list its arrivals are added to; answers the measured latencies, sorted, and each
 * measured round's p99.
 */
async function timeRounds(
  counts: { subscribers: number; rounds: number; warmupRounds: number },
  deliver: () => Promise<{ sentAt: number; arrivals: readonly number[] }>,
): Promise<{ latencies: number[]; roundP99Ms: number[] }> {
  const latencies: number[] = [];
  const roundP99Ms: number[] = [];
  for (let round = 1 - Math.max(1, counts.warmupRounds); round <= counts.rounds; round++) {
    // The clients live in this process: its own collection, if it fell inside a round, would
    // hold up their arrival stamps. So it collects between rounds (`npm run bench` exposes gc).
    collectGarbage?.();
    await sleep(20);
    const { sentAt, arrivals } = await deliver();
    const deadline = Date.now() + 10_000;
    while (arrivals.length < counts.subscribers && Date.now() < deadline) await sleep(5);
    if (round > 0) {
      const own = arrivals.map((at) => at - sentAt).sort((a, b) => a - b);
      latencies.push(...own);
      roundP99Ms.push(percentile(own, 0.99));
    }
    await sleep(100);
  }
  return { latencies: latencies.sort((a, b) => a - b), roundP99Ms };
}

function summarize(timed: { latencies: readonly number[]; roundP99Ms: number[] }): { p50Ms: number; p99Ms: number; maxMs: number; roundP99Ms: number[] } {
  const sorted = timed.latencies;
  return { p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99), maxMs: sorted.at(-1) ?? Number.NaN, roundP99Ms: timed.roundP99Ms };
}
