/**
 * The TypeScript the docs give a frontend works as pasted: every ```ts block of
 * `docs/getting-started/` and `docs/features/live-queries.md` is written as a module of a fresh
 * frontend project under `test/artifacts/` (where `node_modules/` resolves: the installed
 * `@apollo/client`, `@urql/core`, `graphql-ws`, `ws`, `relay-runtime`, GraphQL Code Generator),
 * GraphQL Code Generator's client preset types the operations of the blocks against the committed
 * `schema/schema.graphql` into `./gql` (as `docs/getting-started/typed-clients.md` sets it up;
 * codegen fails on an operation the schema does not validate), and one strict `tsc` run checks
 * them all. A block may say what it assumes the reader has (`declare const session: string;`) in
 * an HTML comment on the line before its fence, `<!-- ts-preamble: ... -->`, which the page does
 * not show (the convention is in `docs/contributing/testing.md`).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { generate } from '@graphql-codegen/cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

/** The pages whose TypeScript is compiled. */
const PAGES = [
  'docs/getting-started/clients.md',
  'docs/getting-started/docker.md',
  'docs/getting-started/graphiql.md',
  'docs/getting-started/quick-start.md',
  'docs/getting-started/typed-clients.md',
  'docs/features/live-queries.md',
];

/** One ```ts block of a page. */
interface Snippet {
  readonly page: string;
  /** The line of the page the block's code starts on (the line after the fence). */
  readonly line: number;
  /** The module's file name in the project. */
  readonly file: string;
  readonly preamble: string;
  readonly code: string;
}

const PREAMBLE = /^<!--\s*ts-preamble:([\s\S]*?)-->$/;

/** The ```ts blocks of `page`, each with the preamble of the comment on the line before its fence. */
function extractSnippets(page: string, text: string): Snippet[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const snippets: Snippet[] = [];
  for (let index = 0; index < lines.length; index++) {
    if (lines[index] !== '```ts') continue;
    const end = lines.indexOf('```', index + 1);
    if (end < 0) throw new Error(`${page}:${index + 1}: a \`\`\`ts block that never closes`);
    const preamble = PREAMBLE.exec(lines[index - 1]?.trim() ?? '')?.[1]?.trim() ?? '';
    const slug = page.replace(/^docs\//, '').replace(/\.md$/, '').replace(/[^a-z0-9]+/gi, '-');
    snippets.push({ page, line: index + 2, file: `${slug}-L${index + 2}.ts`, preamble, code: lines.slice(index + 1, end).join('\n') });
    index = end;
  }
  return snippets;
}

/**
 * A frontend's strict tsconfig, for code that runs in a browser or in Node. Not
 * `exactOptionalPropertyTypes`, which the codegen test sets: under it the clients' own types
 * disagree (urql's `ExecutionResult` refuses the `data: undefined` graphql-ws' sink may pass), so a
 * snippet would need casts no reader writes.
 */
const TSCONFIG = {
  compilerOptions: {
    strict: true,
    noUncheckedIndexedAccess: true,
    target: 'ES2022',
    lib: ['ES2022', 'DOM'],
    module: 'ESNext',
    moduleResolution: 'Bundler',
    verbatimModuleSyntax: true,
    isolatedModules: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  },
  include: ['*.ts', 'gql/*.ts'],
};

/** A tsc diagnostic's `file.ts(line,column)` as the page and line it comes from. */
function onThePage(diagnostics: string, snippets: readonly Snippet[]): string {
  return diagnostics.replace(/^([\w.-]+\.ts)\((\d+),(\d+)\)/gm, (whole, file: string, line: string, column: string) => {
    const snippet = snippets.find((candidate) => candidate.file === file);
    // Line 1 of a module is its preamble; the block's code starts on line 2.
    return snippet ? `${snippet.page}:${snippet.line + Number(line) - 2}:${column}` : whole;
  });
}

describe('the TypeScript snippets of the docs', () => {
  const snippets = PAGES.flatMap((page) => extractSnippets(page, readFileSync(join(ROOT, page), 'utf8')));
  let workDir: string;

  beforeAll(async () => {
    await mkdir(join(ROOT, 'test/artifacts'), { recursive: true });
    workDir = await mkdtemp(join(ROOT, 'test/artifacts/snippets-'));
    for (const snippet of snippets) {
      // One line of preamble, so a diagnostic's line maps back to the page; `export {}` keeps every block a module of its own.
      await writeFile(join(workDir, snippet.file), `export {}; ${snippet.preamble.replace(/\n/g, ' ')}\n${snippet.code}\n`);
    }
    await writeFile(join(workDir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  }, 60_000);

  afterAll(async () => {
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it('finds the blocks of the client pages: typed-clients, clients and live-queries', () => {
    const pages = new Set(snippets.map((snippet) => snippet.page));
    for (const page of ['docs/getting-started/typed-clients.md', 'docs/getting-started/clients.md', 'docs/features/live-queries.md']) expect(pages).toContain(page);
  });

  it('types their operations with the client preset against schema/schema.graphql, and compiles them all under strict tsc', { timeout: 180_000 }, async () => {
    await generate(
      {
        schema: join(ROOT, 'schema/schema.graphql'),
        documents: [join(workDir, '*.ts')],
        ignoreNoDocuments: false,
        silent: true,
        generates: {
          [`${join(workDir, 'gql')}/`]: {
            preset: 'client',
            config: { scalars: { DateTime: 'string', Long: 'number', Uuid: 'string', JSON: 'unknown' }, strictScalars: true, useTypeImports: true },
          },
        },
      },
      true,
    );
    const diagnostics = await promisify(execFile)(process.execPath, [TSC, '-p', join(workDir, 'tsconfig.json')], { cwd: workDir }).then(
      () => '',
      (error: { stdout?: string; stderr?: string; message: string }) => `${error.stdout ?? ''}${error.stderr ?? ''}` || error.message,
    );
    expect(onThePage(diagnostics, snippets)).toBe('');
  });
});
