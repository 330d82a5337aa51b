/**
 * The gateway's configuration: the only reader of `process.env`. Fails fast on a bad value.
 */

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
  /** Serve GraphiQL and allow introspection. @default true */
  readonly graphiql: boolean;
  /** pino log level. @default 'info' */
  readonly logLevel: string;
}

export const defaultConfig: GatewayConfig = Object.freeze({
  port: 4000,
  host: '0.0.0.0',
  upstreamUrl: undefined,
  resourcesUrl: undefined,
  publicUrl: undefined,
  redisUrl: undefined,
  upstreamTimezone: 'UTC',
  upstreamTimeoutMs: 10_000,
  upstreamConnections: 32,
  maxBatchSize: 100,
  mutationWaitMs: 20_000,
  jobPollAfterMs: 2_000,
  jobTtlMs: 3_600_000,
  graphiql: true,
  logLevel: 'info',
});

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Readonly<Record<string, string | undefined>>;

/** Reads the configuration from an environment (default `process.env`). */
export function loadConfig(env: Env = process.env): GatewayConfig {
  return Object.freeze({
    port: readInteger(env, 'PORT', defaultConfig.port, 0, 65_535),
    host: readString(env, 'HOST') ?? defaultConfig.host,
    upstreamUrl: readUrl(env, 'UPSTREAM_URL'),
    resourcesUrl: readUrl(env, 'RESOURCES_URL'),
    publicUrl: readUrl(env, 'PUBLIC_URL'),
    redisUrl: readString(env, 'REDIS_URL'),
    upstreamTimezone: readTimezone(env, 'UPSTREAM_TIMEZONE') ?? defaultConfig.upstreamTimezone,
    upstreamTimeoutMs: readInteger(env, 'UPSTREAM_TIMEOUT_MS', defaultConfig.upstreamTimeoutMs, 1, 600_000),
    upstreamConnections: readInteger(env, 'UPSTREAM_CONNECTIONS', defaultConfig.upstreamConnections, 1, 1024),
    maxBatchSize: readInteger(env, 'MAX_BATCH_SIZE', defaultConfig.maxBatchSize, 1, 1000),
    mutationWaitMs: readInteger(env, 'MUTATION_WAIT_MS', defaultConfig.mutationWaitMs, 0, 600_000),
    jobPollAfterMs: readInteger(env, 'JOB_POLL_AFTER_MS', defaultConfig.jobPollAfterMs, 10, 600_000),
    jobTtlMs: readInteger(env, 'JOB_TTL_MS', defaultConfig.jobTtlMs, 1_000, 86_400_000),
    graphiql: readBoolean(env, 'GRAPHIQL', defaultConfig.graphiql),
    logLevel: readString(env, 'LOG_LEVEL') ?? defaultConfig.logLevel,
  });
}

function readString(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
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

function readBoolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = readString(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['true', '1', 'yes', 'on'].includes(raw)) return true;
  if (['false', '0', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
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
