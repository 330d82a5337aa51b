/**
 * Scenario 1: upstream requests per dashboard query, on estates of different sizes. Each estate
 * gets a fresh simulator and gateway; the count is read from `/__sim/stats` around one query.
 */
import { DASHBOARD_BODY, type DashboardResult } from './dashboard.js';
import { resetSimulator, simulatorStats, startGateway, startSimulator } from './processes.js';

export interface UpstreamCost {
  vms: number;
  hosts: number;
  /** Upstream requests of one dashboard query (the same on every repetition, else the max). */
  requests: number;
  byOperation: Record<string, number>;
  /** `vmInstances.totalCount` as the gateway reported it (the estate's VM count). */
  totalCount: number;
}

export async function measureUpstreamCost(estates: { vms: number; hosts: number }[], latencyMs: number): Promise<UpstreamCost[]> {
  const results: UpstreamCost[] = [];
  for (const estate of estates) {
    const simulator = await startSimulator({ ...estate, latencyMs });
    // No response cache: every repetition must reach the upstream.
    const gateway = await startGateway({ upstreamUrl: simulator.url, env: { RESPONSE_CACHE_TTL_MS: '0' } });
    try {
      let requests = 0;
      let byOperation: Record<string, number> = {};
      let totalCount = 0;
      for (let repetition = 0; repetition < 3; repetition++) {
        await resetSimulator(simulator.url);
        const response = await fetch(`${gateway.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json', ...simulator.headers },
          body: DASHBOARD_BODY,
        });
        const body = (await response.json()) as DashboardResult & { errors?: unknown[] };
        if (body.errors) throw new Error(`dashboard failed: ${JSON.stringify(body.errors).slice(0, 300)}`);
        totalCount = body.data.vmInstances.totalCount;
        const stats = await simulatorStats(simulator.url);
        if (stats.total >= requests) {
          requests = stats.total;
          byOperation = stats.byOperation;
        }
      }
      results.push({ ...estate, requests, byOperation, totalCount });
    } finally {
      await gateway.stop();
      await simulator.stop();
    }
  }
  return results;
}
