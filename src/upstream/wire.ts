/**
 * Reading one wire value: the checks and tolerances every record field goes through.
 *
 * What is tolerated and what is a protocol error:
 * - A field that is absent or `null` is `null`; an absent list is `[]`.
 * - A scalar of the wrong JSON type is a `DecodeError` naming the field, with two tolerances
 *   the real service needs: numbers and booleans in String fields become text (the spec types
 *   some fields loosely, e.g. `username` "listed as Boolean, sent as text"), and numeric text in
 *   Integer/Long fields is read as a number. Integer fields accept `1.0` and reject `1.5`.
 *
 * Each reader takes the value already read by its caller (`o.name`) and the field's name for the
 * error: a read inside a shared helper (`o[key]`) sees every record type and every key, and is a
 * third slower. Error paths are built only when an error is thrown.
 */
/** The wire JSON did not have the shape the spec gives. `path` names the offending value. */
export class DecodeError extends Error {
  constructor(
    readonly path: string,
    problem: string,
  ) {
    super(`${path}: ${problem}`);
    this.name = 'DecodeError';
  }
}

export type Wire = Record<string, unknown>;

/** 32 lowercase hexadecimal characters. */
export type Uuid = string;

/**
 * A Timestamp field: milliseconds since the epoch, the instant the upstream's text names in its
 * zone. Kept as a number rather than a `Date`: a page of 50 VMs carries about a thousand of them
 * and a query rarely selects one; the `DateTime` scalar writes it as ISO 8601 when it does.
 */
export type Instant = number;

