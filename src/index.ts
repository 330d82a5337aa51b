/**
 * `npm start`: reads the configuration and starts the gateway (and, with no UPSTREAM_URL, the
 * embedded simulator it talks to); SIGTERM or SIGINT stops it gracefully.
 */
import { createApp } from './app.js';
import { loadConfig } from './config.js';
import { createLogger } from './logging.js';
import { exitOnSignals } from './shutdown.js';
import { listenFailureMessage, startedMessage } from './start-messages.js';

const config = loadConfig();
const logger = createLogger(config.logLevel);
const app = createApp(config, { logger });
exitOnSignals(app, logger);
let url: string;
try {
  url = await app.start();
} catch (error) {
  const message = listenFailureMessage(error, config.port, config.host);
  if (message === undefined) throw error;
  process.stderr.write(message);
  // The embedded simulator and the job backend may already run: nothing to drain, just leave.
  process.exit(1);
}
process.stdout.write(startedMessage(url, app.simulator?.credentials));
