/**
 * Scenario 10: what a page costs as the estate grows. Two simulators, a small estate and a large
 * one, each with its own gateway (response cache off), measured in turns in the same run: the
 * simulator's first cursor page of 50 VMs, and the dashboard through the gateway. A real upstream
 * answers a page from indexes, so the large estate's medians should stay within a small factor of
 * the small one's; a scan per page shows up here as a ratio that follows the estate.
 */
import { DASHBOARD_BODY, isDashboardData } from './dashboard.js';
import { percentile } from './load.js';
import { startGateway, startSimulator, type Spawned } from './processes.js';

export interface ScaleEstate {
  vms: number;
  hosts: number;
}

export interface ScaleFigure {
  /** Median of the small estate's samples, ms. */
  smallMs: number;
  /** Median of the large estate's samples, ms. */
  largeMs: number;
  ratio: number;
}

export interface EstateScaleResult {
  small: ScaleEstate;
  large: ScaleEstate;
  samples: number;
  /** `GET cursor-query?resourceType=vm&pageSize=50` straight to the simulator. */
  firstPage: ScaleFigure;
  /** The bench's dashboard through the gateway. */
  dashboard: ScaleFigure;
}

/** The largest growth of either figure from the small estate to the large one. */
export const SCALE_TARGET = 1.5;

interface Side {
  simulatorUrl: string;
  gatewayUrl: string;
  /** The gateway's credential headers. */
  headers: Record<string, string>;
  /** The cursor family's (a bearer token and the tenant). */
  resourceHeaders: Record<string, string>;
}

async function timed(run: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

async function firstPage(side: Side): Promise<void> {
  const response = await fetch(`${side.simulatorUrl}/api/v1/resources/cursor-query?resourceType=vm&pageSize=50`, { headers: side.resourceHeaders });
  const body = (await response.json()) as { items?: unknown[] };
  if (!response.ok || body.items?.length !== 50) throw new Error(`first page failed: ${response.status}`);
}

async function dashboard(side: Side): Promise<void> {
  const response = await fetch(`${side.gatewayUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...side.headers },
    body: DASHBOARD_BODY,
  });
  const text = await response.text();
  if (!isDashboardData(text)) throw new Error(`dashboard failed: ${text.slice(0, 300)}`);
}

function figure(small: number[], large: number[]): ScaleFigure {
  const smallMs = percentile([...small].sort((a, b) => a - b), 0.5);
  const largeMs = percentile([...large].sort((a, b) => a - b), 0.5);
  return { smallMs, largeMs, ratio: largeMs / smallMs };
}

/**
 * Both estates side by side: `warmup` unmeasured rounds, then `samples` rounds, each timing one
 * first page and one dashboard on either estate, the small and the large one in alternating order
 * so a noisy moment of the machine falls on both.
 */
export async function measureEstateScale(options: { small: ScaleEstate; large: ScaleEstate; latencyMs: number; samples: number; warmup: number }): Promise<EstateScaleResult> {
  const started: Spawned[] = [];
  try {
    const sides: Side[] = [];
    for (const estate of [options.small, options.large]) {
      const simulator = await startSimulator({ ...estate, latencyMs: options.latencyMs });
      started.push(simulator);
      const gateway = await startGateway({ upstreamUrl: simulator.url, env: { RESPONSE_CACHE_TTL_MS: '0' } });
      started.push(gateway);
      sides.push({
        simulatorUrl: simulator.url,
        gatewayUrl: gateway.url,
        headers: simulator.headers,
        resourceHeaders: { authorization: `Bearer ${simulator.credentials.token}`, 'x-tenant-id': simulator.credentials.tenantId },
      });
    }
    const times = sides.map(() => ({ page: [] as number[], dashboard: [] as number[] }));
    for (let round = 0; round < options.warmup + options.samples; round++) {
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      for (const index of order) {
        const side = sides[index]!;
        const page = await timed(() => firstPage(side));
        const board = await timed(() => dashboard(side));
        if (round < options.warmup) continue;
        times[index]!.page.push(page);
        times[index]!.dashboard.push(board);
      }
    }
    const [small, large] = times as [(typeof times)[number], (typeof times)[number]];
    return {
      small: options.small,
      large: options.large,
      samples: options.samples,
      firstPage: figure(small.page, large.page),
      dashboard: figure(small.dashboard, large.dashboard),
    };
  } finally {
    for (const process of started.reverse()) await process.stop().catch(() => undefined);
  }
}

/** The table's rows for scenario 10. */
export function estateScaleRows(result: EstateScaleResult): string[][] {
  const sizes = `${result.small.vms.toLocaleString('en-US')} → ${result.large.vms.toLocaleString('en-US')} VMs (${result.small.hosts} → ${result.large.hosts} hosts)`;
  const row = (label: string, value: ScaleFigure): string[] => [
    `10. ${label}, ${sizes}`,
    `${value.smallMs.toFixed(1)} ms → ${value.largeMs.toFixed(1)} ms = ${value.ratio.toFixed(2)}x (medians of ${result.samples})`,
    `≤ ${SCALE_TARGET}x`,
    value.ratio <= SCALE_TARGET ? 'met' : '**missed**',
  ];
  return [row("simulator's first cursor page of 50 VMs", result.firstPage), row('dashboard through the gateway', result.dashboard)];
}
