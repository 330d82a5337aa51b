/**
 * `defineRecord`: one definition per upstream record, from which its TypeScript type
 * (`RecordOf<typeof def>`), its field list (what a demand can narrow, `demand.ts`) and its decoder
 * (`compile-decoder.ts`) all derive. A field added to the definition is typed, decoded and
 * demandable at once; there is no second list to forget. A field also carries its description,
 * which the schema kit exposes with it (`schema/kit/record-fields.ts`), so what a field means is
 * said where it is declared.
 *
 * Field names are the spec's wire keys. This module knows nothing of GraphQL: a kind says what the
 * upstream holds (a uuid, a Java Long, a timestamp), and the schema kit says how GraphQL shows it.
 */
import { describeSince, newerOf, type Release } from './releases.js';
import type { Instant, Readable, Uuid, Wire } from './wire.js';

export type { Instant, Uuid } from './wire.js';

/**
 * A value of a closed set the spec names (`field.oneOf`/`normalized`) that the upstream sent from
 * outside the set: kept with its text, so that no upstream value vanishes. The schema shows it as
 * a field error carrying the text (`exposeRecordEnums`), a client telling "unknown value X" from
 * "no value" (null with no error).
 */
export class UnrecognizedValue {
  constructor(readonly text: string) {}

  toJSON(): string {
    return this.text;
  }
}

/** What a field's custom reader may use besides the wire object. */
export interface DecodeRuntime {
  /** Timestamp text in the upstream's zone (or epoch milliseconds) to an instant. */
  date(value: unknown, key: string, path: string): Instant | null;
}

/** What a field means to a reader: said where the field is declared, shown wherever it is exposed. */
export interface FieldDoc {
  /** What the field holds; `since` adds the release to it (`Name. Since 0.6.`). */
  readonly description?: string;
  /**
   * The release that brought the field, as the spec says it; left out, the record's own
   * (`defineRecord(..., { since })`), which descriptions do not repeat.
   */
  readonly since?: Release;
}

/**
 * How a field is read. The phantom `T` is the decoded field's type. `K` is its kind, kept literal
 * so a consumer can accept only the fields of some kinds (the schema kit exposes scalar kinds).
 */
export interface FieldSpec<T, K extends FieldKind = FieldKind> extends FieldDoc {
  readonly kind: K;
  /**
   * Decoded whatever the demand: a record's identity, or a value its parent hands down. A demand
   * never starves these, so reading them never throws in strict mode either.
   */
  readonly always: boolean;
  /** `oneOf`/`normalized`: text to the closed set's value, null outside it (then decoded as an `UnrecognizedValue`). */
  readonly normalize?: (text: string) => T | null;
  /** `oneOf`/`normalized`: the closed set itself, which a GraphQL enum of the field takes its values from. */
  readonly values?: readonly string[];
  /** `records`: the embedded record's definition. */
  readonly record?: AnyRecordDefinition;
  /** `records`: the field of this record handed to each item as its parent value. */
  readonly passes?: string;
  /** `custom`: reads the field from the whole wire object. */
  readonly read?: (wire: Wire, path: string, runtime: DecodeRuntime) => T;
  /** Never set: carries `T` for `RecordOf`. */
  readonly type?: T;
}

export type FieldKind =
  | 'uuid'
  | 'uuidRef'
  | 'requiredUuidRef'
  | 'text'
  | 'requiredText'
  | 'int'
  | 'long'
  | 'requiredLong'
  | 'bool'
  | 'timestamp'
  | 'strings'
  | 'json'
  | 'normalized'
  | 'records'
  | 'fromParent'
  | 'ownOrParent'
  | 'custom';

export type Fields = { readonly [key: string]: FieldSpec<unknown> };

export interface RecordDefinition<F extends Fields> {
  /** The record's key in a demand and in `RecordDecoder` (`vmInstance`). */
  readonly name: string;
  readonly fields: F;
  /** The release that brought the record: that of each of its fields that names none. */
  readonly since: Release | undefined;
  /** The field names in declaration order: the decoder's and the demand masks' one shape. */
  readonly keys: readonly (keyof F & string)[];
  /** Where a decode error points when the caller names no path. */
  readonly defaultPath: string;
  /** A bare string on the wire stands for a record holding it in this field (an SMS receiver's phone number). */
  readonly fromText: (keyof F & string) | undefined;
}

// `any` stays inside this module: a definition of any field set, for the embedded-records field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRecordDefinition = RecordDefinition<any>;

/** The decoded record a definition describes. */
export type RecordOf<D> = D extends RecordDefinition<infer F> ? { -readonly [K in keyof F]: F[K] extends FieldSpec<infer T> ? T : never } : never;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

export function defineRecord<const F extends Fields>(
  name: string,
  fields: F,
  options: { defaultPath?: string; fromText?: keyof F & string; since?: Release } = {},
): RecordDefinition<F> {
  const keys = Object.keys(fields) as (keyof F & string)[];
  // The decoder is generated code: keys are spliced in as property names.
  for (const key of keys) if (!IDENTIFIER.test(key)) throw new Error(`${name}.${key}: a record field must be an identifier`);
  return Object.freeze({ name, since: options.since, fields, keys, defaultPath: options.defaultPath ?? name, fromText: options.fromText });
}

/**
 * The release that brought field `key` of a record: its own, else the record's, never older than
 * the record (an SNS endpoint's `url`, set since 4.2.0, is read on endpoint records only since
 * 5.0.0), and a list of embedded records never older than its items (a NIC's `usedIps`: 4.10.0);
 * undefined when neither the field nor the record says.
 */
