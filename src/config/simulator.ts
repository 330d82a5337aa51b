/**
 * The simulator's settings, declared like the gateway's (`settings/`) in a table of their own:
 * `npm run simulator` reads them all, and `npm start` without `UPSTREAM_URL` reads them for its
 * embedded demo (all but `PORT` and `SIM_HOST`: the demo listens on a free loopback port). The
 * reference page lists them under their own heading.
 */
import type { ChurnSpec, ChurnTenants, SimulatorOptions } from '../simulator/options.js';
import { optional, setting, type Setting } from './declaration.js';
import { boolean, ConfigError, fraction, integer, milliseconds, release, text, timeZone, type Parser } from './parsers.js';
import { upstreamSettings } from './settings/upstream.js';

/** `SIM_CHURN`: `<changes per second>` (every tenant), or `<rate>@first`, `@second`, `@all`; `0`: off. */
function churn(): Parser<ChurnSpec> {
  return {
    accepts: '`<changes per second>[@first|@second|@all]` (`5@first`), at most 10000',
    show: (spec) => (spec.rate === 0 ? 'off' : `\`${spec.rate}@${spec.tenants}\``),
    parse(value, variable) {
      const match = /^\s*(\d+(?:\.\d+)?)\s*(?:@\s*(first|second|all))?\s*$/.exec(value);
      const rate = Number(match?.[1]);
      if (match === null || rate > 10_000) throw new ConfigError(`${variable} must be <changes per second>[@first|@second|@all], at most 10000, got "${value}"`);
      return { rate, tenants: (match[2] as ChurnTenants | undefined) ?? 'all' };
    },
  };
}

const credential = (variable: string, what: string): Setting<string | undefined> =>
  optional({ variable, group: 'simulator', parser: text(), unset: `derived from \`SIM_SEED\``, description: what });

/** Every setting of the simulator, in the reference page's order. */
export const simulatorSettings = Object.freeze({
  port: setting({
    variable: 'PORT',
    group: 'simulator',
    parser: integer(0, 65_535),
    default: 8080,
    description: 'TCP port of `npm run simulator` (the gateway reads the same variable for its own port; the embedded demo takes a free loopback port).',
  }),
  host: setting({
    variable: 'SIM_HOST',
    group: 'simulator',
    parser: text('host name or address'),
    default: '127.0.0.1',
    description: 'Interface `npm run simulator` listens on.',
  }),
  seed: setting({
    variable: 'SIM_SEED',
    group: 'simulator',
    parser: integer(0, 2_147_483_647),
    default: 42,
    description: 'Seed of the generated estate and of the credentials derived from it: another seed, another estate and other demo credentials.',
  }),
  hosts: setting({
    variable: 'SIM_HOSTS',
    group: 'simulator',
    parser: integer(1, 100_000),
    default: 8,
    description: 'Hosts of the first tenant (the second gets a tenth, at least 2).',
  }),
  vms: setting({
    variable: 'SIM_VMS',
    group: 'simulator',
    parser: integer(0, 1_000_000),
    default: 100,
    description: 'VM instances of the first tenant (the second gets a tenth, at least 5).',
  }),
  asyncDelayMs: setting({
    variable: 'SIM_ASYNC_DELAY_MS',
    group: 'simulator',
    parser: milliseconds(0, 3_600_000),
    default: 50,
    description: 'How long an asynchronous call runs before it completes (and its webhook is sent).',
  }),
  latencyMs: setting({
    variable: 'SIM_LATENCY_MS',
    group: 'simulator',
    parser: milliseconds(0, 60_000),
    default: 0,
    description: 'Added before every API answer.',
  }),
  faultRate: setting({
    variable: 'SIM_FAULT_RATE',
    group: 'simulator',
    parser: fraction(),
    default: 0,
    description: 'Fraction of API requests that fail: half with a plain-text 503, half with a dropped connection.',
  }),
  dropWebhooks: setting({
    variable: 'SIM_DROP_WEBHOOKS',
    group: 'simulator',
    parser: boolean(),
    default: false,
    description: '`true`: never deliver a webhook, so every job completes through the gateway\'s polling.',
  }),
  webhookRetryMs: setting({
    variable: 'SIM_WEBHOOK_RETRY_MS',
    group: 'simulator',
    parser: milliseconds(0, 600_000),
    default: 2000,
    description: 'Pause between attempts to deliver a webhook the gateway did not take (15 attempts after the first, as the real service).',
  }),
  cursorTtlMs: setting({
    variable: 'SIM_CURSOR_TTL_MS',
    group: 'simulator',
    parser: milliseconds(1, 86_400_000),
    default: 900_000,
    description: 'How long a cursor of the cursor family stays valid: a short life shows what an expired cursor answers without waiting.',
  }),
  timeZone: optional({
    variable: 'SIM_TIMEZONE',
    group: 'simulator',
    parser: timeZone(),
    unset: '`UPSTREAM_TIMEZONE`, else `UTC`',
    description: 'IANA zone of the timestamp text the simulator writes.',
  }),
  version: optional({
    variable: 'SIM_VERSION',
    group: 'simulator',
    parser: release(),
    unset: 'the newest release the spec describes',
    description: 'The upstream release it plays: operations newer than it answer 404, fields newer than it are absent, newer write parameters are ignored.',
  }),
  churn: setting({
    variable: 'SIM_CHURN',
    group: 'simulator',
    parser: churn(),
    default: { rate: 0, tenants: 'all' },
    description: 'Changes per second the estate makes by itself (VM states, records created and removed, each with a fresh `lastOpDate`), in the tenants named.',
  }),
  session: credential('SIM_SESSION', 'The first tenant\'s session (`Authorization: OAuth <it>`).'),
  token: credential('SIM_TOKEN', 'The first tenant\'s cursor-family token (`X-Resources-Authorization: Bearer <it>`).'),
  tenant: credential('SIM_TENANT', 'The first tenant\'s id (`X-Tenant-ID`).'),
  session2: credential('SIM_SESSION_2', 'The second tenant\'s session.'),
  token2: credential('SIM_TOKEN_2', 'The second tenant\'s token.'),
  tenant2: credential('SIM_TENANT_2', 'The second tenant\'s id.'),
});

