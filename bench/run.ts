/**
 * `npm run bench`: starts the simulator, the gateway and the direct REST client as separate
 * processes, runs the four scenarios, prints a Markdown table (targets and ratios) and writes
 * `bench-results/<date>.json`.
 *
 * Knobs (environment): `SIM_LATENCY_MS` (2), `SIM_VMS`/`SIM_HOSTS` (estate of scenarios 2-4:
 * 1000/40), `BENCH_ESTATES` (scenario 1: `100,1000,10000`), `BENCH_DURATION` (seconds per load
 * run: 10), `BENCH_PAIRS` (scenario 2: gateway/direct pairs of runs per concurrency, 3),
 * `BENCH_SUBSCRIBERS` (1000), `BENCH_ROUNDS` (20, after `BENCH_WARMUP_ROUNDS`: 3),
 * `BENCH_SCENARIOS` (which to run: `1,2,3,4,5,6,7,8,9,10`); scenario 10: `BENCH_SCALE_SAMPLES` (30); scenario 9: `BENCH_BASELINE_DIR` (also
 * compare tracing off against the gateway of that checkout); scenario 7: `BENCH_LIVE_DASHBOARDS` (1000),
 * `BENCH_LIVE_CREDENTIALS` (`1,10,100`), `BENCH_LIVE_ROUNDS` (10), `BENCH_LIVE_CHURN` (the
 * simulator's `SIM_CHURN`: `2@first`), `LIVE_POLL_MS` (2000).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { distinctDashboardBodies } from './dashboard.js';
import { estateScaleRows, measureEstateScale, type EstateScaleResult } from './estate-scale.js';
import { measureBroadcastFloor, measureFanout, type BroadcastFloorResult, type FanoutResult } from './fanout.js';
import { numberFromEnv } from './knobs.js';
import { LIVE_DASHBOARD_COLLECTIONS, measureLive, type LiveRow } from './live.js';
import { percentile, runLoad } from './load.js';
import { measureMobile, type MobileResult } from './mobile.js';
import { measureOverhead, type OverheadPair, type OverheadResult, type OverheadRow } from './overhead.js';
import { startBroadcastServer, startDirectServer, startGateway, startGraphqlFloorServer, startSimulator, type GatewayProcess, type SimulatorProcess, type Spawned } from './processes.js';
import { compareGateways, startSpanSink, type GatewayComparison } from './tracing.js';
import { measureTrusted, trustedBodiesOf, writeDashboardManifest, type TrustedResult } from './trusted.js';
import { measureUpstreamCost, type UpstreamCost } from './upstream-cost.js';

const settings = {
  latencyMs: numberFromEnv('SIM_LATENCY_MS', 2),
  vms: numberFromEnv('SIM_VMS', 1000),
  hosts: numberFromEnv('SIM_HOSTS', 40),
  estates: (process.env.BENCH_ESTATES ?? '100,1000,10000').split(',').map((text) => Number(text.trim())),
  durationSec: numberFromEnv('BENCH_DURATION', 10),
  pairs: numberFromEnv('BENCH_PAIRS', 3),
  subscribers: numberFromEnv('BENCH_SUBSCRIBERS', 1000),
  rounds: numberFromEnv('BENCH_ROUNDS', 20),
  warmupRounds: numberFromEnv('BENCH_WARMUP_ROUNDS', 3),
  scaleSamples: numberFromEnv('BENCH_SCALE_SAMPLES', 30),
  scenarios: (process.env.BENCH_SCENARIOS ?? '1,2,3,4,5,6,7,8,9,10').split(',').map((text) => Number(text.trim())),
  baselineDir: process.env.BENCH_BASELINE_DIR,
  liveDashboards: numberFromEnv('BENCH_LIVE_DASHBOARDS', 1000),
  liveCredentials: (process.env.BENCH_LIVE_CREDENTIALS ?? '1,10,100').split(',').map((text) => Number(text.trim())),
  liveRounds: numberFromEnv('BENCH_LIVE_ROUNDS', 10),
  liveChurn: process.env.BENCH_LIVE_CHURN ?? '2@first',
  livePollMs: numberFromEnv('LIVE_POLL_MS', 2000),
};
const runs = (scenario: number) => settings.scenarios.includes(scenario);

/** Clients of scenarios 5, 6, 8 and 9. */
const MANY_CLIENTS = 50;

