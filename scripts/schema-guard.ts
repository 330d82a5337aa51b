/**
 * The breaking-change guard: compares the SDL the code builds (what `npm run schema` prints to
 * `schema/schema.graphql`) with the promised API (`schema/baseline.graphql`), checks that the
 * baseline has its entry in the schema changelog (`schema/CHANGELOG.md`), and that the committed
 * SDL is the one the code builds. Pure: it takes the texts and reads no file; `schema-check.ts`
 * (`npm run schema:check`), `schema-baseline.ts` (`npm run schema:baseline`) and
 * `test/schema/guard.test.ts` feed it. The policy it enforces is `docs/reference/schema-policy.md`.
 */
import { createHash } from 'node:crypto';
import {
  buildSchema,
  findBreakingChanges,
  findDangerousChanges,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  type GraphQLArgument,
  type GraphQLEnumType,
  type GraphQLEnumValue,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLInputObjectType,
  type GraphQLInterfaceType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type GraphQLType,
} from 'graphql';

/** Where the guard's files live, relative to the repository root. */
export const SCHEMA_FILES = {
  current: 'schema/schema.graphql',
  baseline: 'schema/baseline.graphql',
  changelog: 'schema/CHANGELOG.md',
} as const;

/** The command that makes the current SDL the baseline and writes its changelog entry. */
export const BASELINE_COMMAND = 'npm run schema:baseline';

/** Marks what the maintainer still has to write in a changelog entry; an entry holding it fails the check. */
export const TODO_MARKER = 'TODO';

/** One difference between the baseline and the current SDL. */
export interface SchemaChange {
  /**
   * graphql-js's `BreakingChangeType` or `DangerousChangeType`, or one of the project's own:
   * `REMOVED_WITHOUT_DEPRECATION` and `DEPRECATED_REMOVED` (a field, input field, argument or enum
   * value) and `FIELD_MADE_NON_NULL`.
   */
  type: string;
  /** What changed, naming the type and field (`Host.name was removed.`). */
  description: string;
  /** For a breaking change, what to do about it: restore it, or change the baseline with a changelog entry. */
  advice?: string;
}

/** What `checkSchemaCompatibility` found. The check passes when `problems` is empty. */
export interface SchemaCompatibility {
  /** Changes that break operations clients may already run. */
  breaking: SchemaChange[];
  /** Changes that may surprise a client (a new enum value, an optional argument); listed, never failing. */
  dangerous: SchemaChange[];
  /** Every reason the check fails: one line per breaking change, then any changelog problem. */
  problems: string[];
}

/** The inputs of the check, as text. */
export interface SchemaTexts {
  /** The promised API: `schema/baseline.graphql`. */
  baselineSdl: string;
  /** The API the code serves now, printed from the built schema (`printServedSdl()`), not read from a file. */
  currentSdl: string;
  /** The schema changelog: `schema/CHANGELOG.md`. */
  changelog: string;
  /**
   * The committed `schema/schema.graphql`: when given and not `currentSdl`, the check fails saying
   * to run `npm run schema`, besides whatever `currentSdl` breaks.
   */
  committedSdl?: string;
}

/**
 * Compares the SDL the code builds with the baseline, checks the changelog names the baseline,
 * and that the committed SDL is the built one. Breaking changes, a missing or unfinished
 * changelog entry and a stale SDL file fail (land in `problems`); dangerous changes are only listed.
 */
export function checkSchemaCompatibility({ baselineSdl, currentSdl, changelog, committedSdl }: SchemaTexts): SchemaCompatibility {
  const { breaking, dangerous } = diffSchemas(buildSchema(baselineSdl), buildSchema(currentSdl));
  const stale = committedSdl === undefined ? undefined : findStaleSdl(SCHEMA_FILES.current, committedSdl, currentSdl);
  const problems = [...breaking.map(describeChange), ...findChangelogProblems(baselineSdl, changelog), ...(stale === undefined ? [] : [stale])];
  return { breaking, dangerous, problems };
}

/** The command that writes the committed SDL files from the code. */
export const SCHEMA_COMMAND = 'npm run schema';

/**
 * Why the committed SDL `file` is not the one the code builds (`null` when it is missing), naming
 * the first line that differs; `undefined` when it is. Line endings do not count.
 */
export function findStaleSdl(file: string, committed: string | null, built: string): string | undefined {
  const fix = `run \`${SCHEMA_COMMAND}\` and commit what it writes`;
  if (committed === null) return `${file} is missing: ${fix}.`;
  const committedLines = committed.replace(/\r\n?/g, '\n').split('\n');
  const builtLines = built.split('\n');
  const line = builtLines.findIndex((text, index) => committedLines[index] !== text);
  if (line < 0 && committedLines.length === builtLines.length) return undefined;
  const at = line < 0 ? builtLines.length : line;
  return (
    `${file} is not the schema the code builds (from line ${at + 1}: the code prints ${JSON.stringify(builtLines[at] ?? '')}, ` +
    `the file has ${JSON.stringify(committedLines[at] ?? '')}): ${fix}.`
  );
}

