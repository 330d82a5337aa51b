/**
 * One home per fact in the docs: a fact written twice drifts (the README's commands table once
 * disagreed with the quick start's), so each has one page and the others link to it. The README
 * introduces and links, repeating at most a few lines of `docs/`; a setting's default is written
 * only in the generated configuration reference (`docs/reference/configuration.md`), where it
 * follows the code, and nowhere beside the setting's name on another page.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { settingEntries, simulatorSettingEntries, type Setting } from '../../src/config/index.js';
import { CONFIG_REFERENCE_PATH } from '../../src/config/reference.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** How many lines of the README may also be lines of a docs page (the command that starts it, a heading or two). */
const MAX_README_LINES_IN_DOCS = 10;

function docsPages(): string[] {
  return readdirSync(join(ROOT, 'docs'), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .sort();
}

const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

/** A line that says nothing by itself: blank, a code fence, a table's separator row, or a few characters of punctuation. */
function isTrivial(line: string): boolean {
  return /^(```|~~~)/.test(line) || (line.match(/[\p{L}\p{N}]/gu)?.length ?? 0) < 4;
}

/** The lines of `readme` (trimmed, trivial ones left out) that are also a line of some page of `docs/`. */
function linesInDocs(readme: string): string[] {
  const docsLines = new Set(docsPages().flatMap((page) => read(page).split('\n').map((line) => line.trim())));
  return readme
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => !isTrivial(line) && docsLines.has(line));
}

describe('the README', () => {
  it(`introduces and links, repeating at most ${MAX_README_LINES_IN_DOCS} lines of docs/`, () => {
    const repeated = linesInDocs(read('README.md'));
    expect(repeated.length, `lines of the README that docs/ has too:\n${repeated.join('\n')}`).toBeLessThanOrEqual(MAX_README_LINES_IN_DOCS);
  });

  it('holds the one table of the project\'s commands, which states each promised command', () => {
    const withTable = ['README.md', ...docsPages()].filter((page) => /^\|\s*command\s*\|/m.test(read(page)));
    expect(withTable).toEqual(['README.md']);
    const table = read('README.md').split('\n').filter((line) => line.startsWith('| `npm '));
    for (const command of ['npm ci && npm start', 'npm test', 'npm run simulator', 'npm run bench', 'npm run schema']) {
      expect(table.some((line) => line.startsWith(`| \`${command}\` |`)), command).toBe(true);
    }
  });

  it('counts each line copied from a docs page, not the fences and rows around it', () => {
    const quickStart = read('docs/getting-started/quick-start.md');
    const copied = quickStart.slice(quickStart.indexOf('## The banner'), quickStart.indexOf('## A query'));
    const withCopy = `${read('README.md')}\n${copied}`;
    const added = linesInDocs(withCopy).length - linesInDocs(read('README.md')).length;
    expect(added).toBe(copied.split('\n').filter((line) => !isTrivial(line.trim())).length);
    expect(added).toBeGreaterThan(MAX_README_LINES_IN_DOCS);
  });
});

/** Units a page may write a default in, as multiples of the setting's own unit (milliseconds or bytes). */
const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, sec: 1000, second: 1000, seconds: 1000, min: 60_000, minute: 60_000, minutes: 60_000, h: 3_600_000, hour: 3_600_000, hours: 3_600_000, day: 86_400_000, days: 86_400_000 };
const SIZE_UNITS: Record<string, number> = { b: 1, bytes: 1, kib: 1024, mib: 1_048_576, gib: 1_073_741_824, kb: 1000, mb: 1_000_000, gb: 1_000_000_000 };

/** A number, thousands separators allowed, and the word that follows it. */
const NUMBER = /(?<![\w.])(\d[\d,_]*(?:\.\d+)?)(\s*)([a-z]*)/gi;

/** The numbers `text` states, each in the setting's own unit (a duration in a unit it does not know is left out). */
function numbersIn(text: string, setting: Setting<number>): number[] {
  const units = setting.parser.accepts.startsWith('milliseconds') ? DURATION_UNITS : setting.parser.accepts.startsWith('bytes') ? SIZE_UNITS : {};
  // "an hour", "a minute": one of the unit.
  const one = [...text.matchAll(/\ban?\s+([a-z]+)\b/gi)].flatMap(([, word = '']) => units[word.toLowerCase()] ?? []);
  return [...one, ...[...text.matchAll(NUMBER)].flatMap(([, digits = '', space = '', word = '']) => {
    const value = Number(digits.replace(/[,_]/g, ''));
    const factor = units[word.toLowerCase()];
    if (factor !== undefined) return [value * factor];
    // Glued to letters that are no unit (`5xx`, `3rd`) it is no number; else the word is not its unit.
    return word !== '' && space === '' ? [] : [value];
  })];
}

