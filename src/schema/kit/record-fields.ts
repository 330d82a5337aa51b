/**
 * Record fields in the schema: exposing them as the definitions say (`exposeRecordFields`), and
 * the field extensions with which a resolver says which record fields it reads, so a query decodes
 * only those (`useRecordDemand`, `upstream/demand.ts`). Exposed fields need no declaration; a
 * resolver of a record-backed type that declares nothing makes its query decode the whole record.
 * A record's `uuid` is always decoded.
 */
import type { EnumRef, FieldRef, ObjectFieldBuilder, OutputRef, SchemaTypes } from '@pothos/core';
import type { GraphQLResolveInfo } from 'graphql';
import { observeUnrecognizedValue } from '../../observability/unrecognized-values.js';
import { FALLBACK_VALUE, fallbackOf } from './enums.js';
import { fieldRelease, UnrecognizedValue, type AnyRecordDefinition, type FieldKind, type FieldSpec, type RecordDefinition, type RecordOf } from '../../upstream/define-record.js';
import type { DemandedRecord, RecordDemand } from '../../upstream/demand.js';
import { DEMANDED_RECORDS, RECORDS } from '../../upstream/records.js';
import { UnreadableRecord, type Readable } from '../../upstream/wire.js';
import { unreadableRecordError } from './errors.js';
import { describeSince, type Release } from '../../upstream/releases.js';

/**
 * The GraphQL type of each field kind the kit exposes as it is: the kind says what the upstream
 * holds (another record's uuid, a Java Long, a timestamp), the scalar is how the schema says it.
 * A field the record cannot be without (its identity, a required value) is non-null, as is a list
 * (absent is `[]`); every other kind is null when the upstream sends no value.
 */
const NON_NULL_AS = { uuid: 'Uuid', requiredUuidRef: 'Uuid', requiredText: 'String', requiredLong: 'Long', strings: ['String'] } as const satisfies ExposedKinds;
const NULLABLE_AS = {
  uuidRef: 'Uuid', fromParent: 'Uuid', ownOrParent: 'Uuid', text: 'String', int: 'Int', long: 'Long', bool: 'Boolean', timestamp: 'DateTime', json: 'JSON',
} as const satisfies ExposedKinds;

type ExposedKinds = Partial<Record<FieldKind, string | readonly [string]>>;
type ScalarKind = keyof typeof NON_NULL_AS | keyof typeof NULLABLE_AS;

/** The GraphQL type and nullability a record field of `kind` is exposed with (undefined: not a scalar kind). */
export function exposedAs(kind: FieldKind): { readonly type: string | readonly [string]; readonly nullable: boolean } | undefined {
  if (Object.hasOwn(NON_NULL_AS, kind)) return { type: NON_NULL_AS[kind as keyof typeof NON_NULL_AS], nullable: false };
  if (Object.hasOwn(NULLABLE_AS, kind)) return { type: NULLABLE_AS[kind as keyof typeof NULLABLE_AS], nullable: true };
  return undefined;
}

type RecordName = keyof typeof RECORDS;
type FieldsOf<R extends RecordName> = (typeof RECORDS)[R] extends RecordDefinition<infer F> ? F : never;

/** The fields of record `R` whose kind is `Kind` (and whose value, or known value of a closed set, is a `V`). */
type FieldsOfKind<R extends RecordName, Kind extends FieldKind, V = unknown> = {
  [K in keyof FieldsOf<R> & string]: FieldsOf<R>[K] extends FieldSpec<infer T, Kind> ? ([Exclude<T, UnrecognizedValue>] extends [V | null] ? K : never) : never;
}[keyof FieldsOf<R> & string];

/**
 * `t.expose` as the kit calls it: the type and nullability come from a kind at run time, which
 * Pothos' signature (checking them against the parent's property type) cannot follow.
 */
interface Exposer<Types extends SchemaTypes> {
  expose(name: string, options: { type: unknown; nullable: boolean; description: string; extensions: { since: Release } }): FieldRef<Types, unknown, 'Object'>;
}

/** A record field as the schema shows it: its definition, with the description and release it must state. */
interface DocumentedField {
  readonly spec: FieldSpec<unknown>;
  readonly description: string;
  readonly since: Release;
}

/** Each of `names` of `record`, exposed by `expose`; a field its definition does not describe (or date) stops the schema from building. */
function exposeEach<Types extends SchemaTypes, K extends string>(
  record: RecordName,
  names: readonly K[],
  expose: (name: K, field: DocumentedField) => FieldRef<Types, unknown, 'Object'>,
): { [N in K]: FieldRef<Types, unknown, 'Object'> } {
  const definition: AnyRecordDefinition = RECORDS[record];
  const fields = {} as { [N in K]: FieldRef<Types, unknown, 'Object'> };
  for (const name of names) {
    const spec = definition.fields[name] as FieldSpec<unknown>;
    // A field is described where it is declared; exposing one that is not would publish it bare.
    if (spec.description === undefined) throw new Error(`${record}.${name} has no description in its record definition`);
    const since = fieldRelease(definition, name);
    if (since === undefined) throw new Error(`${record}.${name} has no release in its record definition`);
    fields[name] = expose(name, { spec, description: spec.description, since });
  }
  return fields;
}