const NUMERIC_TEXT = /^\s*-?\d+(\.\d+)?([eE][+-]?\d+)?\s*$/;

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)?.slice(0, 40) ?? ''}`;
}

/** The value as a JSON object, or a DecodeError. */
export function asObject(value: unknown, path: string): Wire {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new DecodeError(path, `expected an object, got ${describe(value)}`);
  }
  return value as Wire;
}

/** A JSON object field (a shape the spec leaves open): null when absent. */
export function json(v: unknown, key: string, path: string): Wire | null {
  return v === undefined || v === null ? null : asObject(v, `${path}.${key}`);
}

export function str(v: unknown, key: string, path: string): string | null {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return null;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new DecodeError(`${path}.${key}`, `expected text, got ${describe(v)}`);
}

export function requiredStr(value: unknown, key: string, path: string): string {
  const v = str(value, key, path);
  if (v === null) throw new DecodeError(`${path}.${key}`, 'required text is missing');
  return v;
}

function num(v: unknown, key: string, path: string): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (v === undefined || v === null) return null;
  if (typeof v === 'string' && NUMERIC_TEXT.test(v)) return Number(v);
  throw new DecodeError(`${path}.${key}`, `expected a number, got ${describe(v)}`);
}

/** Integer and Long fields: `1.0` is 1, `1.5` is an error. */
export function int(value: unknown, key: string, path: string): number | null {
  const v = num(value, key, path);
  if (v === null || Number.isInteger(v)) return v;
  throw new DecodeError(`${path}.${key}`, `expected an integer, got ${v}`);
}

export function requiredInt(value: unknown, key: string, path: string): number {
  const v = int(value, key, path);
  if (v === null) throw new DecodeError(`${path}.${key}`, 'required number is missing');
  return v;
}

export function bool(v: unknown, key: string, path: string): boolean | null {
  if (typeof v === 'boolean') return v;
  if (v === undefined || v === null) return null;
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw new DecodeError(`${path}.${key}`, `expected a boolean, got ${describe(v)}`);
}

/**
 * 0 when `text` is not 32 hexadecimal characters, 1 when it is all lower case, 2 when it has upper
 * case letters. (One pass over the characters: two regular expressions cost 2% of the gateway's
 * CPU under load, profiled.)
 */
function uuidShape(text: string): 0 | 1 | 2 {
  if (text.length !== 32) return 0;
  let upper = false;
  for (let i = 0; i < 32; i++) {
    const c = text.charCodeAt(i);
    if ((c >= 48 && c <= 57) || (c >= 97 && c <= 102)) continue; // 0-9, a-f
    if (c >= 65 && c <= 70) upper = true; // A-F
    else return 0;
  }
  return upper ? 2 : 1;
}

/** A record's own `uuid`: required and validated (upper case is lowered). */
export function uuid(v: unknown, key: string, path: string): Uuid {
  // toLowerCase() would copy even a string it leaves unchanged, and uuids are mostly lower case.
  const shape = typeof v === 'string' ? uuidShape(v) : 0;
  if (shape === 1) return v as string;
  if (shape === 2) return (v as string).toLowerCase();
  throw new DecodeError(`${path}.${key}`, `expected a uuid (32 hexadecimal characters), got ${describe(v)}`);
}

export function strList(v: unknown, key: string, path: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new DecodeError(`${path}.${key}`, `expected a list, got ${describe(v)}`);
  const out = new Array<string>(v.length);
  for (let i = 0; i < v.length; i++) {
    const item: unknown = v[i];
    if (typeof item === 'string') out[i] = item;
    else if (typeof item === 'number' || typeof item === 'boolean') out[i] = String(item);
    else throw new DecodeError(`${path}.${key}[${i}]`, `expected text, got ${describe(item)}`);
  }
  return out;
}

/**
 * An item of a list (a page's record, an embedded record) that could not be decoded: its own slot
 * holds this instead of failing the list, so one record the gateway cannot read costs only itself.
 * It keeps the item's wire value, from which what can still be read (its uuid, the parent it
 * names) places it: a page keeps its position, a loader gives the error to its own key.
 */
export class UnreadableRecord extends DecodeError {
  constructor(
    error: DecodeError,
    private readonly wire: unknown,
  ) {
    super(error.path, error.message.slice(error.path.length + 2));
    this.name = 'UnreadableRecord';
  }

  /** The item's text under `key`, when it is text (a reference to another record); else null. */
  text(key: string): string | null {
    const o = this.wire;
    if (typeof o !== 'object' || o === null || Array.isArray(o)) return null;
    const value = (o as Wire)[key];
    return typeof value === 'string' ? value : null;
  }

  /** The item's own uuid, when it carries a well-formed one (lowered, as the decoder lowers it); else null. */
  get uuid(): string | null {
    const text = this.text('uuid');
    return text !== null && uuidShape(text) !== 0 ? text.toLowerCase() : null;
  }
}

/** A list slot: the decoded item, or why it could not be. */
export type Readable<T> = T | UnreadableRecord;

/** Whether a list slot holds an item the decoder could not read. */
export function isUnreadable(value: unknown): value is UnreadableRecord {
  return value instanceof UnreadableRecord;
}

/** The items of a list the decoder could read. */
export function readableItems<T>(items: readonly Readable<T>[]): T[] {
  return items.filter((item): item is T => !(item instanceof UnreadableRecord));
}

/**
 * A list whose items stand alone: an item that cannot be decoded is an `UnreadableRecord` in its
 * own slot, and the others decode (a malformed record costs only itself). The list itself must
 * still be a list. `context` is handed to each item (what an embedded record needs from its
 * parent, e.g. a NIC's VM uuid), so no closure is made per parent.
 */
export function listEach<T, C = undefined>(
  v: unknown,
  key: string,
  path: string,
  decodeItem: (value: unknown, path: string, context: C) => T,
  context?: C,
): Readable<T>[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new DecodeError(`${path}.${key}`, `expected a list, got ${describe(v)}`);
  return decodeEach(v, `${path}.${key}`, decodeItem, context);
}

/** Decodes `items` one by one, an `UnreadableRecord` in the slot of each that cannot be read. */
export function decodeEach<T, C = undefined>(
  items: readonly unknown[],
  path: string,
  decodeItem: (value: unknown, path: string, context: C) => T,
  context?: C,
): Readable<T>[] {
  const out = new Array<Readable<T>>(items.length);
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    try {
      out[i] = decodeItem(item, `${path}[${i}]`, context as C);
    } catch (error) {
      if (!(error instanceof DecodeError)) throw error;
      out[i] = error instanceof UnreadableRecord ? error : new UnreadableRecord(error, item);
    }
  }
  return out;
}

export function decodeList<T, C = undefined>(items: readonly unknown[], path: string, decodeItem: (value: unknown, path: string, context: C) => T, context?: C): T[] {
  const out = new Array<T>(items.length);
  // The item path is only a string template; it is cheap next to decoding the item itself.
  for (let i = 0; i < items.length; i++) out[i] = decodeItem(items[i], `${path}[${i}]`, context as C);
  return out;
}
