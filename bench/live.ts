/**
 * Scenario 7: live dashboards kept fresh by the upstream change feed. 1,000 `@live` dashboards
 * over graphql-ws, spread over 1, 10 and 100 credentials (sessions of one account, from
 * `POST /__sim/sessions`), with the simulator churning by itself (`SIM_CHURN`). For each spread, on
 * a fresh gateway:
 * - upstream requests per poll interval: the feed's polls (`gateway_live_poll_requests_total`),
 *   and every upstream request (polls and the dashboards' runs, `/__sim/stats`);
 * - gateway CPU per re-execution (`gateway_live_reexecutions_total`), everything it did included;
 * - change-to-client latency: a VM every dashboard shows is changed directly on the simulator, and
 *   each dashboard's answer showing the change is timed from that moment;
 * - memory per live query: RSS and V8 heap after GC, 1,000 dashboards open against none.
 */
import { performance } from 'node:perf_hooks';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { sampleMemory } from './fanout.js';
import { percentile } from './load.js';
import { simulatorStats, startGateway, type Credentials, type SimulatorProcess } from './processes.js';

const DASHBOARD = /* GraphQL */ `
  query Dashboard @live {
    vmInstances(first: 50) { totalCount nodes { uuid name state host { name status } } }
  }
`;

interface Dashboard {
  vmInstances: { totalCount: number; nodes: { uuid: string; state: string }[] };
}

/** Collections the dashboard reads (`vmInstance`, `host`): the feed's polls per credential and interval. */
export const LIVE_DASHBOARD_COLLECTIONS = 2;

/** Subscriptions per WebSocket (the gateway's default `LIVE_MAX_PER_SOCKET` is 100). */
const PER_SOCKET = 100;

export interface LiveRow {
  credentials: number;
  dashboards: number;
  pollMs: number;
  /** Measured window, in poll intervals. */
  intervals: number;
  /** The feed's upstream reads per interval. */
  pollsPerInterval: number;
  /** Every upstream request per interval: the feed's and the dashboards' runs. */
  upstreamPerInterval: number;
  reexecutionsPerInterval: number;
  /** Gateway CPU (user + system) over the window divided by the re-executions in it, ms. */
  cpuMsPerReexecution: number;
  /** Change-to-client latency over every dashboard and round, ms. */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Latencies measured (dashboards × rounds, less misses). */
  samples: number;
  /** Dashboards that had not shown a round's change when the round gave up waiting. */
  misses: number;
  /** Answers carrying errors. */
  errors: number;
  rssPerLiveQuery: number;
  heapPerLiveQuery: number;
}

