/**
 * `npm run simulator`: the upstream simulator alone. Reads its settings (`PORT` and `SIM_*`,
 * declared in `src/config/simulator.ts`), prints one JSON line with its address and both tenants'
 * credentials, and stops on SIGTERM/SIGINT.
 */
import { loadConfig, loadSimulatorSettings, simulatorOptionsOf } from '../config/index.js';
import { createSimulator } from './server.js';

async function main(): Promise<void> {
  const settings = loadSimulatorSettings();
  const simulator = createSimulator(simulatorOptionsOf(settings, loadConfig().upstreamTimezone));
  const url = await simulator.start(settings.port, settings.host);
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
