/**
 * Each setting is declared once, in `src/config/index.ts` (docs/contributing/style.md, "One home
 * per fact"): modules take their settings as required options named as in the config, repeat no
 * default, and write their own defaults as named constants; `app.ts` passes every setting under
 * its own name. `test/support/repeated-defaults.ts` reads the syntax of every module for a default
 * stated again; the tests at the end show it finding one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { settingEntries } from '../../src/config/index.js';
import { findRepeatedDefaults, type Finding } from '../support/repeated-defaults.js';

const ROOT = new URL('../../', import.meta.url);
const settings = new Set(settingEntries().map(([name]) => name));

/** Where the scan does not look, and why. */
const EXEMPT: readonly { readonly prefix: string; readonly why: string }[] = [
  { prefix: 'src/config/', why: 'the declarations themselves' },
  { prefix: 'src/simulator/', why: 'the simulator\'s own settings (src/config/simulator.ts), whose defaults it takes from there' },
];

function moduleFiles(): string[] {
  return readdirSync(new URL('src/', ROOT), { recursive: true, encoding: 'utf8' })
    .map((path) => `src/${path.split('\\').join('/')}`)
    .filter((path) => path.endsWith('.ts') && !EXEMPT.some(({ prefix }) => path.startsWith(prefix)))
    .sort();
}

function scan(file: string): Finding[] {
  return findRepeatedDefaults(file, readFileSync(new URL(file, ROOT), 'utf8'), { settings, renames: file === 'src/app.ts' });
}

const shown = (findings: readonly Finding[]): string[] => findings.map(({ file, line, message }) => `${file}:${line}: ${message}`);

describe('settings declared once', () => {
  it('scans the gateway\'s modules', () => {
    const files = moduleFiles();
    expect(files).toContain('src/app.ts');
    expect(files).toContain('src/cost/query-cost.ts');
    expect(files.length).toBeGreaterThan(50);
  });

  it('finds no module that repeats a setting\'s default, takes a setting as an optional option, or writes its own default as a bare number', () => {
    const findings = moduleFiles()
      .flatMap(scan)
      .filter(({ rule }) => rule !== 'rename');
    expect(shown(findings)).toEqual([]);
  });

  it('reads the environment in src/config only: every other module takes its settings from there', () => {
    const readers = readdirSync(new URL('src/', ROOT), { recursive: true, encoding: 'utf8' })
      .map((path) => `src/${path.split('\\').join('/')}`)
      .filter((path) => path.endsWith('.ts') && !path.startsWith('src/config/'))
      .filter((path) => /\bprocess\.env\b/.test(readFileSync(new URL(path, ROOT), 'utf8')));
    expect(readers).toEqual([]);
  });

  it('finds no setting app.ts passes under another name', () => {
    expect(shown(scan('src/app.ts').filter(({ rule }) => rule === 'rename'))).toEqual([]);
  });
});

describe('the scan for repeated defaults', () => {
  const scanText = (text: string, renames = false): Finding[] => findRepeatedDefaults('example.ts', text, { settings, renames });

  it('finds a `?? 100_000` reintroduced in the query cost', () => {
    const file = 'src/cost/query-cost.ts';
    const text = readFileSync(new URL(file, ROOT), 'utf8');
    const taken = '  const { maxCost, costBudget } = options;\n';
    expect(text, `${file} no longer reads maxCost as this test expects: update the test`).toContain(taken);
    const repeated = text.replace(taken, '  const { costBudget } = options;\n  const maxCost = options.maxCost ?? 100_000;\n');
    const findings = findRepeatedDefaults(file, repeated, { settings });
    expect(findings).toEqual([
      {
        file,
        line: text.slice(0, text.indexOf(taken)).split('\n').length + 1,
        rule: 'fallback',
        message: '`options.maxCost ?? 100_000` repeats the default of the setting maxCost (src/config/index.ts)',
      },
    ]);
    expect(findRepeatedDefaults(file, text, { settings })).toEqual([]);
  });

  it('finds a setting\'s default however it is written', () => {
    const rules = (text: string) => scanText(text).map(({ rule }) => rule);
    expect(rules('const limit = config.maxCost || 100_000;')).toEqual(['fallback']);
    expect(rules('const { maxCost = 100_000 } = options;')).toEqual(['destructuring']);
    expect(rules('function useCost({ maxCost = 100_000 }: Options) {}')).toEqual(['destructuring']);
    expect(rules('function useCost(maxCost = 100_000) {}')).toEqual(['parameter']);
    expect(rules('const origins = options.corsOrigins ?? [];')).toEqual(['fallback']);
    expect(rules('const level = options.logLevel ?? \'info\';')).toEqual(['fallback']);
  });

  it('finds a setting taken as an optional option', () => {
    expect(scanText('interface Options { maxCost?: number; other?: number }').map(({ rule, message }) => [rule, message])).toEqual([
      ['optional', '`maxCost?: number;`: the setting maxCost is a required option (app.ts passes it from the config)'],
    ]);
  });

  it('finds a module\'s own default written as a bare number, not one named, nor other fallbacks', () => {
    expect(scanText('const quality = options.brotliQuality ?? 4;').map(({ rule }) => rule)).toEqual(['fallback']);
    expect(scanText('const { brotliQuality = 4 } = options;').map(({ rule }) => rule)).toEqual(['destructuring']);
    expect(scanText('const quality = options.brotliQuality ?? DEFAULT_BROTLI_QUALITY;')).toEqual([]);
    expect(scanText('const count = counts.get(key) ?? 0; const path = options.endpoint ?? \'/healthz\'; const on = options.metadata ?? false;')).toEqual([]);
  });

  it('finds a setting app.ts passes under another name', () => {
    expect(scanText('createLiveQueries({ perSocket: config.liveMaxPerSocket, liveMaxPerCredential: config.liveMaxPerCredential });', true).map(({ message }) => message)).toEqual([
      '`perSocket: config.liveMaxPerSocket` passes the setting liveMaxPerSocket as `perSocket`: name the option liveMaxPerSocket',
    ]);
    expect(scanText('function createUpstream(config) { return createUpstreamClient({ timeoutMs: config.upstreamTimeoutMs }); }', true).map(({ message }) => message)).toEqual([
      '`timeoutMs: config.upstreamTimeoutMs` passes the setting upstreamTimeoutMs as `timeoutMs`: name the option upstreamTimeoutMs',
    ]);
    expect(scanText('createLiveQueries({ perSocket: config.liveMaxPerSocket });', false)).toEqual([]);
  });
});
