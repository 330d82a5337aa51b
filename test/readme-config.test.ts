/**
 * The configuration page (`docs/operations/configuration.md`, whose tables group the settings by
 * what they are for) is checked against `src/config.ts`, where each default lives (STYLE.md,
 * "Defaults once"): a setting added, renamed or given a new default without the page following
 * fails here, not in an operator's deployment.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, defaultConfig, loadConfig, type GatewayConfig } from '../src/config.js';

type Key = keyof GatewayConfig;

/** `upstreamTimeoutMs` -> `UPSTREAM_TIMEOUT_MS`: the one naming rule config.ts follows. */
function variableOf(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase();
}

const PAGE = 'docs/operations/configuration.md';
const TABLE_HEADER = /^\|\s*variable\s*\|\s*meaning\s*\|\s*default\s*\|$/;

/** Variable -> the text of its default cell, from every "| variable | meaning | default |" table of the page. */
function documentedDefaults(): Map<string, string> {
  const lines = readFileSync(new URL(`../${PAGE}`, import.meta.url), 'utf8').split('\n');
  const headers = lines.flatMap((line, index) => (TABLE_HEADER.test(line.trim()) ? [index] : []));
  if (headers.length === 0) throw new Error(`${PAGE}: no "| variable | meaning | default |" table`);
  const defaults = new Map<string, string>();
  for (const header of headers) {
    for (const line of lines.slice(header + 2)) {
      if (!line.startsWith('|')) break;
      const cells = line.split(/(?<!\\)\|/).slice(1, -1).map((cell) => cell.trim());
      const [variables = '', , fallback = ''] = cells;
      const names = [...variables.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1] ?? '');
      // `PORT`, `HOST` | ... | `4000`, `0.0.0.0`: one default per variable, in order.
      const values = names.length > 1 ? [...fallback.matchAll(/`([^`]*)`/g)].map((match) => `\`${match[1]}\``) : [fallback];
      names.forEach((name, index) => {
        if (defaults.has(name)) throw new Error(`${PAGE}: ${name} is in two tables`);
        defaults.set(name, values[index] ?? '');
      });
    }
  }
  return defaults;
}

/** Whether a documented default cell says what `value` is. */
function documents(cell: string, value: GatewayConfig[Key], variables: ReadonlySet<string>): boolean {
  if (Array.isArray(value) && value.length === 0) return cell.startsWith('unset');
  if (value === undefined) {
    // Unset in config.ts: the page says so, or names the setting the default derives from
    // (`RESOURCES_URL`: the origin of `UPSTREAM_URL`; `PUBLIC_URL`: `http://127.0.0.1:$PORT`).
    return cell.startsWith('unset') || [...cell.matchAll(/[A-Z][A-Z0-9_]{2,}/g)].some(([name]) => variables.has(name));
  }
  return /`([^`]*)`/.exec(cell)?.[1] === String(value);
}

describe('the configuration page\'s tables (docs/operations/configuration.md)', () => {
  const keys = Object.keys(defaultConfig) as Key[];
  const documented = documentedDefaults();
  const variables = new Set(keys.map(variableOf));

  it('lists every setting of src/config.ts with the default config.ts gives it', () => {
    const wrong = keys
      .map((key) => ({ variable: variableOf(key), value: defaultConfig[key] }))
      .filter(({ variable, value }) => !documented.has(variable) || !documents(documented.get(variable) ?? '', value, variables))
      .map(({ variable, value }) => `${variable}: config.ts ${JSON.stringify(value)}, ${PAGE} ${documented.get(variable) ?? '(missing)'}`);
    expect(wrong).toEqual([]);
  });

  it('lists only variables the gateway reads', () => {
    expect([...documented.keys()].filter((variable) => !variables.has(variable))).toEqual([]);
  });

  it('names each variable as loadConfig reads it', () => {
    // A value no reader accepts as its default: refused with the variable named, or taken.
    const unread = keys.filter((key) => {
      const variable = variableOf(key);
      try {
        return loadConfig({ [variable]: 'not a valid value!' })[key] === defaultConfig[key];
      } catch (error) {
        return !(error instanceof ConfigError && error.message.includes(variable));
      }
    });
    expect(unread.map(variableOf)).toEqual([]);
  });
});
