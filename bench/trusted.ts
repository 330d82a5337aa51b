/**
 * Scenario 8: what TRUSTED_DOCUMENTS costs. 50 clients each send their own filter of the dashboard
 * (scenario 6's bodies, so nothing is shared) to a gateway that runs only its manifest, naming
 * the operation by `documentId`, against 50 clients POSTing the same documents as text to a
 * gateway without one. Both without the response cache, in alternating pairs of runs, reported as
 * the pair whose throughput ratio is the median.
 */
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { DISTINCT_DASHBOARD_QUERY, isDashboardData } from './dashboard.js';
import { alternatingPairs, runLoad, type LoadResult } from './load.js';
import { medianPair } from './overhead.js';
import type { GatewayProcess, Spawned } from './processes.js';

export interface TrustedPair {
  trusted: LoadResult;
  plain: LoadResult;
  /** trusted p50 / plain p50. */
  p50Ratio: number;
  /** trusted throughput / plain throughput. */
  throughputRatio: number;
}

export interface TrustedResult extends TrustedPair {
  connections: number;
  pairs: TrustedPair[];
  /** Bytes of one request body, by id and as text. */
  requestBytes: { trusted: number; plain: number };
}

/** The id the manifest gives the distinct dashboard: its SHA-256, as Apollo's and the client preset's tooling would. */
export const DASHBOARD_DOCUMENT_ID = createHash('sha256').update(DISTINCT_DASHBOARD_QUERY).digest('hex');

/** Writes the `{ id: document }` manifest holding the distinct dashboard to `path`. */
export async function writeDashboardManifest(path: string): Promise<void> {
  await writeFile(path, JSON.stringify({ [DASHBOARD_DOCUMENT_ID]: DISTINCT_DASHBOARD_QUERY }));
}

/** Each text body of `plainBodies` as the client preset sends it: the id in place of the query. */
export function trustedBodiesOf(plainBodies: readonly string[]): string[] {
  return plainBodies.map((body) => {
    const { query: _query, ...rest } = JSON.parse(body) as Record<string, unknown>;
    return JSON.stringify({ documentId: DASHBOARD_DOCUMENT_ID, ...rest });
  });
}

export async function measureTrusted(options: {
  trusted: GatewayProcess;
  plain: GatewayProcess;
  simulator: Spawned;
  headers: Record<string, string>;
  plainBodies: readonly string[];
  connections: number;
  durationSec: number;
  pairs: number;
}): Promise<TrustedResult> {
  const trustedBodies = trustedBodiesOf(options.plainBodies);
  const headers = { 'content-type': 'application/json', accept: 'application/json', ...options.headers };
  const load = { method: 'POST' as const, headers, connections: options.connections, durationSec: options.durationSec, verifyBody: isDashboardData };
  const trustedRun = () =>
    runLoad({ ...load, url: `${options.trusted.url}/graphql`, body: trustedBodies[0], bodies: trustedBodies, cpuOf: [options.trusted, options.simulator] });
  const plainRun = () => runLoad({ ...load, url: `${options.plain.url}/graphql`, body: options.plainBodies[0], bodies: options.plainBodies, cpuOf: [options.plain, options.simulator] });
  const pairs = await alternatingPairs(options.pairs, trustedRun, plainRun, (trusted, plain): TrustedPair => ({
    trusted,
    plain,
    p50Ratio: trusted.p50Ms / plain.p50Ms,
    throughputRatio: trusted.rps / plain.rps,
  }));
  return {
    connections: options.connections,
    ...medianPair(pairs),
    pairs,
    requestBytes: { trusted: Buffer.byteLength(trustedBodies[0]!), plain: Buffer.byteLength(options.plainBodies[0]!) },
  };
}
