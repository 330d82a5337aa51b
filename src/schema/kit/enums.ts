/**
 * GraphQL enums of closed sets, said once: an enum's values are the wire values (`Normal`,
 * `virtio`), each with its description, and the GraphQL names derive from them (CONSTANT_CASE:
 * `InstantStart` → `INSTANT_START`). An enum of a record field's closed set (`recordEnum`) takes
 * its values from the field's definition in `upstream/records.ts`: its `values` must name exactly
 * that set, so the enum and the decoder cannot drift apart.
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

type RecordName = keyof typeof RECORDS;
type FieldsOf<R extends RecordName> = (typeof RECORDS)[R] extends RecordDefinition<infer F> ? F : never;

/** The fields of record `R` that hold a closed set (`field.oneOf`/`normalized`). */
type ClosedSetField<R extends RecordName> = {
  [K in keyof FieldsOf<R> & string]: FieldsOf<R>[K] extends FieldSpec<unknown, 'normalized'> ? K : never;
}[keyof FieldsOf<R> & string];

/** The values of a closed-set field. */
type ClosedSetOf<R extends RecordName, F extends keyof FieldsOf<R>> = FieldsOf<R>[F] extends FieldSpec<infer T, 'normalized'> ? Exclude<T, null> & string : never;

/** `InstantStart` → `INSTANT_START`, `noMaster` → `NO_MASTER`, `e1000` → `E1000`, `SMS` → `SMS`. */
export function constantCase(wireValue: string): string {
  return wireValue.replace(/([a-z\d])([A-Z])/g, '$1_$2').toUpperCase();
}

function defineEnum<V extends string>(
  name: string,
  description: string,
  values: Readonly<Record<V, EnumValueDoc>>,
  extensions?: Readonly<Record<string, unknown>>,
): EnumRef<Types, V> {
  const graphqlValues: Record<string, { value: string; description: string }> = {};
  for (const [value, doc] of Object.entries<EnumValueDoc>(values)) {
    const { description: valueDescription, name: valueName } = typeof doc === 'string' ? { description: doc, name: undefined } : doc;
    graphqlValues[valueName ?? constantCase(value)] = { value, description: valueDescription };
  }
  return builder.enumType(name, { description, values: graphqlValues, ...(extensions ? { extensions } : {}) }) as unknown as EnumRef<Types, V>;
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

/** What a client meets when the upstream sends a value the enum does not have (`exposeRecordEnums`). */
const UNRECOGNIZED_NOTE =
  ' A field of this enum whose upstream value is outside the set is null with an `UNRECOGNIZED_ENUM_VALUE` error carrying that value (`extensions.value`); a null without an error means no value.';

/**
 * `recordEnum('HwMonitorStatus', { record: 'host', field: 'cpuStatus', description, values })`:
 * the enum of a record field's closed set; `values` must describe exactly the field's values (the
 * type says so, and the enum's extensions name the field for the drift test).
 */
export function recordEnum<R extends RecordName, F extends ClosedSetField<R>>(
  name: string,
  options: { record: R; field: F; description: string; values: { readonly [V in ClosedSetOf<R, F>]: EnumValueDoc } },
): EnumRef<Types, ClosedSetOf<R, F>> {
  const source: ClosedSetSource = { record: options.record, field: options.field };
  return defineEnum<ClosedSetOf<R, F>>(name, `${options.description}${UNRECOGNIZED_NOTE}`, options.values, { closedSet: source });
}
