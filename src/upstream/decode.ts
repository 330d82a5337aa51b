/**
 * `RecordDecoder`: the decoders of every record of `records.ts`, generated from the definitions
 * (`compile-decoder.ts`), plus the one record decoded by hand (ErrorCode, `error-code.ts`: its
 * `cause` chain nests and is bounded).
 *
 * What is tolerated and what is a protocol error:
 * - A record that is not an object, or lacks a valid `uuid` (32 hex characters; upper case is
 *   lowered), cannot be identified: `DecodeError`.
 * - Absent or `null` fields, scalars of the wrong JSON type: see `wire.ts`. Unknown fields are ignored.
 * - A field a decoder's demand leaves out (`demand.ts`: a query reads only what it selects) is
 *   null, or an empty list, and is neither read nor checked; the uuid always is. In tests
 *   (`strict`), reading such a field throws `UndecodedFieldError` instead.
 * - Closed sets the spec names (HwMonitorStatus, CbtTaskStatus, interfaceType, a NIC's driverType)
 *   decode an unknown value to `null` instead of failing: the spec lists values "seen", and one
 *   newer value must not fail a whole page of records. (The GraphQL enums could not carry it anyway.)
 */
import { compileDecoder, type CompiledDecoder } from './compile-decoder.js';
import type { AnyRecordDefinition, DecodeRuntime, RecordOf } from './define-record.js';
import { FULL_DEMAND, type RecordDemand } from './demand.js';
import { decodeErrorCode } from './error-code.js';
import { DEMANDED_RECORDS, RECORDS } from './records.js';
import { createTimestampParser, type TimestampParser } from './timestamps.js';
import { DecodeError, decodeEach, decodeList, describe, type Readable } from './wire.js';

export { UndecodedFieldError } from './compile-decoder.js';
export { normalizeInterfaceType } from './records.js';
export { asObject, DecodeError, isUnreadable, readableItems, UnreadableRecord, type Readable } from './wire.js';

/** A record's decoder: `path` names the value in errors; an embedded record takes its parent's value. */
export type RecordDecode<T> = (value: unknown, path?: string, parent?: string | null) => T;

/** The name `RecordDecoder` decodes each record under (`decoder.vmInstance`). */
export type RecordName = keyof typeof RECORDS;

type RecordDecoders = { readonly [K in keyof typeof RECORDS]: RecordDecode<RecordOf<(typeof RECORDS)[K]>> };

const RECORD_NAMES = Object.keys(RECORDS) as (keyof typeof RECORDS)[];
const DEMANDED: ReadonlySet<string> = new Set(Object.keys(DEMANDED_RECORDS));

export interface RecordDecoderOptions {
  /**
   * Reading a field the demand left out throws `UndecodedFieldError` instead of answering null.
   * The upstream client passes its `strictRecordReads` option (the gateway's is on under the
   * test runner only, `config/index.ts`).
   * @default false
   */
  readonly strict?: boolean;
  /** @internal The decoder whose whole-record decoders (types no demand narrows) this one shares. */
  readonly sharing?: RecordDecoder;
}

// The decoders (`decoder.host`, `decoder.vmInstance`, ...) are one property per definition of
// `RECORDS`, assigned by the constructor: the interface gives them their types.
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface RecordDecoder extends RecordDecoders {}

/**
 * Decodes every record of `records.ts` from wire JSON. One decoder per upstream timezone: the
 * zone decides what instant a Timestamp text names.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class RecordDecoder {
  readonly strict: boolean;
  private readonly parseTimestamp: TimestampParser;
  private readonly compiled = new Map<AnyRecordDefinition, CompiledDecoder>();

  /**
   * `demand` names the fields to decode of the large record types (`demand.ts`); the others are
   * null (lists empty), neither read nor checked. By default every field is decoded.
   */
  constructor(
    timeZone: string | TimestampParser,
    readonly demand: RecordDemand = FULL_DEMAND,
    options: RecordDecoderOptions = {},
  ) {
    this.parseTimestamp = typeof timeZone === 'string' ? createTimestampParser(timeZone) : timeZone;
    this.strict = options.strict ?? false;
    const runtime: DecodeRuntime = { date: createDateReader(this.parseTimestamp) };
    const decoderOf = (definition: AnyRecordDefinition): CompiledDecoder => {
      let decode = this.compiled.get(definition);
      if (decode === undefined) {
        const shared = DEMANDED.has(definition.name) ? undefined : options.sharing?.compiled.get(definition);
        const mask = DEMANDED.has(definition.name) ? (demand as unknown as Record<string, Record<string, boolean>>)[definition.name] : undefined;
        decode = shared ?? compileDecoder(definition, { mask, strict: this.strict, runtime, decoderOf });
        this.compiled.set(definition, decode);
      }
      return decode;
    };
    const self = this as unknown as Record<string, CompiledDecoder>;
    for (const name of RECORD_NAMES) self[name] = decoderOf(RECORDS[name]);
  }

  /** A decoder of the same zone (and timestamp memo) that decodes only what `demand` names. */
  withDemand(demand: RecordDemand): RecordDecoder {
    return demand === this.demand ? this : new RecordDecoder(this.parseTimestamp, demand, { strict: this.strict, sharing: this });
  }

  /** Reads an ErrorCode (`error-code.ts`): the same for every demand and zone. */
  readonly errorCode = decodeErrorCode;

  /** Decodes a list of items with one of the decoders above (`path` prefixes item paths). */
  readonly list = <T>(items: unknown, path: string, decodeItem: (value: unknown, path: string) => T): T[] => {
    if (!Array.isArray(items)) throw new DecodeError(path, `expected a list, got ${describe(items)}`);
    return decodeList(items, path, decodeItem);
  };

  /**
   * Decodes a list of records one by one: one that cannot be read is an `UnreadableRecord` in its
   * own slot (a page of records answers the others).
   */
  readonly each = <T>(items: unknown, path: string, decodeItem: (value: unknown, path: string) => T): Readable<T>[] => {
    if (!Array.isArray(items)) throw new DecodeError(path, `expected a list, got ${describe(items)}`);
    return decodeEach(items, path, decodeItem);
  };
}

/** Timestamp text in the parser's zone, or epoch milliseconds (what some service versions write). */
function createDateReader(parseTimestamp: TimestampParser): DecodeRuntime['date'] {
  return (v, key, path) => {
    if (v === undefined || v === null) return null;
    if (typeof v === 'string') {
      const parsed = parseTimestamp(v);
      if (parsed !== null) return parsed;
    } else if (typeof v === 'number' && Number.isFinite(v)) {
      return v;
    }
    throw new DecodeError(`${path}.${key}`, `expected a timestamp like "Jan 5, 2024 3:04:05 PM", got ${describe(v)}`);
  };
}
