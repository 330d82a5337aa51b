/**
 * `npm start`: reads the configuration, starts the embedded simulator when no UPSTREAM_URL is
 * set, then composes and starts the gateway on it; SIGTERM or SIGINT stops the gateway, then the
 * simulator.
 */
import { createApp } from './app.js';
import { loadConfig } from './config.js';
import { startDemoUpstream } from './demo-upstream.js';
import { createLogger } from './logging.js';
import { exitOnSignals } from './shutdown.js';
import { listenFailureMessage, startedMessage } from './start-messages.js';

const config = loadConfig();
const logger = createLogger(config.logLevel);
const demo = config.upstreamUrl === undefined ? await startDemoUpstream(logger) : undefined;
const app = createApp(config, { logger, demo });
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
  process.stdout.write(startedMessage(url, demo?.credentials));
} catch (error) {
  const message = listenFailureMessage(error, config.port, config.host);
  if (message === undefined) throw error;
  process.stderr.write(message);
  // The embedded simulator and the job backend may already run: nothing to drain, just leave.
  process.exit(1);
}
