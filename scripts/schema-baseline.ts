/**
 * `npm run schema:baseline`: makes the schema the code builds (what `npm run schema` prints to
 * `schema/schema.graphql`) the promised API. Writes it to `schema/baseline.graphql` and a
 * changelog entry stub at the top of `schema/CHANGELOG.md`: the next version (major for a breaking change, minor otherwise, patch
 * when only descriptions changed), the new baseline's digest, the changes from the old baseline,
 * and a TODO that `npm run schema:check` fails on until it is replaced by what clients do.
 * Commit the baseline and the changelog together. An optional argument names another root holding
 * the same files (the tests run it on copies).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSchema, parse, print, visit } from 'graphql';
import { baselineDigest, describeChange, diffSchemas, findChangelogProblems, SCHEMA_FILES, splitChangelogEntries, TODO_MARKER, type SchemaChange } from './schema-guard.js';
import { printServedSdl } from './sdl-files.js';

const root = process.argv[2] ? resolve(process.argv[2]) : fileURLToPath(new URL('../', import.meta.url));
const pathOf = (file: string) => join(root, file);
const normalize = (text: string) => text.replace(/\r\n?/g, '\n');

// The code's schema, not the committed file: a baseline taken from a stale file would promise what is not served.
const currentSdl = printServedSdl();
const oldBaseline = existsSync(pathOf(SCHEMA_FILES.baseline)) ? normalize(readFileSync(pathOf(SCHEMA_FILES.baseline), 'utf8')) : null;
const changelog = normalize(readFileSync(pathOf(SCHEMA_FILES.changelog), 'utf8'));
const entries = splitChangelogEntries(changelog);
const digest = baselineDigest(currentSdl);

if (oldBaseline === currentSdl && entries.some((entry) => entry.includes(digest))) {
  const unfinished = findChangelogProblems(currentSdl, changelog);
  process.stdout.write(`${SCHEMA_FILES.baseline} is already the schema the code builds (${digest}) and has its changelog entry.${unfinished.map((problem) => `\n${problem}`).join('')}\n`);
  process.exit(0);
}
if (entries[0]?.includes(TODO_MARKER)) {
  // Its change list was made against the baseline this script has since overwritten: a second stub would list only part.
  process.stderr.write(
    `The top entry of ${SCHEMA_FILES.changelog} is unfinished (it says ${TODO_MARKER}). Finish it, or delete it and restore the ` +
      `committed baseline (git checkout ${SCHEMA_FILES.baseline}), then run this again.\n`,
  );
  process.exit(1);
}

const { breaking, dangerous } = oldBaseline ? diffSchemas(buildSchema(oldBaseline), buildSchema(currentSdl)) : { breaking: [], dangerous: [] };
const bump = breaking.length > 0 ? 'major' : oldBaseline && withoutDescriptions(oldBaseline) === withoutDescriptions(currentSdl) ? 'patch' : 'minor';
const version = nextVersion(entries[0], bump);

writeFileSync(pathOf(SCHEMA_FILES.baseline), currentSdl);
writeFileSync(pathOf(SCHEMA_FILES.changelog), insertEntry(changelog, formatEntry(version, breaking, dangerous)));

process.stdout.write(
  [
    `${SCHEMA_FILES.baseline} is now the schema the code builds (${digest}).`,
    `Wrote the entry "## ${version}" (${bump}) at the top of ${SCHEMA_FILES.changelog}, with ${breaking.length} breaking and ${dangerous.length} dangerous change(s).`,
    ...breaking.filter((change) => change.type === 'REMOVED_WITHOUT_DEPRECATION').map((change) => `  Policy: ${describeChange(change)}`),
    `Replace its ${TODO_MARKER} with what changed and what clients do, then commit ${SCHEMA_FILES.baseline} and ${SCHEMA_FILES.changelog} together.`,
  ].join('\n') + '\n',
);

/** The SDL with every description removed: equal for two SDLs that differ only in their documentation. */
function withoutDescriptions(sdl: string): string {
  return print(visit(parse(sdl), { enter: (node) => ('description' in node && node.description ? { ...node, description: undefined } : undefined) }));
}

/** The version after the newest entry's `## X.Y.Z` heading (0.0.0 when there is none). */
function nextVersion(newestEntry: string | undefined, bump: 'major' | 'minor' | 'patch'): string {
  const [major = 0, minor = 0, patch = 0] = /^## (\d+)\.(\d+)\.(\d+)/.exec(newestEntry ?? '')?.slice(1).map(Number) ?? [];
  if (bump === 'major') return `${major + 1}.0.0`;
  if (bump === 'minor') return `${major}.${minor + 1}.0`;
  return `${major}.${minor}.${patch + 1}`;
}

function formatEntry(version: string, breaking: SchemaChange[], dangerous: SchemaChange[]): string {
  const list = (title: string, changes: SchemaChange[]) => (changes.length === 0 ? [] : [`${title}:`, '', ...changes.map((change) => `- ${change.description}`), '']);
  return [
    `## ${version} (${new Date().toISOString().slice(0, 10)})`,
    '',
    `Baseline: \`${digest}\``,
    '',
    `${TODO_MARKER}: what changed, and what clients do about it (\`npm run schema:check\` fails while this entry says ${TODO_MARKER}).`,
    '',
    ...list('Breaking', breaking),
    ...list('Dangerous (clients should expect them)', dangerous),
  ].join('\n');
}

/** The changelog with `entry` as its newest entry: after the preamble, before the first `## ` section. */
function insertEntry(text: string, entry: string): string {
  const first = text.search(/^## /m);
  if (first < 0) return `${text.trimEnd()}\n\n${entry}`;
  return `${text.slice(0, first)}${entry}\n${text.slice(first)}`;
}
