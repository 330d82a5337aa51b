/**
 * The benchmark's processes: the simulator, the gateway and the direct client's server, each a
 * separate `node --import tsx` process as in production, each announcing its address on stdout.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';

export interface Credentials {
  session: string;
  token: string;
  tenantId: string;
}

export interface Spawned {
  readonly url: string;
  readonly pid: number;
  /** Resident set size of the process (from /proc), bytes. */
  rss(): Promise<number>;
  /** CPU time (user + system) the process has used so far, ms. */
  cpuMs(): Promise<number>;
  stop(): Promise<void>;
}

export interface SimulatorProcess extends Spawned {
  readonly credentials: Credentials;
  /** The three credential headers of the first tenant, as a client sends them. */
  readonly headers: Record<string, string>;
}

// A 100,000-VM estate (scenario 10) takes minutes to generate on a loaded machine.
const STARTUP_TIMEOUT_MS = 600_000;

/** Spawns `node [nodeArgs] --import tsx <script>` and resolves with the first stdout line `match` accepts. */
async function spawnAnnounced<T>(
  script: string,
  env: Record<string, string>,
  match: (line: string) => T | null,
  nodeArgs: string[] = [],
  cwd?: string,
): Promise<{ child: ChildProcess; announced: T }> {
  const child = spawn(process.execPath, ['--import', 'tsx', ...nodeArgs, script], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const lines = createInterface({ input: child.stdout! });
  const announced = await new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start within ${STARTUP_TIMEOUT_MS} ms: ${stderr}`)), STARTUP_TIMEOUT_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code} before announcing itself: ${stderr}`));
    });
    lines.on('line', (line) => {
      const value = match(line);
      if (value !== null) {
        clearTimeout(timer);
        resolve(value);
      }
    });
  });
  // Keep draining stdout so a chatty process never blocks on a full pipe.
  child.stdout?.resume();
  return { child, announced };
}

function handle(child: ChildProcess, url: string): Spawned {
  return {
    url,
    pid: child.pid!,
    rss: () => residentBytes(child.pid!),
    cpuMs: () => cpuMilliseconds(child.pid!),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * The main-thread time a gateway's garbage collector has taken so far, ms: the sum over every kind
 * of collection of `nodejs_gc_duration_seconds` on its `/metrics`. The collector's helper threads
 * are not in it (their CPU is in the process's CPU time).
 */
export async function gcPauseMilliseconds(gatewayUrl: string): Promise<number> {
  const text = await (await fetch(`${gatewayUrl}/metrics`)).text();
  let seconds = 0;
  for (const match of text.matchAll(/^nodejs_gc_duration_seconds_sum\{[^}]*\} (\S+)$/gm)) seconds += Number(match[1]);
  return seconds * 1000;
}

/** `VmRSS` of a process, in bytes. */
export async function residentBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
  if (!kb) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kb) * 1024;
}

/** User + system CPU time of a process, ms (`/proc/<pid>/stat` fields 14 and 15, in clock ticks of 10 ms). */
export async function cpuMilliseconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces; count fields after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export async function startSimulator(options: {
  vms: number;
  hosts: number;
  latencyMs: number;
  asyncDelayMs?: number;
  nodeArgs?: string[];
  /** Extra environment, e.g. `SIM_CHURN`. */
  env?: Record<string, string>;
}): Promise<SimulatorProcess> {
  const { child, announced } = await spawnAnnounced(
    'src/simulator/main.ts',
    {
      PORT: '0',
      SIM_VMS: String(options.vms),
      SIM_HOSTS: String(options.hosts),
      SIM_LATENCY_MS: String(options.latencyMs),
      SIM_ASYNC_DELAY_MS: String(options.asyncDelayMs ?? 5),
      ...options.env,
    },
    (line) => {
      if (!line.startsWith('{')) return null;
      return JSON.parse(line) as { url: string } & Credentials;
    },
    options.nodeArgs,
  );
  const credentials: Credentials = { session: announced.session, token: announced.token, tenantId: announced.tenantId };
  return {
    ...handle(child, announced.url),
    credentials,
    headers: {
      authorization: `OAuth ${credentials.session}`,
      'x-resources-authorization': `Bearer ${credentials.token}`,
      'x-tenant-id': credentials.tenantId,
    },
  };
}

