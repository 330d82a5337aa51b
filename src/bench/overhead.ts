/**
 * Scenario 2: the dashboard through the gateway against the hand-written REST client making the
 * same upstream calls, both separate processes driven by the same autocannon settings.
 */
import { isDeepStrictEqual } from 'node:util';
import { DASHBOARD_BODY } from './dashboard.js';
import { runLoad, type LoadResult } from './load.js';
import type { Spawned } from './processes.js';

export interface OverheadRow {
  connections: number;
  gateway: LoadResult;
  direct: LoadResult;
  /** gateway p50 / direct p50 (target ≤ 1.25 at 50 connections). */
  p50Ratio: number;
  /** gateway p99 / direct p99. */
  p99Ratio: number;
  /** gateway throughput / direct throughput (target ≥ 0.8 at 50 connections). */
  throughputRatio: number;
}

export interface OverheadResult {
  /** Whether both sides answered the same JSON. */
  equivalent: boolean;
  responseBytes: number;
  rows: OverheadRow[];
}

async function fetchDashboard(url: string, headers: Record<string, string>): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: DASHBOARD_BODY,
  });
  if (!response.ok) throw new Error(`${url} answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  return response.json();
}

/** A dashboard answer with data and no GraphQL error (both sides answer `{"data":...}`). */
function isDashboardData(body: string): boolean {
  return body.startsWith('{"data":{"vmInstances":{') && !body.includes('"errors":');
}

export async function measureOverhead(options: {
  gateway: Spawned;
  direct: Spawned;
  /** The upstream both call, whose CPU each side costs too. */
  simulator: Spawned;
  headers: Record<string, string>;
  concurrency: number[];
  durationSec: number;
}): Promise<OverheadResult> {
  const gatewayUrl = `${options.gateway.url}/graphql`;
  const directUrl = `${options.direct.url}/dashboard`;
  const [viaGateway, viaDirect] = await Promise.all([fetchDashboard(gatewayUrl, options.headers), fetchDashboard(directUrl, options.headers)]);
  // Only `data`: the gateway adds `extensions` (the operation's cost) the direct client has no notion of.
  const equivalent = isDeepStrictEqual((viaGateway as { data?: unknown }).data, (viaDirect as { data?: unknown }).data);
  const headers = { 'content-type': 'application/json', accept: 'application/json', ...options.headers };
  const rows: OverheadRow[] = [];
  for (const connections of options.concurrency) {
    const load = { method: 'POST' as const, headers, body: DASHBOARD_BODY, connections, durationSec: options.durationSec, verifyBody: isDashboardData };
    const gateway = await runLoad({ ...load, url: gatewayUrl, cpuOf: [options.gateway, options.simulator] });
    const direct = await runLoad({ ...load, url: directUrl, cpuOf: [options.direct, options.simulator] });
    rows.push({
      connections,
      gateway,
      direct,
      p50Ratio: gateway.p50Ms / direct.p50Ms,
      p99Ratio: gateway.p99Ms / direct.p99Ms,
      throughputRatio: gateway.rps / direct.rps,
    });
  }
  return { equivalent, responseBytes: JSON.stringify(viaGateway).length, rows };
}
