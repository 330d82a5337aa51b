/**
 * The gateway's configuration: the only reader of `process.env`. Fails fast on a bad value.
 */
import { parseTrustedProxy } from './client-address.js';
import { isRelease } from './upstream/releases.js';

export interface GatewayConfig {
  /** Where the gateway listens. @default 4000 */
  readonly port: number;
  /** @default '0.0.0.0' */
  readonly host: string;
  /** The resource family's `{base_url}`; unset means "start the embedded simulator". */
  readonly upstreamUrl: string | undefined;
  /** Origin of the generic family; defaults to the origin of `upstreamUrl`. */
  readonly resourcesUrl: string | undefined;
  /** The gateway's own address as the upstream can reach it (for `X-Web-Hook`). */
  readonly publicUrl: string | undefined;
  /** Enables Redis for pub/sub and the job store. */
  readonly redisUrl: string | undefined;
  /** IANA zone of the upstream's timestamp text. @default 'UTC' */
  readonly upstreamTimezone: string;
  /**
   * The upstream's release (`4.7.0`): the served schema holds only what that release has, by the
   * spec's "Since" (`schema/releases.ts`). Unset: the newest the spec describes.
   */
  readonly upstreamVersion: string | undefined;
  /** Time allowed for one upstream request. @default 10000 */
  readonly upstreamTimeoutMs: number;
  /** Keep-alive connections per upstream origin. @default 32 */
  readonly upstreamConnections: number;
  /** Most keys one DataLoader batch sends upstream; longer batches are split. @default 100 */
  readonly maxBatchSize: number;
  /** How long a mutation with `async: false` waits for its job before answering RUNNING. @default 20000 */
  readonly mutationWaitMs: number;
  /** How long to wait for a job's webhook before polling the upstream. @default 2000 */
  readonly jobPollAfterMs: number;
  /** How long finished jobs stay readable with `job(id)`. @default 3600000 */
  readonly jobTtlMs: number;
  /** Serve GraphiQL (and the guide it links to, `/docs/`) and allow introspection. @default true */
  readonly graphiql: boolean;
  /** Path of a trusted-document manifest: when set, only its operations run (see use-trusted-documents.ts). @default undefined */
  readonly trustedDocuments: string | undefined;
  /** Largest request body, in bytes; a bigger one is answered 413. @default 1048576 */
  readonly maxBodyBytes: number;
  /** Origins a browser may call from (CORS); `['*']` allows any; empty: same origin only. @default [] */
  readonly corsOrigins: readonly string[];
  /** Deepest field nesting of an operation. @default 12 */
  readonly maxDepth: number;
  /** Aliases in one operation. @default 30 */
  readonly maxAliases: number;
  /** Lexical tokens in one document. @default 1000 */
  readonly maxTokens: number;
  /** Directives in one operation. @default 50 */
  readonly maxDirectives: number;
  /** `__schema` fields in one operation (`__type` lookups are bounded by the cost limit). @default 1 */
  readonly maxIntrospectionSchemas: number;
  /** Bytes that may wait unsent on a WebSocket before it is closed (code 4008). @default 1048576 */
  readonly wsMaxBufferedBytes: number;
  /** Subscriptions open at once on one WebSocket. @default 100 */
  readonly wsMaxSubscriptionsPerSocket: number;
  /** Subscriptions open at once under one credential, over all its WebSockets and SSE streams on this replica. @default 500 */
  readonly maxSubscriptionsPerCredential: number;
  /** Subscriptions open at once from one client address under credentials the upstream has not accepted, on this replica; 0: no such cap. @default 100 */
  readonly unverifiedSubscriptionsPerAddress: number;
  /** Operation names `/metrics` labels with their own name; every other name counts as `other`. @default [] */
  readonly metricsOperationNames: readonly string[];
  /** Largest requested cost (records) of one operation. @default 100000 */
  readonly maxCost: number;
  /** Cost points a credential's budget holds when full; 0 turns budgets off. @default 200000 */
  readonly costBudget: number;
  /** Cost points a credential's budget regains per second. @default 5000 */
  readonly costBudgetRefill: number;
  /** Cost points of each upstream call a field may cause (per id of `nodes`, per parent of a relation with no batch form). @default 10 */
  readonly upstreamCallCost: number;
  /** How long calls under a credential the upstream rejected fail without asking it again, in ms; 0 remembers none. @default 60000 */
  readonly rejectedCredentialTtlMs: number;
  /** Credentials remembered as accepted, and as rejected, at most (least recently used forgotten first). @default 10000 */
  readonly rememberedCredentials: number;
  /** Upstream calls a client address may make in a burst under credentials the upstream has not accepted yet; 0 turns this budget off. @default 20 */
  readonly unverifiedCallsPerAddress: number;
  /** Such calls an address regains per minute. @default 60 */
  readonly unverifiedCallsPerMinute: number;
  /** Proxies (addresses or CIDR ranges) whose `X-Forwarded-For` names the client address; empty: the socket's peer is the client. @default [] */
  readonly trustedProxies: readonly string[];
  /** Upstream calls failing in a row (per origin) that open the circuit breaker. @default 5 */
  readonly upstreamBreakerThreshold: number;
  /** How long an open circuit breaker fails calls before it probes the upstream again. @default 5000 */
  readonly upstreamBreakerOpenMs: number;
  /** Upstream calls waiting per origin once `upstreamConnections` are in flight; more fail at once. @default 1000 */
  readonly upstreamMaxQueued: number;
  /** Ceiling of the operations over HTTP admitted to run at once (the limit adapts below it). @default 256 */
  readonly maxConcurrentOperations: number;
  /** Operations waiting for admission; more are refused with 503 OVERLOADED. @default 1000 */
  readonly maxQueuedOperations: number;
  /**
   * Share of each interval the event loop may be busy before the admission limit shrinks (its
   * utilization, 0 to 1); 0 keeps the limit at `maxConcurrentOperations`. @default 0.9
   */
  readonly admissionTargetUtilization: number;
  /** Life of a cached answer whose types set no shorter TTL; 0 turns the response cache off. @default 30000 */
  readonly responseCacheTtlMs: number;
  /** Most answers the response cache keeps. @default 1000 */
  readonly responseCacheMaxEntries: number;
  /** Smallest JSON answer (bytes) compressed for a client that accepts br or gzip. @default 1024 */
  readonly compressionMinBytes: number;
  /** Execute operations compiled by graphql-jit where it answers as graphql-js (see use-jit.ts); the others run on graphql-js. @default true */
  readonly graphqlJit: boolean;
  /** A query's upstream reads decode only the record fields the query selects (`useRecordDemand`). @default true */
  readonly decodeSelectedFields: boolean;
  /** Identical queries in flight (same document, operation, variables and credentials) share one execution (`createOperationCoalescing`). @default true */
  readonly coalesceQueries: boolean;
  /** Identical upstream GETs in flight under the same credential share one HTTP exchange, across requests. @default true */
  readonly shareUpstreamGets: boolean;
  /** Least time (ms) between two runs of one live query (`@live`); invalidations meanwhile make one run. @default 1000 */
  readonly liveMinIntervalMs: number;
  /** Live queries open at once on one WebSocket. @default 100 */
  readonly liveMaxPerSocket: number;
  /** Live queries open at once under one credential, over all its WebSockets and HTTP streams on this replica. @default 1000 */
  readonly liveMaxPerCredential: number;
  /** pino log level. @default 'info' */
  readonly logLevel: string;
  /** With Redis: how long a replica that stopped answering keeps its running jobs before another replica polls them. @default 15000 */
  readonly jobLeaseMs: number;
  /**
   * Interval of the upstream change feed behind `@live` queries: each (credential scope,
   * collection) a live query reads is polled once per interval, whatever the number of live
   * queries; 0 turns the feed off (live queries then follow finished jobs only). @default 2000
   */
  readonly livePollMs: number;
  /** On SIGTERM: how long in-flight requests may take before their connections are cut. @default 25000 */
  readonly shutdownTimeoutMs: number;
  /**
   * Key material (at least 16 characters) sealing connection cursors; replicas given the same one
   * honour each other's cursors. Unset: agreed through Redis with `REDIS_URL`, else random per process.
   */
  readonly cursorSecret: string | undefined;
  /** How long a cursor that stands for an upstream cursor stays valid: set it to the upstream cursor's life. @default 900000 */
  readonly cursorTtlMs: number;
  /** Most bytes the kept upstream cursors take together (in process, or in Redis with `REDIS_URL`); the oldest go first. @default 33554432 */
  readonly cursorStoreMaxBytes: number;
  /** Time a client has to send a request's headers before its connection is cut (408). @default 10000 */
  readonly headersTimeoutMs: number;
  /**
   * Time a client has to send a whole request, headers and body, before its connection is cut
   * (408). Not the answer: SSE streams and WebSocket connections last as long as they like. @default 30000
   */
  readonly requestTimeoutMs: number;
  /** Longest pause between two pieces of a request body the gateway is reading before the connection is cut (408). @default 10000 */
  readonly bodyIdleTimeoutMs: number;
  /** How long an idle keep-alive connection stays open after its last answer. @default 5000 */
  readonly keepAliveTimeoutMs: number;
  /** Mutations (root fields) in one operation; more are refused with BAD_USER_INPUT before any upstream call. @default 10 */
  readonly maxMutations: number;
  /**
   * OpenTelemetry (the SDK's standard variables, see `src/tracing/`): the OTLP/HTTP collector's
   * base URL; traces go to `<it>/v1/traces`. Setting it turns tracing on.
   */
  readonly otelExporterOtlpEndpoint: string | undefined;
  /** The OTLP/HTTP traces URL itself (no path appended); wins over `otelExporterOtlpEndpoint`, and also turns tracing on. */
  readonly otelExporterOtlpTracesEndpoint: string | undefined;
  /**
   * `otlp` (OTLP/HTTP, to the endpoint above or the SDK's default `http://localhost:4318/v1/traces`),
   * `console` (spans on stdout) or `none`. Unset: `otlp` when an endpoint is set, else tracing is off.
   */
  readonly otelTracesExporter: TracesExporter | undefined;
  /** `service.name` of the gateway's spans. @default 'infra-graphql-gateway' */
  readonly otelServiceName: string;
  /** Which traces are recorded (the SDK's sampler names). @default 'parentbased_always_on' */
  readonly otelTracesSampler: TracesSampler;
  /** The ratio of the `traceidratio` samplers, 0 to 1. @default 1 */
  readonly otelTracesSamplerArg: number;
  /** `true` turns tracing off whatever else is set. @default false */
  readonly otelSdkDisabled: boolean;
}