/** The words a page may write a boolean default in. */
const BOOLEAN_WORDS = { true: ['true', 'on', 'enabled'], false: ['false', 'off', 'disabled'] };

/** Whether `text` says that `setting`'s default, a word (a level, a flag), is the default. */
function statesWordDefault(text: string, setting: Setting<unknown>): boolean {
  if (!/\bdefault\b/i.test(text)) return false;
  const value = setting.default;
  const words = typeof value === 'boolean' ? BOOLEAN_WORDS[`${value}`] : typeof value === 'string' && value !== '' ? [value] : [];
  return words.some((word) => new RegExp(`(?<![\\w-])${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`, 'i').test(text));
}

/**
 * What follows a mention of a variable and still speaks of it: up to the end of its table cell,
 * sentence or clause, or the next variable's name, and at most 120 characters.
 */
function followingMention(text: string, from: number): string {
  const [clause = ''] = text.slice(from, from + 120).split(/\||\n\s*\n|[.;:]\s|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/);
  return clause;
}

const allSettings = [...settingEntries(), ...simulatorSettingEntries()].map(([, setting]) => setting);

/** Whether `after`, what follows a mention of `setting`, states its default. */
function statesDefault(after: string, setting: Setting<unknown>): boolean {
  return typeof setting.default === 'number' ? numbersIn(after, setting as Setting<number>).includes(setting.default) : statesWordDefault(after, setting);
}

/**
 * Every place of `text` (the page `page`) where a setting's name is followed by its default value:
 * `` `LIVE_POLL_MS` (2 s) ``, `` `LOG_LEVEL` (`info` by default) ``.
 */
function restatedDefaults(page: string, text: string): string[] {
  return allSettings.flatMap((setting) =>
      [...text.matchAll(new RegExp(`\\b${setting.variable}\\b`, 'g'))]
        .map((match) => followingMention(text, match.index + setting.variable.length))
        .filter((after) => statesDefault(after, setting))
        .map((after) => `${page}: ${setting.variable}${after.replace(/\s+/g, ' ')}`),
  );
}

describe('a setting\'s default', () => {
  it('is written in the configuration reference only; other pages link to it', () => {
    const pages = [...docsPages().filter((page) => page !== CONFIG_REFERENCE_PATH), 'README.md'];
    expect(pages.flatMap((page) => restatedDefaults(page, read(page)))).toEqual([]);
  });

  it('is found however a page writes it: plain, with separators, or in a larger unit', () => {
    const found = (text: string): number => restatedDefaults('page.md', text).length;
    expect(found('after `REDIS_RESUME_GRACE_MS` (60 s) it drops them')).toBe(1);
    expect(found('`REDIS_RESUME_GRACE_MS`, 1 min by default,')).toBe(1);
    expect(found('| `REDIS_RESUME_GRACE_MS` (60,000) |')).toBe(1);
    expect(found('`REDIS_OUTBOX_MAX_BYTES` (16 MiB: thousands of jobs)')).toBe(1);
    expect(found('`MAX_COST`, 100_000 by default')).toBe(1);
    expect(found('`JOB_TTL_MS`, an hour by default,')).toBe(1);
    expect(found('at `LOG_LEVEL` (`info` by default)')).toBe(1);
    expect(found('`GRAPHIQL` (on by default)')).toBe(1);
    expect(found('`LOG_LEVEL` `debug` logs each upstream call')).toBe(0);
    // Another setting's value, a status class, another value or the next sentence is no restatement.
    expect(found('`REDIS_RESUME_GRACE_MS` and `JOB_LEASE_MS` (60 s)')).toBe(0);
    expect(found('`UPSTREAM_BREAKER_THRESHOLD` calls in a row (5xx answers)')).toBe(0);
    expect(found('`REDIS_RESUME_GRACE_MS` (e.g. 120000)')).toBe(0);
    expect(found('`REDIS_RESUME_GRACE_MS` is kept. It took 60 s')).toBe(0);
  });
});
