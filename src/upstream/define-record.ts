/**
 * `defineRecord`: one definition per upstream record, from which its TypeScript type
 * (`RecordOf<typeof def>`), its field list (what a demand can narrow, `demand.ts`) and its decoder
 * (`compile-decoder.ts`) all derive. A field added to the definition is typed, decoded and
 * demandable at once; there is no second list to forget.
 *
 * Field names are the spec's wire keys. This module knows nothing of GraphQL.
 */
import type { ErrorCodeRecord } from './records.js';
import type { Wire } from './wire.js';

/** 32 lowercase hexadecimal characters. */
export type Uuid = string;

/**
 * A Timestamp field: milliseconds since the epoch, the instant the upstream's text names in its
 * zone. Kept as a number rather than a `Date`: a page of 50 VMs carries about a thousand of them
 * and a query rarely selects one; the `DateTime` scalar writes it as ISO 8601 when it does.
 */
export type Instant = number;

/** What a field's custom reader may use besides the wire object. */
export interface DecodeRuntime {
  /** Timestamp text in the upstream's zone (or epoch milliseconds) to an instant. */
  date(value: unknown, key: string, path: string): Instant | null;
  errorCode(value: unknown, path: string): ErrorCodeRecord;
}

/** How a field is read. The phantom `T` is the decoded field's type. */
export interface FieldSpec<T> {
  readonly kind: FieldKind;
  /**
   * Decoded whatever the demand: a record's identity, or a value its parent hands down. A demand
   * never starves these, so reading them never throws in strict mode either.
   */
  readonly always: boolean;
  /** `oneOf`/`normalized`: text to the closed set's value, null outside it. */
  readonly normalize?: (text: string) => T | null;
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
  | 'text'
  | 'requiredText'
  | 'int'
  | 'requiredInt'
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
  options: { defaultPath?: string; fromText?: keyof F & string } = {},
): RecordDefinition<F> {
  const keys = Object.keys(fields) as (keyof F & string)[];
  // The decoder is generated code: keys are spliced in as property names.
  for (const key of keys) if (!IDENTIFIER.test(key)) throw new Error(`${name}.${key}: a record field must be an identifier`);
  return Object.freeze({ name, fields, keys, defaultPath: options.defaultPath ?? name, fromText: options.fromText });
}

const spec = <T>(kind: FieldKind, always = false, extra: Partial<FieldSpec<T>> = {}): FieldSpec<T> => ({ kind, always, ...extra });

/** The field kinds of a definition. */
export const field = {
  /** The record's identity: required, validated as 32 hex characters (upper case lowered), always decoded. */
  uuid: (): FieldSpec<Uuid> => spec('uuid', true),
  /** Text (numbers and booleans tolerated as text); uuids of other records are text, unchecked. */
  text: (): FieldSpec<string | null> => spec('text'),
  /** Text that identifies the record (it has no uuid): required and always decoded. */
  requiredText: (): FieldSpec<string> => spec('requiredText', true),
  /** Integer or Long (`1.0` is 1; numeric text is read). */
  int: (): FieldSpec<number | null> => spec('int'),
  requiredInt: (): FieldSpec<number> => spec('requiredInt', true),
  bool: (): FieldSpec<boolean | null> => spec('bool'),
  /** Timestamp text in the upstream's zone, read by the decoder's timestamp parser. */
  timestamp: (): FieldSpec<Instant | null> => spec('timestamp'),
  /** A list of text; absent is `[]`. */
  strings: (): FieldSpec<string[]> => spec('strings'),
  /** A JSON object of a shape the spec leaves open. */
  json: (): FieldSpec<Wire | null> => spec('json'),
  /**
   * A closed set the spec names: an unknown value is null instead of failing (the spec lists
   * values "seen", and one newer value must not fail a whole page). `anyCase` accepts any case.
   */
  oneOf: <const V extends string>(values: readonly V[], options: { anyCase?: boolean } = {}): FieldSpec<V | null> => {
    const exact: ReadonlySet<string> = new Set(values);
    const normalize = options.anyCase
      ? (text: string): V | null => {
          const lowered = exact.has(text) ? text : text.toLowerCase();
          return exact.has(lowered) ? (lowered as V) : null;
        }
      : (text: string): V | null => (exact.has(text) ? (text as V) : null);
    return spec<V | null>('normalized', false, { normalize });
  },
  /** Text mapped by `normalize` (several spellings to one); null when it answers null. */
  normalized: <T>(normalize: (text: string) => T | null): FieldSpec<T | null> => spec<T | null>('normalized', false, { normalize }),
  /**
   * A list of embedded records; `passes` names the field of this record handed to each item (what
   * the item's `fromParent`/`ownOrParent` field receives). Absent is `[]`.
   */
  records: <D extends AnyRecordDefinition>(record: D, passes?: string): FieldSpec<RecordOf<D>[]> =>
    spec<RecordOf<D>[]>('records', false, { record, passes }),
  /** Not on the wire: the value the parent record hands down (`records(def, passes)`); null without one. */
  fromParent: (): FieldSpec<Uuid | null> => spec('fromParent', true),
  /**
   * The item's own text when the demand asks for it or it has no parent, else (or when absent) the
   * parent's value: always decoded, read from the wire only when it has to be.
   */
  ownOrParent: (): FieldSpec<Uuid | null> => spec('ownOrParent', true),
  /** A field read by hand from the whole wire object (a rule no other kind states). Always decoded. */
  custom: <T>(read: (wire: Wire, path: string, runtime: DecodeRuntime) => T): FieldSpec<T> => spec<T>('custom', true, { read }),
};
