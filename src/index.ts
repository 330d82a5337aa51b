/**
 * `npm start`: reads the configuration, starts the embedded simulator when no UPSTREAM_URL is
 * set, then composes and starts the gateway on it; SIGTERM or SIGINT stops the gateway, then the
 * simulator. SIGHUP reads the TRUSTED_DOCUMENTS manifest again.
 */
import { createApp } from './app.js';
import { loadConfig, loadSimulatorSettings, simulatorOptionsOf } from './config/index.js';
import { startDemoUpstream } from './server/demo-upstream.js';
import { createLogger } from './observability/logging.js';
import { exitOnSignals } from './server/shutdown.js';
import { listenFailureMessage, startedMessage } from './server/start-messages.js';
import { ManifestError } from './trusted-documents/manifest.js';

const config = loadConfig();
const logger = createLogger(config.logLevel);
const demo = config.upstreamUrl === undefined ? await startDemoUpstream(logger, simulatorOptionsOf(loadSimulatorSettings(), config.upstreamTimezone)) : undefined;
const app = composeApp();
if (config.trustedDocuments !== undefined) process.on('SIGHUP', () => app.reloadTrustedDocuments());
exitOnSignals(
  {
    async stop() {
      await app.stop();
      await demo?.stop();
    },
  },
  logger,
);
try {
  const url = await app.start();
  process.stdout.write(startedMessage(url, demo?.credentials, config.trustedDocuments));
} catch (error) {
  const message = listenFailureMessage(error, config.port, config.host);
  if (message === undefined) throw error;
  process.stderr.write(message);
  // The embedded simulator and the job backend may already run: nothing to drain, just leave.
  process.exit(1);
}

function composeApp(): ReturnType<typeof createApp> {
  try {
    return createApp(config, { logger, demo });
  } catch (error) {
    if (!(error instanceof ManifestError)) throw error;
    process.stderr.write(`The gateway cannot start: ${error.message}\n`);
    process.exit(1);
  }
}
