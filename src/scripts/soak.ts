/**
 * `npm run soak`: a bounded soak of the gateway against the embedded simulator, on loopback only.
 * Workers mix reads, writes (synchronous and asynchronous) and `jobCompleted` subscriptions for
 * `SOAK_SECONDS` while the simulator injects a few faults, then every job the gateway handed out
 * is checked for its result. Prints memory at start and end, the outcome of every kind of
 * operation, and the number of lost job results (which must be 0: the exit code says so).
 *
 * Env: `SOAK_SECONDS` (default 180), `SOAK_CONCURRENCY` (8), `SOAK_FAULT_RATE` (0.02),
 * `SOAK_LATENCY_MS` (2). Not part of `npm test`.
 */
import { createClient } from 'graphql-ws';
import { destination, pino } from 'pino';
import WebSocket from 'ws';
import { createApp } from '../app.js';
import { defaultConfig } from '../config.js';
import { createSimulator } from '../simulator/server.js';

interface GraphQLAnswer<T> {
  data?: T | null;
  errors?: { message: string; extensions?: { code?: unknown } }[];
}

interface JobView {
  id: string;
  status: string;
  error: { code: string } | null;
}

const READS = [
  '{ hosts(first: 10) { totalCount nodes { name status vmInstances(first: 5) { totalCount nodes { name state } } } } }',
  '{ vmInstances(first: 25) { totalCount nodes { name state host { name } rootVolume { size } nics { ip } snapshotGroups(first: 3) { totalCount } } } }',
  '{ volumes(first: 20) { totalCount nodes { name size type vmInstance { name } } } }',
  '{ cbtTasks(first: 10) { totalCount nodes { name status } } snsApplicationPlatforms(first: 5) { nodes { name state } } }',
  '{ hbaDevices(first: 10) { nodes { portName host { name } } } fiberChannelLuns(first: 5) { totalCount nodes { hosts { name } } } }',
];

const WRITE = /* GraphQL */ `
  mutation ($input: UpdateHostNqnInput!) {
    updateHostNqn(input: $input) { error { code } job { id status error { code } } }
  }
`;

const JOB = 'query ($id: ID!) { job(id: $id) { id status error { code } } }';
const JOB_COMPLETED = 'subscription ($id: ID!) { jobCompleted(id: $id) { id status error { code } } }';

/** How long one operation may take before it counts as hung. */
const OPERATION_TIMEOUT_MS = 30_000;

function readNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return value;
}

function megabytes(bytes: number): number {
  return Math.round((bytes / 1024 / 1024) * 10) / 10;
}

/** Memory in use, after a full collection when the script runs with `--expose-gc` (as `npm run soak` does). */
function memory(): { rssMb: number; heapUsedMb: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const usage = process.memoryUsage();
  return { rssMb: megabytes(usage.rss), heapUsedMb: megabytes(usage.heapUsed) };
}

async function main(): Promise<void> {
  const seconds = readNumber('SOAK_SECONDS', 180);
  const concurrency = Math.max(1, Math.floor(readNumber('SOAK_CONCURRENCY', 8)));
  const faultRate = Math.min(1, readNumber('SOAK_FAULT_RATE', 0.02));
  const latencyMs = readNumber('SOAK_LATENCY_MS', 2);

  const simulator = createSimulator({ asyncDelayMs: 20, latencyMs, faultRate });
  const simulatorUrl = await simulator.start(0, '127.0.0.1');
  const app = createApp(
    { ...defaultConfig, port: 0, host: '127.0.0.1', upstreamUrl: simulatorUrl, responseCacheTtlMs: 0 },
    // Logs go to stderr, so stdout holds only the soak's own report.
    { logger: pino({ level: 'error' }, destination(2)) },
  );
  const url = await app.start();
  const { session, token, tenantId } = simulator.credentials;
  const headers = { authorization: `OAuth ${session}`, 'x-resources-authorization': `Bearer ${token}`, 'x-tenant-id': tenantId };
  const hosts = [...simulator.store.hosts.list(tenantId)].filter((host) => host.status === 'Connected').map((host) => host.uuid);
  if (hosts.length === 0) throw new Error('the simulated estate has no connected host to write to');

  const outcomes = new Map<string, number>();
  const count = (key: string): void => void outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
  /** Every job id the gateway handed out, with what the client last saw of it. */
  const jobs = new Map<string, JobView>();
  let sequence = 0;

  async function gql<T>(query: string, variables?: Record<string, unknown>): Promise<GraphQLAnswer<T>> {
    const response = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: JSON.stringify({ query, variables }),
      signal: AbortSignal.timeout(OPERATION_TIMEOUT_MS),
    });
    return (await response.json()) as GraphQLAnswer<T>;
  }

  function tally(kind: string, answer: GraphQLAnswer<unknown>): void {
    const codes = (answer.errors ?? []).map((error) => String(error.extensions?.code ?? 'UNTYPED'));
    count(codes.length === 0 ? `${kind}: ok` : `${kind}: ${[...new Set(codes)].sort().join(',')}`);
  }

  async function read(): Promise<void> {
    const query = READS[Math.floor(Math.random() * READS.length)] ?? READS[0]!;
    tally('read', await gql(query));
  }

  /** Starts a write; answers its job id when the gateway handed one out. */
  async function write(async: boolean): Promise<string | null> {
    const host = hosts[Math.floor(Math.random() * hosts.length)];
    sequence += 1;
    const answer = await gql<{ updateHostNqn: { error: { code: string } | null; job: JobView | null } | null }>(WRITE, {
      input: { uuid: host, nqn: `nqn.2014-08.org.example:soak-${sequence}`, async },
    });
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
    const client = createClient({ url: `${url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: headers, retryAttempts: 0 });
    try {
      const result = await new Promise<GraphQLAnswer<{ jobCompleted: JobView }>>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no jobCompleted event in time')), OPERATION_TIMEOUT_MS);
        let last: GraphQLAnswer<{ jobCompleted: JobView }> = {};
        client.subscribe<{ jobCompleted: JobView }>(
          { query: JOB_COMPLETED, variables: { id } },
          {
            next: (value) => void (last = value as GraphQLAnswer<{ jobCompleted: JobView }>),
            error: (error) => (clearTimeout(timer), reject(error instanceof Error ? error : new Error(JSON.stringify(error)))),
            complete: () => (clearTimeout(timer), resolve(last)),
          },
        );
      });
      tally('subscription', result);
      const job = result.data?.jobCompleted;
      if (job) jobs.set(job.id, job);
    } finally {
      await client.dispose();
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
  const deadline = startedAt + seconds * 1000;
  await Promise.all(Array.from({ length: concurrency }, () => worker(deadline)));

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
  };
  process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  process.stdout.write(`memory at end: ${JSON.stringify(end)}\n`);
  process.stdout.write(`lost job results: ${lost.length}\n`);
  // A hung or failed operation, or an error without a code (or an internal one), fails the soak.
  const broken = [...outcomes.keys()].filter((key) => key.startsWith('failed:') || /UNTYPED|INTERNAL_SERVER_ERROR/.test(key));
  process.stdout.write(`broken operations: ${broken.length === 0 ? 'none' : broken.join('; ')}\n`);
  process.exitCode = lost.length === 0 && broken.length === 0 ? 0 : 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
