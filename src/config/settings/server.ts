/**
 * The settings of the reference page's first two sections: where the gateway listens and what it
 * serves besides the API (`server`), and how long and how large a client's requests may be, and
 * how the gateway stops (`connections`).
 *
 * One part of the settings table, which `../index.ts` composes in the reference page's order.
 */
import { boolean, bytes, graphqlNames, httpUrl, integer, milliseconds, origins, text } from '../parsers.js';
import { none, optional, setting } from '../declaration.js';

export const serverSettings = Object.freeze({
  port: setting({
    variable: 'PORT',
    group: 'server',
    parser: integer(0, 65_535),
    default: 4000,
    description: 'TCP port the gateway listens on (`0`: any free port).',
  }),
  host: setting({
    variable: 'HOST',
    group: 'server',
    parser: text('host name or address'),
    default: '0.0.0.0',
    description: 'Interface the gateway listens on.',
  }),
  metricsPort: optional({
    variable: 'METRICS_PORT',
    group: 'server',
    parser: integer(0, 65_535),
    unset: '`/metrics` is served on `PORT`, beside `/graphql`',
    description:
      'A port of its own for `/metrics` and the probes (`/healthz`, `/readyz`), on `HOST`: then `PORT` no longer serves `/metrics`, so a route to the public port cannot publish it (the probes stay on `PORT` too). `0`: any free port.',
  }),
  publicUrl: optional({
    variable: 'PUBLIC_URL',
    group: 'server',
    parser: httpUrl(),
    unset: 'the address the gateway listens on (`http://127.0.0.1:$PORT`)',
    description: 'The gateway\'s own address as the upstream can reach it: the base of the `X-Web-Hook` it sends with each job.',
  }),
  graphiql: setting({
    variable: 'GRAPHIQL',
    group: 'server',
    parser: boolean(),
    default: true,
    description:
      'Serve GraphiQL (with its guide under `/docs/`) and allow introspection; `false` turns them off and hides the "Did you mean ...?" suggestions of validation errors (production).',
  }),
  corsOrigins: setting({
    variable: 'CORS_ORIGINS',
    group: 'server',
    parser: origins(),
    default: none,
    unset: 'same origin only (no CORS headers)',
    description: 'Origins browsers may call the API from, or `*` for any.',
  }),
  trustedDocuments: optional({
    variable: 'TRUSTED_DOCUMENTS',
    group: 'server',
    parser: text('path of a manifest file'),
    unset: 'any document runs',
    description:
      'Path of a persisted-operation manifest (Apollo\'s `apollo-persisted-query-manifest`, or the `{ id: document }` map of Relay and GraphQL Code Generator\'s client preset): only its operations run, named by id; any other document is refused, and automatic persisted queries register nothing. SIGHUP reads it again.',
  }),
  logLevel: setting({
    variable: 'LOG_LEVEL',
    group: 'server',
    parser: text('pino level: `fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`'),
    default: 'info',
    description: 'Least level of the log lines written (pino\'s levels).',
  }),
  metricsOperationNames: setting({
    variable: 'METRICS_OPERATION_NAMES',
    group: 'server',
    parser: graphqlNames(),
    default: none,
    unset: 'every operation counts as `other`',
    description: 'Operation names `/metrics` labels as themselves; every other name counts as `other`, so that clients cannot grow the label set.',
  }),

  maxBodyBytes: setting({
    variable: 'MAX_BODY_BYTES',
    group: 'connections',
    parser: bytes(1_024, 1_073_741_824),
    default: 1_048_576,
    description: 'Largest request body, and largest WebSocket message; a larger body is answered 413.',
  }),
  headersTimeoutMs: setting({
    variable: 'HEADERS_TIMEOUT_MS',
    group: 'connections',
    parser: milliseconds(100, 600_000),
    default: 10_000,
    description: 'Time a client has to send a request\'s headers before the connection is cut with 408; not more than `REQUEST_TIMEOUT_MS`.',
  }),
  requestTimeoutMs: setting({
    variable: 'REQUEST_TIMEOUT_MS',
    group: 'connections',
    parser: milliseconds(100, 600_000),
    default: 30_000,
    description:
      'Time a client has to send a whole request, headers and body, before the connection is cut with 408. Answers are not bounded by it: SSE streams and WebSocket connections last as long as they like.',
  }),
  bodyIdleTimeoutMs: setting({
    variable: 'BODY_IDLE_TIMEOUT_MS',
    group: 'connections',
    parser: milliseconds(100, 600_000),
    default: 10_000,
    description: 'Longest pause between two pieces of a request body the gateway is reading before the connection is cut with 408.',
  }),
  keepAliveTimeoutMs: setting({
    variable: 'KEEP_ALIVE_TIMEOUT_MS',
    group: 'connections',
    parser: milliseconds(100, 600_000),
    default: 5_000,
    description: 'How long an idle keep-alive connection stays open after its last answer.',
  }),
  shutdownTimeoutMs: setting({
    variable: 'SHUTDOWN_TIMEOUT_MS',
    group: 'connections',
    parser: milliseconds(0, 600_000),
    default: 25_000,
    description: 'On SIGTERM or SIGINT: how long in-flight requests may run before their connections are cut.',
  }),
});
