/**
 * The import boundary that keeps the layout by feature (eslint.config.js): only the composition
 * root (`src/app.ts`, `src/plugins/index.ts`) imports a hook (`use-*.ts`) or anything in
 * src/plugins/; every other module imports the logic beside a hook, or a helper of src/utils/.
 */
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RULE = 'no-restricted-imports';

/** ESLint as `npm run lint` configures it, running only the boundary rule. */
const eslint = new ESLint({ cwd: ROOT, ruleFilter: ({ ruleId }) => ruleId === RULE });

/** The boundary's complaints about `text` as if it were the file `path` of the repository. */
async function refusals(path: string, text: string): Promise<string[]> {
  const [result] = await eslint.lintText(text, { filePath: `${ROOT}${path}` });
  return (result?.messages ?? []).filter((message) => message.ruleId === RULE).map((message) => message.message);
}

describe('the hook import boundary', () => {
  it('refuses a feature module importing a hook, and says where the logic and the shared helpers live', async () => {
    const found = await refusals('src/errors/example.ts', "import { useQueryCost } from '../cost/use-query-cost.js';\nexport const hook = useQueryCost;\n");
    expect(found).toHaveLength(1);
    expect(found[0]).toContain('composition root');
    expect(found[0]).toContain('src/utils/');
  });

  it('refuses a module outside src/plugins/ importing from it, type imports too', async () => {
    const found = await refusals('src/subscriptions/example.ts', "import type { EndpointPluginParts } from '../plugins/index.js';\nexport type Parts = EndpointPluginParts;\n");
    expect(found).toHaveLength(1);
    expect(found[0]).toContain('src/plugins/');
  });

  it('refuses a hook by its file name, whatever it exports (a factory named create*)', async () => {
    const found = await refusals('src/live/example.ts', "import { createAdmission } from '../admission/use-admission.js';\nexport const create = createAdmission;\n");
    expect(found).toHaveLength(1);
  });

  it('lets the composition root import hooks and src/plugins/, and any module import the logic beside a hook', async () => {
    expect(await refusals('src/app.ts', "import { useHealth } from './plugins/routes/use-health.js';\nimport { endpointPlugins } from './plugins/index.js';\nexport const parts = [useHealth, endpointPlugins];\n")).toEqual([]);
    expect(await refusals('src/plugins/index.ts', "import { useQueryCost } from '../cost/use-query-cost.js';\nexport const hook = useQueryCost;\n")).toEqual([]);
    expect(await refusals('src/subscriptions/example.ts', "import { createQueryCost } from '../cost/query-cost.js';\nexport const create = createQueryCost;\n")).toEqual([]);
  });

  it('holds for every module of src/ as it is', async () => {
    const results = await eslint.lintFiles(['src/**/*.ts']);
    const broken = results.flatMap((result) => result.messages.filter((message) => message.ruleId === RULE).map((message) => `${result.filePath.slice(ROOT.length)}:${message.line}`));
    expect(results.length).toBeGreaterThan(100);
    expect(broken).toEqual([]);
  }, 180_000);
});
