/**
 * The upstream of `npm start` without `UPSTREAM_URL`: the embedded simulator on a loopback port,
 * seeded with demo data as the simulator's settings (`SIM_*`) say. Started before the app is composed, so the app is built on a known
 * upstream; its credentials are what GraphiQL opens with and what the start message prints.
 */
import type { Logger } from 'pino';
import type { SimulatorOptions } from '../simulator/server.js';
import { createSimulator, type Simulator, type SimulatorCredentials } from '../simulator/server.js';

export interface DemoUpstream {
  /** The simulator's base URL, the app's upstream. */
  readonly url: string;
  /** Its demo tenant's credentials (not a secret: the simulator makes them up). */
  readonly credentials: SimulatorCredentials;
  readonly simulator: Simulator;
  stop(): Promise<void>;
}

/** Starts the simulator with `options` (the simulator's settings: seed, size, credentials, latency, ...). */
export async function startDemoUpstream(logger: Logger, options: Partial<SimulatorOptions> = {}): Promise<DemoUpstream> {
  const simulator = createSimulator(options);
  const url = await simulator.start(0, '127.0.0.1');
  logger.info({ simulator: url }, 'started the embedded simulator as the upstream');
  return { url, credentials: simulator.credentials, simulator, stop: () => simulator.stop() };
}
