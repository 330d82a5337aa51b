/**
 * GraphQL enums of closed sets, said once: an enum's values are the wire values (`Normal`,
 * `virtio`), each with its description, and the GraphQL names derive from them (CONSTANT_CASE:
 * `InstantStart` → `INSTANT_START`). An enum of a record field's closed set (`recordEnum`) takes
 * its values from the field's definition in `upstream/records.ts`: its `values` must name exactly
 * that set, so the enum and the decoder cannot drift apart.
 *
 * A record enum also has a fallback value (`OTHER`, or `UNKNOWN` where `OTHER` is one of the set's
 * own): what a field answers for a value the upstream sent from outside the set, beside a
 * `<field>Raw` field holding the text (`exposeRecordEnums`). A newer upstream's value then costs a
 * client one generic branch, never an error that discards the whole answer.
 */
import type { EnumRef } from '@pothos/core';
import { builder, type GatewaySchemaTypes } from '../../builder.js';
import type { FieldSpec, RecordDefinition } from '../../upstream/define-record.js';
import type { RECORDS } from '../../upstream/records.js';
import { describeSince, type Release } from '../../upstream/releases.js';

type Types = PothosSchemaTypes.ExtendDefaultTypes<GatewaySchemaTypes>;

/** A value's description, or its description and a GraphQL name that does not derive from the wire value. */
export type EnumValueDoc = string | { readonly description: string; readonly name?: string };

/** Where a record enum's values come from; carried on the enum's extensions, so a test can compare the two. */
export interface ClosedSetSource {
  readonly record: string;
  readonly field: string;
}

/** The extensions of a record enum: its values' source and the GraphQL name of its fallback. */
export type RecordEnumExtensions = {
  readonly closedSet: ClosedSetSource;
  readonly fallback: 'OTHER' | 'UNKNOWN';
};

type RecordName = keyof typeof RECORDS;
type FieldsOf<R extends RecordName> = (typeof RECORDS)[R] extends RecordDefinition<infer F> ? F : never;

/** The fields of record `R` that hold a closed set (`field.oneOf`/`normalized`). */
type ClosedSetField<R extends RecordName> = {
  [K in keyof FieldsOf<R> & string]: FieldsOf<R>[K] extends FieldSpec<unknown, 'normalized'> ? K : never;
}[keyof FieldsOf<R> & string];

/** The values of a closed-set field. */
type ClosedSetOf<R extends RecordName, F extends keyof FieldsOf<R>> = FieldsOf<R>[F] extends FieldSpec<infer T, 'normalized'> ? Exclude<T, null> & string : never;

/**
 * `InstantStart` → `INSTANT_START`, `noMaster` → `NO_MASTER`, `e1000` → `E1000`, `SMS` → `SMS`,
 * `balance-rr` → `BALANCE_RR`, `layer2+3` → `LAYER2_3`.
 */
export function constantCase(wireValue: string): string {
  return wireValue.replace(/([a-z\d])([A-Z])/g, '$1_$2').replace(/[^A-Za-z\d]+/g, '_').toUpperCase();
}

function defineEnum<V extends string>(
  name: string,
  description: string,
  values: Readonly<Record<V, EnumValueDoc>>,
  extensions?: Readonly<Record<string, unknown>>,
): EnumRef<Types, V> {
  return builder.enumType(name, { description, values: graphqlValuesOf(values), ...(extensions ? { extensions } : {}) }) as unknown as EnumRef<Types, V>;
}

function graphqlValuesOf(values: Readonly<Record<string, EnumValueDoc>>): Record<string, { value: string; description: string }> {
  const graphqlValues: Record<string, { value: string; description: string }> = {};
  for (const [value, doc] of Object.entries<EnumValueDoc>(values)) {
    const { description: valueDescription, name: valueName } = typeof doc === 'string' ? { description: doc, name: undefined } : doc;
    graphqlValues[valueName ?? constantCase(value)] = { value, description: valueDescription };
  }
  return graphqlValues;
}

/**
 * `closedSetEnum('OrderDirection', { description, values: { asc: 'Smallest first.', ... }, since })`:
 * an enum of wire values no record field holds (an argument's closed set, a job's status). Values
 * appear in the order given; `since` is the release of the parameter it is the set of (`null`: the
 * gateway's own), added to the description.
 */
export function closedSetEnum<const V extends string>(
  name: string,
  options: { description: string; values: Readonly<Record<V, EnumValueDoc>>; since: Release },
): EnumRef<Types, V> {
  return defineEnum(name, describeSince(options.description, options.since), options.values, { since: options.since });
}

