/**
 * The layout a maintainer inherits (docs/contributing/architecture.md): no source file so long it
 * holds several jobs, test folders that mirror the source two levels deep, and modules whose
 * imports run one way, so that what registers a type or a hook does not hang on import order.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;

/** The longest a source file may grow before it is split by what it does. */
const MAX_SOURCE_LINES = 600;

/**
 * The one import cycle the layout keeps, and why: none today. A cycle that must stay is named here
 * with its reason, and explained in a comment where it lives.
 */
const KEPT_CYCLES: readonly (readonly string[])[] = [];

function filesUnder(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .map((path) => join(folder, path).split('\\').join('/'))
    .filter((path) => statSync(join(ROOT, path)).isFile());
}

const sources = filesUnder('src').filter((path) => path.endsWith('.ts'));

/** The source folders one and two levels under src/. */
function sourceFolders(): string[] {
  return [...new Set(sources.map((path) => path.split('/').slice(1, -1).slice(0, 2)).flatMap((parts) => parts.map((_, depth) => parts.slice(0, depth + 1).join('/'))))]
    .filter((folder) => folder !== '')
    .sort();
}

/** Every src/ module a module imports (type-only imports too: they tie the files as much for a reader). */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(join(ROOT, file), 'utf8'), true, false);
  return importedFiles
    .map(({ fileName }) => fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => normalize(join(dirname(file), name)).replace(/\.js$/, '.ts'))
    .map((path) => (existsSync(join(ROOT, path)) ? path : path.replace(/\.ts$/, '/index.ts')))
    .filter((path) => path.startsWith('src/') && existsSync(join(ROOT, path)));
}

/** The import cycles of a graph: each strongly connected set of modules larger than one (Tarjan). */
function importCycles(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file) ?? 0);
    stack.push(file);
    onStack.add(file);
    for (const next of edges.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const members: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      members.push(member);
      if (member === file) break;
    }
    if (members.length > 1) cycles.push(members.sort());
  };
  for (const file of edges.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

describe('the layout of the repository', () => {
  it(`has no source file over ${MAX_SOURCE_LINES} lines`, () => {
    const long = sources
      .map((file) => ({ file, lines: readFileSync(join(ROOT, file), 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > MAX_SOURCE_LINES)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(long).toEqual([]);
  });

  it('has a test folder with tests for every source folder one and two levels under src/', () => {
    const folders = sourceFolders();
    expect(folders).toContain('schema/kit');
    const missing = folders.filter((folder) => !existsSync(join(ROOT, 'test', folder)) || !filesUnder(`test/${folder}`).some((path) => path.endsWith('.test.ts')));
    expect(missing).toEqual([]);
  });

  it('keeps no import cycle but the one it names', () => {
    expect(importCycles(new Map(sources.map((file) => [file, importsOf(file)])))).toEqual(KEPT_CYCLES);
  });

  it('reads the imports of every module, and finds a cycle where there is one', () => {
    expect(sources.length).toBeGreaterThan(150);
    expect(importsOf('src/app.ts')).toContain('src/context.ts');
    const graph = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']], ['e', []]]);
    expect(importCycles(graph)).toEqual([['a', 'b', 'c']]);
  });
});