/**
 * `...exposeRecordFields(t, 'vmInstance', 'uuid', 'name', ...)`: GraphQL fields named as the
 * record's, each of the type its kind says (`NON_NULL_AS`, `NULLABLE_AS`) and with the description its definition
 * gives, so a field's name, kind and meaning are said once, in `upstream/records.ts`. Fields are
 * exposed in the order named; fields of other kinds (relations, enums, renamed or computed ones)
 * are written by hand between the spreads. Exposed fields read what they name (`useRecordDemand`).
 */
export function exposeRecordFields<Types extends SchemaTypes, R extends RecordName, K extends FieldsOfKind<R, ScalarKind>>(
  t: ObjectFieldBuilder<Types, RecordOf<(typeof RECORDS)[R]>>,
  record: R,
  ...names: K[]
): { [N in K]: FieldRef<Types, unknown, 'Object'> } {
  const exposer = t as unknown as Exposer<Types>;
  return exposeEach(record, names, (name, { spec, description, since }) => {
    const as = exposedAs(spec.kind);
    if (as === undefined) throw new Error(`${record}: a ${spec.kind} field is not exposed as it is`);
    return exposer.expose(name, { type: as.type, nullable: as.nullable, description, extensions: { since } });
  });
}

/** The fields `exposeRecordEnums` adds for record fields `K`: each, and its `<field>Raw` text. */
export type EnumFields<Types extends SchemaTypes, K extends string> = { [N in K]: FieldRef<Types, unknown, 'Object'> } & {
  [N in K as `${N}Raw`]: FieldRef<Types, unknown, 'Object'>;
};

/**
 * `...exposeRecordEnums(t, 'host', HwMonitorStatus, 'cpuStatus', ...)`: fields of a closed set
 * (`field.oneOf`/`normalized`), exposed as the enum given, with their definitions' descriptions,
 * each beside a `<field>Raw: String` holding the text. A value the upstream sent from outside the
 * set answers the enum's fallback (`OTHER`/`UNKNOWN`) without an error, and is counted and logged
 * once (`observability/unrecognized-values.ts`): a client written against today's set keeps
 * working when the upstream grows one, and can still show what it sent.
 */
export function exposeRecordEnums<Types extends SchemaTypes, V, R extends RecordName, K extends FieldsOfKind<R, 'normalized', V>>(
  t: ObjectFieldBuilder<Types, RecordOf<(typeof RECORDS)[R]>>,
  record: R,
  enumType: EnumRef<Types, V>,
  ...names: K[]
): EnumFields<Types, K> {
  const builder = t as unknown as KitFieldBuilder<Types, Record<string, unknown>>;
  const fields: Record<string, FieldRef<Types, unknown, 'Object'>> = {};
  exposeEach(record, names, (name, { spec, description, since }) => {
    const enumName = (enumType as unknown as { name: string }).name;
    fields[`${name}Raw`] = builder.field({
      type: 'String',
      nullable: true,
      description: describeSince(
        `\`${name}\` as the upstream sent it: the text of a value ${enumName} does not have yet (which \`${name}\` answers as \`${fallbackOf(enumType) ?? 'OTHER'}\`), else the spec's spelling of the value \`${name}\` answers (e.g. \`${spec.values?.[0] ?? ''}\`). Null when there is no value.`,
        since,
      ),
      extensions: { since, ...reads<Record<string, unknown>>(name) },
      resolve: (parent) => rawText(parent[name]),
    });
    return (fields[name] = builder.field({
      type: enumType,
      nullable: true,
      description,
      extensions: { since, ...reads<Record<string, unknown>>(name) },
      resolve: (parent, _args, context) => knownOrFallback(parent[name], enumName, context),
    }));
  });
  return fields as EnumFields<Types, K>;
}

/**
 * `t.field` as the kit calls it: the type is chosen at run time (an enum, a node) and the field
 * named by a parameter, which Pothos' signature (checking both against the parent's shape) cannot follow.
 */
interface KitFieldBuilder<Types extends SchemaTypes, Parent> {
  field(options: {
    type: unknown;
    nullable: boolean | { list: boolean; items: boolean };
    description: string;
    extensions: Record<string, unknown>;
    resolve: (parent: Parent, args: unknown, context: unknown, info: GraphQLResolveInfo) => unknown;
  }): FieldRef<Types, unknown, 'Object'>;
}

/** A closed set's value as decoded, or the fallback of one the upstream sent from outside the set (reported). */
function knownOrFallback(value: unknown, enumName: string, context: unknown): unknown {
  if (!(value instanceof UnrecognizedValue)) return value;
  observeUnrecognizedValue(context, enumName, value.text);
  return FALLBACK_VALUE;
}

