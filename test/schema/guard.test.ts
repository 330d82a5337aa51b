/**
 * The breaking-change guard (`scripts/schema-guard.ts`): the committed SDL against the committed
 * baseline and changelog (the check CI makes on every run), then edited copies of them, as strings,
 * for each rule. The committed files are never written.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildSchema, findBreakingChanges, Kind, parse, parseType, print, visit, type EnumValueDefinitionNode, type FieldDefinitionNode, type InputValueDefinitionNode } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baselineDigest, checkSchemaCompatibility, SCHEMA_FILES, type SchemaTexts } from '../../scripts/schema-guard.js';

const readCommitted = (file: string) => readFile(new URL(`../../${file}`, import.meta.url), 'utf8');

let committed: SchemaTexts;

beforeAll(async () => {
  committed = { baselineSdl: await readCommitted(SCHEMA_FILES.baseline), currentSdl: await readCommitted(SCHEMA_FILES.current), changelog: await readCommitted(SCHEMA_FILES.changelog) };
});

/** The SDL with one field of one type replaced by what `edit` returns (null removes it). */
function editField(sdl: string, typeName: string, fieldName: string, edit: (field: FieldDefinitionNode) => FieldDefinitionNode | null): string {
  let found = false;
  const edited = visit(parse(sdl), {
    FieldDefinition(field, _key, _parent, _path, ancestors) {
      const owner = ancestors[ancestors.length - 1];
      if (field.name.value !== fieldName || !owner || !('kind' in owner) || !('name' in owner) || owner.name?.value !== typeName) return undefined;
      found = true;
      return edit(field);
    },
  });
  expect(found, `${typeName}.${fieldName} is in the SDL`).toBe(true);
  return print(edited);
}

const withType = (type: string) => (field: FieldDefinitionNode): FieldDefinitionNode => ({ ...field, type: parseType(type) });

