/**
 * Scenario 9: what tracing costs. Two gateways of the same code over the same simulator, one
 * with tracing off (the default) and one exporting every span over OTLP/HTTP
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`) to a sink in the bench process, which answers each export 200
 * and counts its bytes. 50 clients each read their own filter of the dashboard (as in scenario 6),
 * so that every request runs its own execution, loader batches and upstream calls, and so makes
 * every span a request can make. Measured as pairs of runs in alternating order, reported as the
 * pair whose throughput ratio is the median (see `overhead.ts`).
 *
 * With `BENCH_BASELINE_DIR` (a checkout of the gateway before tracing, its `node_modules` in
 * place), the same pairs also compare tracing off against that gateway: the cost of the hooks
 * when nothing is traced.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isDashboardData } from './dashboard.js';
import { alternatingPairs, runLoad, type LoadResult } from './load.js';
import { medianPair } from './overhead.js';
import type { GatewayProcess, Spawned } from './processes.js';

/** One run of each gateway, back to back. */
export interface GatewayPair {
  base: LoadResult;
  other: LoadResult;
  /** other / base. */
  throughputRatio: number;
  p50Ratio: number;
  /** Gateway CPU per dashboard, other / base. */
  cpuRatio: number;
}

export interface GatewayComparison extends GatewayPair {
  connections: number;
  pairs: GatewayPair[];
}

/** A stand-in OTLP/HTTP collector: answers every export 200, keeps only the count of bytes. */
export interface SpanSink {
  readonly url: string;
  readonly exportedBytes: number;
  readonly exports: number;
  close(): Promise<void>;
}

export async function startSpanSink(): Promise<SpanSink> {
  let exportedBytes = 0;
  let exports = 0;
  const server = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => (exportedBytes += chunk.length));
    request.on('end', () => {
      exports += 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get exportedBytes() {
      return exportedBytes;
    },
    get exports() {
      return exports;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function pairOf(base: LoadResult, other: LoadResult): GatewayPair {
  return {
    base,
    other,
    throughputRatio: other.rps / base.rps,
    p50Ratio: other.p50Ms / base.p50Ms,
    cpuRatio: other.cpuMsPerRequest[0]! / base.cpuMsPerRequest[0]!,
  };
}

/** `other` against `base`, the same load on each, in `pairs` pairs of runs of alternating order. */
export async function compareGateways(options: {
  base: GatewayProcess;
  other: GatewayProcess;
  simulator: Spawned;
  headers: Record<string, string>;
  bodies: readonly string[];
  connections: number;
  durationSec: number;
  pairs: number;
}): Promise<GatewayComparison> {
  const headers = { 'content-type': 'application/json', accept: 'application/json', ...options.headers };
  const load = { method: 'POST' as const, headers, bodies: options.bodies, connections: options.connections, durationSec: options.durationSec, verifyBody: isDashboardData };
  const runOn = (gateway: GatewayProcess) => runLoad({ ...load, url: `${gateway.url}/graphql`, cpuOf: [gateway, options.simulator], gcPauseOf: gateway });
  const pairs = await alternatingPairs(options.pairs, () => runOn(options.base), () => runOn(options.other), pairOf);
  return { connections: options.connections, ...medianPair(pairs), pairs };
}
