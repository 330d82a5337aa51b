/**
 * `SOAK_MODE=fleet npm run soak`: a memory soak of a fleet, on loopback only. One real
 * redis-server (no persistence), one simulator (in this process), and two gateway replicas as
 * processes of their own on that Redis, each with its own `PUBLIC_URL`, so every job's webhook
 * lands on the replica that started it.
 *
 * For `SOAK_MINUTES` (20), clients spread over both replicas keep `@live` host lists and
 * `jobEvents` subscriptions open, each on a socket of its own; a few writes a second
 * (`SOAK_WRITES_PER_SECOND`, 2: `updateHostNqn`, async, finished by the simulator's webhook) go
 * through the replicas in turn, one at a time per host, and each write's `jobCompleted` is awaited
 * on the *other* replica; every 30 s a short-lived live query is opened and closed on each replica.
 *
 * Every `SOAK_SAMPLE_SECONDS` (10) it samples each replica's RSS and V8 heap (just after a full
 * collection, through `bench/heap-probe.ts`) and Redis' `used_memory` into `SOAK_SAMPLES` (CSV,
 * `test/artifacts/soak-fleet.csv`), then fits a least-squares line to each series from
 * `SOAK_WARMUP_MINUTES` on (2, or a quarter of a shorter run) and reports growth per hour.
 *
 * It exits 1 when anything is lost or broken: a job whose `jobCompleted` or whose `jobEvents` on
 * any subscriber is missing or doubled, a live list that does not show a finished write within
 * `SOAK_LIVE_BOUND_MS` (10,000), a failed operation or a subscription that ended; or when, over a
 * fit of 10 minutes or more, a replica's RSS grows faster than `SOAK_MAX_RSS_MB_PER_HOUR` (20) or
 * Redis, the results stream aside, faster than `SOAK_MAX_REDIS_MB_PER_HOUR` (5).
 *
 * The replicas run with `LIVE_POLL_MS=0`, so a live list can learn of a write only from the
 * finished job crossing Redis, and `JOB_TTL_MS=60000`, so the finished jobs Redis keeps reach their
 * steady number within the warm-up instead of growing for the default hour.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { numberFromEnv } from '../../bench/knobs.js';
import { startGateway } from '../../bench/processes.js';
import { defaultConfig } from '../../src/config/index.js';
import { createSimulator, POLL_OPERATION, type Simulator } from '../../src/simulator/server.js';
import { eventually } from '../../test/support/process.js';
import { freePort, startRedis } from '../../test/support/redis.js';
import {
  connectedHosts,
  credentialHeaders,
  errorCodes,
  JOB_COMPLETED,
  OPERATION_TIMEOUT_MS,
  sequenceOfNqn,
  subscribeOverWs,
  withDeadline,
  writeNqn,
  type GraphQLAnswer,
  type JobView,
  type WriteAnswer,
  type WsSubscription,
} from './client.js';
import { createJobLedger, createLiveLedger, type JobLedger, type LiveLedger } from './ledgers.js';
import { createMemorySampler, type MemorySample, type MemorySampler, type SampledReplica } from './memory-samples.js';
import { megabytes, type Growth } from './statistics.js';

const LIVE_HOSTS = 'query FleetHosts @live { hosts(first: 50) { nodes { uuid nqn } } }';
const JOB_EVENTS = 'subscription { jobEvents { id status } }';

/** Long-lived live lists, and `jobEvents` subscribers, on each replica. */
const LIVE_PER_REPLICA = 2;
const EVENTS_PER_REPLICA = 2;
/** How often each replica gets a live query that is opened, answered once and closed. */
const SHORT_LIVE_EVERY_MS = 30_000;
/** The least fit, in minutes, whose growth is judged: a shorter one extrapolated to an hour is noise. */
const JUDGED_FIT_MINUTES = 10;
/** The most the end of the run waits for the last jobs' deliveries. */
const SETTLE_MS = 30_000;

interface FleetSettings {
  minutes: number;
  warmupMinutes: number;
  sampleSeconds: number;
  writesPerSecond: number;
  liveBoundMs: number;
  maxRssMbPerHour: number;
  maxRedisMbPerHour: number;
  samplesFile: string;
}

interface Replica extends SampledReplica {
  readonly url: string;
}

