/**
 * `npm run soak`: a bounded soak of the gateway against the embedded simulator, on loopback only.
 * Workers mix reads, writes (synchronous and asynchronous) and `jobCompleted` subscriptions for
 * `SOAK_SECONDS` while the simulator injects a few faults, then every job the gateway handed out
 * is checked for its result. Prints memory at start and end, the outcome of every kind of
 * operation, and the number of lost job results (which must be 0: the exit code says so).
 *
 * Then, for `SOAK_ABUSE_SECONDS`, the same workers go on while an attacker process
 * (`soak-abuse.ts`: stalled bodies, large aliased mutations, strangers' webhooks) runs beside them,
 * and the normal callers' p99 in that phase is compared with the same length of quiet run just
 * before it: more than 2x fails the soak.
 *
 * Env: `SOAK_SECONDS` (default 180), `SOAK_ABUSE_SECONDS` (60; 0 skips the phase),
 * `SOAK_CONCURRENCY` (8), `SOAK_FAULT_RATE` (0.02), `SOAK_LATENCY_MS` (2),
 * `SOAK_ABUSE_STALLED` (100 stalled connections at once). Not part of `npm test`.
 *
 * `SOAK_MODE=fleet` runs the memory soak of two replicas on Redis instead (`soak/fleet.ts`).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { destination, pino } from 'pino';
import { createApp } from '../src/app.js';
import { numberFromEnv } from '../bench/knobs.js';
import { defaultConfig } from '../src/config/index.js';
import { createSimulator } from '../src/simulator/server.js';
import {
  connectedHosts,
  credentialHeaders,
  errorCodes,
  JOB_COMPLETED,
  OPERATION_TIMEOUT_MS,
  postGraphQL,
  subscribeOverWs,
  withDeadline,
  writeNqn,
  type GraphQLAnswer,
  type JobView,
} from './soak/client.js';
import { runFleetSoak } from './soak/fleet.js';
import { megabytes, quantile } from './soak/statistics.js';

const READS = [
  '{ hosts(first: 10) { totalCount nodes { name status vmInstances(first: 5) { totalCount nodes { name state } } } } }',
  '{ vmInstances(first: 25) { totalCount nodes { name state host { name } rootVolume { size } nics { ip } snapshotGroups(first: 3) { totalCount } } } }',
  '{ volumes(first: 20) { totalCount nodes { name size type vmInstance { name } } } }',
  '{ cbtTasks(first: 10) { totalCount nodes { name status } } snsApplicationPlatforms(first: 5) { nodes { name state } } }',
  '{ hbaDevices(first: 10) { nodes { portName host { name } } } fiberChannelLuns(first: 5) { totalCount nodes { hosts { name } } } }',
];

const JOB = 'query ($id: ID!) { job(id: $id) { id status error { code } } }';

/** The most the abuse phase may stretch the normal callers' p99. */
const MAX_P99_RATIO = 2;

/**
 * Memory in use, after a full collection when the script runs with `--expose-gc` (as `npm run
 * soak` does) and `collect` is left on; off while callers are timed, whom a collection would stall.
 */
function memory(collect = true): { rssMb: number; heapUsedMb: number } {
  if (collect) (globalThis as { gc?: () => void }).gc?.();
  const usage = process.memoryUsage();
  return { rssMb: megabytes(usage.rss), heapUsedMb: megabytes(usage.heapUsed) };
}

/** Runs the attacker process against `url` for `seconds`; resolves with what it reports. */
function runAttacker(url: string, seconds: number): Promise<Record<string, number>> {
  const script = fileURLToPath(new URL('./soak-abuse.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script, url, String(seconds)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`the attacker exited with ${code}`));
      else resolve(JSON.parse(output.trim().split('\n').pop() ?? '{}') as Record<string, number>);
    });
  });
}

