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
import { createMemorySampler, type MemorySample, type SampledReplica } from './memory-samples.js';
import { megabytes, quantile, type Growth } from './statistics.js';

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

/** A job a write started, and what its `jobCompleted` delivered. */
interface StartedJob {
  host: string;
  sequence: number;
  deliveries: number;
  status: string | null;
}

/** A long-lived live host list: the sequence it last showed for each host, and the writes it has yet to show. */
interface LiveList {
  replica: string;
  answers: number;
  shown: Map<string, number>;
  awaited: { host: string; sequence: number; at: number }[];
}

interface EventsSubscriber {
  replica: string;
  seen: Map<string, number>;
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
    const outcome = await soak(settings, { replicas, admin, simulator, subscriptions });
    process.exitCode = outcome ? 0 : 1;
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

async function soak(
  settings: FleetSettings,
  fleet: { replicas: Replica[]; admin: Redis; simulator: Simulator; subscriptions: WsSubscription[] },
): Promise<boolean> {
  const { replicas, admin, simulator, subscriptions } = fleet;
  const headers = credentialHeaders(simulator);
  const failures = new Map<string, number>();
  const fail = (what: string): void => void failures.set(what, (failures.get(what) ?? 0) + 1);
  let stopping = false;

  /** Opens a long-lived subscription; its end before the soak's counts as a failure. */
  function keepOpen<T>(replica: Replica, kind: string, query: string, onResult: (result: GraphQLAnswer<T>) => void): void {
    const subscription = subscribeOverWs<T>(replica.url, headers, query, {}, onResult);
    subscriptions.push(subscription);
    subscription.done.then(
      () => stopping || fail(`${kind} on replica ${replica.name} completed early`),
      (error: unknown) => stopping || fail(`${kind} on replica ${replica.name}: ${error instanceof Error ? error.message : String(error)}`),
    );
  }

  const lists: LiveList[] = [];
  const lags: number[] = [];
  let liveMet = 0;
  let liveLost = 0;
  /** Settles what `list` awaited: shown (with its lag from the write's `jobCompleted`), or lost once past the bound. */
  function settleList(list: LiveList, now: number): void {
    list.awaited = list.awaited.filter((write) => {
      if ((list.shown.get(write.host) ?? 0) >= write.sequence) {
        liveMet += 1;
        lags.push(Math.max(0, now - write.at));
        return false;
      }
      if (now - write.at <= settings.liveBoundMs) return true;
      liveLost += 1;
      return false;
    });
  }
  for (const replica of replicas) {
    for (let index = 0; index < LIVE_PER_REPLICA; index++) {
      const list: LiveList = { replica: replica.name, answers: 0, shown: new Map(), awaited: [] };
      lists.push(list);
      keepOpen<{ hosts: { nodes: { uuid: string; nqn: string | null }[] } }>(replica, 'live host list', LIVE_HOSTS, (result) => {
        list.answers += 1;
        if (result.errors) fail(`live host list: ${errorCodes(result).join(',')}`);
        for (const host of result.data?.hosts.nodes ?? []) list.shown.set(host.uuid, sequenceOfNqn(host.nqn));
        settleList(list, Date.now());
      });
    }
  }

  const subscribers: EventsSubscriber[] = [];
  for (const replica of replicas) {
    for (let index = 0; index < EVENTS_PER_REPLICA; index++) {
      const subscriber: EventsSubscriber = { replica: replica.name, seen: new Map() };
      subscribers.push(subscriber);
      keepOpen<{ jobEvents: JobView }>(replica, 'jobEvents', JOB_EVENTS, (result) => {
        const id = result.data?.jobEvents.id;
        if (id === undefined) fail(`jobEvents: ${JSON.stringify(result.errors ?? result).slice(0, 200)}`);
        else subscriber.seen.set(id, (subscriber.seen.get(id) ?? 0) + 1);
      });
    }
  }
  await eventually(() => lists.every((list) => list.answers > 0), 'the first answer of every live host list', 300, 100);

  const jobs = new Map<string, StartedJob>();
  let sequence = 0;
  /** Starts a write through `via`, awaits its `jobCompleted` on `other`, and expects every live list to show it. */
  async function write(via: Replica, other: Replica, host: string): Promise<void> {
    sequence += 1;
    const written = sequence;
    const answer = await writeNqn(via.url, headers, host, written, true).catch((error: unknown): WriteAnswer => ({ errors: [{ message: String(error) }] }));
    const job = answer.data?.updateHostNqn?.job;
    if (!job || answer.errors || answer.data?.updateHostNqn?.error) {
      fail(`write: ${JSON.stringify(answer.errors ?? answer.data).slice(0, 200)}`);
      return;
    }
    const started: StartedJob = { host, sequence: written, deliveries: 0, status: null };
    jobs.set(job.id, started);
    const completed = subscribeOverWs<{ jobCompleted: JobView }>(other.url, headers, JOB_COMPLETED, { id: job.id }, (result) => {
      if (!result.data?.jobCompleted) return fail(`jobCompleted: ${errorCodes(result).join(',')}`);
      started.deliveries += 1;
      started.status = result.data.jobCompleted.status;
    });
    try {
      await withDeadline(completed.done, OPERATION_TIMEOUT_MS, 'jobCompleted');
    } catch (error) {
      fail(`jobCompleted on replica ${other.name}: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      await completed.close();
    }
    if (started.status !== 'SUCCEEDED') return;
    const at = Date.now();
    for (const list of lists) {
      list.awaited.push({ host, sequence: written, at });
      settleList(list, at);
    }
  }

  // One write before the clock starts proves every subscriber is listening: jobs before it would
  // not be theirs to miss.
  const hosts = connectedHosts(simulator);
  await write(replicas[0]!, replicas[1]!, hosts[0]!);
  const probe = [...jobs.keys()][0];
  if (probe === undefined) throw new Error(`the first write failed: ${JSON.stringify(Object.fromEntries(failures))}`);
  await eventually(() => subscribers.every((subscriber) => subscriber.seen.has(probe)), 'the first job on every jobEvents subscriber', 300, 50);

  const startedAt = Date.now();
  const deadline = startedAt + settings.minutes * 60_000;
  const warmupSeconds = settings.warmupMinutes * 60;
  const sampler = createMemorySampler({ replicas, redis: admin, file: settings.samplesFile, startedAt });
  log(
    `fleet soak: ${settings.minutes} min, 2 replicas (${replicas.map((replica) => replica.url).join(', ')}) on ${admin.options.host}:${admin.options.port}, ` +
      `${settings.writesPerSecond} writes/s, ${lists.length} live lists, ${subscribers.length} jobEvents subscribers; ` +
      `growth fitted after a ${settings.warmupMinutes} min warm-up; samples every ${settings.sampleSeconds} s to ${settings.samplesFile}`,
  );
  log(`first sample: ${describeSample(await sampler.sample())}`);

  const sampling = (async () => {
    let lastReport = Date.now();
    while (Date.now() < deadline) {
      await sleep(Math.min(settings.sampleSeconds * 1000, Math.max(0, deadline - Date.now())));
      const sample = await sampler.sample();
      if (Date.now() - lastReport >= 60_000) {
        lastReport = Date.now();
        log(`${(sample.t / 60).toFixed(1)} min: ${jobs.size} jobs, live lost ${liveLost}, failures ${[...failures.values()].reduce((a, b) => a + b, 0)}; ${describeSample(sample)}`);
      }
    }
  })();

  const shortLived = { opened: 0, answered: 0 };
  const churning = (async () => {
    while (Date.now() + SHORT_LIVE_EVERY_MS < deadline) {
      await sleep(SHORT_LIVE_EVERY_MS);
      await Promise.all(
        replicas.map(async (replica) => {
          shortLived.opened += 1;
          let answered!: () => void;
          const first = new Promise<void>((resolve) => (answered = resolve));
          const live = subscribeOverWs(replica.url, headers, LIVE_HOSTS, {}, () => answered());
          try {
            await withDeadline(Promise.race([first, live.done]), OPERATION_TIMEOUT_MS, 'first answer of a short-lived live query');
            shortLived.answered += 1;
          } catch (error) {
            fail(`short-lived live query on replica ${replica.name}: ${error instanceof Error ? error.message : String(error)}`);
          } finally {
            await live.close();
          }
        }),
      );
    }
  })();

  // Writes, in turn through each replica, one at a time per host: a host's NQN then only ever
  // moves to a higher sequence, which is what a live list is checked against.
  const idle = [...hosts];
  const writing = new Set<Promise<void>>();
  let skipped = 0;
  for (let turn = 0; Date.now() < deadline; turn++) {
    const host = idle.shift();
    if (host === undefined) skipped += 1;
    else {
      const running: Promise<void> = write(replicas[turn % 2]!, replicas[(turn + 1) % 2]!, host).finally(() => {
        writing.delete(running);
        idle.push(host);
      });
      writing.add(running);
    }
    await sleep(1000 / settings.writesPerSecond);
  }
  await Promise.all(writing);
  await Promise.all([sampling, churning]);

  // The last jobs' deliveries, and the live lists' answers to the last writes.
  const everyJobSeen = () => subscribers.every((subscriber) => [...jobs.keys()].every((id) => subscriber.seen.has(id)));
  for (const settleBy = Date.now() + SETTLE_MS; Date.now() < settleBy && !everyJobSeen(); ) await sleep(200);
  for (const settleBy = Date.now() + settings.liveBoundMs + 1000; Date.now() < settleBy && lists.some((list) => list.awaited.length > 0); ) {
    await sleep(200);
    for (const list of lists) settleList(list, Date.now());
  }
  const last = await sampler.sample();
  stopping = true;

  const delivered = [...jobs.values()];
  const events = subscribers.map((subscriber) => ({
    replica: subscriber.replica,
    seen: [...subscriber.seen.values()].reduce((a, b) => a + b, 0),
    missing: [...jobs.keys()].filter((id) => !subscriber.seen.has(id)).length,
    doubled: [...subscriber.seen.values()].filter((count) => count > 1).length,
    unexpected: [...subscriber.seen.keys()].filter((id) => !jobs.has(id)).length,
  }));
  const counts = {
    jobsStarted: jobs.size,
    jobStatuses: tallyOf(delivered.map((job) => job.status ?? 'none')),
    jobCompleted: {
      deliveredOnce: delivered.filter((job) => job.deliveries === 1).length,
      missing: delivered.filter((job) => job.deliveries === 0).length,
      doubled: delivered.filter((job) => job.deliveries > 1).length,
    },
    jobEvents: {
      subscribers: events.length,
      seen: events.reduce((sum, subscriber) => sum + subscriber.seen, 0),
      missing: events.reduce((sum, subscriber) => sum + subscriber.missing, 0),
      doubled: events.reduce((sum, subscriber) => sum + subscriber.doubled, 0),
      unexpected: events.reduce((sum, subscriber) => sum + subscriber.unexpected, 0),
    },
    liveLists: {
      lists: lists.length,
      answers: lists.reduce((sum, list) => sum + list.answers, 0),
      writesShown: liveMet,
      lost: liveLost,
      lagMs: { p50: quantile(lags, 0.5), p99: quantile(lags, 0.99), max: quantile(lags, 1) },
      boundMs: settings.liveBoundMs,
    },
    shortLivedLiveQueries: shortLived,
    writesSkippedAllHostsBusy: skipped,
    upstreamJobPolls: simulator.stats().byOperation[POLL_OPERATION] ?? 0,
  };
  const growth = sampler.growth(warmupSeconds);
  const verdicts = judgeGrowth(growth, settings);
  const stream = streamFootprint(last);
  const summary = {
    minutes: Math.round((Date.now() - startedAt) / 600) / 100,
    warmupMinutes: settings.warmupMinutes,
    samples: sampler.samples.length,
    samplesFile: settings.samplesFile,
    growthMbPerHour: growth,
    growthBounds: { replicaRssMbPerHour: settings.maxRssMbPerHour, redisLessStreamMbPerHour: settings.maxRedisMbPerHour, judgedFromFitMinutes: JUDGED_FIT_MINUTES },
    resultsStream: stream,
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
  const lost =
    counts.jobCompleted.missing + counts.jobCompleted.doubled + counts.jobEvents.missing + counts.jobEvents.doubled + counts.jobEvents.unexpected + liveLost;
  log(`jobs ${jobs.size}; jobCompleted missing ${counts.jobCompleted.missing}, doubled ${counts.jobCompleted.doubled}; jobEvents seen ${counts.jobEvents.seen}, missing ${counts.jobEvents.missing}, doubled ${counts.jobEvents.doubled}; live writes shown ${liveMet}, lost ${liveLost}`);
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
 * The finished-jobs stream at the end, and what it would take at its cap (`STREAM_MAX_LEN` in
 * `src/jobs/redis-pubsub.ts`, about 10,000 entries): it grows by design until then.
 */
function streamFootprint(last: MemorySample): Record<string, number> {
  const { streamEntries: entries, streamMb: mb } = last.redis;
  const bytesPerEntry = entries > 0 ? Math.round((mb * 1024 * 1024) / entries) : 0;
  return { entries, mb, bytesPerEntry, mbAtCap: megabytes(bytesPerEntry * 10_000) };
}

function describeSample(sample: MemorySample): string {
  const replicas = Object.entries(sample.replicas).map(([name, memory]) => `${name} RSS ${memory.rssMb} MB heap ${memory.heapMb} MB`);
  return `${replicas.join(', ')}, Redis ${sample.redis.usedMb} MB (stream ${sample.redis.streamEntries} entries, ${sample.redis.streamMb} MB)`;
}

function tallyOf(values: readonly string[]): Record<string, number> {
  const tally: Record<string, number> = {};
  for (const value of values) tally[value] = (tally[value] ?? 0) + 1;
  return tally;
}