export function fieldRelease(definition: AnyRecordDefinition, key: string): Release | undefined {
  const spec = definition.fields[key] as FieldSpec<unknown> | undefined;
  const own = spec?.since === undefined ? definition.since : definition.since === undefined ? spec.since : newerOf(spec.since, definition.since);
  const items = spec?.record?.since;
  return own === undefined || items === undefined ? own : newerOf(own, items);
}

const spec = <T, K extends FieldKind>(kind: K, always: boolean, doc: FieldDoc, extra: Partial<FieldSpec<T, K>> = {}): FieldSpec<T, K> => ({
  kind,
  always,
  ...(doc.description === undefined ? {} : { description: describeSince(doc.description, doc.since) }),
  ...(doc.since === undefined ? {} : { since: doc.since }),
  ...extra,
});

/**
 * The field kinds of a definition. Each takes the field's documentation (`{ description }`), which
 * is what the schema shows wherever the field is exposed.
 */
export const field = {
  /** The record's identity: required, validated as 32 hex characters (upper case lowered), always decoded. */
  uuid: (doc: FieldDoc = {}) => spec<Uuid, 'uuid'>('uuid', true, doc),
  /** Another record's uuid: read as text, unchecked (a reference may name a record that is gone). */
  uuidRef: (doc: FieldDoc = {}) => spec<Uuid | null, 'uuidRef'>('uuidRef', false, doc),
  /** Another record's uuid that identifies this record (it has no uuid): required and always decoded. */
  requiredUuidRef: (doc: FieldDoc = {}) => spec<Uuid, 'requiredUuidRef'>('requiredUuidRef', true, doc),
  /** Text (numbers and booleans tolerated as text). */
  text: (doc: FieldDoc = {}) => spec<string | null, 'text'>('text', false, doc),
  /** Text that identifies the record (it has no uuid): required and always decoded. */
  requiredText: (doc: FieldDoc = {}) => spec<string, 'requiredText'>('requiredText', true, doc),
  /** A Java Integer (`1.0` is 1; numeric text is read). */
  int: (doc: FieldDoc = {}) => spec<number | null, 'int'>('int', false, doc),
  /** A Java Long (bytes, Hz, counts): read as `int` is, exact to 2^53-1. */
  long: (doc: FieldDoc = {}) => spec<number | null, 'long'>('long', false, doc),
  /** A Java Long the record cannot be without: required and always decoded. */
  requiredLong: (doc: FieldDoc = {}) => spec<number, 'requiredLong'>('requiredLong', true, doc),
  bool: (doc: FieldDoc = {}) => spec<boolean | null, 'bool'>('bool', false, doc),
  /** Timestamp text in the upstream's zone, read by the decoder's timestamp parser. */
  timestamp: (doc: FieldDoc = {}) => spec<Instant | null, 'timestamp'>('timestamp', false, doc),
  /** A list of text; absent is `[]`. */
  strings: (doc: FieldDoc = {}) => spec<string[], 'strings'>('strings', false, doc),
  /** A JSON object of a shape the spec leaves open. */
  json: (doc: FieldDoc = {}) => spec<Wire | null, 'json'>('json', false, doc),
  /**
   * A closed set the spec names: a value outside it decodes as an `UnrecognizedValue` holding its
   * text instead of failing (the spec lists values "seen", and one newer value must not fail a
   * whole page, nor vanish). `anyCase` accepts any case.
   */
  oneOf: <const V extends string>(values: readonly V[], options: FieldDoc & { anyCase?: boolean } = {}) => {
    const exact: ReadonlySet<string> = new Set(values);
    const normalize = options.anyCase
      ? (text: string): V | null => {
          const lowered = exact.has(text) ? text : text.toLowerCase();
          return exact.has(lowered) ? (lowered as V) : null;
        }
      : (text: string): V | null => (exact.has(text) ? (text as V) : null);
    return spec<V | UnrecognizedValue | null, 'normalized'>('normalized', false, options, { normalize, values });
  },
  /** Text mapped by `normalize` (several spellings to one of `values`); an `UnrecognizedValue` when it answers null. */
  normalized: <const V extends string>(values: readonly V[], normalize: (text: string) => V | null, doc: FieldDoc = {}) =>
    spec<V | UnrecognizedValue | null, 'normalized'>('normalized', false, doc, { normalize, values }),
  /**
   * A list of embedded records; `passes` names the field of this record handed to each item (what
   * the item's `fromParent`/`ownOrParent` field receives). Absent is `[]`. Its items stand alone:
   * one the decoder cannot read is an `UnreadableRecord` in its own slot, and costs only itself
   * (not the record that embeds it, nor the page that record is on).
   */
  records: <D extends AnyRecordDefinition>(record: D, passes?: string, doc: FieldDoc = {}) =>
    spec<Readable<RecordOf<D>>[], 'records'>('records', false, doc, { record, passes }),
  /** A list of references to other records (a LUN's host mappings): embedded records with no parent value to pass. */
  references: <D extends AnyRecordDefinition>(record: D, doc: FieldDoc = {}) =>
    spec<Readable<RecordOf<D>>[], 'records'>('records', false, doc, { record }),
  /** Not on the wire: the value the parent record hands down (`records(def, passes)`); null without one. */
  fromParent: (doc: FieldDoc = {}) => spec<Uuid | null, 'fromParent'>('fromParent', true, doc),
  /**
   * The item's own text when the demand asks for it or it has no parent, else (or when absent) the
   * parent's value: always decoded, read from the wire only when it has to be.
   */
  ownOrParent: (doc: FieldDoc = {}) => spec<Uuid | null, 'ownOrParent'>('ownOrParent', true, doc),
  /** A field read by hand from the whole wire object (a rule no other kind states). Always decoded. */
  custom: <T>(read: (wire: Wire, path: string, runtime: DecodeRuntime) => T) => spec<T, 'custom'>('custom', true, {}, { read }),
};