async function main(): Promise<void> {
  const seconds = numberFromEnv('SOAK_SECONDS', 180);
  const abuseSeconds = numberFromEnv('SOAK_ABUSE_SECONDS', 60);
  const concurrency = Math.max(1, Math.floor(numberFromEnv('SOAK_CONCURRENCY', 8)));
  const faultRate = Math.min(1, numberFromEnv('SOAK_FAULT_RATE', 0.02));
  const latencyMs = numberFromEnv('SOAK_LATENCY_MS', 2);

  const simulator = createSimulator({ asyncDelayMs: 20, latencyMs, faultRate });
  const simulatorUrl = await simulator.start(0, '127.0.0.1');
  const app = createApp(
    // One credential stands for many callers here: its cost budget would refuse most of them.
    { ...defaultConfig, port: 0, host: '127.0.0.1', upstreamUrl: simulatorUrl, responseCacheTtlMs: 0, costBudget: 0 },
    // Logs go to stderr, so stdout holds only the soak's own report.
    { logger: pino({ level: 'error' }, destination(2)) },
  );
  const url = await app.start();
  const headers = credentialHeaders(simulator);
  const hosts = connectedHosts(simulator);

  const outcomes = new Map<string, number>();
  const count = (key: string): void => void outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
  /** Every job id the gateway handed out, with what the client last saw of it. */
  const jobs = new Map<string, JobView>();
  let sequence = 0;

  const gql = <T>(query: string, variables?: Record<string, unknown>): Promise<GraphQLAnswer<T>> => postGraphQL<T>(url, headers, query, variables);

  function tally(kind: string, answer: GraphQLAnswer<unknown>): void {
    const codes = errorCodes(answer);
    count(codes.length === 0 ? `${kind}: ok` : `${kind}: ${codes.join(',')}`);
  }

  /** When each normal HTTP operation (read or write) ended, and how long it took. */
  const latencies: { at: number; ms: number }[] = [];
  async function timed<T>(operation: () => Promise<T>): Promise<T> {
    const startedAt = performance.now();
    const result = await operation();
    latencies.push({ at: Date.now(), ms: performance.now() - startedAt });
    return result;
  }

  async function read(): Promise<void> {
    const query = READS[Math.floor(Math.random() * READS.length)] ?? READS[0]!;
    tally('read', await timed(() => gql(query)));
  }

  /** Starts a write; answers its job id when the gateway handed one out. */
  async function write(async: boolean): Promise<string | null> {
    const host = hosts[Math.floor(Math.random() * hosts.length)]!;
    sequence += 1;
    const answer = await timed(() => writeNqn(url, headers, host, sequence, async));
    const kind = async ? 'write (async)' : 'write (sync)';
    const payloadError = answer.data?.updateHostNqn?.error?.code;
    if (payloadError !== undefined && answer.errors === undefined) count(`${kind}: payload error ${payloadError}`);
    else tally(kind, answer);
    const job = answer.data?.updateHostNqn?.job ?? null;
    if (job !== null) jobs.set(job.id, job);
    return job?.id ?? null;
  }

  async function subscribe(): Promise<void> {
    const id = await write(true);
    if (id === null) return;
    let result: GraphQLAnswer<{ jobCompleted: JobView }> = {};
    const subscription = subscribeOverWs<{ jobCompleted: JobView }>(url, headers, JOB_COMPLETED, { id }, (value) => (result = value));
    try {
      await withDeadline(subscription.done, OPERATION_TIMEOUT_MS, 'jobCompleted event');
      tally('subscription', result);
      const job = result.data?.jobCompleted;
      if (job) jobs.set(job.id, job);
    } finally {
      await subscription.close();
    }
  }

  async function worker(deadline: number): Promise<void> {
    // Bounded as well as timed: a worker never runs away, whatever the clock does.
    for (let operations = 0; operations < 1_000_000 && Date.now() < deadline; operations++) {
      const roll = Math.random();
      try {
        if (roll < 0.6) await read();
        else if (roll < 0.75) await write(false);
        else if (roll < 0.9) await write(true);
        else await subscribe();
      } catch (error) {
        count(`failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }

  const start = memory();
  process.stdout.write(`soak: ${seconds} s, ${concurrency} workers, fault rate ${faultRate}, gateway ${url}\n`);
  process.stdout.write(`memory at start: ${JSON.stringify(start)}\n`);
  const startedAt = Date.now();
  const abuseAt = startedAt + seconds * 1000;
  const deadline = abuseAt + abuseSeconds * 1000;
  const workers = Promise.all(Array.from({ length: concurrency }, () => worker(deadline)));
  let attack: Record<string, number> = {};
  let quietMemory = start;
  if (abuseSeconds > 0) {
    await new Promise((resolve) => setTimeout(resolve, abuseAt - Date.now()));
    quietMemory = memory(false);
    process.stdout.write(`abuse phase: ${abuseSeconds} s beside the normal callers; memory before it: ${JSON.stringify(quietMemory)}\n`);
    attack = await runAttacker(url, abuseSeconds);
  }
  await workers;
  const abuseMemory = memory(false);
  // The normal callers' p99 under attack against the same length of quiet run just before it.
  const window = abuseSeconds * 1000;
  const quietP99 = quantile(latencies.filter((entry) => entry.at >= abuseAt - window && entry.at < abuseAt).map((entry) => entry.ms), 0.99);
  const abuseP99 = quantile(latencies.filter((entry) => entry.at >= abuseAt).map((entry) => entry.ms), 0.99);
  const p99Ratio = quietP99 > 0 ? Math.round((abuseP99 / quietP99) * 100) / 100 : 0;

  // Every job handed out must end with its result, whatever faults happened on the way.
  simulator.configure({ faultRate: 0 });
  const settleBy = Date.now() + 60_000;
  let pending = [...jobs.values()].filter((job) => job.status === 'RUNNING');
  while (pending.length > 0 && Date.now() < settleBy) {
    for (const job of pending) {
      const answer = await gql<{ job: JobView | null }>(JOB, { id: job.id }).catch(() => null);
      if (answer?.data?.job) jobs.set(job.id, answer.data.job);
    }
    pending = [...jobs.values()].filter((job) => job.status === 'RUNNING');
    if (pending.length > 0) await new Promise((resolve) => setTimeout(resolve, 500));
  }
  // Lost: still running, or given up although the upstream ran it. A write the upstream never
  // received (its connection failed first) ends GATEWAY.JOB_LOST too, rightly: nothing ran.
  const ranUpstream = (id: string): boolean => simulator.jobs.poll(id).status !== 404;
  const lost = [...jobs.values()].filter(
    (job) => job.status === 'RUNNING' || (job.error?.code === 'GATEWAY.JOB_LOST' && ranUpstream(job.id)),
  );

  await app.stop();
  await simulator.stop();
  const end = memory();
  const summary = {
    seconds: Math.round((Date.now() - startedAt) / 1000),
    operations: Object.fromEntries([...outcomes.entries()].sort(([a], [b]) => a.localeCompare(b))),
    jobs: jobs.size,
    upstreamRequests: simulator.stats().total,
    memory: { start, end },
    lostJobResults: lost.length,
    ...(abuseSeconds > 0
      ? {
          abuse: {
            seconds: abuseSeconds,
            attack,
            normalCallersP99Ms: { quiet: quietP99, underAttack: abuseP99, ratio: p99Ratio, limit: MAX_P99_RATIO },
            memory: { beforeAttack: quietMemory, afterAttack: abuseMemory },
          },
        }
      : {}),
  };
  process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  process.stdout.write(`memory at end: ${JSON.stringify(end)}\n`);
  process.stdout.write(`lost job results: ${lost.length}\n`);
  // A hung or failed operation, or an error without a code (or an internal one), fails the soak.
  const broken = [...outcomes.keys()].filter((key) => key.startsWith('failed:') || /UNTYPED|INTERNAL_SERVER_ERROR/.test(key));
  process.stdout.write(`broken operations: ${broken.length === 0 ? 'none' : broken.join('; ')}\n`);
  const attackHeld = abuseSeconds === 0 || p99Ratio <= MAX_P99_RATIO;
  if (abuseSeconds > 0) {
    process.stdout.write(`normal callers' p99: ${quietP99} ms quiet, ${abuseP99} ms under attack (${p99Ratio}x, limit ${MAX_P99_RATIO}x)\n`);
  }
  process.exitCode = lost.length === 0 && broken.length === 0 && attackHeld ? 0 : 1;
}

const mode = process.env.SOAK_MODE?.trim() || 'single';
if (mode !== 'single' && mode !== 'fleet') throw new Error(`SOAK_MODE must be single or fleet, got "${mode}"`);
(mode === 'fleet' ? runFleetSoak() : main()).catch((error: unknown) => {
  process.stderr.write(`soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