/** What one run holds: its replicas and clients, its ledgers and the failures it met. */
interface Run {
  readonly settings: FleetSettings;
  readonly replicas: readonly Replica[];
  readonly simulator: Simulator;
  readonly headers: Record<string, string>;
  readonly jobs: JobLedger;
  readonly live: LiveLedger;
  readonly failures: Map<string, number>;
  /** Every subscription opened, closed when the run ends. */
  readonly subscriptions: WsSubscription[];
  /** Set once the run's counts are taken: a subscription ending after that is no failure. */
  stopping: boolean;
  sequence: number;
}

function readSettings(): FleetSettings {
  const minutes = numberFromEnv('SOAK_MINUTES', 20);
  return {
    minutes,
    warmupMinutes: numberFromEnv('SOAK_WARMUP_MINUTES', Math.min(2, minutes / 4)),
    sampleSeconds: Math.max(1, numberFromEnv('SOAK_SAMPLE_SECONDS', 10)),
    writesPerSecond: Math.max(0.1, numberFromEnv('SOAK_WRITES_PER_SECOND', 2)),
    liveBoundMs: numberFromEnv('SOAK_LIVE_BOUND_MS', 10_000),
    maxRssMbPerHour: numberFromEnv('SOAK_MAX_RSS_MB_PER_HOUR', 20),
    maxRedisMbPerHour: numberFromEnv('SOAK_MAX_REDIS_MB_PER_HOUR', 5),
    samplesFile: process.env.SOAK_SAMPLES?.trim() || 'test/artifacts/soak-fleet.csv',
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

function fail(run: Run, what: string): void {
  run.failures.set(what, (run.failures.get(what) ?? 0) + 1);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export async function runFleetSoak(): Promise<void> {
  const settings = readSettings();
  const redis = await startRedis();
  const simulator = createSimulator({ asyncDelayMs: 50 });
  const upstreamUrl = await simulator.start(0, '127.0.0.1');
  const heapDir = await mkdtemp(join(tmpdir(), 'soak-fleet-'));
  const replicas: Replica[] = [];
  const admin = new Redis(redis.url, { lazyConnect: true });
  const subscriptions: WsSubscription[] = [];
  // Interrupted, it leaves no replica or redis-server behind: each is sent SIGTERM before the exit.
  const abandon = (signal: NodeJS.Signals): void => {
    for (const replica of replicas) void replica.gateway.stop();
    void redis.stop();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', abandon);
  process.once('SIGTERM', abandon);
  try {
    for (const name of ['a', 'b']) replicas.push(await startReplica(name, upstreamUrl, redis.url, heapDir));
    await admin.connect();
    const run: Run = {
      settings,
      replicas,
      simulator,
      headers: credentialHeaders(simulator),
      jobs: createJobLedger(),
      live: createLiveLedger(settings.liveBoundMs),
      failures: new Map(),
      subscriptions,
      stopping: false,
      sequence: 0,
    };
    process.exitCode = (await soak(run, admin)) ? 0 : 1;
  } finally {
    await Promise.all(subscriptions.map((subscription) => subscription.close()));
    await Promise.all(replicas.map((replica) => replica.gateway.stop()));
    admin.disconnect();
    await simulator.stop();
    await redis.stop();
    await rm(heapDir, { recursive: true, force: true });
    process.off('SIGINT', abandon);
    process.off('SIGTERM', abandon);
  }
}

async function startReplica(name: string, upstreamUrl: string, redisUrl: string, heapDir: string): Promise<Replica> {
  const port = await freePort();
  const heapFile = join(heapDir, `${name}.json`);
  const gateway = await startGateway({
    upstreamUrl,
    env: {
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      REDIS_URL: redisUrl,
      LIVE_POLL_MS: '0',
      JOB_TTL_MS: '60000',
      BENCH_HEAP_FILE: heapFile,
    },
    nodeArgs: ['--expose-gc', '--import', './bench/heap-probe.ts'],
  });
  await eventually(async () => (await fetch(`${gateway.url}/readyz`)).status === 200, `replica ${name} ready`, 200, 100);
  return { name, url: gateway.url, gateway, heapFile };
}

/** Runs the soak on a started fleet; true when nothing was lost or broken and growth held its bounds. */
async function soak(run: Run, admin: Redis): Promise<boolean> {
  const { settings, replicas, jobs, live } = run;
  await openLongLived(run);
  // One write before the clock starts proves every subscriber is listening: jobs before it would
  // not be theirs to miss.
  const hosts = connectedHosts(run.simulator);
  const probe = await write(run, replicas[0]!, replicas[1]!, hosts[0]!);
  if (probe === null) throw new Error(`the first write failed: ${JSON.stringify(Object.fromEntries(run.failures))}`);
  await eventually(() => jobs.everySeen(probe), 'the first job on every jobEvents subscriber', 300, 50);

  const startedAt = Date.now();
  const deadline = startedAt + settings.minutes * 60_000;
  const sampler = createMemorySampler({ replicas, redis: admin, file: settings.samplesFile, startedAt });
  log(
    `fleet soak: ${settings.minutes} min, 2 replicas (${replicas.map((replica) => replica.url).join(', ')}) on ${admin.options.host}:${admin.options.port}, ` +
      `${settings.writesPerSecond} writes/s, ${live.summary().lists} live lists, ${jobs.summary().jobEvents.subscribers} jobEvents subscribers; ` +
      `growth fitted after a ${settings.warmupMinutes} min warm-up; samples every ${settings.sampleSeconds} s to ${settings.samplesFile}`,
  );
  log(`first sample: ${describeSample(await sampler.sample())}`);
  const [, shortLived, skipped] = await Promise.all([sampleUntil(run, sampler, deadline), openShortLivedUntil(run, deadline), writeUntil(run, hosts, deadline)]);

  // The last jobs' deliveries, and the live lists' answers to the last writes.
  for (const settleBy = Date.now() + SETTLE_MS; Date.now() < settleBy && !jobs.everySeen(); ) await sleep(200);
  for (const settleBy = Date.now() + settings.liveBoundMs + 1000; Date.now() < settleBy && live.awaited > 0; ) {
    await sleep(200);
    live.settle();
  }
  const last = await sampler.sample();
  run.stopping = true;
  const counts = {
    ...jobs.summary(),
    liveLists: live.summary(),
    shortLivedLiveQueries: shortLived,
    writesSkippedAllHostsBusy: skipped,
    upstreamJobPolls: run.simulator.stats().byOperation[POLL_OPERATION] ?? 0,
  };
  return report(run, { sampler, last, counts, minutes: Math.round((Date.now() - startedAt) / 600) / 100 });
}

/** Opens a long-lived subscription; its end before the run's counts is a failure. */
function keepOpen<T>(run: Run, replica: Replica, kind: string, query: string, onResult: (result: GraphQLAnswer<T>) => void): void {
  const subscription = subscribeOverWs<T>(replica.url, run.headers, query, {}, onResult);
  run.subscriptions.push(subscription);
  subscription.done.then(
    () => run.stopping || fail(run, `${kind} on replica ${replica.name} completed early`),
    (error: unknown) => run.stopping || fail(run, `${kind} on replica ${replica.name}: ${messageOf(error)}`),
  );
}

/** The live host lists and `jobEvents` subscribers of every replica, once each list has answered. */
async function openLongLived(run: Run): Promise<void> {
  for (const replica of run.replicas) {
    for (let index = 0; index < LIVE_PER_REPLICA; index++) {
      const answered = run.live.list();
      keepOpen<{ hosts: { nodes: { uuid: string; nqn: string | null }[] } }>(run, replica, 'live host list', LIVE_HOSTS, (result) => {
        if (result.errors) fail(run, `live host list: ${errorCodes(result).join(',')}`);
        answered((result.data?.hosts.nodes ?? []).map((host) => ({ uuid: host.uuid, sequence: sequenceOfNqn(host.nqn) })));
      });
    }
    for (let index = 0; index < EVENTS_PER_REPLICA; index++) {
      const received = run.jobs.subscriber();
      keepOpen<{ jobEvents: JobView }>(run, replica, 'jobEvents', JOB_EVENTS, (result) => {
        const id = result.data?.jobEvents.id;
        if (id === undefined) fail(run, `jobEvents: ${JSON.stringify(result.errors ?? result).slice(0, 200)}`);
        else received(id);
      });
    }
  }
  await eventually(() => run.live.everyAnswered(), 'the first answer of every live host list', 300, 100);
}

/**
 * Starts a write through `via`, awaits its `jobCompleted` on `other`, and once it succeeded
 * expects every live list to show it; answers the job's id, null when no job started.
 */
async function write(run: Run, via: Replica, other: Replica, host: string): Promise<string | null> {
  run.sequence += 1;
  const sequence = run.sequence;
  const answer = await writeNqn(via.url, run.headers, host, sequence, true).catch((error: unknown): WriteAnswer => ({ errors: [{ message: messageOf(error) }] }));
  const id = answer.data?.updateHostNqn?.job?.id;
  if (id === undefined || answer.errors || answer.data?.updateHostNqn?.error) {
    fail(run, `write: ${JSON.stringify(answer.errors ?? answer.data).slice(0, 200)}`);
    return null;
  }
  const job = run.jobs.start(id, host, sequence);
  const completed = subscribeOverWs<{ jobCompleted: JobView }>(other.url, run.headers, JOB_COMPLETED, { id }, (result) => {
    if (!result.data?.jobCompleted) return fail(run, `jobCompleted: ${errorCodes(result).join(',')}`);
    job.deliveries += 1;
    job.status = result.data.jobCompleted.status;
  });
  try {
    await withDeadline(completed.done, OPERATION_TIMEOUT_MS, 'jobCompleted');
  } catch (error) {
    fail(run, `jobCompleted on replica ${other.name}: ${messageOf(error)}`);
  } finally {
    await completed.close();
  }
  if (job.status === 'SUCCEEDED') run.live.expect(host, sequence);
  return id;
}

/**
 * Writes until `deadline`, in turn through each replica, one at a time per host: a host's NQN
 * then only ever moves to a higher sequence, which is what a live list is checked against.
 * Answers the writes skipped because every host was busy.
 */
async function writeUntil(run: Run, hosts: readonly string[], deadline: number): Promise<number> {
  const idle = [...hosts];
  const writing = new Set<Promise<unknown>>();
  let skipped = 0;
  for (let turn = 0; Date.now() < deadline; turn++) {
    const host = idle.shift();
    if (host === undefined) skipped += 1;
    else {
      const running: Promise<unknown> = write(run, run.replicas[turn % 2]!, run.replicas[(turn + 1) % 2]!, host).finally(() => {
        writing.delete(running);
        idle.push(host);
      });
      writing.add(running);
    }
    await sleep(1000 / run.settings.writesPerSecond);
  }
  await Promise.all(writing);
  return skipped;
}

/** Every `SHORT_LIVE_EVERY_MS` until `deadline`, a live query on each replica opened, answered once and closed. */
async function openShortLivedUntil(run: Run, deadline: number): Promise<{ opened: number; answered: number }> {
  const counts = { opened: 0, answered: 0 };
  while (Date.now() + SHORT_LIVE_EVERY_MS < deadline) {
    await sleep(SHORT_LIVE_EVERY_MS);
    await Promise.all(
      run.replicas.map(async (replica) => {
        counts.opened += 1;
        let answered!: () => void;
        const first = new Promise<void>((resolve) => (answered = resolve));
        const live = subscribeOverWs(replica.url, run.headers, LIVE_HOSTS, {}, () => answered());
        try {
          await withDeadline(Promise.race([first, live.done]), OPERATION_TIMEOUT_MS, 'first answer of a short-lived live query');
          counts.answered += 1;
        } catch (error) {
          fail(run, `short-lived live query on replica ${replica.name}: ${messageOf(error)}`);
        } finally {
          await live.close();
        }
      }),
    );
  }
  return counts;
}

/** Samples every `SOAK_SAMPLE_SECONDS` until `deadline`, with a line of progress about every minute. */
async function sampleUntil(run: Run, sampler: MemorySampler, deadline: number): Promise<void> {
  let reportedAt = Date.now();
  while (Date.now() < deadline) {
    await sleep(Math.min(run.settings.sampleSeconds * 1000, Math.max(0, deadline - Date.now())));
    const sample = await sampler.sample();
    if (Date.now() - reportedAt < 60_000) continue;
    reportedAt = Date.now();
    const failures = [...run.failures.values()].reduce((total, count) => total + count, 0);
    log(`${(sample.t / 60).toFixed(1)} min: ${run.jobs.size} jobs, live lost ${run.live.lost}, failures ${failures}; ${describeSample(sample)}`);
  }
}

/** Prints the summary and the verdicts; true when nothing was lost or broken and growth held. */
function report(
  run: Run,
  result: { sampler: MemorySampler; last: MemorySample; counts: ReturnType<JobLedger['summary']> & { liveLists: ReturnType<LiveLedger['summary']> }; minutes: number },
): boolean {
  const { settings, failures } = run;
  const { sampler, last, counts } = result;
  const growth = sampler.growth(settings.warmupMinutes * 60);
  const verdicts = judgeGrowth(growth, settings);
  const summary = {
    minutes: result.minutes,
    warmupMinutes: settings.warmupMinutes,
    samples: sampler.samples.length,
    samplesFile: settings.samplesFile,
    growthMbPerHour: growth,
    growthBounds: { replicaRssMbPerHour: settings.maxRssMbPerHour, redisLessStreamMbPerHour: settings.maxRedisMbPerHour, judgedFromFitMinutes: JUDGED_FIT_MINUTES },
    resultsStream: streamFootprint(last),
    first: sampler.samples[0],
    last,
    counts,
    failures: Object.fromEntries(failures),
  };
  log(JSON.stringify(summary, null, 2));
  log(`growth per hour, fitted to the samples after the first ${settings.warmupMinutes} min:`);
  for (const [series, fit] of Object.entries(growth)) {
    log(`  ${series}: ${fit === null ? 'too few samples' : `${fit.perHour} ± ${fit.standardError} MB/h (${fit.from} -> ${fit.to} MB over ${fit.spanMinutes} min)`}`);
  }
  for (const verdict of verdicts) log(`  ${verdict.text}`);
  const { jobCompleted, jobEvents, liveLists } = counts;
  const lost = jobCompleted.missing + jobCompleted.doubled + jobEvents.missing + jobEvents.doubled + jobEvents.unexpected + liveLists.lost;
  log(
    `jobs ${counts.jobsStarted}; jobCompleted missing ${jobCompleted.missing}, doubled ${jobCompleted.doubled}; ` +
      `jobEvents seen ${jobEvents.seen}, missing ${jobEvents.missing}, doubled ${jobEvents.doubled}; live writes shown ${liveLists.writesShown}, lost ${liveLists.lost}`,
  );
  log(`lost: ${lost}; failures: ${failures.size === 0 ? 'none' : [...failures.keys()].join('; ')}`);
  return lost === 0 && failures.size === 0 && verdicts.every((verdict) => verdict.held);
}

/** Each bounded series' growth against its bound; a fit shorter than `JUDGED_FIT_MINUTES` is reported, not judged. */
function judgeGrowth(growth: Record<string, Growth | null>, settings: FleetSettings): { held: boolean; text: string }[] {
  const bounded = Object.keys(growth)
    .filter((series) => series.endsWith(' RSS'))
    .map((series) => [series, settings.maxRssMbPerHour] as const)
    .concat([['Redis used_memory less the stream', settings.maxRedisMbPerHour]]);
  return bounded.map(([series, bound]) => {
    const fit = growth[series];
    if (!fit || fit.spanMinutes < JUDGED_FIT_MINUTES) return { held: true, text: `${series}: not judged (fit over ${fit?.spanMinutes ?? 0} min < ${JUDGED_FIT_MINUTES})` };
    const held = fit.perHour <= bound;
    return { held, text: `${series}: ${fit.perHour} MB/h ${held ? 'within' : 'OVER'} the bound of ${bound} MB/h` };
  });
}

/**
 * The finished-jobs stream at the end, and what it would take at its cap (`REDIS_STREAM_MAX_LEN`,
 * which the soak leaves at its default): it grows by design until then.
 */
function streamFootprint(last: MemorySample): Record<string, number> {
  const { streamEntries: entries, streamMb: mb } = last.redis;
  const bytesPerEntry = entries > 0 ? Math.round((mb * 1024 * 1024) / entries) : 0;
  return { entries, mb, bytesPerEntry, mbAtCap: megabytes(bytesPerEntry * defaultConfig.redisStreamMaxLen) };
}

function describeSample(sample: MemorySample): string {
  const replicas = Object.entries(sample.replicas).map(([name, memory]) => `${name} RSS ${memory.rssMb} MB heap ${memory.heapMb} MB`);
  return `${replicas.join(', ')}, Redis ${sample.redis.usedMb} MB (stream ${sample.redis.streamEntries} entries, ${sample.redis.streamMb} MB)`;
}
