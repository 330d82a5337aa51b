/**
 * The error-code registry (`src/errors/codes.ts`) against what the code sends: a code spelled in
 * `src/` that the registry lacks fails here, and so does a registry entry nothing sends. The page
 * generated from it (`docs/reference/error-codes.md`) must be the one committed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors/codes.js';
import { renderGeneratedPages } from '../../scripts/docs-pages.js';
import { FAILURE_CATEGORIES } from '../../src/upstream/error-codes.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SRC = join(ROOT, 'src');
const REGISTRY = join(SRC, 'errors', 'codes.ts');
/** The simulator is the upstream: its codes (`SYS.1007`, ...) are the service's, not the gateway's. */
const NOT_THE_GATEWAY = [join(SRC, 'simulator')];

function filesUnder(directory: string, suffix: string): string[] {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(suffix))
    .map((entry) => join(entry.parentPath, entry.name));
}

const gatewaySources = filesUnder(SRC, '.ts')
  .filter((file) => file !== REGISTRY && !NOT_THE_GATEWAY.some((directory) => file.startsWith(`${directory}/`)))
  .map((file) => ({ file: relative(ROOT, file), text: readFileSync(file, 'utf8') }));

const CODE = String.raw`[A-Z][A-Z0-9_]*(?:\.[A-Z][A-Z0-9_]*)?`;
/** Where src/ spells a code it sends: an error's `code: '...'`, an upstream error class, a route's `{ error: '...' }`. */
const SENT_CODE = [
  new RegExp(String.raw`\bcode:\s*(['"])(${CODE})\1`, 'g'),
  new RegExp(String.raw`\bcode\s*=\s*(['"])(${CODE})\1`, 'g'),
  new RegExp(String.raw`\bwithCode\((['"])(${CODE})\1\)`, 'g'),
  new RegExp(String.raw`\berror:\s*(['"])(${CODE})\1`, 'g'),
];

const registered = new Set(ERROR_CODES.map((entry) => entry.code));

/** Codes of internal error classes that no client sees as they are: each is mapped or masked first. */
const INTERNAL_CODES: ReadonlyMap<string, string> = new Map([
  ['UPSTREAM_QUEUE_FULL', 'the limiter\'s full queue, answered as UPSTREAM_UNAVAILABLE'],
  ['UPSTREAM_DEADLINE_EXCEEDED', 'the deadline interceptor ending a call, answered as UPSTREAM_TIMEOUT'],
  ['UNDECODED_FIELD', 'a starved reads(...) declaration, thrown under vitest only: a bug, masked'],
]);

describe('the error-code registry', () => {
  it('lists every code src/ sends (or that is a UserErrorCode)', () => {
    const known = new Set<string>([...registered, ...FAILURE_CATEGORIES, ...INTERNAL_CODES.keys()]);
    const unlisted = gatewaySources.flatMap(({ file, text }) =>
      SENT_CODE.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[2] ?? '')).filter((code) => !known.has(code)).map((code) => `${file}: ${code}`),
    );
    expect(unlisted).toEqual([]);
  });

  it('lists only codes something sends: a literal in src/, the registry\'s constant, or the library named', () => {
    const yoga = filesUnder(join(ROOT, 'node_modules', 'graphql-yoga', 'cjs'), '.js').map((file) => readFileSync(file, 'utf8'));
    const sent = (code: string, sentBy: string | undefined): boolean => {
      const literal = new RegExp(String.raw`(['"])${code.replace('.', '\\.')}\1`);
      const constant = new RegExp(String.raw`\bcode:\s*${code}\b`);
      if (sentBy === 'graphql-yoga') return yoga.some((text) => literal.test(text));
      return gatewaySources.some(({ text }) => literal.test(text) || constant.test(text));
    };
    const unsent = ERROR_CODES.filter((entry) => !sent(entry.code, entry.sentBy)).map((entry) => entry.code);
    expect(unsent).toEqual([]);
    expect([...INTERNAL_CODES.keys()].filter((code) => !sent(code, undefined))).toEqual([]);
  });

  it('gives each code at most one entry per place and status, and a status to every HTTP answer', () => {
    const keys = ERROR_CODES.map((entry) => `${entry.code} ${entry.where} ${entry.httpStatus ?? '-'}`);
    expect(keys.filter((key, index) => keys.indexOf(key) !== index)).toEqual([]);
    const needStatus = ERROR_CODES.filter((entry) => ['request', 'field', 'route'].includes(entry.where) && entry.httpStatus === undefined);
    expect(needStatus.map((entry) => entry.code)).toEqual([]);
  });

  it('keeps the committed reference pages in sync with the code (run `npm run docs`)', () => {
    for (const { path, text } of renderGeneratedPages()) {
      expect(readFileSync(join(ROOT, path), 'utf8'), `${path} is stale: run npm run docs`).toBe(text);
    }
  });
});
