/**
 * `npm start`: reads the configuration and starts the gateway (and, with no UPSTREAM_URL, the
 * embedded simulator it talks to); SIGTERM or SIGINT stops it gracefully.
 */
import { createApp } from './app.js';
import { loadConfig } from './config.js';
import { createLogger } from './logging.js';
import { exitOnSignals } from './shutdown.js';

const config = loadConfig();
const logger = createLogger(config.logLevel);
const app = createApp(config, { logger });
exitOnSignals(app, logger);
const url = await app.start();
process.stdout.write(`GraphiQL: ${url}/graphql\n`);
