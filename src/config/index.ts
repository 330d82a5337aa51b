/**
 * The gateway's configuration: the only reader of `process.env`. Fails fast on a bad value.
 *
 * Every setting is declared once, in the table of `settings/` (a module per few sections of the
 * reference page, composed below in its order): its environment variable, the parser that says
 * what the variable accepts (`parsers.ts`), its default and its description. The rest is
 * derived from that table: the `GatewayConfig` type, `defaultConfig`, `loadConfig`, and the
 * reference page `docs/reference/configuration.md` (`npm run docs:config`; a test fails when the
 * committed page is stale). Modules take their settings as required options under the same names,
 * and repeat no default (`test/config/declared-once.test.ts` scans for one).
 */
import { ConfigError } from './parsers.js';
import type { Setting } from './declaration.js';
import { admissionSettings } from './settings/admission.js';
import { performanceSettings } from './settings/performance.js';
import { redisSettings } from './settings/redis.js';
import { serverSettings } from './settings/server.js';
import { subscriptionSettings } from './settings/subscriptions.js';
import { tracingSettings } from './settings/tracing.js';
import { upstreamSettings } from './settings/upstream.js';
import { simulatorSettingEntries, type SimulatorSettingValues } from './simulator.js';

export { ConfigError } from './parsers.js';
export { SETTING_GROUPS, type Setting, type SettingGroup } from './declaration.js';
export { TRACES_EXPORTERS, TRACES_SAMPLERS, type TracesExporter, type TracesSampler } from './settings/tracing.js';
export { defaultSimulatorSettings, simulatorOptionsOf, simulatorSettingEntries, type SimulatorSettingValues } from './simulator.js';

/**
 * Every setting of the gateway: the parts in the reference page's order of sections, each in its
 * order within a section (the page lists a section's settings in this order).
 */
const settings = Object.freeze({
  ...serverSettings,
  ...upstreamSettings,
  ...redisSettings,
  ...admissionSettings,
  ...subscriptionSettings,
  ...performanceSettings,
  ...tracingSettings,
});

type Settings = typeof settings;

/** The configuration: one value per setting of `settings`, under its key. */
export type GatewayConfig = { readonly [Key in keyof Settings]: Settings[Key] extends Setting<infer Value> ? Value : never };

/** The name of a setting: a key of `GatewayConfig`, and the name of the option a module takes it by. */
export type SettingName = keyof GatewayConfig;

/** Every setting with its name, in the table's order. */
export function settingEntries(): [SettingName, Setting<unknown>][] {
  return Object.entries(settings) as [SettingName, Setting<unknown>][];
}

/** Every setting's default: the configuration of an empty environment. */
export const defaultConfig: GatewayConfig = Object.freeze(Object.fromEntries(settingEntries().map(([name, { default: value }]) => [name, value])) as GatewayConfig);

/**
 * Under the test runner (vitest sets `VITEST`), reading a record field a query's demand left out
 * throws `UndecodedFieldError` instead of answering null, so a starved `reads(...)` declaration
 * fails the test that reaches it. Not a setting: in production it stays off, where it would cost a
 * getter per undecoded field.
 */
export const strictRecordReads = process.env.VITEST !== undefined;

type Env = Readonly<Record<string, string | undefined>>;

/** Reads the configuration from an environment (default `process.env`); throws `ConfigError` on the first value not accepted. */
export function loadConfig(env: Env = process.env): GatewayConfig {
  const config = Object.freeze(Object.fromEntries(settingEntries().map(([name, declaration]) => [name, read(env, declaration)])) as GatewayConfig);
  // node:http refuses a headers timeout longer than the request timeout it is part of.
  if (config.headersTimeoutMs > config.requestTimeoutMs) {
    throw new ConfigError(`HEADERS_TIMEOUT_MS (${config.headersTimeoutMs}) must not exceed REQUEST_TIMEOUT_MS (${config.requestTimeoutMs})`);
  }
  // One port cannot be both: the second listener would fail to start, after the first had.
  if (config.metricsPort !== undefined && config.metricsPort !== 0 && config.metricsPort === config.port) {
    throw new ConfigError(`METRICS_PORT (${config.metricsPort}) must differ from PORT: unset it to serve /metrics beside /graphql`);
  }
  return config;
}

/**
 * Reads the simulator's settings from an environment (default `process.env`): `npm run simulator`,
 * and the embedded demo of `npm start`. Throws `ConfigError` on the first value not accepted.
 */
export function loadSimulatorSettings(env: Env = process.env): SimulatorSettingValues {
  return Object.freeze(Object.fromEntries(simulatorSettingEntries().map(([name, declaration]) => [name, read(env, declaration)])) as SimulatorSettingValues);
}

/** A setting's value in `env`: its parse of the variable's text, or its default when that is unset or blank. */
function read<V>(env: Env, { variable, parser, default: fallback }: Setting<V>): V {
  const text = env[variable]?.trim();
  return text === undefined || text === '' ? fallback : parser.parse(text, variable);
}
