/**
 * Drives an HTTP endpoint with autocannon and reports latency percentiles from every response's
 * own duration (autocannon's histogram keeps whole milliseconds; these keep the fraction).
 */
import autocannon from 'autocannon';

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** A body per connection instead of `body`: connection i sends `bodies[i % length]`, every time (distinct clients). */
  bodies?: readonly string[];
  /** Concurrent connections, each with one request in flight. */
  connections: number;
  /** Measured seconds. */
  durationSec: number;
  /** Unmeasured seconds first (JIT, connection pools, caches). @default 2 */
  warmupSec?: number;
  /**
   * Whether an answer's body is a success. A GraphQL error comes with status 200, and an answer
   * that failed fast would otherwise count as a fast success.
   */
  verifyBody?: (body: string) => boolean;
  /** Processes whose CPU time per completed request the measured run reports (`cpuMsPerRequest`). */
  cpuOf?: readonly { cpuMs(): Promise<number> }[];
  /** A gateway whose garbage-collection pause per completed request the measured run reports. */
  gcPauseOf?: { gcPauseMs(): Promise<number> };
}

export interface LoadResult {
  connections: number;
  requests: number;
  /** Completed 2xx/3xx requests per second. */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  /** Errors (timeouts, resets), non-2xx answers and answers `verifyBody` refused. */
  failures: number;
  /** Average response bytes as read off the socket (headers included). */
  bytesPerResponse: number;
  /** CPU time (user + system) each process of `cpuOf` spent per completed request of the measured run, ms. */
  cpuMsPerRequest: number[];
  /** Main-thread GC pause of `gcPauseOf` per completed request of the measured run, ms. */
  gcPauseMsPerRequest?: number;
}

function run(options: LoadOptions, durationSec: number, onLatency?: (ms: number) => void): Promise<autocannon.Result> {
  const bodies = options.bodies;
  let connection = 0;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        method: options.method ?? 'POST',
        headers: options.headers ?? {},
        ...(options.body === undefined ? {} : { body: options.body }),
        ...(bodies === undefined || bodies.length === 0 ? {} : { setupClient: (client: autocannon.Client) => client.setBody(bodies[connection++ % bodies.length]) }),
        ...(options.verifyBody === undefined ? {} : { verifyBody: (body: string | Buffer | undefined) => options.verifyBody!(String(body ?? '')) }),
        connections: options.connections,
        duration: durationSec,
        timeout: 30,
      },
      (error, result) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(result)),
    );
    // autocannon emits (client, statusCode, bytes, responseTime); its typings omit the client.
    instance.on('response', (...args: unknown[]) => {
      const statusCode = Number(args[1]);
      const ms = args[args.length - 1];
      if (onLatency && typeof ms === 'number' && statusCode < 400) onLatency(ms);
    });
  });
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const warmupSec = options.warmupSec ?? 2;
  if (warmupSec > 0) await run(options, warmupSec);
  const latencies: number[] = [];
  const processes = options.cpuOf ?? [];
  const cpuBefore = await Promise.all(processes.map((process) => process.cpuMs()));
  const gcBefore = await options.gcPauseOf?.gcPauseMs();
  const result = await run(options, options.durationSec, (ms) => latencies.push(ms));
  const cpuAfter = await Promise.all(processes.map((process) => process.cpuMs()));
  const gcAfter = await options.gcPauseOf?.gcPauseMs();
  latencies.sort((a, b) => a - b);
  const completed = latencies.length;
  return {
    connections: options.connections,
    requests: completed,
    rps: completed / options.durationSec,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    meanMs: completed === 0 ? 0 : latencies.reduce((sum, ms) => sum + ms, 0) / completed,
    failures: result.errors + result.timeouts + result.non2xx + result.mismatches,
    bytesPerResponse: result.requests.total === 0 ? 0 : result.throughput.total / result.requests.total,
    cpuMsPerRequest: cpuAfter.map((after, index) => (completed === 0 ? Number.NaN : (after - cpuBefore[index]!) / completed)),
    ...(gcBefore === undefined || gcAfter === undefined ? {} : { gcPauseMsPerRequest: completed === 0 ? Number.NaN : (gcAfter - gcBefore) / completed }),
  };
}

/** The value below which `fraction` of the sorted samples fall (nearest rank). */
/**
 * `count` (at least one) pairs of runs of `a` and `b` back to back, who goes first alternating from
 * pair to pair, so a drift in the machine's speed stays out of the ratio; `pair` is handed each
 * pair's results as (a, b) whatever their order.
 */
export async function alternatingPairs<P>(count: number, a: () => Promise<LoadResult>, b: () => Promise<LoadResult>, pair: (a: LoadResult, b: LoadResult) => P): Promise<P[]> {
  const pairs: P[] = [];
  for (let index = 0; index < Math.max(1, count); index++) {
    if (index % 2 === 0) {
      const first = await a();
      pairs.push(pair(first, await b()));
    } else {
      const first = await b();
      pairs.push(pair(await a(), first));
    }
  }
  return pairs;
}

export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[rank]!;
}
