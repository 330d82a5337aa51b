/**
 * The metrics port (`METRICS_PORT`): a node:http server of its own answering `/metrics` and the
 * probes, and 404 to anything else, so that a route to the public port (an Ingress on `/`) cannot
 * publish the metrics. Its answers come from the same route plugins as the public port's, on a
 * yoga that serves nothing else.
 */
import { createServer, type Server } from 'node:http';
import type { GraphQLSchema } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import { jsonAnswer } from '../utils/route-answers.js';
import { listenAt } from './node-server.js';

export interface MetricsServer {
  /** Listens; resolves with the base URL (e.g. `http://127.0.0.1:9464`). */
  listen(port: number, host: string): Promise<string>;
  close(): Promise<void>;
}

export interface MetricsServerOptions {
  /** The routes answered (`useMetricsRoute`, `useHealth`, `useReadiness`). */
  routes: readonly Plugin[];
  /** Any schema: yoga needs one, and no request reaches it (everything past the routes is a 404). */
  schema: GraphQLSchema;
}

export function createMetricsServer(options: MetricsServerOptions): MetricsServer {
  const yoga = createYoga({
    schema: options.schema,
    landingPage: false,
    graphiql: false,
    logging: false,
    plugins: [...options.routes, useNotFound()],
  });
  const server: Server = createServer(yoga.requestListener);
  // Scrapes and probes are short: no keep-alive connection should hold the shutdown.
  server.keepAliveTimeout = 5_000;
  return {
    listen: (port, host) => listenAt(server, port, host),
    async close() {
      if (!server.listening) return;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

/** Whatever the routes before it did not answer: 404, GraphQL included. */
function useNotFound(): Plugin {
  return {
    onRequest({ endResponse, fetchAPI }) {
      endResponse(jsonAnswer(fetchAPI, 404, { error: 'NOT_FOUND' }));
    },
  };
}