/** A changelog entry for `baselineSdl`, added on top of the committed changelog. */
function changelogWithEntry(baselineSdl: string, body = 'Host.name is gone: read `hostname` instead.'): string {
  return committed.changelog.replace(/^## /m, `## 1.0.0 (2026-11-28)\n\nBaseline: \`${baselineDigest(baselineSdl)}\`\n\n${body}\n\n## `);
}

describe('the breaking-change guard', () => {
  it('passes: the committed schema/schema.graphql keeps what schema/baseline.graphql promises, and the changelog has its entry', () => {
    const result = checkSchemaCompatibility(committed);
    expect(result.breaking.map((change) => change.description)).toEqual([]);
    expect(result.problems).toEqual([]);
  });

  it('fails when a field is removed, naming it and pointing at the deprecate-first policy', () => {
    const currentSdl = editField(committed.currentSdl, 'Host', 'name', () => null);
    const result = checkSchemaCompatibility({ ...committed, currentSdl });
    expect(result.breaking.map((change) => change.type)).toEqual(['REMOVED_WITHOUT_DEPRECATION']);
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toContain('Host.name (field) was removed without being deprecated first');
    expect(result.problems[0]).toContain('@deprecated');
    expect(result.problems[0]).toContain('npm run schema:baseline');
  });

  it('fails when a deprecated field is removed too, saying it was deprecated', () => {
    const deprecate = (field: FieldDefinitionNode): FieldDefinitionNode => ({
      ...field,
      directives: [{ kind: Kind.DIRECTIVE, name: { kind: Kind.NAME, value: 'deprecated' }, arguments: [{ kind: Kind.ARGUMENT, name: { kind: Kind.NAME, value: 'reason' }, value: { kind: Kind.STRING, value: 'Use `hostname`.' } }] }],
    });
    const baselineSdl = editField(committed.baselineSdl, 'Host', 'name', deprecate);
    const currentSdl = editField(committed.currentSdl, 'Host', 'name', () => null);
    const result = checkSchemaCompatibility({ baselineSdl, currentSdl, changelog: changelogWithEntry(baselineSdl) });
    expect(result.breaking.map((change) => change.type)).toEqual(['DEPRECATED_REMOVED']);
    expect(result.problems).toEqual([expect.stringContaining('Host.name (field, deprecated in the baseline: "Use `hostname`.") was removed. Removing a deprecated field is still a breaking change')]);
  });

  it('fails when an input field or an enum value is removed', () => {
    const withoutInputField = visit(parse(committed.currentSdl), {
      InputValueDefinition: (node: InputValueDefinitionNode) => (node.name.value === 'withDataVolumes' ? null : undefined),
      EnumValueDefinition: (node: EnumValueDefinitionNode) => (node.name.value === 'RUNNING' ? null : undefined),
    });
    const result = checkSchemaCompatibility({ ...committed, currentSdl: print(withoutInputField) });
    expect(result.breaking.map((change) => change.description).sort()).toEqual([
      'CbtTaskStatus.RUNNING (enum value) was removed without being deprecated first.',
      'JobStatus.RUNNING (enum value) was removed without being deprecated first.',
      // Deprecated in the baseline (the upstream deprecated it), so the message says so.
      'PrimaryStorageMigrateVmInput.withDataVolumes (input field, deprecated in the baseline: "Deprecated by the upstream: use `volumeMigrationAOs`.") was removed.',
    ]);
  });

  it('fails when a nullable output field is made non-null, which graphql-js alone deems safe', () => {
    const currentSdl = editField(committed.currentSdl, 'Host', 'name', withType('String!'));
    expect(findBreakingChanges(buildSchema(committed.baselineSdl), buildSchema(currentSdl))).toEqual([]);
    const result = checkSchemaCompatibility({ ...committed, currentSdl });
    expect(result.breaking.map((change) => change.type)).toEqual(['FIELD_MADE_NON_NULL']);
    expect(result.problems[0]).toContain('Host.name changed type from String to String!');
    expect(result.problems[0]).toContain('partial data');
  });

  it('fails when the items of an output list are made non-null', () => {
    const currentSdl = editField(committed.currentSdl, 'Query', 'nodes', withType('[Node!]!'));
    const result = checkSchemaCompatibility({ ...committed, currentSdl });
    expect(result.problems).toEqual([expect.stringContaining('Query.nodes changed type from [Node]! to [Node!]!')]);
  });

  it('fails when an argument is made required', () => {
    const currentSdl = editField(committed.currentSdl, 'Query', 'hosts', (field) => ({
      ...field,
      arguments: field.arguments?.map((arg) => (arg.name.value === 'first' ? { ...arg, type: parseType('Int!') } : arg)),
    }));
    const result = checkSchemaCompatibility({ ...committed, currentSdl });
    expect(result.breaking.map((change) => change.type)).toEqual(['ARG_CHANGED_KIND']);
    expect(result.problems).toEqual([expect.stringContaining('Query.hosts arg first has changed type from Int to Int!')]);
    expect(result.problems[0]).toContain('change the baseline');
  });

  it('lists dangerous changes (an enum value, an optional argument with a default) and passes', () => {
    const document = visit(parse(committed.currentSdl), {
      EnumTypeDefinition: (node) =>
        node.name.value === 'JobStatus' ? { ...node, values: [...(node.values ?? []), { kind: Kind.ENUM_VALUE_DEFINITION, name: { kind: Kind.NAME, value: 'CANCELLED' } }] } : undefined,
    });
    const currentSdl = editField(print(document), 'Query', 'hosts', (field) => ({
      ...field,
      arguments: [...(field.arguments ?? []), { kind: Kind.INPUT_VALUE_DEFINITION, name: { kind: Kind.NAME, value: 'includeDisabled' }, type: parseType('Boolean'), defaultValue: { kind: Kind.BOOLEAN, value: false } }],
    }));
    const result = checkSchemaCompatibility({ ...committed, currentSdl });
    expect(result.dangerous.map((change) => change.description)).toEqual(['CANCELLED was added to enum type JobStatus.', 'An optional arg includeDisabled on Query.hosts was added.']);
    expect(result.breaking).toEqual([]);
    expect(result.problems).toEqual([]);
  });

  it('passes the same breaking change once the baseline matches and the changelog carries its digest', () => {
    const currentSdl = editField(committed.currentSdl, 'Host', 'name', () => null);
    const result = checkSchemaCompatibility({ baselineSdl: currentSdl, currentSdl, changelog: changelogWithEntry(currentSdl) });
    expect(result).toEqual({ breaking: [], dangerous: [], problems: [] });
  });

  it('fails a changed baseline that has no changelog entry, saying how to add one', () => {
    const currentSdl = editField(committed.currentSdl, 'Host', 'name', () => null);
    const result = checkSchemaCompatibility({ baselineSdl: currentSdl, currentSdl, changelog: committed.changelog });
    expect(result.breaking).toEqual([]);
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toContain(`schema/baseline.graphql (${baselineDigest(currentSdl)}) has no entry in schema/CHANGELOG.md`);
    expect(result.problems[0]).toContain('npm run schema:baseline');
    expect(result.problems[0]).toContain(`Baseline: \`${baselineDigest(currentSdl)}\``);
  });

  it('fails a changelog entry that still says TODO', () => {
    const currentSdl = editField(committed.currentSdl, 'Host', 'name', () => null);
    const result = checkSchemaCompatibility({ baselineSdl: currentSdl, currentSdl, changelog: changelogWithEntry(currentSdl, 'TODO: what changed, and what clients do.') });
    expect(result.problems).toEqual([expect.stringContaining('still says TODO')]);
  });

  it('digests the baseline with LF line endings, so a checkout with CRLF passes too', () => {
    expect(baselineDigest(committed.baselineSdl.replace(/\n/g, '\r\n'))).toBe(baselineDigest(committed.baselineSdl));
  });
});

describe('the maintainer commands, on a copy of the schema folder', () => {
  const run = promisify(execFile);
  let root: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'schema-guard-'));
    await mkdir(join(root, 'schema'));
    for (const file of Object.values(SCHEMA_FILES)) await writeFile(join(root, file), await readCommitted(file));
  });

  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  const runScript = (script: string) =>
    run(process.execPath, ['--import', 'tsx', `scripts/${script}`, root]).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
    );

  it('schema:check prints the breaking change and exits 1; schema:baseline writes the entry stub; filling it in passes', async () => {
    const currentSdl = editField(committed.currentSdl, 'Host', 'name', () => null);
    await writeFile(join(root, SCHEMA_FILES.current), currentSdl);

    const failed = await runScript('schema-check.ts');
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain('Breaking changes: 1');
    expect(failed.stdout).toContain('Host.name (field) was removed without being deprecated first');

    const rebaselined = await runScript('schema-baseline.ts');
    expect(rebaselined.code).toBe(0);
    expect(await readFile(join(root, SCHEMA_FILES.baseline), 'utf8')).toBe(currentSdl);
    const changelog = await readFile(join(root, SCHEMA_FILES.changelog), 'utf8');
    expect(changelog).toContain(`## 1.0.0 (`);
    expect(changelog).toContain(`Baseline: \`${baselineDigest(currentSdl)}\``);
    expect(changelog).toContain('- Host.name (field) was removed without being deprecated first.');
    expect(changelog.indexOf('## 1.0.0')).toBeLessThan(changelog.indexOf('## 0.1.0'));

    // The stub's TODO still fails the check, until the maintainer writes what clients do.
    expect((await runScript('schema-check.ts')).code).toBe(1);
    await writeFile(join(root, SCHEMA_FILES.changelog), changelog.replace(/^TODO: .*$/m, 'Host.name is gone: read `hostname` instead.'));
    const passed = await runScript('schema-check.ts');
    expect(passed.stdout).toContain('schema:check passed');
    expect(passed.code).toBe(0);
  });
});