/** The values of `OTEL_TRACES_EXPORTER` the gateway knows. */
export const TRACES_EXPORTERS = ['otlp', 'console', 'none'] as const;
export type TracesExporter = (typeof TRACES_EXPORTERS)[number];

/** The values of `OTEL_TRACES_SAMPLER` the gateway knows (the specification's built-in samplers). */
export const TRACES_SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;
export type TracesSampler = (typeof TRACES_SAMPLERS)[number];

export const defaultConfig: GatewayConfig = Object.freeze({
  port: 4000,
  host: '0.0.0.0',
  upstreamUrl: undefined,
  resourcesUrl: undefined,
  publicUrl: undefined,
  redisUrl: undefined,
  upstreamTimezone: 'UTC',
  upstreamVersion: undefined,
  upstreamTimeoutMs: 10_000,
  upstreamConnections: 32,
  maxBatchSize: 100,
  mutationWaitMs: 20_000,
  jobPollAfterMs: 2_000,
  jobTtlMs: 3_600_000,
  graphiql: true,
  trustedDocuments: undefined,
  maxBodyBytes: 1_048_576,
  corsOrigins: Object.freeze([]) as readonly string[],
  maxDepth: 12,
  maxAliases: 30,
  maxTokens: 1_000,
  maxDirectives: 50,
  maxIntrospectionSchemas: 1,
  wsMaxBufferedBytes: 1_048_576,
  wsMaxSubscriptionsPerSocket: 100,
  maxSubscriptionsPerCredential: 500,
  unverifiedSubscriptionsPerAddress: 100,
  metricsOperationNames: Object.freeze([]) as readonly string[],
  maxCost: 100_000,
  costBudget: 200_000,
  costBudgetRefill: 5_000,
  upstreamCallCost: 10,
  rejectedCredentialTtlMs: 60_000,
  rememberedCredentials: 10_000,
  unverifiedCallsPerAddress: 20,
  unverifiedCallsPerMinute: 60,
  trustedProxies: Object.freeze([]) as readonly string[],
  upstreamBreakerThreshold: 5,
  upstreamBreakerOpenMs: 5_000,
  upstreamMaxQueued: 1_000,
  maxConcurrentOperations: 256,
  maxQueuedOperations: 1_000,
  admissionTargetUtilization: 0.9,
  responseCacheTtlMs: 30_000,
  responseCacheMaxEntries: 1_000,
  compressionMinBytes: 1_024,
  graphqlJit: true,
  decodeSelectedFields: true,
  coalesceQueries: true,
  shareUpstreamGets: true,
  liveMinIntervalMs: 1_000,
  liveMaxPerSocket: 100,
  liveMaxPerCredential: 1_000,
  logLevel: 'info',
  jobLeaseMs: 15_000,
  livePollMs: 2000,
  shutdownTimeoutMs: 25_000,
  cursorSecret: undefined,
  cursorTtlMs: 900_000,
  cursorStoreMaxBytes: 33_554_432,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  bodyIdleTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  maxMutations: 10,
  otelExporterOtlpEndpoint: undefined,
  otelExporterOtlpTracesEndpoint: undefined,
  otelTracesExporter: undefined,
  otelServiceName: 'infra-graphql-gateway',
  otelTracesSampler: 'parentbased_always_on',
  otelTracesSamplerArg: 1,
  otelSdkDisabled: false,
});