/**
 * The breaking and dangerous changes from `before` to `after`: graphql-js's, with removals
 * judged by whether they were deprecated first, plus the project's rule on output nullability.
 */
export function diffSchemas(before: GraphQLSchema, after: GraphQLSchema): { breaking: SchemaChange[]; dangerous: SchemaChange[] } {
  const breaking: SchemaChange[] = [
    ...findBreakingChanges(before, after)
      // Removals are found again below with their deprecation status, which graphql-js does not report.
      .filter((change) => !REMOVAL_TYPES.has(change.type))
      .map((change) => ({ type: change.type, description: change.description, advice: RESTORE_OR_REBASELINE })),
    ...findRemovals(before, after),
    ...findOutputNonNullTightenings(before, after),
  ];
  const dangerous = findDangerousChanges(before, after).map((change) => ({ type: change.type, description: change.description }));
  return { breaking, dangerous };
}

/** A change as one readable line: what changed, then what to do. */
export function describeChange(change: SchemaChange): string {
  return change.advice ? `${change.description} ${change.advice}` : change.description;
}

/** The sha256 of a baseline as the changelog names it: `sha256:<hex>`, over the text with LF line endings. */
export function baselineDigest(baselineSdl: string): string {
  return `sha256:${createHash('sha256').update(baselineSdl.replace(/\r\n?/g, '\n')).digest('hex')}`;
}

/**
 * Why the changelog does not vouch for this baseline: it has no entry naming the baseline's digest,
 * or that entry still holds the TODO marker. Empty when it does.
 */
export function findChangelogProblems(baselineSdl: string, changelog: string): string[] {
  const digest = baselineDigest(baselineSdl);
  const entry = splitChangelogEntries(changelog).find((section) => section.includes(digest));
  if (!entry) {
    return [
      `${SCHEMA_FILES.baseline} (${digest}) has no entry in ${SCHEMA_FILES.changelog}. ` +
        `Changing the baseline needs an entry saying what changed and what clients do: run \`${BASELINE_COMMAND}\` ` +
        `(it writes the entry's stub), or add a "## <version>" section with the line "Baseline: \`${digest}\`".`,
    ];
  }
  if (entry.includes(TODO_MARKER)) {
    const heading = entry.split('\n', 1)[0]?.trim() ?? '';
    return [`The ${SCHEMA_FILES.changelog} entry "${heading}" for ${digest} still says ${TODO_MARKER}: write what changed and what clients do about it.`];
  }
  return [];
}