export interface GatewayOptions {
  upstreamUrl: string;
  /** Extra environment, e.g. `RESPONSE_CACHE_TTL_MS=0`. */
  env?: Record<string, string>;
  /** Extra node flags, e.g. `--cpu-prof`. */
  nodeArgs?: string[];
  /** Run the gateway of another checkout (scenario 7's `BENCH_BASELINE_DIR`). @default this one */
  cwd?: string;
}

export interface GatewayProcess extends Spawned {
  /** Time the garbage collector has paused the gateway's main thread so far, ms (from its `/metrics`). */
  gcPauseMs(): Promise<number>;
}

export async function startGateway(options: GatewayOptions): Promise<GatewayProcess> {
  const { child, announced } = await spawnAnnounced(
    'src/index.ts',
    // As deployed (the Dockerfile sets NODE_ENV=production: graphql-js skips its development checks).
    {
      NODE_ENV: 'production',
      PORT: '0',
      HOST: '127.0.0.1',
      UPSTREAM_URL: options.upstreamUrl,
      LOG_LEVEL: 'warn',
      GRAPHIQL: 'false',
      COST_BUDGET: '0',
      ...options.env,
    },
    (line) => /^GraphiQL: (\S+)\/graphql$/.exec(line)?.[1] ?? null,
    options.nodeArgs,
    options.cwd,
  );
  return { ...handle(child, announced), gcPauseMs: () => gcPauseMilliseconds(announced) };
}

/** The hand-written REST client behind a tiny HTTP server (`bench/direct-server.ts`). */
export async function startDirectServer(options: { upstreamUrl: string; nodeArgs?: string[] }): Promise<Spawned> {
  const { child, announced } = await spawnAnnounced(
    'bench/direct-server.ts',
    { NODE_ENV: 'production', PORT: '0', UPSTREAM_URL: options.upstreamUrl },
    (line) => (line.startsWith('{') ? (JSON.parse(line) as { url: string }).url : null),
    options.nodeArgs,
  );
  return handle(child, announced);
}

/** Scenario 6's reference: yoga and graphql-jit over the direct client's answer (`bench/graphql-floor-server.ts`). */
export async function startGraphqlFloorServer(options: { upstreamUrl: string }): Promise<Spawned> {
  const { child, announced } = await spawnAnnounced(
    'bench/graphql-floor-server.ts',
    { NODE_ENV: 'production', PORT: '0', UPSTREAM_URL: options.upstreamUrl },
    (line) => (line.startsWith('{') ? (JSON.parse(line) as { url: string }).url : null),
  );
  return handle(child, announced);
}

/** The bare WebSocket broadcaster the fan-out is compared with (`bench/broadcast-server.ts`). */
export async function startBroadcastServer(): Promise<Spawned> {
  const { child, announced } = await spawnAnnounced(
    'bench/broadcast-server.ts',
    { NODE_ENV: 'production', PORT: '0' },
    (line) => (line.startsWith('{') ? (JSON.parse(line) as { url: string }).url : null),
  );
  return handle(child, announced);
}

/** Upstream requests counted by the simulator, in total and by operation. */
export async function simulatorStats(simulatorUrl: string): Promise<{ total: number; byOperation: Record<string, number> }> {
  const response = await fetch(`${simulatorUrl}/__sim/stats`);
  return (await response.json()) as { total: number; byOperation: Record<string, number> };
}

export async function resetSimulator(simulatorUrl: string): Promise<void> {
  await fetch(`${simulatorUrl}/__sim/reset`, { method: 'POST' });
}
