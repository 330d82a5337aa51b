/**
 * Typed clients: GraphQL Code Generator's client preset, as a frontend team sets it up
 * (`docs/getting-started/typed-clients.md`), over the client documents in
 * `test/clients/documents/` (the dashboard, a paged list, a mutation, `jobCompleted`, an `@live`
 * query) against the committed `schema/schema.graphql`; then `tsc`, strict, over the generated
 * module, the documents and `test/clients/usage.ts`, which reads the results as a frontend would.
 * Codegen fails when a document no longer validates against the SDL; tsc fails when a type is not
 * what the usage file relies on. The output goes to a fresh folder under `test/artifacts/` (where
 * `node_modules/` resolves, and which lint, typecheck and git ignore), removed afterwards.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { generate, type CodegenConfig } from '@graphql-codegen/cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLIENTS = join(ROOT, 'test/clients');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

/** What the docs tell a frontend to write in its codegen.ts, with the paths of this repository. */
function codegenConfig(outputDir: string): CodegenConfig {
  return {
    schema: 'schema/schema.graphql',
    documents: ['test/clients/documents/*.ts'],
    ignoreNoDocuments: false,
    silent: true,
    generates: {
      [`${outputDir}/`]: {
        preset: 'client',
        config: {
          // Every custom scalar must be mapped (strictScalars), so a new one fails here first.
          scalars: { DateTime: 'string', Long: 'number', Uuid: 'string', JSON: 'unknown' },
          strictScalars: true,
          // A value a newer upstream adds is in each enum's type, so a switch over one needs a default.
          futureProofEnums: true,
          useTypeImports: true,
        },
      },
    },
  };
}

/** A frontend's strict tsconfig: bundler resolution, as Vite and Next.js projects have it. */
const TSCONFIG = {
  compilerOptions: {
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    target: 'ES2022',
    lib: ['ES2022'],
    module: 'ESNext',
    moduleResolution: 'Bundler',
    verbatimModuleSyntax: true,
    isolatedModules: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  },
  include: ['**/*.ts'],
};

describe('typed clients: the client preset over real client documents, type-checked with tsc', () => {
  let workDir: string;
  let generated: string[];

  beforeAll(async () => {
    await mkdir(join(ROOT, 'test/artifacts'), { recursive: true });
    workDir = await mkdtemp(join(ROOT, 'test/artifacts/codegen-'));
    const outputs = (await generate({ ...codegenConfig(join(workDir, 'gql')), cwd: ROOT }, true)) as { filename: string }[];
    generated = outputs.map((output) => output.filename);
    // The documents import '../../gql' and the usage file './gql': the layout of a frontend's src/.
    await cp(join(CLIENTS, 'documents'), join(workDir, 'documents'), { recursive: true });
    await cp(join(CLIENTS, 'usage.ts'), join(workDir, 'usage.ts'));
    await writeFile(join(workDir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  }, 60_000);

  afterAll(async () => {
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it('generates the typed graphql() and a typed document for every client operation', async () => {
    expect(generated.map((file) => file.slice(workDir.length + 1)).sort()).toEqual(['gql/fragment-masking.ts', 'gql/gql.ts', 'gql/graphql.ts', 'gql/index.ts']);
    const types = await readFile(join(workDir, 'gql/graphql.ts'), 'utf8');
    for (const name of ['DashboardQuery', 'VmListQuery', 'UpdateHostNqnMutation', 'JobCompletedSubscription', 'LiveHostsQuery', 'VmSummaryFragment']) {
      expect(types).toContain(`export type ${name} =`);
    }
  });

  it('type-checks the generated module, the documents and a usage file under strict tsc', { timeout: 60_000 }, async () => {
    const diagnostics = await promisify(execFile)(process.execPath, [TSC, '-p', join(workDir, 'tsconfig.json')]).then(
      () => '',
      (error: { stdout?: string; stderr?: string; message: string }) => `${error.stdout ?? ''}${error.stderr ?? ''}` || error.message,
    );
    expect(diagnostics).toBe('');
  });
});