/** The changelog's entries: each "## " section, heading line included. The preamble is not an entry. */
export function splitChangelogEntries(changelog: string): string[] {
  const text = changelog.replace(/\r\n?/g, '\n');
  return text
    .split(/^(?=## )/m)
    .filter((section) => section.startsWith('## '));
}

const RESTORE_OR_REBASELINE = `Restore the baseline's definition, or change the baseline (\`${BASELINE_COMMAND}\`) and say in the changelog entry what clients do.`;

const REMOVAL_TYPES: ReadonlySet<string> = new Set(['FIELD_REMOVED', 'ARG_REMOVED', 'VALUE_REMOVED_FROM_ENUM']);

type FieldOwner = GraphQLObjectType | GraphQLInterfaceType;

/** Types present in both schemas with the same kind (a kind change is graphql-js's TYPE_CHANGED_KIND). */
function* sameKindTypePairs(before: GraphQLSchema, after: GraphQLSchema) {
  for (const [name, oldType] of Object.entries(before.getTypeMap())) {
    if (name.startsWith('__')) continue;
    const newType = after.getType(name);
    if (!newType || kindOf(newType) !== kindOf(oldType)) continue;
    yield { oldType, newType };
  }
}

/** The kinds whose members `findRemovals` and the nullability rule compare; every other kind is `other`. */
function kindOf(type: GraphQLNamedType): string {
  if (isObjectType(type)) return 'object';
  if (isInterfaceType(type)) return 'interface';
  if (isInputObjectType(type)) return 'input';
  if (isEnumType(type)) return 'enum';
  return 'other';
}

/** Removed fields, input fields, arguments and enum values, each judged by the baseline's `@deprecated`. */
function findRemovals(before: GraphQLSchema, after: GraphQLSchema): SchemaChange[] {
  const removals: SchemaChange[] = [];
  for (const { oldType, newType } of sameKindTypePairs(before, after)) {
    if (isObjectType(oldType) || isInterfaceType(oldType)) {
      const newFields = (newType as FieldOwner).getFields();
      for (const oldField of Object.values(oldType.getFields())) {
        const path = `${oldType.name}.${oldField.name}`;
        const newField = newFields[oldField.name];
        if (!newField) {
          removals.push(describeRemoval('field', path, oldField));
          continue;
        }
        for (const oldArg of oldField.args) {
          if (!newField.args.some((arg) => arg.name === oldArg.name)) removals.push(describeRemoval('argument', `${path}(${oldArg.name}:)`, oldArg));
        }
      }
    } else if (isInputObjectType(oldType)) {
      const newFields = (newType as GraphQLInputObjectType).getFields();
      for (const oldField of Object.values(oldType.getFields())) {
        if (!newFields[oldField.name]) removals.push(describeRemoval('input field', `${oldType.name}.${oldField.name}`, oldField));
      }
    } else if (isEnumType(oldType)) {
      const newValues = new Set((newType as GraphQLEnumType).getValues().map((value) => value.name));
      for (const oldValue of oldType.getValues()) {
        if (!newValues.has(oldValue.name)) removals.push(describeRemoval('enum value', `${oldType.name}.${oldValue.name}`, oldValue));
      }
    }
  }
  return removals;
}

function describeRemoval(kind: string, path: string, element: GraphQLField<unknown, unknown> | GraphQLInputField | GraphQLArgument | GraphQLEnumValue): SchemaChange {
  if (element.deprecationReason == null) {
    return {
      type: 'REMOVED_WITHOUT_DEPRECATION',
      description: `${path} (${kind}) was removed without being deprecated first.`,
      advice:
        `The policy is deprecate before removal (docs/reference/schema-policy.md): restore it, marked @deprecated(reason: "...") ` +
        `saying what to use instead, and remove it no sooner than one minor version later, by changing the baseline ` +
        `(\`${BASELINE_COMMAND}\`) with a changelog entry.`,
    };
  }
  return {
    type: 'DEPRECATED_REMOVED',
    description: `${path} (${kind}, deprecated in the baseline: "${element.deprecationReason}") was removed.`,
    advice:
      `Removing a deprecated ${kind} is still a breaking change: restore it, or, once a minor version has shipped with the ` +
      `deprecation, change the baseline (\`${BASELINE_COMMAND}\`) and say in the changelog entry what clients use instead.`,
  };
}

/**
 * The project's rule beyond graphql-js: an output field (or a list item of one) that was nullable
 * and is now non-null is breaking, because an error in it then nulls its parent instead of itself,
 * and the API promises partial data. graphql-js deems the change safe.
 */
function findOutputNonNullTightenings(before: GraphQLSchema, after: GraphQLSchema): SchemaChange[] {
  const changes: SchemaChange[] = [];
  for (const { oldType, newType } of sameKindTypePairs(before, after)) {
    if (!isObjectType(oldType) && !isInterfaceType(oldType)) continue;
    const newFields = (newType as FieldOwner).getFields();
    for (const oldField of Object.values(oldType.getFields())) {
      const newField = newFields[oldField.name];
      // Any other change of shape is graphql-js's FIELD_CHANGED_KIND.
      if (!newField || !sameShapeIgnoringNonNull(oldField.type, newField.type) || !addsNonNull(oldField.type, newField.type)) continue;
      changes.push({
        type: 'FIELD_MADE_NON_NULL',
        description: `${oldType.name}.${oldField.name} changed type from ${String(oldField.type)} to ${String(newField.type)}.`,
        advice:
          `A nullable output field made non-null is breaking here: an error in it would null its parent instead of itself, ` +
          `and the API promises partial data. Keep it ${String(oldField.type)}, or change the baseline (\`${BASELINE_COMMAND}\`) ` +
          `and say in the changelog entry what clients do.`,
      });
    }
  }
  return changes;
}

function stripNonNull(type: GraphQLType): string {
  const nullable = getNullableType(type);
  return isListType(nullable) ? `[${stripNonNull(nullable.ofType)}]` : String(nullable);
}

function sameShapeIgnoringNonNull(oldType: GraphQLOutputType, newType: GraphQLOutputType): boolean {
  return stripNonNull(oldType) === stripNonNull(newType);
}

/** Whether `after` is non-null at some level (the field or a list item) where `before` was nullable. */
function addsNonNull(before: GraphQLType, after: GraphQLType): boolean {
  if (isNonNullType(after) && !isNonNullType(before)) return true;
  const oldInner = getNullableType(before);
  const newInner = getNullableType(after);
  return isListType(oldInner) && isListType(newInner) && addsNonNull(oldInner.ofType, newInner.ofType);
}