/**
 * Under the test runner (vitest sets `VITEST`), reading a record field a query's demand left out
 * throws `UndecodedFieldError` instead of answering null, so a starved `reads(...)` declaration
 * fails the test that reaches it. Not a setting: in production it stays off, where it would cost a
 * getter per undecoded field.
 */
export const strictRecordReads = process.env.VITEST !== undefined;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Readonly<Record<string, string | undefined>>;

/** Reads the configuration from an environment (default `process.env`). */
export function loadConfig(env: Env = process.env): GatewayConfig {
  const config: GatewayConfig = Object.freeze({
    port: readInteger(env, 'PORT', defaultConfig.port, 0, 65_535),
    host: readString(env, 'HOST') ?? defaultConfig.host,
    upstreamUrl: readUrl(env, 'UPSTREAM_URL'),
    resourcesUrl: readUrl(env, 'RESOURCES_URL'),
    publicUrl: readUrl(env, 'PUBLIC_URL'),
    redisUrl: readRedisUrl(env, 'REDIS_URL'),
    upstreamTimezone: readTimezone(env, 'UPSTREAM_TIMEZONE') ?? defaultConfig.upstreamTimezone,
    upstreamVersion: readRelease(env, 'UPSTREAM_VERSION') ?? defaultConfig.upstreamVersion,
    upstreamTimeoutMs: readInteger(env, 'UPSTREAM_TIMEOUT_MS', defaultConfig.upstreamTimeoutMs, 1, 600_000),
    upstreamConnections: readInteger(env, 'UPSTREAM_CONNECTIONS', defaultConfig.upstreamConnections, 1, 1024),
    maxBatchSize: readInteger(env, 'MAX_BATCH_SIZE', defaultConfig.maxBatchSize, 1, 1000),
    mutationWaitMs: readInteger(env, 'MUTATION_WAIT_MS', defaultConfig.mutationWaitMs, 0, 600_000),
    jobPollAfterMs: readInteger(env, 'JOB_POLL_AFTER_MS', defaultConfig.jobPollAfterMs, 10, 600_000),
    jobTtlMs: readInteger(env, 'JOB_TTL_MS', defaultConfig.jobTtlMs, 1_000, 86_400_000),
    graphiql: readBoolean(env, 'GRAPHIQL', defaultConfig.graphiql),
    trustedDocuments: readString(env, 'TRUSTED_DOCUMENTS'),
    maxBodyBytes: readInteger(env, 'MAX_BODY_BYTES', defaultConfig.maxBodyBytes, 1_024, 1_073_741_824),
    corsOrigins: readOrigins(env, 'CORS_ORIGINS') ?? defaultConfig.corsOrigins,
    maxDepth: readInteger(env, 'MAX_DEPTH', defaultConfig.maxDepth, 1, 1_000),
    maxAliases: readInteger(env, 'MAX_ALIASES', defaultConfig.maxAliases, 0, 100_000),
    maxTokens: readInteger(env, 'MAX_TOKENS', defaultConfig.maxTokens, 10, 10_000_000),
    maxDirectives: readInteger(env, 'MAX_DIRECTIVES', defaultConfig.maxDirectives, 0, 100_000),
    maxIntrospectionSchemas: readInteger(env, 'MAX_INTROSPECTION_SCHEMAS', defaultConfig.maxIntrospectionSchemas, 1, 1_000),
    wsMaxBufferedBytes: readInteger(env, 'WS_MAX_BUFFERED_BYTES', defaultConfig.wsMaxBufferedBytes, 1_024, 1_073_741_824),
    wsMaxSubscriptionsPerSocket: readInteger(env, 'WS_MAX_SUBSCRIPTIONS_PER_SOCKET', defaultConfig.wsMaxSubscriptionsPerSocket, 1, 1_000_000),
    maxSubscriptionsPerCredential: readInteger(env, 'MAX_SUBSCRIPTIONS_PER_CREDENTIAL', defaultConfig.maxSubscriptionsPerCredential, 1, 10_000_000),
    unverifiedSubscriptionsPerAddress: readInteger(env, 'UNVERIFIED_SUBSCRIPTIONS_PER_ADDRESS', defaultConfig.unverifiedSubscriptionsPerAddress, 0, 10_000_000),
    metricsOperationNames: readNames(env, 'METRICS_OPERATION_NAMES') ?? defaultConfig.metricsOperationNames,
    maxCost: readInteger(env, 'MAX_COST', defaultConfig.maxCost, 1, 1_000_000_000),
    costBudget: readInteger(env, 'COST_BUDGET', defaultConfig.costBudget, 0, 1_000_000_000),
    costBudgetRefill: readInteger(env, 'COST_BUDGET_REFILL', defaultConfig.costBudgetRefill, 1, 1_000_000_000),
    upstreamCallCost: readInteger(env, 'UPSTREAM_CALL_COST', defaultConfig.upstreamCallCost, 0, 1_000_000),
    rejectedCredentialTtlMs: readInteger(env, 'REJECTED_CREDENTIAL_TTL_MS', defaultConfig.rejectedCredentialTtlMs, 0, 86_400_000),
    rememberedCredentials: readInteger(env, 'REMEMBERED_CREDENTIALS', defaultConfig.rememberedCredentials, 1, 10_000_000),
    unverifiedCallsPerAddress: readInteger(env, 'UNVERIFIED_CALLS_PER_ADDRESS', defaultConfig.unverifiedCallsPerAddress, 0, 1_000_000),
    unverifiedCallsPerMinute: readInteger(env, 'UNVERIFIED_CALLS_PER_MINUTE', defaultConfig.unverifiedCallsPerMinute, 0, 1_000_000),
    trustedProxies: readTrustedProxies(env, 'TRUSTED_PROXIES') ?? defaultConfig.trustedProxies,
    upstreamBreakerThreshold: readInteger(env, 'UPSTREAM_BREAKER_THRESHOLD', defaultConfig.upstreamBreakerThreshold, 1, 1_000_000),
    upstreamBreakerOpenMs: readInteger(env, 'UPSTREAM_BREAKER_OPEN_MS', defaultConfig.upstreamBreakerOpenMs, 0, 3_600_000),
    upstreamMaxQueued: readInteger(env, 'UPSTREAM_MAX_QUEUED', defaultConfig.upstreamMaxQueued, 0, 1_000_000),
    maxConcurrentOperations: readInteger(env, 'MAX_CONCURRENT_OPERATIONS', defaultConfig.maxConcurrentOperations, 1, 100_000),
    maxQueuedOperations: readInteger(env, 'MAX_QUEUED_OPERATIONS', defaultConfig.maxQueuedOperations, 0, 1_000_000),
    admissionTargetUtilization: readFraction(env, 'ADMISSION_TARGET_UTILIZATION', defaultConfig.admissionTargetUtilization),
    responseCacheTtlMs: readInteger(env, 'RESPONSE_CACHE_TTL_MS', defaultConfig.responseCacheTtlMs, 0, 86_400_000),
    responseCacheMaxEntries: readInteger(env, 'RESPONSE_CACHE_MAX_ENTRIES', defaultConfig.responseCacheMaxEntries, 1, 1_000_000),
    compressionMinBytes: readInteger(env, 'COMPRESSION_MIN_BYTES', defaultConfig.compressionMinBytes, 0, 100_000_000),
    graphqlJit: readBoolean(env, 'GRAPHQL_JIT', defaultConfig.graphqlJit),
    decodeSelectedFields: readBoolean(env, 'DECODE_SELECTED_FIELDS', defaultConfig.decodeSelectedFields),
    coalesceQueries: readBoolean(env, 'COALESCE_QUERIES', defaultConfig.coalesceQueries),
    shareUpstreamGets: readBoolean(env, 'SHARE_UPSTREAM_GETS', defaultConfig.shareUpstreamGets),
    liveMinIntervalMs: readInteger(env, 'LIVE_MIN_INTERVAL_MS', defaultConfig.liveMinIntervalMs, 0, 3_600_000),
    liveMaxPerSocket: readInteger(env, 'LIVE_MAX_PER_SOCKET', defaultConfig.liveMaxPerSocket, 1, 1_000_000),
    liveMaxPerCredential: readInteger(env, 'LIVE_MAX_PER_CREDENTIAL', defaultConfig.liveMaxPerCredential, 1, 10_000_000),
    logLevel: readString(env, 'LOG_LEVEL') ?? defaultConfig.logLevel,
    jobLeaseMs: readInteger(env, 'JOB_LEASE_MS', defaultConfig.jobLeaseMs, 100, 3_600_000),
    livePollMs: readInteger(env, 'LIVE_POLL_MS', defaultConfig.livePollMs, 0, 3_600_000),
    shutdownTimeoutMs: readInteger(env, 'SHUTDOWN_TIMEOUT_MS', defaultConfig.shutdownTimeoutMs, 0, 600_000),
    cursorSecret: readSecret(env, 'CURSOR_SECRET', 16),
    cursorTtlMs: readInteger(env, 'CURSOR_TTL_MS', defaultConfig.cursorTtlMs, 1_000, 86_400_000),
    cursorStoreMaxBytes: readInteger(env, 'CURSOR_STORE_MAX_BYTES', defaultConfig.cursorStoreMaxBytes, 65_536, 1_073_741_824),
    headersTimeoutMs: readInteger(env, 'HEADERS_TIMEOUT_MS', defaultConfig.headersTimeoutMs, 100, 600_000),
    requestTimeoutMs: readInteger(env, 'REQUEST_TIMEOUT_MS', defaultConfig.requestTimeoutMs, 100, 600_000),
    bodyIdleTimeoutMs: readInteger(env, 'BODY_IDLE_TIMEOUT_MS', defaultConfig.bodyIdleTimeoutMs, 100, 600_000),
    keepAliveTimeoutMs: readInteger(env, 'KEEP_ALIVE_TIMEOUT_MS', defaultConfig.keepAliveTimeoutMs, 100, 600_000),
    maxMutations: readInteger(env, 'MAX_MUTATIONS', defaultConfig.maxMutations, 1, 1_000),
    otelExporterOtlpEndpoint: readUrl(env, 'OTEL_EXPORTER_OTLP_ENDPOINT'),
    otelExporterOtlpTracesEndpoint: readUrl(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'),
    otelTracesExporter: readChoice(env, 'OTEL_TRACES_EXPORTER', TRACES_EXPORTERS),
    otelServiceName: readString(env, 'OTEL_SERVICE_NAME') ?? defaultConfig.otelServiceName,
    otelTracesSampler: readChoice(env, 'OTEL_TRACES_SAMPLER', TRACES_SAMPLERS) ?? defaultConfig.otelTracesSampler,
    otelTracesSamplerArg: readFraction(env, 'OTEL_TRACES_SAMPLER_ARG', defaultConfig.otelTracesSamplerArg),
    otelSdkDisabled: readBoolean(env, 'OTEL_SDK_DISABLED', defaultConfig.otelSdkDisabled),
  });
  // node:http refuses a headers timeout longer than the request timeout it is part of.
  if (config.headersTimeoutMs > config.requestTimeoutMs) {
    throw new ConfigError(`HEADERS_TIMEOUT_MS (${config.headersTimeoutMs}) must not exceed REQUEST_TIMEOUT_MS (${config.requestTimeoutMs})`);
  }
  return config;
}

/** A release as the spec writes one (`4.7.0`, `2.3`). */
function readRelease(env: Env, name: string): string | undefined {
  const raw = readString(env, name);
  if (raw === undefined) return undefined;
  // `auto` is not offered: the spec names no place where the upstream reports its release (docs/features/upstream-releases.md).
  if (!isRelease(raw)) throw new ConfigError(`${name} must be a release such as 4.7.0, got "${raw}"`);
  return raw;
}

function readString(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function readSecret(env: Env, name: string, minLength: number): string | undefined {
  const raw = readString(env, name);
  if (raw !== undefined && raw.length < minLength) throw new ConfigError(`${name} must be at least ${minLength} characters long`);
  return raw;
}

function readInteger(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = readString(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function readFraction(env: Env, name: string, fallback: number): number {
  const raw = readString(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || value > 1) throw new ConfigError(`${name} must be a number from 0 to 1, got "${raw}"`);
  return value;
}

function readBoolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = readString(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['true', '1', 'yes', 'on'].includes(raw)) return true;
  if (['false', '0', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/** One of `choices` (lowercased, as the OpenTelemetry variables are compared). */
function readChoice<T extends string>(env: Env, name: string, choices: readonly T[]): T | undefined {
  const raw = readString(env, name)?.toLowerCase();
  if (raw === undefined) return undefined;
  if (!(choices as readonly string[]).includes(raw)) throw new ConfigError(`${name} must be one of ${choices.join(', ')}, got "${raw}"`);
  return raw as T;
}

function readUrl(env: Env, name: string): string | undefined {
  const raw = readString(env, name);
  if (raw === undefined) return undefined;
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  }
  return raw;
}

function readRedisUrl(env: Env, name: string): string | undefined {
  const raw = readString(env, name);
  if (raw === undefined) return undefined;
  try {
    parseRedisUrl(raw);
  } catch (error) {
    throw new ConfigError(`${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return raw;
}

/** A `host:port` of a Redis node or sentinel. */
export interface RedisNodeAddress {
  readonly host: string;
  readonly port: number;
}

/** What `REDIS_URL` names: one Redis, a Redis Cluster (its seed nodes), or a Sentinel-watched master. */
export type RedisTarget =
  | { readonly kind: 'single'; readonly url: string }
  | {
      readonly kind: 'cluster';
      /** Seed nodes: the client learns the rest of the cluster from any one of them. */
      readonly nodes: readonly RedisNodeAddress[];
      readonly username: string | undefined;
      readonly password: string | undefined;
      readonly tls: boolean;
    }
  | {
      readonly kind: 'sentinel';
      readonly sentinels: readonly RedisNodeAddress[];
      /** The name the sentinels know the master by. */
      readonly masterName: string;
      readonly db: number;
      /** The master's credentials. */
      readonly username: string | undefined;
      readonly password: string | undefined;
      /** The sentinels' own password (`?sentinelPassword=`), when they require one. */
      readonly sentinelPassword: string | undefined;
      readonly tls: boolean;
    };

const REDIS_MULTI_NODE_URL = /^(rediss?)\+(cluster|sentinel):\/\/(?:([^@/?#]*)@)?([^/?#]+)(?:\/([^?#]*))?(?:\?([^#]*))?$/;

/**
 * Reads `REDIS_URL`: `redis://` / `rediss://` for one Redis; `redis+cluster://[user:pass@]h1:p1,h2:p2`
 * for a cluster (any reachable seed suffices); `redis+sentinel://[user:pass@]s1:p1,s2:p2/<master>[/<db>]`
 * for a master watched by sentinels (`?sentinelPassword=` when the sentinels require one). The
 * `rediss+` forms use TLS. Throws a message without the password on anything else.
 */
export function parseRedisUrl(raw: string): RedisTarget {
  const shown = raw.replace(/\/\/[^@/]*@/, '//***@');
  const multi = REDIS_MULTI_NODE_URL.exec(raw);
  if (multi) {
    const [, scheme, kind, userinfo, hosts, path, query] = multi;
    const nodes = hosts!.split(',').map((part) => parseNodeAddress(part, kind === 'sentinel' ? 26_379 : 6379, shown));
    const [username, password] = parseUserinfo(userinfo);
    const tls = scheme === 'rediss';
    if (kind === 'cluster') {
      if (path) throw new Error(`a cluster has no database or master name in its URL, got "${shown}"`);
      return { kind: 'cluster', nodes, username, password, tls };
    }
    const [masterName, db, ...rest] = (path ?? '').split('/');
    if (!masterName || rest.length > 0 || (db !== undefined && db !== '' && !/^\d{1,2}$/.test(db))) {
      throw new Error(`a sentinel URL names its master: redis+sentinel://host:port,host:port/<master>[/<db>], got "${shown}"`);
    }
    const sentinelPassword = new URLSearchParams(query ?? '').get('sentinelPassword') ?? undefined;
    return { kind: 'sentinel', sentinels: nodes, masterName: decodeURIComponent(masterName), db: db ? Number(db) : 0, username, password, sentinelPassword, tls };
  }
  let protocol = '';
  try {
    protocol = new URL(raw).protocol;
  } catch {
    // reported below
  }
  if (protocol !== 'redis:' && protocol !== 'rediss:') {
    throw new Error(`must be a redis:// or rediss:// URL, or redis+cluster://host:port,host:port, or redis+sentinel://host:port,host:port/<master>, got "${shown}"`);
  }
  return { kind: 'single', url: raw };
}

function parseNodeAddress(part: string, defaultPort: number, shown: string): RedisNodeAddress {
  const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(part.trim());
  const port = match?.[2] === undefined ? defaultPort : Number(match[2]);
  if (!match || port < 1 || port > 65_535) throw new Error(`"${part}" is not a host:port in "${shown}"`);
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
}

function parseUserinfo(userinfo: string | undefined): [string | undefined, string | undefined] {
  if (!userinfo) return [undefined, undefined];
  const colon = userinfo.indexOf(':');
  if (colon === -1) return [decodeURIComponent(userinfo) || undefined, undefined];
  return [decodeURIComponent(userinfo.slice(0, colon)) || undefined, decodeURIComponent(userinfo.slice(colon + 1))];
}

/** Comma-separated origins (`https://ops.example.com`), or `*`. */
function readOrigins(env: Env, name: string): readonly string[] | undefined {
  const raw = readString(env, name);
  if (raw === undefined) return undefined;
  const origins = raw.split(',').map((origin) => origin.trim()).filter((origin) => origin !== '');
  for (const origin of origins) {
    if (origin === '*') continue;
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      // reported below
    }
    if (parsed === undefined || parsed.origin !== origin) {
      throw new ConfigError(`${name} must list origins like https://ops.example.com (or *), got "${origin}"`);
    }
  }
  return Object.freeze(origins);
}

/** Comma-separated addresses or CIDR ranges of proxies (`10.0.0.7, 10.1.0.0/16`). */
function readTrustedProxies(env: Env, name: string): readonly string[] | undefined {
  const raw = readString(env, name);
  if (raw === undefined) return undefined;
  const proxies = raw.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  const bad = proxies.find((entry) => !parseTrustedProxy(entry));
  if (bad !== undefined) throw new ConfigError(`${name} must list IP addresses or CIDR ranges (10.0.0.0/8), got "${bad}"`);
  return Object.freeze(proxies);
}

/** Comma-separated GraphQL names (`Dashboard,VmDetails`). */
function readNames(env: Env, name: string): readonly string[] | undefined {
  const raw = readString(env, name);
  if (raw === undefined) return undefined;
  const names = raw.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  const bad = names.find((entry) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(entry));
  if (bad !== undefined) throw new ConfigError(`${name} must list GraphQL operation names like Dashboard,VmDetails, got "${bad}"`);
  return Object.freeze(names);
}

function readTimezone(env: Env, name: string): string | undefined {
  const raw = readString(env, name);
  if (raw === undefined) return undefined;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: raw });
  } catch {
    throw new ConfigError(`${name} must be an IANA time zone, got "${raw}"`);
  }
  return raw;
}