interface Report {
  date: string;
  machine: { cpus: number; model: string; node: string; loadBefore: number[]; loadAfter: number[] };
  settings: typeof settings;
  upstreamCost?: UpstreamCost[];
  overhead?: OverheadResult;
  mobile?: MobileResult;
  fanout?: FanoutResult;
  broadcastFloor?: BroadcastFloorResult;
  /** Scenario 5: 50 clients, the identical dashboard, one credential. */
  identical?: OverheadResult;
  /** Scenario 6: 50 clients, each its own filter of the dashboard. */
  distinct?: OverheadResult;
  /** Scenario 6's reference: yoga and graphql-jit over the direct client's answer, against the direct client. */
  graphqlFloor?: OverheadResult;
  /** Scenario 7: live dashboards over 1, 10 and 100 credentials, the estate churning. */
  live?: LiveRow[];
  /** Scenario 8: 50 clients, trusted documents by id against plain POSTs of the text. */
  trusted?: TrustedResult;
  /** Scenario 9: tracing on against off, 50 distinct dashboards; with a baseline, off against the gateway before tracing. */
  tracing?: { on: GatewayComparison; exportedBytesPerDashboard: number; off?: GatewayComparison };
  /** Scenario 10: the first page and the dashboard on 1,000 and 100,000 VMs. */
  estateScale?: EstateScaleResult;
  durationSec: number;
}

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

