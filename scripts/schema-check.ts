/**
 * `npm run schema:check`: compares the schema the code builds with the promised API
 * (`schema/baseline.graphql`), checks the changelog has the baseline's entry, and that every
 * committed SDL file (`schema/schema.graphql`, `schema/subgraph.graphql`, `schema/releases/`) is
 * what `npm run schema` prints. Prints breaking changes (failing), dangerous changes (listed
 * only), changelog problems and stale files; exits 1 when the check fails.
 * `test/schema/guard.test.ts` runs the same check on every `npm test`. An optional argument names
 * another root holding the same files (the tests run it on copies); the schema is always the
 * code's.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { baselineDigest, checkSchemaCompatibility, describeChange, findChangelogProblems, findStaleSdl, SCHEMA_FILES } from './schema-guard.js';
import { printSdlFiles } from './sdl-files.js';

const root = process.argv[2] ? resolve(process.argv[2]) : fileURLToPath(new URL('../', import.meta.url));
const read = (file: string) => readFileSync(join(root, file), 'utf8');
const readIfThere = (file: string) => (existsSync(join(root, file)) ? read(file) : null);

const files = printSdlFiles();
const currentSdl = files.find(({ file }) => file === SCHEMA_FILES.current)?.sdl ?? '';
const baselineSdl = read(SCHEMA_FILES.baseline);
const changelog = read(SCHEMA_FILES.changelog);
const result = checkSchemaCompatibility({ baselineSdl, currentSdl, changelog });
const stale = files.flatMap(({ file, sdl }) => findStaleSdl(file, readIfThere(file), sdl) ?? []);

const lines = [`The schema the code builds against ${SCHEMA_FILES.baseline} (${baselineDigest(baselineSdl)})`, ''];
lines.push(`Breaking changes: ${result.breaking.length}`, ...result.breaking.map((change) => `  x ${describeChange(change)}`), '');
lines.push(`Dangerous changes (listed, not failing): ${result.dangerous.length}`, ...result.dangerous.map((change) => `  ! ${describeChange(change)}`), '');
const changelogProblems = findChangelogProblems(baselineSdl, changelog);
lines.push(`Changelog: ${changelogProblems.length === 0 ? `the baseline has its entry in ${SCHEMA_FILES.changelog}` : ''}`, ...changelogProblems.map((problem) => `  x ${problem}`), '');
lines.push(`SDL files: ${stale.length === 0 ? `the ${files.length} committed files are what the code prints` : ''}`, ...stale.map((problem) => `  x ${problem}`), '');
const failures = result.problems.length + stale.length;
lines.push(failures === 0 ? 'schema:check passed' : `schema:check failed: ${failures} problem(s)`);
process.stdout.write(`${lines.join('\n')}\n`);
process.exitCode = failures === 0 ? 0 : 1;
