/**
 * `npm start`: reads the configuration and starts the gateway (and, with no UPSTREAM_URL, the
 * embedded simulator it talks to).
 */
import { createApp } from './app.js';
import { loadConfig } from './config.js';

const app = createApp(loadConfig());
const url = await app.start();
process.stdout.write(`GraphiQL: ${url}/graphql\n`);

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    void app.stop().then(() => process.exit(0));
  });
}