async function connectedHost(gatewayUrl: string, headers: Record<string, string>): Promise<string> {
  const response = await fetch(`${gatewayUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify({ query: '{ hosts(first: 1, filter: { status: CONNECTED }) { nodes { uuid } } }' }),
  });
  const body = (await response.json()) as { data?: { hosts: { nodes: { uuid: string }[] } } };
  const uuid = body.data?.hosts.nodes[0]?.uuid;
  if (!uuid) throw new Error('the estate has no Connected host');
  return uuid;
}

async function main(): Promise<void> {
  const started = Date.now();
  const loadBefore = loadavg();
  const stopLater: Spawned[] = [];
  const heapDir = await mkdtemp(join(tmpdir(), 'bench-heap-'));
  try {
    const upstreamCost = runs(1) ? await measureScenario1() : undefined;
    if (runs(10)) log('scenario 10: the first page and the dashboard on 1,000 and 100,000 VMs');
    const small = { vms: 1000, hosts: 8 };
    const estateScale = runs(10) ? await measureEstateScale({ small, large: { vms: 100_000, hosts: 1000 }, latencyMs: settings.latencyMs, samples: settings.scaleSamples, warmup: 5 }) : undefined;

    log(`starting the simulator (${settings.vms} VMs, ${settings.hosts} hosts, ${settings.latencyMs} ms latency)`);
    const simulator: SimulatorProcess = await startSimulator({ vms: settings.vms, hosts: settings.hosts, latencyMs: settings.latencyMs });
    stopLater.push(simulator);
    // Scenarios 2, 5 and 6 measure execution: no response cache on this gateway.
    const uncached = await startGateway({ upstreamUrl: simulator.url, env: { RESPONSE_CACHE_TTL_MS: '0' } });
    stopLater.push(uncached);
    // Warm as every gateway a scenario compares it with is (see warmUp), whichever scenarios run.
    await warmUp(uncached, simulator.headers, distinctDashboardBodies(MANY_CLIENTS));
    const direct = await startDirectServer({ upstreamUrl: simulator.url });
    stopLater.push(direct);
    const against = { gateway: uncached, direct, simulator, headers: simulator.headers, durationSec: settings.durationSec, pairs: settings.pairs };

    let overhead: OverheadResult | undefined;
    if (runs(2)) {
      log('scenario 2: gateway overhead against the direct REST client');
      overhead = await measureOverhead({ ...against, concurrency: [1, 50] });
    }
    let identical: OverheadResult | undefined;
    if (runs(5)) {
      log(`scenario 5: ${MANY_CLIENTS} clients sending the identical dashboard, one credential`);
      identical = await measureOverhead({ ...against, concurrency: [MANY_CLIENTS] });
    }
    let distinct: OverheadResult | undefined;
    let graphqlFloor: OverheadResult | undefined;
    if (runs(6)) {
      log(`scenario 6: ${MANY_CLIENTS} clients each reading its own filter of the dashboard`);
      const bodies = distinctDashboardBodies(MANY_CLIENTS);
      distinct = await measureOverhead({ ...against, concurrency: [MANY_CLIENTS], bodies });
      log("scenario 6, reference: yoga and graphql-jit over the direct client's answer, no gateway");
      const floor = await startGraphqlFloorServer({ upstreamUrl: simulator.url });
      stopLater.push(floor);
      await warmUp(floor, simulator.headers, bodies);
      graphqlFloor = await measureOverhead({ ...against, gateway: floor, concurrency: [MANY_CLIENTS], bodies });
      await floor.stop();
    }
    await direct.stop();

    let trusted: TrustedResult | undefined;
    if (runs(8)) {
      const manifest = join(heapDir, 'persisted-documents.json');
      await writeDashboardManifest(manifest);
      const locked = await startGateway({ upstreamUrl: simulator.url, env: { RESPONSE_CACHE_TTL_MS: '0', TRUSTED_DOCUMENTS: manifest } });
      stopLater.push(locked);
      await warmUp(locked, simulator.headers, trustedBodiesOf(distinctDashboardBodies(MANY_CLIENTS)));
      log(`scenario 8: ${MANY_CLIENTS} clients, trusted documents by id against plain POSTs of the text`);
      trusted = await measureTrusted({
        trusted: locked,
        plain: uncached,
        simulator,
        headers: simulator.headers,
        plainBodies: distinctDashboardBodies(MANY_CLIENTS),
        connections: MANY_CLIENTS,
        durationSec: settings.durationSec,
        pairs: settings.pairs,
      });
      await locked.stop();
    }

    let tracing: Report['tracing'];
    if (runs(9)) tracing = await measureScenario9(simulator, uncached, stopLater);

    let mobile: MobileResult | undefined;
    if (runs(4)) {
      const cached = await startGateway({ upstreamUrl: simulator.url });
      stopLater.push(cached);
      log('scenario 4: mobile path (APQ over GET, warm cache) against the plain POST');
      mobile = await measureMobile({ cachedGatewayUrl: cached.url, uncachedGatewayUrl: uncached.url, headers: simulator.headers, durationSec: settings.durationSec });
      await cached.stop();
    }
    await uncached.stop();

    let fanout: FanoutResult | undefined;
    let broadcastFloor: BroadcastFloorResult | undefined;
    if (runs(3)) {
      // A fresh gateway for the fan-out: one that just served a load run would be giving memory
      // back to the system while the idle subscriptions are measured.
      const heapFile = join(heapDir, 'gateway.json');
      const subscribed = await startGateway({
        upstreamUrl: simulator.url,
        // Every subscriber shares the bench's one credential, past the default per-credential cap.
        env: { BENCH_HEAP_FILE: heapFile, MAX_SUBSCRIPTIONS_PER_CREDENTIAL: String(settings.subscribers) },
        nodeArgs: ['--expose-gc', '--import', './bench/heap-probe.ts'],
      });
      stopLater.push(subscribed);

      log(`scenario 3: fan-out to ${settings.subscribers} graphql-ws subscribers, ${settings.rounds} rounds after ${settings.warmupRounds} warm-up rounds`);
      fanout = await measureFanout({
        gateway: subscribed,
        heapFile,
        simulator,
        hostUuid: await connectedHost(subscribed.url, simulator.headers),
        subscribers: settings.subscribers,
        rounds: settings.rounds,
        warmupRounds: settings.warmupRounds,
      });
      await subscribed.stop();

      log(`scenario 3, reference: a bare WebSocket broadcast to ${settings.subscribers} sockets, no GraphQL`);
      const broadcaster = await startBroadcastServer();
      stopLater.push(broadcaster);
      broadcastFloor = await measureBroadcastFloor({
        broadcaster,
        subscribers: settings.subscribers,
        rounds: settings.rounds,
        warmupRounds: settings.warmupRounds,
      });
    }

    let live: LiveRow[] | undefined;
    if (runs(7)) {
      // Its own simulator: this one changes by itself, which the other scenarios must not see.
      const churning = await startSimulator({ vms: settings.vms, hosts: settings.hosts, latencyMs: settings.latencyMs, env: { SIM_CHURN: settings.liveChurn } });
      stopLater.push(churning);
      live = await measureLive({
        simulator: churning,
        credentialCounts: settings.liveCredentials,
        dashboards: settings.liveDashboards,
        rounds: settings.liveRounds,
        pollMs: settings.livePollMs,
        heapFile: join(heapDir, 'live.json'),
        log,
      });
      await churning.stop();
    }

    const report: Report = {
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', node: process.version, loadBefore, loadAfter: loadavg() },
      settings,
      upstreamCost,
      overhead,
      mobile,
      fanout,
      broadcastFloor,
      identical,
      distinct,
      graphqlFloor,
      live,
      trusted,
      tracing,
      estateScale,
      durationSec: Math.round((Date.now() - started) / 1000),
    };
    await mkdir('bench-results', { recursive: true });
    const file = join('bench-results', `${report.date.replace(/[:.]/g, '-')}.json`);
    await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(`${renderTable(report)}\n\nWritten to ${file} in ${report.durationSec} s.\n`);
  } finally {
    for (const spawned of stopLater.reverse()) await spawned.stop().catch(() => undefined);
    await rm(heapDir, { recursive: true, force: true });
  }
}

/**
 * A load run whose numbers are dropped: a gateway started for one scenario is compared with one
 * that has served every scenario before it, and a fresh process (V8 still compiling, its heap
 * still growing) lost each scenario's first pair by 5-15% for that alone.
 */
async function warmUp(gateway: { url: string }, headers: Record<string, string>, bodies: readonly string[]): Promise<void> {
  await runLoad({
    url: `${gateway.url}/graphql`,
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    bodies,
    connections: MANY_CLIENTS,
    durationSec: settings.durationSec,
  });
}

/** Scenario 9: `uncached` (tracing off) against the same gateway exporting every span, and against the baseline checkout when there is one. */
async function measureScenario9(simulator: SimulatorProcess, uncached: GatewayProcess, stopLater: Spawned[]): Promise<Report['tracing']> {
  const sink = await startSpanSink();
  const traced = await startGateway({ upstreamUrl: simulator.url, env: { RESPONSE_CACHE_TTL_MS: '0', OTEL_EXPORTER_OTLP_ENDPOINT: sink.url } });
  stopLater.push(traced);
  await warmUp(traced, simulator.headers, distinctDashboardBodies(MANY_CLIENTS));
  const compare = { simulator, headers: simulator.headers, bodies: distinctDashboardBodies(MANY_CLIENTS), connections: MANY_CLIENTS, durationSec: settings.durationSec, pairs: settings.pairs };
  try {
    log(`scenario 9: tracing on (every span exported over OTLP/HTTP) against off, ${MANY_CLIENTS} clients, distinct dashboards`);
    const on = await compareGateways({ ...compare, base: uncached, other: traced });
    await traced.stop();
    // What the gateway exported for the dashboards it answered, all its runs (warm-ups included) counted.
    const answered = sum(on.pairs.map((pair) => pair.other.requests));
    const exportedBytesPerDashboard = sink.exportedBytes / Math.max(1, answered);
    let off: GatewayComparison | undefined;
    if (settings.baselineDir !== undefined) {
      const baseline = await startGateway({ upstreamUrl: simulator.url, env: { RESPONSE_CACHE_TTL_MS: '0' }, cwd: settings.baselineDir });
      stopLater.push(baseline);
      await warmUp(baseline, simulator.headers, distinctDashboardBodies(MANY_CLIENTS));
      log(`scenario 9: tracing off against the gateway of ${settings.baselineDir}`);
      off = await compareGateways({ ...compare, base: baseline, other: uncached });
      await baseline.stop();
    }
    return { on, exportedBytesPerDashboard, off };
  } finally {
    await sink.close();
  }
}

function measureScenario1(): Promise<UpstreamCost[]> {
  log(`scenario 1: upstream requests per dashboard on estates of ${settings.estates.join(', ')} VMs`);
  return measureUpstreamCost(
    settings.estates.map((vms) => ({ vms, hosts: Math.max(8, Math.round(vms / 25)) })),
    settings.latencyMs,
  );
}

const ms = (value: number) => `${value.toFixed(1)} ms`;
const ratio = (value: number) => `${value.toFixed(2)}x`;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
/** Each round's p99: the median, the worst, and how many rounds were over `limitMs`. */
const roundsOver = (roundP99Ms: readonly number[], limitMs: number) => {
  const sorted = [...roundP99Ms].sort((a, b) => a - b);
  const over = sorted.filter((value) => value >= limitMs).length;
  return `rounds' own p99: median ${ms(percentile(sorted, 0.5))}, worst ${ms(sorted.at(-1) ?? Number.NaN)}, ${over} of ${sorted.length} over ${limitMs} ms`;
};
const verdict = (met: boolean) => (met ? 'met' : '**missed**');
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

/** ` (median pair; pairs 0.47x, 0.52x, 0.58x)` when the row is the median of several pairs of runs. */
function everyPair(row: OverheadRow, ratioOf: (pair: OverheadPair) => number): string {
  if (row.pairs.length < 2) return '';
  return ` (median pair; pairs ${row.pairs.map((pair) => ratio(ratioOf(pair))).join(', ')})`;
}

function scenario1Rows(costs: readonly UpstreamCost[]): string[][] {
  const rows: string[][] = [];
  const constant = costs.every((cost) => cost.requests === costs[0]?.requests);
  const worst = Math.max(...costs.map((cost) => cost.requests));
  for (const cost of costs) {
    rows.push([
      `1. upstream requests per dashboard, ${cost.vms.toLocaleString('en-US')} VMs`,
      `${cost.requests} (${Object.entries(cost.byOperation).map(([operation, count]) => `${operation} ${count}`).join(', ')})`,
      'constant, ≤ 8',
      verdict(constant && worst <= 8),
    ]);
  }
  return rows;
}

function scenario2Rows(o: OverheadResult): string[][] {
  const rows: string[][] = [];
  for (const row of o.rows) {
    const target = row.connections === 50;
    const clients = `${row.connections} client${row.connections === 1 ? '' : 's'}`;
    rows.push([
      `2. p50 gateway / direct, ${clients}`,
      `${ms(row.gateway.p50Ms)} / ${ms(row.direct.p50Ms)} = ${ratio(row.p50Ratio)}${everyPair(row, (pair) => pair.p50Ratio)}`,
      target ? '≤ 1.25x' : '-',
      target ? verdict(row.p50Ratio <= 1.25) : '-',
    ]);
    rows.push([
      `2. p99 gateway / direct, ${clients}`,
      `${ms(row.gateway.p99Ms)} / ${ms(row.direct.p99Ms)} = ${ratio(row.p99Ratio)}`,
      '-',
      '-',
    ]);
    const [gatewayCpu, gatewaySimulatorCpu] = row.gateway.cpuMsPerRequest;
    const [directCpu, directSimulatorCpu] = row.direct.cpuMsPerRequest;
    rows.push([
      `2. CPU per dashboard gateway / direct, ${clients} (simulator's behind each)`,
      `${ms(gatewayCpu!)} / ${ms(directCpu!)} = ${ratio(gatewayCpu! / directCpu!)} (simulator ${ms(gatewaySimulatorCpu!)} / ${ms(directSimulatorCpu!)})`,
      '-',
      '-',
    ]);
    const gcPause = row.gateway.gcPauseMsPerRequest;
    if (gcPause !== undefined) {
      rows.push([
        `2. gateway GC pause per dashboard, ${clients}`,
        `${ms(gcPause)} (${Math.round((100 * gcPause) / gatewayCpu!)}% of its CPU per dashboard; helper threads not counted)`,
        '-',
        '-',
      ]);
    }
    rows.push([
      `2. throughput gateway / direct, ${clients}`,
      `${row.gateway.rps.toFixed(1)} / ${row.direct.rps.toFixed(1)} req/s = ${ratio(row.throughputRatio)}${everyPair(row, (pair) => pair.throughputRatio)}`,
      target ? '≥ 0.8x' : '-',
      target ? verdict(row.throughputRatio >= 0.8) : '-',
    ]);
  }
  rows.push(['2. same JSON from both', o.equivalent ? `yes (${kb(o.responseBytes)})` : 'NO', 'yes', verdict(o.equivalent)]);
  const failures = o.rows.map((row) => ({
    gateway: sum(row.pairs.map((pair) => pair.gateway.failures)),
    direct: sum(row.pairs.map((pair) => pair.direct.failures)),
  }));
  const failed = failures.map((count) => `${count.gateway} / ${count.direct}`).join(', ');
  const clean = failures.every((count) => count.gateway === 0 && count.direct === 0);
  rows.push(['2. failed answers under load (errors, non-2xx, GraphQL errors; every pair), gateway / direct', failed, '0', verdict(clean)]);
  return rows;
}

function scenario3Rows(f: FanoutResult, b: BroadcastFloorResult): string[][] {
  const rows: string[][] = [];
  rows.push([
    `3. fan-out to ${f.subscribers.toLocaleString('en-US')} subscribers, webhook → client p50 / p99`,
    `${ms(f.p50Ms)} / ${ms(f.p99Ms)} (max ${ms(f.maxMs)}, ${f.deliveries.toLocaleString('en-US')} deliveries; ${roundsOver(f.roundP99Ms, 50)})`,
    'p99 < 50 ms',
    verdict(f.p99Ms < 50 && f.deliveries === f.subscribers * f.rounds),
  ]);
  rows.push([
    `3. reference: bare \`ws\` broadcast to ${b.subscribers.toLocaleString('en-US')} sockets, POST → client p50 / p99`,
    `${ms(b.p50Ms)} / ${ms(b.p99Ms)} (max ${ms(b.maxMs)}; ${roundsOver(b.roundP99Ms, 50)}); gateway p99 / this = ${ratio(f.p99Ms / b.p99Ms)}`,
    '-',
    '-',
  ]);
  rows.push([
    '3. memory per idle subscription (RSS / heap)',
    `${kb(f.rssPerSubscription)} / ${kb(f.heapPerSubscription)}`,
    '< 30 KB',
    verdict(Math.max(f.rssPerSubscription, f.heapPerSubscription) < 30 * 1024),
  ]);
  return rows;
}

function scenario4Rows(m: MobileResult): string[][] {
  const rows: string[][] = [];
  rows.push([
    '4. p50 plain POST (uncached) / APQ GET (warm cache)',
    `${ms(m.plainPost.p50Ms)} / ${ms(m.apqGet.p50Ms)} = ${ratio(m.speedup)} faster`,
    '≥ 5x',
    verdict(m.speedup >= 5),
  ]);
  rows.push([
    '4. bytes on the wire, sent + received',
    `POST ${kb(m.plainPostBytes.sent)} + ${kb(m.plainPostBytes.received)}; APQ GET ${kb(m.apqGetBytes.sent)} + ${kb(m.apqGetBytes.received)}; 304 ${kb(m.notModifiedBytes.sent)} + ${kb(m.notModifiedBytes.received)}`,
    '-',
    '-',
  ]);
  return rows;
}

/**
 * Scenarios 5 and 6: 50 clients against the direct client doing the same reads, in alternating
 * pairs. Identical dashboards are where shared work pays (target: `throughputTarget` times the
 * direct client); distinct ones measure what the gateway costs when nothing can be shared.
 */
function manyClientsRows(scenario: string, result: OverheadResult, targets: { throughput: number; p50?: number }): string[][] {
  const rows: string[][] = [];
  for (const row of result.rows) {
    const clients = `${row.connections} clients`;
    const p50Target = targets.p50;
    rows.push([
      `${scenario}, p50 gateway / direct, ${clients}`,
      `${ms(row.gateway.p50Ms)} / ${ms(row.direct.p50Ms)} = ${ratio(row.p50Ratio)}${everyPair(row, (pair) => pair.p50Ratio)}`,
      p50Target === undefined ? '-' : `≤ ${p50Target}x`,
      p50Target === undefined ? '-' : verdict(row.p50Ratio <= p50Target),
    ]);
    const [gatewayCpu, gatewaySimulatorCpu] = row.gateway.cpuMsPerRequest;
    const [directCpu, directSimulatorCpu] = row.direct.cpuMsPerRequest;
    rows.push([
      `${scenario}, CPU per dashboard gateway / direct, ${clients} (simulator's behind each)`,
      `${ms(gatewayCpu!)} / ${ms(directCpu!)} = ${ratio(gatewayCpu! / directCpu!)} (simulator ${ms(gatewaySimulatorCpu!)} / ${ms(directSimulatorCpu!)})`,
      '-',
      '-',
    ]);
    rows.push([
      `${scenario}, throughput gateway / direct, ${clients}`,
      `${row.gateway.rps.toFixed(1)} / ${row.direct.rps.toFixed(1)} req/s = ${ratio(row.throughputRatio)}${everyPair(row, (pair) => pair.throughputRatio)}`,
      `≥ ${targets.throughput}x`,
      verdict(row.throughputRatio >= targets.throughput),
    ]);
    const gatewayFailed = sum(row.pairs.map((pair) => pair.gateway.failures));
    const directFailed = sum(row.pairs.map((pair) => pair.direct.failures));
    rows.push([`${scenario}, failed answers under load, gateway / direct`, `${gatewayFailed} / ${directFailed}`, '0', verdict(gatewayFailed === 0 && directFailed === 0)]);
  }
  rows.push([`${scenario}, same JSON from both`, result.equivalent ? `yes (${kb(result.responseBytes)})` : 'NO', 'yes', verdict(result.equivalent)]);
  return rows;
}

/**
 * Scenario 6's reference: the same documents answered by yoga and graphql-jit with one resolver
 * running the direct client (`graphql-floor-server.ts`), against the direct client in pairs of
 * its own. What GraphQL over HTTP costs in this stack before the gateway does anything; the last
 * row divides the gateway's ratio by this one.
 */
function graphqlFloorRows(floor: OverheadResult, gateway: OverheadResult): string[][] {
  const rows: string[][] = [];
  for (const row of floor.rows) {
    const gatewayRow = gateway.rows.find((candidate) => candidate.connections === row.connections);
    const label = `6. reference: yoga + graphql-jit over the direct client's answer / direct, ${row.connections} clients`;
    const [floorCpu] = row.gateway.cpuMsPerRequest;
    const [directCpu] = row.direct.cpuMsPerRequest;
    rows.push([`${label}, throughput`, `${row.gateway.rps.toFixed(1)} / ${row.direct.rps.toFixed(1)} req/s = ${ratio(row.throughputRatio)}${everyPair(row, (pair) => pair.throughputRatio)}`, '-', '-']);
    rows.push([`${label}, p50`, `${ms(row.gateway.p50Ms)} / ${ms(row.direct.p50Ms)} = ${ratio(row.p50Ratio)}${everyPair(row, (pair) => pair.p50Ratio)}`, '-', '-']);
    rows.push([`${label}, CPU per dashboard`, `${ms(floorCpu!)} / ${ms(directCpu!)} = ${ratio(floorCpu! / directCpu!)}`, '-', '-']);
    if (gatewayRow) {
      rows.push([
        `6. gateway / reference (each against its direct pairs), ${row.connections} clients`,
        `throughput ${ratio(gatewayRow.throughputRatio / row.throughputRatio)}, p50 ${ratio(gatewayRow.p50Ratio / row.p50Ratio)}`,
        '-',
        '-',
      ]);
    }
  }
  rows.push([`6. reference, same JSON as the direct client`, floor.equivalent ? 'yes' : 'NO', 'yes', verdict(floor.equivalent)]);
  return rows;
}

function scenario7Rows(live: readonly LiveRow[]): string[][] {
  const rows: string[][] = [];
  for (const row of live) {
    const perCredential = row.pollsPerInterval / row.credentials;
    const spread = `${row.dashboards.toLocaleString('en-US')} live dashboards, ${row.credentials} credential${row.credentials === 1 ? '' : 's'}`;
    rows.push([
      `7. upstream requests per ${row.pollMs} ms interval, ${spread}`,
      `change feed ${row.pollsPerInterval.toFixed(1)} (${perCredential.toFixed(2)} per credential); all, runs included, ${row.upstreamPerInterval.toFixed(1)}; ${row.reexecutionsPerInterval.toFixed(0)} re-executions per interval`,
      `feed ≤ ${LIVE_DASHBOARD_COLLECTIONS} per credential (one per collection), whatever the dashboards`,
      verdict(perCredential <= LIVE_DASHBOARD_COLLECTIONS * 1.05),
    ]);
    rows.push([`7. gateway CPU per re-execution, ${spread}`, ms(row.cpuMsPerReexecution), '-', '-']);
    const within = row.p99Ms <= row.pollMs + 100 && row.misses === 0;
    rows.push([
      `7. change → client p50 / p99, ${spread}`,
      `${ms(row.p50Ms)} / ${ms(row.p99Ms)} (max ${ms(row.maxMs)}; ${row.samples.toLocaleString('en-US')} answers, ${row.misses} missed, ${row.errors} with errors)`,
      `p99 ≤ ${row.pollMs + 100} ms`,
      verdict(within),
    ]);
    rows.push([`7. memory per live query (RSS / heap), ${spread}`, `${kb(row.rssPerLiveQuery)} / ${kb(row.heapPerLiveQuery)}`, '-', '-']);
  }
  return rows;
}

function scenario9Rows(t: NonNullable<Report['tracing']>): string[][] {
  const rows: string[][] = [];
  const describe = (label: string, c: GatewayComparison, target: number | undefined): void => {
    rows.push([
      `9. throughput ${label}, ${c.connections} clients`,
      `${c.other.rps.toFixed(1)} / ${c.base.rps.toFixed(1)} req/s = ${ratio(c.throughputRatio)}${c.pairs.length < 2 ? '' : ` (median pair; pairs ${c.pairs.map((pair) => ratio(pair.throughputRatio)).join(', ')})`}`,
      target === undefined ? '-' : `≥ ${target}x`,
      target === undefined ? '-' : verdict(c.throughputRatio >= target),
    ]);
    rows.push([`9. p50 ${label}`, `${ms(c.other.p50Ms)} / ${ms(c.base.p50Ms)} = ${ratio(c.p50Ratio)}`, '-', '-']);
    rows.push([`9. gateway CPU per dashboard ${label}`, `${ms(c.other.cpuMsPerRequest[0]!)} / ${ms(c.base.cpuMsPerRequest[0]!)} = ${ratio(c.cpuRatio)}`, '-', '-']);
    const failed = sum(c.pairs.map((pair) => pair.base.failures + pair.other.failures));
    rows.push([`9. failed answers ${label}`, String(failed), '0', verdict(failed === 0)]);
  };
  describe('tracing on / off', t.on, undefined);
  rows.push(['9. OTLP bytes exported per dashboard (tracing on)', kb(t.exportedBytesPerDashboard), '-', '-']);
  // "No measurable cost when off": within the pairs' own spread of a loaded machine.
  if (t.off !== undefined) describe('tracing off / before tracing', t.off, 0.95);
  return rows;
}

/** Scenario 8: trusted documents cost nothing measurable against the text (target: within 5%). */
function scenario8Rows(t: TrustedResult): string[][] {
  const clients = `${t.connections} clients`;
  const every = (ratioOf: (pair: TrustedResult['pairs'][number]) => number): string => (t.pairs.length > 1 ? ` (pairs: ${t.pairs.map((pair) => ratio(ratioOf(pair))).join(', ')})` : '');
  const [trustedCpu] = t.trusted.cpuMsPerRequest;
  const [plainCpu] = t.plain.cpuMsPerRequest;
  const failed = sum(t.pairs.map((pair) => pair.trusted.failures + pair.plain.failures));
  return [
    [`8. trusted documents by id / plain POST, throughput, ${clients}`, `${t.trusted.rps.toFixed(1)} / ${t.plain.rps.toFixed(1)} req/s = ${ratio(t.throughputRatio)}${every((pair) => pair.throughputRatio)}`, '≥ 0.95x', verdict(t.throughputRatio >= 0.95)],
    [`8. trusted documents by id / plain POST, p50, ${clients}`, `${ms(t.trusted.p50Ms)} / ${ms(t.plain.p50Ms)} = ${ratio(t.p50Ratio)}${every((pair) => pair.p50Ratio)}`, '≤ 1.05x', verdict(t.p50Ratio <= 1.05)],
    [`8. gateway CPU per dashboard, trusted / plain`, `${ms(trustedCpu!)} / ${ms(plainCpu!)} = ${ratio(trustedCpu! / plainCpu!)}`, '-', '-'],
    [`8. request body, trusted / plain`, `${t.requestBytes.trusted} B / ${t.requestBytes.plain} B`, '-', '-'],
    [`8. failed answers under load`, String(failed), '0', verdict(failed === 0)],
  ];
}

/** The Markdown table docs/performance/bench.md shows (the rows of the scenarios that ran). */
export function renderTable(report: Report): string {
  const rows: string[][] = [
    ...(report.upstreamCost ? scenario1Rows(report.upstreamCost) : []),
    ...(report.overhead ? scenario2Rows(report.overhead) : []),
    ...(report.fanout && report.broadcastFloor ? scenario3Rows(report.fanout, report.broadcastFloor) : []),
    ...(report.mobile ? scenario4Rows(report.mobile) : []),
    ...(report.identical ? manyClientsRows('5. identical dashboard, one credential', report.identical, { throughput: 5 }) : []),
    ...(report.distinct ? manyClientsRows('6. distinct dashboards (a filter and order each)', report.distinct, { throughput: 0.95, p50: 1.1 }) : []),
    ...(report.distinct && report.graphqlFloor ? graphqlFloorRows(report.graphqlFloor, report.distinct) : []),
    ...(report.live ? scenario7Rows(report.live) : []),
    ...(report.trusted ? scenario8Rows(report.trusted) : []),
    ...(report.tracing ? scenario9Rows(report.tracing) : []),
    ...(report.estateScale ? estateScaleRows(report.estateScale) : []),
  ];
  const header = ['scenario', 'measured', 'target', 'verdict'];
  const lines = [header, header.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`);
  const machine = report.machine;
  return [
    `${machine.cpus} × ${machine.model}, Node ${machine.node}; load average before ${machine.loadBefore.map((value) => value.toFixed(2)).join(' ')}, after ${machine.loadAfter.map((value) => value.toFixed(2)).join(' ')}; simulator latency ${report.settings.latencyMs} ms; estate ${report.settings.vms} VMs / ${report.settings.hosts} hosts; ${report.settings.durationSec} s per load run.`,
    '',
    ...lines,
  ].join('\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
