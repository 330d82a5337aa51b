/**
 * The configuration reference, `docs/reference/configuration.md`, is generated from the settings
 * table of `src/config/index.ts`, where each setting is declared once (docs/contributing/style.md,
 * "One home per fact"): a setting added, renamed or given a new default without the page following
 * fails here, not in an operator's deployment. So does a declaration whose own parser refuses its default.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, defaultConfig, defaultSimulatorSettings, loadConfig, settingEntries, simulatorSettingEntries } from '../../src/config/index.js';
import { CONFIG_REFERENCE_PATH, renderConfigReference } from '../../src/config/reference.js';

const page = readFileSync(new URL(`../../${CONFIG_REFERENCE_PATH}`, import.meta.url), 'utf8');

/** The gateway's sections, and the simulator's (the last). */
const [gatewaySections = '', simulatorSection = ''] = page.split('\n## Simulator\n');

/**
 * Variable -> the text of its default cell, from every `| variable | meaning | default | accepts |`
 * table of `text` (the gateway's sections unless told).
 */
function documentedDefaults(text = gatewaySections): Map<string, string[]> {
  const defaults = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const cells = line.split(/(?<!\\)\|/).slice(1, -1).map((cell) => cell.trim());
    const variable = /^`([A-Z][A-Z0-9_]*)`$/.exec(cells[0] ?? '')?.[1];
    if (variable !== undefined) defaults.set(variable, [...(defaults.get(variable) ?? []), cells[2] ?? '']);
  }
  return defaults;
}

describe('the configuration reference', () => {
  const entries = settingEntries();

  it('is what src/config/index.ts declares (run `npm run docs:config`)', () => {
    expect(page).toBe(renderConfigReference());
  });

  it('lists every setting once, with the default config.ts gives it', () => {
    const documented = documentedDefaults();
    const wrong = entries
      .map(([name, { variable, unset }]) => ({ variable, unset, value: defaultConfig[name], cells: documented.get(variable) ?? [] }))
      .filter(({ unset, value, cells }) => cells.length !== 1 || !(unset === undefined ? /`([^`]*)`/.exec(cells[0]!)?.[1] === String(value) : cells[0]!.startsWith('unset')))
      .map(({ variable, value, cells }) => `${variable}: config.ts ${JSON.stringify(value)}, page ${JSON.stringify(cells)}`);
    expect(wrong).toEqual([]);
    expect([...documented.keys()].sort()).toEqual(entries.map(([, { variable }]) => variable).sort());
  });

  it('lists every setting of the simulator once, in its own section, with its default', () => {
    const documented = documentedDefaults(simulatorSection);
    const wrong = simulatorSettingEntries()
      .map(([name, declaration]) => ({ declaration, value: defaultSimulatorSettings[name], cells: documented.get(declaration.variable) ?? [] }))
      .filter(({ declaration, value, cells }) => cells.length !== 1 || cells[0] !== (declaration.unset === undefined ? declaration.parser.show(value) : `unset: ${declaration.unset}`))
      .map(({ declaration, cells }) => `${declaration.variable}: page ${JSON.stringify(cells)}`);
    expect(wrong).toEqual([]);
    expect(documented.get('SIM_SEED')).toEqual(['`42`']);
  });
});

describe('the settings table', () => {
  const entries = settingEntries();

  it('declares each variable once', () => {
    const variables = entries.map(([, { variable }]) => variable);
    expect(variables.filter((variable, index) => variables.indexOf(variable) !== index)).toEqual([]);
  });

  it('gives each setting a default its own parser accepts', () => {
    const refused = entries.filter(([, { variable, parser, default: value }]) => {
      if (value === undefined || (Array.isArray(value) && value.length === 0)) return false;
      try {
        return !Object.is(parser.parse(String(value), variable), value);
      } catch {
        return true;
      }
    });
    expect(refused.map(([name]) => name)).toEqual([]);
  });

  it('says what an unset variable means when its default is no value to show', () => {
    const unexplained = entries.filter(([, setting]) => setting.unset === undefined && (setting.default === undefined || (Array.isArray(setting.default) && setting.default.length === 0)));
    expect(unexplained.map(([name]) => name)).toEqual([]);
  });

  it('names each variable as loadConfig reads it', () => {
    // A value no reader accepts as its default: refused with the variable named, or taken.
    const unread = entries.filter(([name, { variable }]) => {
      try {
        return loadConfig({ [variable]: 'not a valid value!' })[name] === defaultConfig[name];
      } catch (error) {
        return !(error instanceof ConfigError && error.message.includes(variable));
      }
    });
    expect(unread.map(([, { variable }]) => variable)).toEqual([]);
  });

  it('refuses a number out of range naming the variable and the range', () => {
    expect(() => loadConfig({ MAX_COST: '0' })).toThrow('MAX_COST must be an integer from 1 to 1000000000, got "0"');
    expect(() => loadConfig({ JOB_TTL_MS: '999' })).toThrow('JOB_TTL_MS must be an integer from 1000 to 86400000, got "999"');
    expect(() => loadConfig({ GRAPHIQL: 'maybe' })).toThrow('GRAPHIQL must be true or false, got "maybe"');
  });
});