interface Round {
  uuid: string;
  state: string;
  startedAt: number;
  seen: Set<number>;
  latencies: number[];
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function metricSum(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n')) if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) total += Number(line.split(' ').pop());
  return total;
}

async function moreSessions(simulatorUrl: string, count: number): Promise<Credentials[]> {
  const response = await fetch(`${simulatorUrl}/__sim/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count }) });
  return ((await response.json()) as { credentials: Credentials[] }).credentials;
}

function headersOf(credentials: Credentials): Record<string, string> {
  return { authorization: `OAuth ${credentials.session}`, 'x-resources-authorization': `Bearer ${credentials.token}`, 'x-tenant-id': credentials.tenantId };
}

async function connect(url: string, connectionParams: Record<string, string>): Promise<Client> {
  const client = createClient({ url, webSocketImpl: WebSocket, connectionParams, retryAttempts: 0, lazy: false });
  await new Promise<void>((resolve, reject) => {
    client.on('connected', () => resolve());
    client.on('error', (error) => reject(error instanceof Error ? error : new Error('WebSocket error')));
  });
  return client;
}

export async function measureLive(options: {
  simulator: SimulatorProcess;
  credentialCounts: readonly number[];
  dashboards: number;
  rounds: number;
  pollMs: number;
  heapFile: string;
  log: (message: string) => void;
}): Promise<LiveRow[]> {
  const rows: LiveRow[] = [];
  for (const count of options.credentialCounts) {
    options.log(`scenario 7: ${options.dashboards} live dashboards over ${count} credential${count === 1 ? '' : 's'}`);
    rows.push(await measureSpread(options, count));
  }
  return rows;
}

async function measureSpread(
  options: { simulator: SimulatorProcess; dashboards: number; rounds: number; pollMs: number; heapFile: string },
  credentialCount: number,
): Promise<LiveRow> {
  const { simulator, dashboards, pollMs } = options;
  const gateway = await startGateway({
    upstreamUrl: simulator.url,
    env: {
      BENCH_HEAP_FILE: options.heapFile,
      LIVE_POLL_MS: String(pollMs),
      LIVE_MAX_PER_CREDENTIAL: String(dashboards),
      LIVE_MAX_PER_SOCKET: String(PER_SOCKET),
      // 100 credentials the upstream has not seen yet, all from the bench's one address: past the
      // guard's burst their first runs would be refused (RATE_LIMITED), which ends a live query.
      UNVERIFIED_CALLS_PER_ADDRESS: '0',
    },
    nodeArgs: ['--expose-gc', '--import', './bench/heap-probe.ts'],
  });
  const clients: Client[] = [];
  try {
    const wsUrl = `${gateway.url.replace(/^http/, 'ws')}/graphql`;
    const credentials = await moreSessions(simulator.url, credentialCount);
    await sleep(1_000);
    const baseline = await sampleMemory(gateway, options.heapFile);

    const latest: (Dashboard | undefined)[] = new Array<Dashboard | undefined>(dashboards);
    let errors = 0;
    let round: Round | null = null;
    const onAnswer = (index: number, data: Dashboard | null | undefined, failed: boolean): void => {
      if (failed) errors++;
      if (!data) return;
      latest[index] = data;
      const open = round;
      if (open === null || open.seen.has(index)) return;
      if (data.vmInstances.nodes.some((node) => node.uuid === open.uuid && node.state === open.state)) {
        open.seen.add(index);
        open.latencies.push(performance.now() - open.startedAt);
      }
    };

    // Dashboard i belongs to credential i mod n; each credential's dashboards share sockets of up to PER_SOCKET.
    for (let credential = 0; credential < credentialCount; credential++) {
      const mine: number[] = [];
      for (let index = credential; index < dashboards; index += credentialCount) mine.push(index);
      for (let start = 0; start < mine.length; start += PER_SOCKET) {
        const client = await connect(wsUrl, headersOf(credentials[credential]!));
        clients.push(client);
        for (const index of mine.slice(start, start + PER_SOCKET)) {
          client.subscribe<Dashboard>(
            { query: DASHBOARD },
            {
              next: (result) => onAnswer(index, result.data, result.errors !== undefined),
              error: () => void errors++,
              complete: () => undefined,
            },
          );
        }
      }
    }
    for (let waited = 0; latest.some((answer) => answer === undefined); waited += 100) {
      if (waited > 60_000) throw new Error(`only ${latest.filter(Boolean).length} of ${dashboards} dashboards answered`);
      await sleep(100);
    }
    await sleep(2_000);
    const open = await sampleMemory(gateway, options.heapFile);

    const startedAt = performance.now();
    const [polls0, runs0, stats0, cpu0] = await Promise.all([
      metricSum(gateway.url, 'gateway_live_poll_requests_total'),
      metricSum(gateway.url, 'gateway_live_reexecutions_total'),
      simulatorStats(simulator.url),
      gateway.cpuMs(),
    ]);

    const latencies: number[] = [];
    let misses = 0;
    for (let index = 0; index < options.rounds; index++) {
      // A running VM every dashboard shows (the first 50 are the same for every credential).
      const vm = latest[0]!.vmInstances.nodes.find((node) => node.state === 'RUNNING');
      if (vm === undefined) throw new Error('no running VM on the dashboard');
      round = { uuid: vm.uuid, state: 'STOPPED', startedAt: performance.now(), seen: new Set(), latencies: [] };
      await fetch(`${simulator.url}/__sim/churn`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ kind: 'vmState', uuid: vm.uuid }) });
      const current = round;
      for (let waited = 0; current.seen.size < dashboards && waited < 3 * pollMs + 5_000; waited += 20) await sleep(20);
      misses += dashboards - current.seen.size;
      latencies.push(...current.latencies);
      round = null;
      // Start the next change at another point of the poll interval.
      await sleep(200 + Math.random() * pollMs);
    }

    const windowMs = performance.now() - startedAt;
    const [polls1, runs1, stats1, cpu1] = await Promise.all([
      metricSum(gateway.url, 'gateway_live_poll_requests_total'),
      metricSum(gateway.url, 'gateway_live_reexecutions_total'),
      simulatorStats(simulator.url),
      gateway.cpuMs(),
    ]);
    const intervals = windowMs / pollMs;
    const reexecutions = runs1 - runs0;
    latencies.sort((a, b) => a - b);
    return {
      credentials: credentialCount,
      dashboards,
      pollMs,
      intervals,
      pollsPerInterval: (polls1 - polls0) / intervals,
      upstreamPerInterval: (stats1.total - stats0.total) / intervals,
      reexecutionsPerInterval: reexecutions / intervals,
      cpuMsPerReexecution: reexecutions === 0 ? Number.NaN : (cpu1 - cpu0) / reexecutions,
      p50Ms: percentile(latencies, 0.5),
      p99Ms: percentile(latencies, 0.99),
      maxMs: latencies.at(-1) ?? Number.NaN,
      samples: latencies.length,
      misses,
      errors,
      rssPerLiveQuery: (open.rss - baseline.rss) / dashboards,
      heapPerLiveQuery: (open.heapUsed - baseline.heapUsed) / dashboards,
    };
  } finally {
    await Promise.all(clients.map((client) => client.dispose()));
    await gateway.stop();
  }
}
