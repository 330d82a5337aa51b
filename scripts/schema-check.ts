/**
 * `npm run schema:check`: compares `schema/schema.graphql` with the promised API
 * (`schema/baseline.graphql`) and checks the changelog has the baseline's entry. Prints breaking
 * changes (failing), dangerous changes (listed only) and changelog problems; exits 1 when the check
 * fails. `test/schema/guard.test.ts` runs the same check on every `npm test`. An optional argument
 * names another root holding the same three files (the tests run it on copies).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { baselineDigest, checkSchemaCompatibility, describeChange, findChangelogProblems, SCHEMA_FILES } from './schema-guard.js';

const root = process.argv[2] ? resolve(process.argv[2]) : fileURLToPath(new URL('../', import.meta.url));
const read = (file: string) => readFileSync(join(root, file), 'utf8');

const baselineSdl = read(SCHEMA_FILES.baseline);
const changelog = read(SCHEMA_FILES.changelog);
const result = checkSchemaCompatibility({ baselineSdl, currentSdl: read(SCHEMA_FILES.current), changelog });

const lines = [`${SCHEMA_FILES.current} against ${SCHEMA_FILES.baseline} (${baselineDigest(baselineSdl)})`, ''];
lines.push(`Breaking changes: ${result.breaking.length}`, ...result.breaking.map((change) => `  x ${describeChange(change)}`), '');
lines.push(`Dangerous changes (listed, not failing): ${result.dangerous.length}`, ...result.dangerous.map((change) => `  ! ${describeChange(change)}`), '');
const changelogProblems = findChangelogProblems(baselineSdl, changelog);
lines.push(`Changelog: ${changelogProblems.length === 0 ? `the baseline has its entry in ${SCHEMA_FILES.changelog}` : ''}`, ...changelogProblems.map((problem) => `  x ${problem}`), '');
lines.push(result.problems.length === 0 ? 'schema:check passed' : `schema:check failed: ${result.problems.length} problem(s)`);
process.stdout.write(`${lines.join('\n')}\n`);
process.exitCode = result.problems.length === 0 ? 0 : 1;
