/**
 * What a setting's variable may hold: one small parser per kind of value (`integer(1, 1000)`,
 * `milliseconds(100, 600_000)`, `httpUrl()`, ...). Each reads the variable's text, or throws a
 * `ConfigError` naming the variable and what it accepts; each also says what it accepts, and shows
 * a value, in the words of the configuration reference (`docs/reference/configuration.md`).
 */
import { parseTrustedProxy } from '../server/client-address.js';
import { parseRedisUrl } from '../redis/url.js';
import { isRelease } from '../upstream/releases.js';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export interface Parser<T> {
  /** The value of `text` (trimmed, never empty: an unset or empty variable takes the default); throws `ConfigError`. */
  parse(text: string, variable: string): T;
  /** What the variable accepts, as the reference page says it (Markdown). */
  readonly accepts: string;
  /** A value as the reference page shows it (Markdown): a default. */
  show(value: T): string;
}

const code = (text: string): string => `\`${text}\``;
const showPlain = (value: unknown): string => code(String(value));

/** An integer from `min` to `max`. */
export function integer(min: number, max: number): Parser<number> {
  return integerIn(min, max, `integer, ${min} to ${max}`, showPlain);
}

/** A duration in milliseconds, an integer from `min` to `max`. */
export function milliseconds(min: number, max: number): Parser<number> {
  return integerIn(min, max, `milliseconds, ${min} to ${max}${inWords(max, durationWords)}`, (value) => `${code(String(value))}${inWords(value, durationWords)}`);
}

/** A size in bytes, an integer from `min` to `max`. */
export function bytes(min: number, max: number): Parser<number> {
  return integerIn(min, max, `bytes, ${min} to ${max}${inWords(max, sizeWords)}`, (value) => `${code(String(value))}${inWords(value, sizeWords)}`);
}

function integerIn(min: number, max: number, accepts: string, show: (value: number) => string): Parser<number> {
  return {
    accepts,
    show,
    parse(text, variable) {
      const value = Number(text);
      if (!Number.isInteger(value) || value < min || value > max) throw new ConfigError(`${variable} must be an integer from ${min} to ${max}, got "${text}"`);
      return value;
    },
  };
}

/** A number from 0 to 1. */
export function fraction(): Parser<number> {
  return {
    accepts: 'number, 0 to 1',
    show: showPlain,
    parse(text, variable) {
      const value = Number(text);
      if (!Number.isFinite(value) || value < 0 || value > 1) throw new ConfigError(`${variable} must be a number from 0 to 1, got "${text}"`);
      return value;
    },
  };
}

const TRUE = ['true', '1', 'yes', 'on'];
const FALSE = ['false', '0', 'no', 'off'];

/** `true` or `false` (or `1`/`0`, `yes`/`no`, `on`/`off`, in any case). */
export function boolean(): Parser<boolean> {
  return {
    accepts: `${code('true')} or ${code('false')} (also ${TRUE.slice(1).map(code).join(', ')} / ${FALSE.slice(1).map(code).join(', ')})`,
    show: showPlain,
    parse(text, variable) {
      const lower = text.toLowerCase();
      if (TRUE.includes(lower)) return true;
      if (FALSE.includes(lower)) return false;
      throw new ConfigError(`${variable} must be true or false, got "${lower}"`);
    },
  };
}

/** Any text; `accepts` says what it means (a path, a pino level). */
export function text(accepts = 'text'): Parser<string> {
  return { accepts, show: showPlain, parse: (value) => value };
}

/** Text of at least `minLength` characters, never shown. */
export function secret(minLength: number): Parser<string> {
  return {
    accepts: `text of ${minLength} characters or more`,
    show: () => '(secret)',
    parse(value, variable) {
      if (value.length < minLength) throw new ConfigError(`${variable} must be at least ${minLength} characters long`);
      return value;
    },
  };
}

/** One of `choices`, compared in lower case (as the OpenTelemetry variables are). */
export function choice<const T extends string>(choices: readonly T[]): Parser<T> {
  return {
    accepts: choices.map(code).join(', '),
    show: showPlain,
    parse(value, variable) {
      const lower = value.toLowerCase();
      if (!(choices as readonly string[]).includes(lower)) throw new ConfigError(`${variable} must be one of ${choices.join(', ')}, got "${lower}"`);
      return lower as T;
    },
  };
}

/** An http:// or https:// URL. */
export function httpUrl(): Parser<string> {
  return {
    accepts: 'http(s) URL',
    show: showPlain,
    parse(value, variable) {
      let protocol = '';
      try {
        protocol = new URL(value).protocol;
      } catch {
        // reported below
      }
      if (protocol !== 'http:' && protocol !== 'https:') throw new ConfigError(`${variable} must be an http(s) URL, got "${value}"`);
      return value;
    },
  };
}