/**
 * The internal value of every record enum's fallback: what a field of the enum resolves to for an
 * upstream value outside the set. No wire value looks like it, and an input carrying it is refused
 * (`isFallback`): the fallback names no value the upstream could be asked for.
 */
export const FALLBACK_VALUE = '\u0000unrecognized';

/** Whether an input value is a record enum's fallback (`OTHER`/`UNKNOWN`), which no filter or write can ask for. */
export function isFallback(value: unknown): boolean {
  return value === FALLBACK_VALUE || (Array.isArray(value) && value.includes(FALLBACK_VALUE));
}

/** The fallback's GraphQL name: `OTHER`, unless a value of the set is already called so. */
export function fallbackName(names: readonly string[]): 'OTHER' | 'UNKNOWN' {
  return names.includes('OTHER') ? 'UNKNOWN' : 'OTHER';
}

/** What a client meets when the upstream sends a value the enum does not have (`exposeRecordEnums`). */
function fallbackNote(fallback: string): string {
  return ` A field of this enum answers \`${fallback}\` for a value the upstream sends from outside this set (a newer upstream's), with no error, and its sibling \`<field>Raw\` holds the upstream's text; null means no value. \`${fallback}\` is output only.`;
}

/**
 * `recordEnum('HwMonitorStatus', { record: 'host', field: 'cpuStatus', description, values })`:
 * the enum of a record field's closed set; `values` must describe exactly the field's values (the
 * type says so, and the enum's extensions name the field for the drift test).
 */
export function recordEnum<R extends RecordName, F extends ClosedSetField<R>>(
  name: string,
  options: { record: R; field: F; description: string; values: { readonly [V in ClosedSetOf<R, F>]: EnumValueDoc } },
): EnumRef<Types, ClosedSetOf<R, F> | typeof FALLBACK_VALUE> {
  const known = graphqlValuesOf(options.values);
  const fallback = fallbackName(Object.keys(known));
  const extensions: RecordEnumExtensions = { closedSet: { record: options.record, field: options.field }, fallback };
  const values = {
    ...known,
    [fallback]: { value: FALLBACK_VALUE, description: 'A value the upstream sent that this API does not know yet (a newer upstream release): its text is in the sibling `<field>Raw` field. Output only.' },
  };
  const ref = builder.enumType(name, { description: `${options.description}${fallbackNote(fallback)}`, values, extensions });
  FALLBACK_NAMES.set(ref, fallback);
  return ref as unknown as EnumRef<Types, ClosedSetOf<R, F> | typeof FALLBACK_VALUE>;
}

/** One row of a record's enum table: the closed-set field it shows, its description and its values' descriptions. */
export interface RecordEnumRow<R extends RecordName, F extends ClosedSetField<R>> {
  readonly field: F;
  readonly description: string;
  readonly values: { readonly [V in ClosedSetOf<R, F>]: EnumValueDoc };
}

/** A record's enum table, each row's values exactly the set of the field it names (none missing, none besides). */
type RecordEnumTable<R extends RecordName, T> = {
  readonly [N in keyof T]: T[N] extends { readonly field: infer F extends ClosedSetField<R>; readonly values: infer V }
    ? RecordEnumRow<R, F> & { readonly values: { readonly [K in Exclude<keyof V, ClosedSetOf<R, F>>]: never } }
    : never;
};

/** The enums a record's table declares, by name. */
type RecordEnumRefs<R extends RecordName, T> = {
  readonly [N in keyof T]: T[N] extends { readonly field: infer F extends ClosedSetField<R> } ? EnumRef<Types, ClosedSetOf<R, F> | typeof FALLBACK_VALUE> : never;
};

/**
 * `const { HostStatus, ... } = recordEnums('host', { HostStatus: { field: 'status', description, values }, ... })`:
 * the enums of one record's closed-set fields as one table, each row as `recordEnum` takes it and
 * named by its key.
 */
export function recordEnums<R extends RecordName, const T extends Readonly<Record<string, { readonly field: ClosedSetField<R> }>>>(
  record: R,
  table: T & RecordEnumTable<R, T>,
): RecordEnumRefs<R, T> {
  const refs: Record<string, unknown> = {};
  for (const [name, row] of Object.entries(table as Readonly<Record<string, RecordEnumRow<R, ClosedSetField<R>>>>)) {
    refs[name] = recordEnum(name, { record, ...row });
  }
  return refs as RecordEnumRefs<R, T>;
}

const FALLBACK_NAMES = new WeakMap<object, 'OTHER' | 'UNKNOWN'>();

/** The GraphQL name of a record enum's fallback, for the descriptions of the fields that show it. */
export function fallbackOf(enumRef: object): 'OTHER' | 'UNKNOWN' | undefined {
  return FALLBACK_NAMES.get(enumRef);
}
