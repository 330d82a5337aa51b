/**
 * Scenario 2: the dashboard through the gateway against the hand-written REST client making the
 * same upstream calls, both separate processes driven by the same autocannon settings.
 *
 * On a shared machine one process's throughput moves by a third from one run to the next, so
 * each concurrency is measured as several pairs of runs, gateway and direct back to back in
 * alternating order, and reported as the pair whose throughput ratio is the median.
 */
import { isDeepStrictEqual } from 'node:util';
import { DASHBOARD_BODY, isDashboardData } from './dashboard.js';
import { alternatingPairs, runLoad, type LoadResult } from './load.js';
import type { GatewayProcess, Spawned } from './processes.js';

/** One gateway run and one direct run, back to back. */
export interface OverheadPair {
  gateway: LoadResult;
  direct: LoadResult;
  /** gateway p50 / direct p50 (target ≤ 1.25 at 50 connections). */
  p50Ratio: number;
  /** gateway p99 / direct p99. */
  p99Ratio: number;
  /** gateway throughput / direct throughput (target ≥ 0.8 at 50 connections). */
  throughputRatio: number;
}

/** The median pair of one concurrency, with every pair measured. */
export interface OverheadRow extends OverheadPair {
  connections: number;
  pairs: OverheadPair[];
}

export interface OverheadResult {
  /** Whether both sides answered the same JSON. */
  equivalent: boolean;
  responseBytes: number;
  rows: OverheadRow[];
}

async function fetchDashboard(url: string, headers: Record<string, string>, body: string): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body,
  });
  if (!response.ok) throw new Error(`${url} answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  return response.json();
}

function pairOf(gateway: LoadResult, direct: LoadResult): OverheadPair {
  return {
    gateway,
    direct,
    p50Ratio: gateway.p50Ms / direct.p50Ms,
    p99Ratio: gateway.p99Ms / direct.p99Ms,
    throughputRatio: gateway.rps / direct.rps,
  };
}

/** The pair whose throughput ratio is the median (the lower middle one of an even count). */
export function medianPair<T extends { throughputRatio: number }>(pairs: readonly T[]): T {
  if (pairs.length === 0) throw new Error('no pairs measured');
  const sorted = [...pairs].sort((a, b) => a.throughputRatio - b.throughputRatio);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

export async function measureOverhead(options: {
  /** The GraphQL server measured: the gateway, or a reference answering the same documents at `/graphql`. */
  gateway: GatewayProcess | Spawned;
  direct: Spawned;
  /** The upstream both call, whose CPU each side costs too. */
  simulator: Spawned;
  headers: Record<string, string>;
  concurrency: number[];
  durationSec: number;
  /** Pairs of runs per concurrency. @default 1 */
  pairs?: number;
  /** A body per connection (distinct clients; see `LoadOptions.bodies`). @default every connection sends the dashboard */
  bodies?: readonly string[];
}): Promise<OverheadResult> {
  const gatewayUrl = `${options.gateway.url}/graphql`;
  const directUrl = `${options.direct.url}/dashboard`;
  const bodies = options.bodies ?? [DASHBOARD_BODY];
  let equivalent = true;
  let responseBytes = 0;
  // The first few bodies: enough to show both sides read the same filter the same way.
  for (const body of bodies.slice(0, 3)) {
    const [viaGateway, viaDirect] = await Promise.all([fetchDashboard(gatewayUrl, options.headers, body), fetchDashboard(directUrl, options.headers, body)]);
    // Only `data`: the gateway adds `extensions` (the operation's cost) the direct client has no notion of.
    equivalent &&= isDeepStrictEqual((viaGateway as { data?: unknown }).data, (viaDirect as { data?: unknown }).data);
    responseBytes ||= JSON.stringify(viaGateway).length;
  }
  const headers = { 'content-type': 'application/json', accept: 'application/json', ...options.headers };
  const rows: OverheadRow[] = [];
  for (const connections of options.concurrency) {
    const load = { method: 'POST' as const, headers, body: DASHBOARD_BODY, bodies: options.bodies, connections, durationSec: options.durationSec, verifyBody: isDashboardData };
    const viaGatewayRun = () => runLoad({ ...load, url: gatewayUrl, cpuOf: [options.gateway, options.simulator], gcPauseOf: 'gcPauseMs' in options.gateway ? options.gateway : undefined });
    const viaDirectRun = () => runLoad({ ...load, url: directUrl, cpuOf: [options.direct, options.simulator] });
    const pairs = await alternatingPairs(options.pairs ?? 1, viaGatewayRun, viaDirectRun, pairOf);
    rows.push({ connections, ...medianPair(pairs), pairs });
  }
  return { equivalent, responseBytes, rows };
}
