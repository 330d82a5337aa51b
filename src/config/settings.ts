/**
 * The table of settings: each one declared once, with its environment variable, the parser that
 * says what the variable accepts (`parsers.ts`), its default and its description. `index.ts`
 * derives the rest from it (the `GatewayConfig` type, `defaultConfig`, `loadConfig`), and
 * `reference.ts` the page `docs/reference/configuration.md`.
 */
import {
  boolean,
  bytes,
  choice,
  fraction,
  graphqlNames,
  httpUrl,
  integer,
  milliseconds,
  origins,
  proxies,
  redisUrl,
  release,
  secret,
  text,
  timeZone,
} from './parsers.js';
import { optional, setting } from './declaration.js';

const none: readonly string[] = Object.freeze([]);

/** The values of `OTEL_TRACES_EXPORTER` the gateway knows. */
export const TRACES_EXPORTERS = ['otlp', 'console', 'none'] as const;
export type TracesExporter = (typeof TRACES_EXPORTERS)[number];

/** The values of `OTEL_TRACES_SAMPLER` the gateway knows (the specification's built-in samplers). */
export const TRACES_SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;
export type TracesSampler = (typeof TRACES_SAMPLERS)[number];

/** Every setting of the gateway, in the reference page's order within each group. */
export const settings = Object.freeze({
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

  upstreamUrl: optional({
    variable: 'UPSTREAM_URL',
    group: 'upstream',
    parser: httpUrl(),
    unset: 'the embedded simulator is started and used',
    description: 'The resource family\'s `{base_url}`; the gateway appends `svc/v1/...`.',
  }),
  cursorUrl: optional({
    variable: 'RESOURCES_URL',
    group: 'upstream',
    parser: httpUrl(),
    unset: 'the origin of `UPSTREAM_URL`',
    description: 'Origin of the cursor family (`/api/v1/resources/...`).',
  }),
  upstreamTimezone: setting({
    variable: 'UPSTREAM_TIMEZONE',
    group: 'upstream',
    parser: timeZone(),
    default: 'UTC',
    description: 'Zone of the upstream\'s timestamp text.',
  }),
  upstreamVersion: optional({
    variable: 'UPSTREAM_VERSION',
    group: 'upstream',
    parser: release(),
    unset: 'the newest release the spec describes',
    description:
      'Release of the upstream: the served schema holds only what that release has, by the spec\'s "Since". `auto` is not offered: the spec names no place where the upstream reports its release.',
  }),
  upstreamTimeoutMs: setting({
    variable: 'UPSTREAM_TIMEOUT_MS',
    group: 'upstream',
    parser: milliseconds(1, 600_000),
    default: 10_000,
    description: 'Time allowed for one upstream request.',
  }),
  upstreamConnections: setting({
    variable: 'UPSTREAM_CONNECTIONS',
    group: 'upstream',
    parser: integer(1, 1024),
    default: 32,
    description: 'Keep-alive connections per upstream origin, and so the most upstream calls in flight per origin.',
  }),
  upstreamMaxQueued: setting({
    variable: 'UPSTREAM_MAX_QUEUED',
    group: 'upstream',
    parser: integer(0, 1_000_000),
    default: 1_000,
    description: 'Upstream calls that may wait per origin once `UPSTREAM_CONNECTIONS` are in flight; more fail at once with `UPSTREAM_UNAVAILABLE`.',
  }),
  upstreamBreakerThreshold: setting({
    variable: 'UPSTREAM_BREAKER_THRESHOLD',
    group: 'upstream',
    parser: integer(1, 1_000_000),
    default: 5,
    description: 'Upstream calls failing in a row (connection refused or dropped, 5xx without ErrorCode, timeout) that open an origin\'s circuit breaker.',
  }),
  upstreamBreakerOpenMs: setting({
    variable: 'UPSTREAM_BREAKER_OPEN_MS',
    group: 'upstream',
    parser: milliseconds(0, 3_600_000),
    default: 5_000,
    description: 'How long an open circuit breaker fails calls at once (`UPSTREAM_UNAVAILABLE`, no upstream request) before one probe call tests the upstream again.',
  }),
  maxBatchSize: setting({
    variable: 'MAX_BATCH_SIZE',
    group: 'upstream',
    parser: integer(1, 1000),
    default: 100,
    description: 'Most keys one DataLoader batch sends upstream; longer batches are split.',
  }),

  mutationWaitMs: setting({
    variable: 'MUTATION_WAIT_MS',
    group: 'jobs',
    parser: milliseconds(0, 600_000),
    default: 20_000,
    description: 'How long a mutation with `async: false` waits for its job before answering `RUNNING`.',
  }),
  jobPollAfterMs: setting({
    variable: 'JOB_POLL_AFTER_MS',
    group: 'jobs',
    parser: milliseconds(10, 600_000),
    default: 2_000,
    description: 'How long to wait for a job\'s webhook before polling the upstream (the pause then grows 1.5x, up to 10 s).',
  }),
  jobTtlMs: setting({
    variable: 'JOB_TTL_MS',
    group: 'jobs',
    parser: milliseconds(1_000, 86_400_000),
    default: 3_600_000,
    description: 'How long finished jobs stay readable with `job(id)`.',
  }),
  jobLeaseMs: setting({
    variable: 'JOB_LEASE_MS',
    group: 'jobs',
    parser: milliseconds(100, 3_600_000),
    default: 15_000,
    description: 'With Redis: how long a replica that stopped renewing its heartbeat keeps its running jobs before another replica claims and polls them, and its subscriptions and live queries counted against their credentials\' caps.',
  }),

  redisUrl: optional({
    variable: 'REDIS_URL',
    group: 'redis',
    parser: redisUrl(),
    unset: 'in process, each replica on its own',
    description:
      'One Redis (`redis://` or `rediss://`), a Redis Cluster (`redis+cluster://host:port,host:port`, any reachable seeds) or a master behind Sentinel (`redis+sentinel://host:port,host:port/<master>[/<db>]`, `?sentinelPassword=` when the sentinels need one); `rediss+` for TLS. Holds the job store and results, the live queries\' feed leases and the kept upstream cursors, so that several replicas act as one.',
  }),
  redisResumeGraceMs: setting({
    variable: 'REDIS_RESUME_GRACE_MS',
    group: 'redis',
    parser: milliseconds(0, 3_600_000),
    default: 60_000,
    description:
      'How long open `jobCompleted`/`jobEvents` subscriptions wait, silent, for a lost connection to Redis to come back (and the results published meanwhile to be read from the stream) before they end with `REDIS_UNAVAILABLE`; subscriptions opened meanwhile wait as long. Set it above the time a Redis restart or a Sentinel failover takes.',
  }),
  redisCommandTimeoutMs: setting({
    variable: 'REDIS_COMMAND_TIMEOUT_MS',
    group: 'redis',
    parser: milliseconds(100, 60_000),
    default: 1_000,
    description:
      'Longest a Redis command may go unanswered: past it the command fails as if Redis were stopped (reads fall back, writes answer `REDIS_UNAVAILABLE`), and a Redis that stalls (a frozen process, a partition that sends no reset) is treated as down until it answers again, so it costs a request at most this long.',
  }),
  redisStreamMaxLen: setting({
    variable: 'REDIS_STREAM_MAX_LEN',
    group: 'redis',
    parser: integer(100, 10_000_000),
    default: 10_000,
    description:
      'Entries kept (about: trimmed with `MAXLEN ~`) in each Redis stream, the finished jobs\' and the change feed\'s: how many a replica whose connection was lost may fall behind and still catch up; beyond it its subscriptions end with `REDIS_UNAVAILABLE` and its live queries all run again. Also how far back `jobEvents(after:)` can replay (without Redis, the finished jobs kept in the process for it).',
  }),
  redisOutboxMaxBytes: setting({
    variable: 'REDIS_OUTBOX_MAX_BYTES',
    group: 'redis',
    parser: bytes(65_536, 1_073_741_824),
    default: 16_777_216,
    description:
      'Most bytes of finished jobs and change-feed changes a replica keeps in memory while Redis does not take them, to append them in order once it does; past it newer ones are dropped (counted by `gateway_redis_outbox_dropped_total`, logged at `warn`): their subscribers miss them, `job(id)` still answers.',
  }),

  maxDepth: setting({
    variable: 'MAX_DEPTH',
    group: 'limits',
    parser: integer(1, 1_000),
    default: 12,
    description: 'Deepest field nesting of an operation (introspection\'s `__schema` excepted).',
  }),
  maxAliases: setting({
    variable: 'MAX_ALIASES',
    group: 'limits',
    parser: integer(0, 100_000),
    default: 30,
    description: 'Aliases in one operation, fragments included.',
  }),
  maxTokens: setting({
    variable: 'MAX_TOKENS',
    group: 'limits',
    parser: integer(10, 10_000_000),
    default: 1_000,
    description: 'Lexical tokens in one document (names, punctuation, values).',
  }),
  maxDirectives: setting({
    variable: 'MAX_DIRECTIVES',
    group: 'limits',
    parser: integer(0, 100_000),
    default: 50,
    description: 'Directives in one operation.',
  }),
  maxIntrospectionSchemas: setting({
    variable: 'MAX_INTROSPECTION_SCHEMAS',
    group: 'limits',
    parser: integer(1, 1_000),
    default: 1,
    description: '`__schema` fields in one operation, fragments included (`__type` lookups are bounded by the cost limit).',
  }),
  maxMutations: setting({
    variable: 'MAX_MUTATIONS',
    group: 'limits',
    parser: integer(1, 1_000),
    default: 10,
    description: 'Mutations (root fields, aliases and fragments included) in one operation; more are refused with `BAD_USER_INPUT` before any upstream call.',
  }),

  maxCost: setting({
    variable: 'MAX_COST',
    group: 'cost',
    parser: integer(1, 1_000_000_000),
    default: 100_000,
    description: 'Largest requested cost (in records) of one operation; a costlier one is refused with `MAX_COST_EXCEEDED` before it runs.',
  }),
  costBudget: setting({
    variable: 'COST_BUDGET',
    group: 'cost',
    parser: integer(0, 1_000_000_000),
    default: 200_000,
    description: 'Cost points a credential\'s budget holds when full (one budget over every replica with `REDIS_URL`); `0` turns budgets off.',
  }),
  costBudgetRefill: setting({
    variable: 'COST_BUDGET_REFILL',
    group: 'cost',
    parser: integer(1, 1_000_000_000),
    default: 5_000,
    description: 'Cost points a credential\'s budget regains per second.',
  }),
  upstreamCallCost: setting({
    variable: 'UPSTREAM_CALL_COST',
    group: 'cost',
    parser: integer(0, 1_000_000),
    default: 10,
    description: 'Cost points of each upstream call a field may cause of its own (per id of `node`/`nodes`, per parent of a relation the spec gives no batch form).',
  }),

  rejectedCredentialTtlMs: setting({
    variable: 'REJECTED_CREDENTIAL_TTL_MS',
    group: 'callers',
    parser: milliseconds(0, 86_400_000),
    default: 60_000,
    description: 'How long calls under a credential the upstream rejected fail at once (`UNAUTHENTICATED`, no upstream request); `0` remembers none.',
  }),
  rememberedCredentials: setting({
    variable: 'REMEMBERED_CREDENTIALS',
    group: 'callers',
    parser: integer(1, 10_000_000),
    default: 10_000,
    description: 'Credentials remembered as accepted, and as rejected, at most (least recently used forgotten first).',
  }),
  unverifiedCallsPerAddress: setting({
    variable: 'UNVERIFIED_CALLS_PER_ADDRESS',
    group: 'callers',
    parser: integer(0, 1_000_000),
    default: 20,
    description: 'Upstream calls a client address may make in a burst under credentials the upstream has not accepted yet (more: `RATE_LIMITED`); `0` turns this budget off.',
  }),
  unverifiedCallsPerMinute: setting({
    variable: 'UNVERIFIED_CALLS_PER_MINUTE',
    group: 'callers',
    parser: integer(0, 1_000_000),
    default: 60,
    description: 'Such calls an address regains per minute.',
  }),
  trustedProxies: setting({
    variable: 'TRUSTED_PROXIES',
    group: 'callers',
    parser: proxies(),
    default: none,
    unset: 'the socket\'s peer is the client',
    description: 'Proxies whose `X-Forwarded-For` names the client address.',
  }),

  maxConcurrentOperations: setting({
    variable: 'MAX_CONCURRENT_OPERATIONS',
    group: 'admission',
    parser: integer(1, 100_000),
    default: 256,
    description: 'Ceiling of the GraphQL operations over HTTP admitted to run at once; the limit adapts below it.',
  }),
  maxQueuedOperations: setting({
    variable: 'MAX_QUEUED_OPERATIONS',
    group: 'admission',
    parser: integer(0, 1_000_000),
    default: 1_000,
    description: 'Operations that may wait for admission; more are refused with 503 `OVERLOADED`.',
  }),
  admissionTargetUtilization: setting({
    variable: 'ADMISSION_TARGET_UTILIZATION',
    group: 'admission',
    parser: fraction(),
    default: 0.9,
    description:
      'Event-loop utilization (the share of each 100 ms the loop runs code) at or above which the admission limit shrinks; `0` keeps the limit at `MAX_CONCURRENT_OPERATIONS`.',
  }),

  wsMaxBufferedBytes: setting({
    variable: 'WS_MAX_BUFFERED_BYTES',
    group: 'subscriptions',
    parser: bytes(1_024, 1_073_741_824),
    default: 1_048_576,
    description: 'Bytes that may wait unsent on a WebSocket (a client that stopped reading); past it the socket is closed with code 4008.',
  }),
  wsMaxSubscriptionsPerSocket: setting({
    variable: 'WS_MAX_SUBSCRIPTIONS_PER_SOCKET',
    group: 'subscriptions',
    parser: integer(1, 1_000_000),
    default: 100,
    description: 'Subscriptions open at once on one WebSocket.',
  }),
  maxSubscriptionsPerCredential: setting({
    variable: 'MAX_SUBSCRIPTIONS_PER_CREDENTIAL',
    group: 'subscriptions',
    parser: integer(1, 10_000_000),
    default: 500,
    description: 'Subscriptions open at once under one credential, over all its WebSockets and SSE streams: on every replica together with `REDIS_URL`, on this one without.',
  }),
  unverifiedSubscriptionsPerAddress: setting({
    variable: 'UNVERIFIED_SUBSCRIPTIONS_PER_ADDRESS',
    group: 'subscriptions',
    parser: integer(0, 10_000_000),
    default: 100,
    description: 'Subscriptions open at once from one client address under credentials the upstream has not accepted (on this replica), whatever the credentials; `0` turns this cap off.',
  }),

  livePollMs: setting({
    variable: 'LIVE_POLL_MS',
    group: 'live',
    parser: milliseconds(0, 3_600_000),
    default: 2_000,
    description:
      'Interval of the upstream change feed behind `@live` queries: each (credential scope, collection) some live query reads costs one upstream request per interval (more only when over 100 records changed), whatever the number of live queries; `0` turns the feed off (live queries then follow finished jobs only).',
  }),
  liveMinIntervalMs: setting({
    variable: 'LIVE_MIN_INTERVAL_MS',
    group: 'live',
    parser: milliseconds(0, 3_600_000),
    default: 1_000,
    description: 'Least time between two runs of one `@live` query; invalidations meanwhile make one run.',
  }),
  liveMaxPerSocket: setting({
    variable: 'LIVE_MAX_PER_SOCKET',
    group: 'live',
    parser: integer(1, 1_000_000),
    default: 100,
    description: '`@live` queries open at once on one WebSocket; the next is refused with `TOO_MANY_LIVE_QUERIES`.',
  }),
  liveMaxPerCredential: setting({
    variable: 'LIVE_MAX_PER_CREDENTIAL',
    group: 'live',
    parser: integer(1, 10_000_000),
    default: 1_000,
    description: '`@live` queries open at once under one credential, over all its WebSockets and HTTP streams: on every replica together with `REDIS_URL`, on this one without.',
  }),

  responseCacheTtlMs: setting({
    variable: 'RESPONSE_CACHE_TTL_MS',
    group: 'performance',
    parser: milliseconds(0, 86_400_000),
    default: 30_000,
    description: 'Life of a cached answer whose types set no shorter TTL; `0` turns the response cache off.',
  }),
  responseCacheMaxEntries: setting({
    variable: 'RESPONSE_CACHE_MAX_ENTRIES',
    group: 'performance',
    parser: integer(1, 1_000_000),
    default: 1_000,
    description: 'Most answers the response cache keeps (least recently used dropped).',
  }),
  compressionMinBytes: setting({
    variable: 'COMPRESSION_MIN_BYTES',
    group: 'performance',
    parser: bytes(0, 100_000_000),
    default: 1_024,
    description: 'Smallest JSON answer compressed (brotli, else gzip) for a client that accepts it.',
  }),
  graphqlJit: setting({
    variable: 'GRAPHQL_JIT',
    group: 'performance',
    parser: boolean(),
    default: true,
    description: 'Run operations compiled by graphql-jit where it answers exactly as graphql-js; the other shapes always run on graphql-js.',
  }),
  decodeSelectedFields: setting({
    variable: 'DECODE_SELECTED_FIELDS',
    group: 'performance',
    parser: boolean(),
    default: true,
    description: 'A query\'s upstream reads decode only the record fields the query selects; `false` decodes whole records.',
  }),
  coalesceQueries: setting({
    variable: 'COALESCE_QUERIES',
    group: 'performance',
    parser: boolean(),
    default: true,
    description:
      'Identical queries in flight (same document, operation name, variables and credentials) share one execution; never mutations, subscriptions or `@defer`/`@stream`, and never across a finished write of the credential.',
  }),
  shareUpstreamGets: setting({
    variable: 'SHARE_UPSTREAM_GETS',
    group: 'performance',
    parser: boolean(),
    default: true,
    description: 'Identical upstream GETs in flight under the same credential share one HTTP exchange, whichever GraphQL requests they come from; `false` gives every read its own.',
  }),

  cursorSecret: optional({
    variable: 'CURSOR_SECRET',
    group: 'cursors',
    parser: secret(16),
    unset: 'with `REDIS_URL`, a random key agreed through Redis; else random per process',
    description: 'Key material sealing connection cursors; replicas given the same one honour each other\'s cursors, and cursors survive restarts.',
  }),
  cursorTtlMs: setting({
    variable: 'CURSOR_TTL_MS',
    group: 'cursors',
    parser: milliseconds(1_000, 2_592_000_000),
    default: 86_400_000,
    description: 'How long a connection cursor of the cursor family stays valid after it was issued; it outlives the upstream cursor behind it (it resumes from the position it names), and is sealed, so a long life costs nothing in safety. Also the longest an upstream cursor is kept for it.',
  }),
  cursorStoreMaxBytes: setting({
    variable: 'CURSOR_STORE_MAX_BYTES',
    group: 'cursors',
    parser: bytes(65_536, 1_073_741_824),
    default: 33_554_432,
    description: 'Most bytes the kept upstream cursors take together (in process, or in Redis with `REDIS_URL`); when full the oldest go first.',
  }),

  otelExporterOtlpEndpoint: optional({
    variable: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    group: 'tracing',
    parser: httpUrl(),
    unset: 'tracing off',
    description: 'Base URL of the OTLP/HTTP collector; spans go to `<it>/v1/traces`. Setting it turns tracing on.',
  }),
  otelExporterOtlpTracesEndpoint: optional({
    variable: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    group: 'tracing',
    parser: httpUrl(),
    unset: '`OTEL_EXPORTER_OTLP_ENDPOINT` with `/v1/traces` appended',
    description: 'The OTLP/HTTP traces URL itself (no path appended); wins over `OTEL_EXPORTER_OTLP_ENDPOINT`, and turns tracing on too.',
  }),
  otelTracesExporter: optional({
    variable: 'OTEL_TRACES_EXPORTER',
    group: 'tracing',
    parser: choice(TRACES_EXPORTERS),
    unset: '`otlp` when an endpoint is set, else tracing is off',
    description: '`otlp` (OTLP/HTTP with JSON, to the endpoint above or `http://localhost:4318/v1/traces`), `console` (spans on stdout) or `none` (off, whatever else is set).',
  }),
  otelServiceName: setting({
    variable: 'OTEL_SERVICE_NAME',
    group: 'tracing',
    parser: text(),
    default: 'infra-graphql-gateway',
    description: '`service.name` of the gateway\'s spans (`OTEL_RESOURCE_ATTRIBUTES` adds others).',
  }),
  otelTracesSampler: setting({
    variable: 'OTEL_TRACES_SAMPLER',
    group: 'tracing',
    parser: choice(TRACES_SAMPLERS),
    default: 'parentbased_always_on',
    description: 'Which traces are recorded; the `parentbased_` samplers follow the sampled flag of a caller\'s `traceparent`.',
  }),
  otelTracesSamplerArg: setting({
    variable: 'OTEL_TRACES_SAMPLER_ARG',
    group: 'tracing',
    parser: fraction(),
    default: 1,
    description: 'The ratio of the `traceidratio` samplers.',
  }),
  tracesFlushTimeoutMs: setting({
    variable: 'TRACES_FLUSH_TIMEOUT_MS',
    group: 'tracing',
    parser: milliseconds(0, 60_000),
    default: 3_000,
    description:
      'On shutdown, after the drain: how long the spans still buffered may take to reach the collector before the process exits without them. Keep `SHUTDOWN_TIMEOUT_MS` plus this below the pod\'s grace period ([health](../operations/health.md#how-the-grace-period-is-spent)).',
  }),
  otelSdkDisabled: setting({
    variable: 'OTEL_SDK_DISABLED',
    group: 'tracing',
    parser: boolean(),
    default: false,
    description: '`true` turns tracing off whatever else is set.',
  }),
});