/** A Redis URL as `parseRedisUrl` reads one: one Redis, a cluster or a Sentinel-watched master. */
export function redisUrl(): Parser<string> {
  return {
    accepts: `${code('redis://')} or ${code('rediss://')} URL; ${code('redis+cluster://host:port,host:port')}; ${code('redis+sentinel://host:port,host:port/<master>[/<db>]')}`,
    show: showPlain,
    parse(value, variable) {
      try {
        parseRedisUrl(value);
      } catch (error) {
        // parseRedisUrl's message never holds the password.
        throw new ConfigError(`${variable}: ${error instanceof Error ? error.message : String(error)}`);
      }
      return value;
    },
  };
}

/** An IANA time zone (`Europe/Paris`). */
export function timeZone(): Parser<string> {
  return {
    accepts: `IANA time zone (${code('Europe/Paris')})`,
    show: showPlain,
    parse(value, variable) {
      try {
        new Intl.DateTimeFormat('en-US', { timeZone: value });
      } catch {
        throw new ConfigError(`${variable} must be an IANA time zone, got "${value}"`);
      }
      return value;
    },
  };
}

/** A release as the spec writes one (`4.7.0`, `2.3`). */
export function release(): Parser<string> {
  return {
    accepts: `release (${code('4.7.0')})`,
    show: showPlain,
    parse(value, variable) {
      // `auto` is not offered: the spec names no place where the upstream reports its release.
      if (!isRelease(value)) throw new ConfigError(`${variable} must be a release such as 4.7.0, got "${value}"`);
      return value;
    },
  };
}

/** A comma-separated list of entries `isValid` accepts (blanks dropped), frozen. */
function list(accepts: string, isValid: (entry: string) => boolean, wrong: (variable: string, entry: string) => string): Parser<readonly string[]> {
  return {
    accepts,
    show: (values) => (values.length === 0 ? 'none' : values.map(code).join(',')),
    parse(value, variable) {
      const entries = value.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
      const bad = entries.find((entry) => !isValid(entry));
      if (bad !== undefined) throw new ConfigError(wrong(variable, bad));
      return Object.freeze(entries);
    },
  };
}

/** Comma-separated origins (`https://ops.example.com`), or `*`. */
export function origins(): Parser<readonly string[]> {
  return list(
    `comma-separated origins (${code('https://ops.example.com,https://admin.example.com')}), or ${code('*')}`,
    (origin) => origin === '*' || originOf(origin) === origin,
    (variable, origin) => `${variable} must list origins like https://ops.example.com (or *), got "${origin}"`,
  );
}

function originOf(text: string): string | undefined {
  try {
    return new URL(text).origin;
  } catch {
    return undefined;
  }
}

/** Comma-separated addresses or CIDR ranges of proxies (`10.0.0.7, 10.1.0.0/16`). */
export function proxies(): Parser<readonly string[]> {
  return list(
    `comma-separated IP addresses or CIDR ranges (${code('10.0.0.0/8,192.0.2.1')})`,
    parseTrustedProxy,
    (variable, entry) => `${variable} must list IP addresses or CIDR ranges (10.0.0.0/8), got "${entry}"`,
  );
}

/** Comma-separated GraphQL names (`Dashboard,VmDetails`). */
export function graphqlNames(): Parser<readonly string[]> {
  return list(
    `comma-separated GraphQL operation names (${code('Dashboard,VmDetails')})`,
    (name) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name),
    (variable, name) => `${variable} must list GraphQL operation names like Dashboard,VmDetails, got "${name}"`,
  );
}

type Unit = readonly [size: number, name: string];

const durationWords: readonly Unit[] = [
  [86_400_000, 'day'],
  [3_600_000, 'h'],
  [60_000, 'min'],
  [1_000, 's'],
];
const sizeWords: readonly Unit[] = [
  [1_073_741_824, 'GiB'],
  [1_048_576, 'MiB'],
  [1_024, 'KiB'],
];

/** ` (15 min)` for 900000 ms: the largest unit the value is a whole number of, else nothing. */
function inWords(value: number, units: readonly Unit[]): string {
  const unit = units.find(([size]) => value >= size && value % size === 0);
  if (unit === undefined) return '';
  const count = value / unit[0];
  return ` (${count} ${unit[1]}${unit[1] === 'day' && count !== 1 ? 's' : ''})`;
}
