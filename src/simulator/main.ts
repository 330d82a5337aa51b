/**
 * `npm run simulator`: the upstream simulator alone. Reads `PORT` and `SIM_*`, prints one JSON
 * line with its address and both tenants' credentials, and stops on SIGTERM/SIGINT.
 */
import { parseChurnSpec } from './churn.js';
import { createSimulator, SIMULATOR_DEFAULTS, type SimulatorOptions } from './server.js';

function readNumber(name: string, fallback: number, check: (value: number) => boolean = () => true): number {
  const text = process.env[name];
  if (text === undefined || text.trim() === '') return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || !check(value)) throw new Error(`${name} must be a valid number, got "${text}"`);
  return value;
}

function readBoolean(name: string, fallback: boolean): boolean {
  const text = process.env[name];
  if (text === undefined || text.trim() === '') return fallback;
  if (text === 'true' || text === '1') return true;
  if (text === 'false' || text === '0') return false;
  throw new Error(`${name} must be true or false, got "${text}"`);
}

function readText(name: string): string | undefined {
  const text = process.env[name];
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}

function readOptions(): Partial<SimulatorOptions> {
  const nonNegative = (value: number) => value >= 0;
  const defaults = SIMULATOR_DEFAULTS;
  return {
    seed: readNumber('SIM_SEED', defaults.seed, Number.isInteger),
    hosts: readNumber('SIM_HOSTS', defaults.hosts, (value) => Number.isInteger(value) && value >= 1),
    vms: readNumber('SIM_VMS', defaults.vms, (value) => Number.isInteger(value) && value >= 0),
    asyncDelayMs: readNumber('SIM_ASYNC_DELAY_MS', defaults.asyncDelayMs, nonNegative),
    latencyMs: readNumber('SIM_LATENCY_MS', defaults.latencyMs, nonNegative),
    faultRate: readNumber('SIM_FAULT_RATE', defaults.faultRate, (value) => value >= 0 && value <= 1),
    dropWebhooks: readBoolean('SIM_DROP_WEBHOOKS', defaults.dropWebhooks),
    webhookRetryMs: readNumber('SIM_WEBHOOK_RETRY_MS', defaults.webhookRetryMs, nonNegative),
    // Short lives let a client see what an expired cursor answers without waiting 15 minutes.
    cursorTtlMs: readNumber('SIM_CURSOR_TTL_MS', defaults.cursorTtlMs, (value) => Number.isInteger(value) && value >= 1),
    timeZone: readText('SIM_TIMEZONE') ?? readText('UPSTREAM_TIMEZONE') ?? defaults.timeZone,
    ...(readText('SIM_VERSION') === undefined ? {} : { version: readText('SIM_VERSION') }),
    first: { session: readText('SIM_SESSION'), token: readText('SIM_TOKEN'), tenantId: readText('SIM_TENANT') },
    churn: parseChurnSpec(process.env.SIM_CHURN),
    second: { session: readText('SIM_SESSION_2'), token: readText('SIM_TOKEN_2'), tenantId: readText('SIM_TENANT_2') },
  };
}

async function main(): Promise<void> {
  const port = readNumber('PORT', 8080, (value) => Number.isInteger(value) && value >= 0 && value < 65536);
  const host = readText('SIM_HOST') ?? '127.0.0.1';
  const simulator = createSimulator(readOptions());
  const url = await simulator.start(port, host);
  const { session, token, tenantId, second } = simulator.credentials;
  process.stdout.write(`${JSON.stringify({ url, session, token, tenantId, second })}\n`);
  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    simulator.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  process.stderr.write(`simulator: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