/** The text of a closed set's value: the upstream's own when it is outside the set. */
function rawText(value: unknown): string | null {
  if (value instanceof UnrecognizedValue) return value.text;
  return typeof value === 'string' ? value : null;
}

/** The extension a record-backed object type carries (`backedBy`). */
export interface RecordTypeExtensions {
  readonly record: AnyRecordDefinition;
}

/**
 * `extensions: backedBy('vmInstance')`: the type's objects are records of that definition, so a
 * query selecting its fields decodes only those (`useRecordDemand`). `extensions` keeps the type's
 * other extensions.
 */
export function backedBy(record: DemandedRecord, extensions?: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  const backed: RecordTypeExtensions = { record: DEMANDED_RECORDS[record] };
  return { ...extensions, ...backed };
}

/** The demanded record type a GraphQL type's extensions say it is backed by, if any. */
export function recordBehind(extensions: Readonly<Record<string, unknown>> | null | undefined): DemandedRecord | undefined {
  const name = (extensions as Partial<RecordTypeExtensions> | null | undefined)?.record?.name;
  return name !== undefined && Object.hasOwn(DEMANDED_RECORDS, name) ? (name as DemandedRecord) : undefined;
}

/** `reads<R>(...fields)`: the fields of its own record (`R`, the parent's) a resolver reads. */
export function reads<R>(...fields: Array<keyof R & string>): { recordFields: readonly string[] } {
  return { recordFields: fields };
}

/**
 * `alsoReads(type, ...fields)`: fields of another record type a resolver reads, e.g. the VMs a
 * loader groups by `hostUuid`. Spread next to `reads`.
 */
export function alsoReads<T extends DemandedRecord>(
  type: T,
  ...fields: Array<keyof RecordDemand[T] & string>
): { otherRecordFields: Partial<Record<DemandedRecord, readonly string[]>> } {
  return { otherRecordFields: { [type]: fields } };
}

/** The fields of `R` that hold a uuid (or null). */
export type UuidFields<R> = { [K in keyof R & string]: R[K] extends string | null ? K : never }[keyof R & string];

/** The fields of `R` that hold a list. */
type ListFields<R> = { [K in keyof R & string]: R[K] extends readonly unknown[] ? K : never }[keyof R & string];

/** A node type whose per-request loader takes a uuid (`builder.loadableNode`, `loadableNodeRef`). */
type NodeLoadedByUuid = OutputRef & { getDataloader(context: never): { load(uuid: string): Promise<unknown> } };

/**
 * `vmInstance: follows(t, 'vmInstanceUuid', VmInstanceRef, description)`: a field that follows a
 * uuid its record holds to the node it names, loaded by that node's per-request loader (batched
 * with every other); null when the record holds none, or when the node cannot be read (with an
 * error). It reads that one field of its record.
 */
export function follows<Types extends SchemaTypes, R>(t: ObjectFieldBuilder<Types, R>, field: UuidFields<R>, type: NodeLoadedByUuid, description: string) {
  return recordFieldValue(t, field, { type, nullable: true, description });
}

/**
 * `nics: embeddedList(t, 'vmNics', VmNicRef, description)`: the records embedded in a list field
 * of this record, as they came with it; never null (an absent list is `[]`), its items nullable:
 * one the upstream sent unreadable is null with an error at its own index, the others answer. It
 * reads that one field of its record.
 */
export function embeddedList<Types extends SchemaTypes, R>(t: ObjectFieldBuilder<Types, R>, field: ListFields<R>, itemType: OutputRef, description: string) {
  const builder = t as unknown as KitFieldBuilder<Types, R>;
  return builder.field({
    type: [itemType],
    nullable: { list: false, items: true },
    description,
    extensions: reads<R>(field),
    resolve: (record) => itemsOrErrors(record[field] as readonly Readable<unknown>[]),
  });
}

/** A field answering the value of one field of its record, which it declares it reads. */
function recordFieldValue<Types extends SchemaTypes, R>(
  t: ObjectFieldBuilder<Types, R>,
  field: keyof R & string,
  options: { type: unknown; nullable: boolean; description: string },
): FieldRef<Types, unknown, 'Object'> {
  const builder = t as unknown as KitFieldBuilder<Types, R>;
  return builder.field({ ...options, extensions: reads<R>(field), resolve: (record) => record[field] });
}

/**
 * The items of an embedded list (`field.records`) for a GraphQL list of nullable items: one the
 * decoder could not read is null with an `UPSTREAM_PROTOCOL_ERROR` at its own index, the others
 * answer as usual.
 */
export function itemsOrErrors<T>(items: readonly Readable<T>[]): T[] {
  const answered = items.map((item) => (item instanceof UnreadableRecord ? unreadableRecordError(item) : item));
  // Every engine raises an Error found in a list slot as that item's field error (graphql-js's
  // completeValue, graphql-jit's compiled lists); Pothos types list items as values only.
  return answered as T[];
}