type SimulatorSettings = typeof simulatorSettings;

/** The simulator's configuration: one value per setting of `simulatorSettings`. */
export type SimulatorSettingValues = { readonly [Key in keyof SimulatorSettings]: SimulatorSettings[Key] extends Setting<infer Value> ? Value : never };

/** Every setting of the simulator with its name, in its table's order. */
export function simulatorSettingEntries(): [keyof SimulatorSettingValues, Setting<unknown>][] {
  return Object.entries(simulatorSettings) as [keyof SimulatorSettingValues, Setting<unknown>][];
}

/** The simulator's settings in an empty environment. */
export const defaultSimulatorSettings: SimulatorSettingValues = Object.freeze(
  Object.fromEntries(simulatorSettingEntries().map(([name, { default: value }]) => [name, value])) as SimulatorSettingValues,
);

/** What `createSimulator` takes from the settings: the options a setting gives. */
export type SettingOptions = Omit<SimulatorOptions, 'webhookRetries' | 'journalLimit' | 'random' | 'version'> & { version?: string };

/** What `createSimulator` takes from the settings (the time zone falls back on the gateway's `UPSTREAM_TIMEZONE`). */
export function simulatorOptionsOf(values: SimulatorSettingValues, upstreamTimeZone: string): SettingOptions {
  return {
    seed: values.seed,
    hosts: values.hosts,
    vms: values.vms,
    asyncDelayMs: values.asyncDelayMs,
    latencyMs: values.latencyMs,
    faultRate: values.faultRate,
    dropWebhooks: values.dropWebhooks,
    webhookRetryMs: values.webhookRetryMs,
    cursorTtlMs: values.cursorTtlMs,
    timeZone: values.timeZone ?? upstreamTimeZone,
    ...(values.version === undefined ? {} : { version: values.version }),
    churn: values.churn,
    first: { session: values.session, token: values.token, tenantId: values.tenant },
    second: { session: values.session2, token: values.token2, tenantId: values.tenant2 },
  };
}

/**
 * The options of an empty environment, the simulator's defaults: its own settings' defaults, the
 * time zone falling back on the default of the gateway's `UPSTREAM_TIMEZONE`.
 */
export const defaultSimulatorOptions: Readonly<SettingOptions> = Object.freeze(simulatorOptionsOf(defaultSimulatorSettings, upstreamSettings.upstreamTimezone.default));
