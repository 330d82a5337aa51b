/**
 * What a gateway cursor says, in as few bytes as it takes (the seal adds 16), each with the
 * binding to its credential and connection:
 *
 * - `position` (cursor family, since 2.0): the edge's record by its sort key and uuid, when the
 *   cursor was issued, and whether an upstream cursor starting right after it was kept. The
 *   position alone is enough to resume (`src/schema/kit/cursor-resume.ts`), so the cursor outlives
 *   the upstream's and needs no store to be issued or honoured.
 * - `keyset` (cursor family before 2.0, and the jobs list): the kept upstream cursor a page
 *   started at, how many records to skip after it, and the edge's uuid. Still read: such a cursor
 *   pages on while its upstream cursor is kept, and is `CURSOR_EXPIRED` after.
 * - `offset`: the number of records before the next page.
 */
import { readWallClock, writeWallClock } from '../upstream/timestamps.js';
import type { WireSortKey } from '../upstream/types.js';
import { REF_BYTES } from './store.js';

export const BINDING_BYTES = 8;

/** A record's sort key as the upstream wrote it (a timestamp is its wire text); null when absent. */
export type WireKey = WireSortKey;

export type CursorPayload =
  | {
      kind: 'position';
      binding: Buffer;
      /** When the cursor was issued (epoch ms): it is honoured for `CURSOR_TTL_MS` after. */
      issuedAt: number;
      /** An upstream cursor starting right after this record was kept (under a reference derived from the cursor). */
      kept: boolean;
      /** Uuid of the edge's record. */
      uuid: string;
      /** Its sort key; undefined when too long to carry (such a cursor cannot resume without its kept upstream cursor). */
      key?: WireKey | undefined;
    }
  | {
      kind: 'keyset';
      binding: Buffer;
      /** The kept upstream cursor the page started at; null: the query's first page. */
      ref: Buffer | null;
      /** Records to skip after the start. */
      skip: number;
      /** Uuid of the edge's record: skip up to and including it when it is still there. */
      uuid?: string | undefined;
    }
  | { kind: 'offset'; binding: Buffer; offset: number };

const KEYSET_FROM_QUERY = 1;
const KEYSET_FROM_REF = 2;
const OFFSET = 3;
const POSITION = 4;
const UUID_HEX = 0;
const UUID_TEXT = 1;
const MAX_COUNT = 2 ** 31 - 1;
const ISSUED_AT_BYTES = 6;
/** Position flags: an upstream cursor was kept; the uuid is 32 hex digits (16 bytes, else length-prefixed text). */
const FLAG_KEPT = 1;
const FLAG_UUID_HEX = 2;
/** Sort key tags. */
const KEY_NONE = 0;
const KEY_NULL = 1;
const KEY_TEXT = 2;
const KEY_NUMBER = 3;
const KEY_TRUE = 4;
const KEY_FALSE = 5;
/** A timestamp in the spec's canonical text, as its wall-clock seconds (5 bytes instead of ~24). */
const KEY_WALL_CLOCK = 6;
const WALL_CLOCK_BYTES = 5;
/** A longer sort key (a long name) is left out rather than make the cursor long. */
export const MAX_KEY_BYTES = 256;

export function encodePayload(payload: CursorPayload): Buffer {
  const parts: Buffer[] = [];
  if (payload.kind === 'position') {
    const hex = /^[0-9a-f]{32}$/.test(payload.uuid);
    const issuedAt = Buffer.alloc(ISSUED_AT_BYTES);
    issuedAt.writeUIntBE(Math.max(0, Math.floor(payload.issuedAt)), 0, ISSUED_AT_BYTES);
    const uuid = hex ? Buffer.from(payload.uuid, 'hex') : Buffer.concat([varint(Buffer.byteLength(payload.uuid)), Buffer.from(payload.uuid, 'utf8')]);
    parts.push(Buffer.of(POSITION), payload.binding, Buffer.of((payload.kept ? FLAG_KEPT : 0) | (hex ? FLAG_UUID_HEX : 0)), issuedAt, uuid, encodeKey(payload.key));
  } else if (payload.kind === 'offset') {
    parts.push(Buffer.of(OFFSET), payload.binding, varint(payload.offset));
  } else {
    parts.push(Buffer.of(payload.ref === null ? KEYSET_FROM_QUERY : KEYSET_FROM_REF), payload.binding);
    if (payload.ref !== null) parts.push(payload.ref);
    parts.push(varint(payload.skip));
    if (payload.uuid !== undefined) {
      parts.push(
        /^[0-9a-f]{32}$/.test(payload.uuid)
          ? Buffer.concat([Buffer.of(UUID_HEX), Buffer.from(payload.uuid, 'hex')])
          : Buffer.concat([Buffer.of(UUID_TEXT), Buffer.from(payload.uuid, 'utf8')]),
      );
    }
  }
  return Buffer.concat(parts);
}

/** The payload, or null when the bytes are not one (only possible with a key that sealed garbage). */
export function decodePayload(bytes: Buffer): CursorPayload | null {
  const kind = bytes[0];
  let at = 1 + BINDING_BYTES;
  if (bytes.length < at) return null;
  const binding = bytes.subarray(1, at);
  if (kind === POSITION) return decodePosition(bytes, binding, at);
  if (kind === OFFSET) {
    const offset = readVarint(bytes, at);
    return offset === null || offset.end !== bytes.length ? null : { kind: 'offset', binding, offset: offset.value };
  }
  if (kind !== KEYSET_FROM_QUERY && kind !== KEYSET_FROM_REF) return null;
  let ref: Buffer | null = null;
  if (kind === KEYSET_FROM_REF) {
    if (bytes.length < at + REF_BYTES) return null;
    ref = bytes.subarray(at, at + REF_BYTES);
    at += REF_BYTES;
  }
  const skip = readVarint(bytes, at);
  if (skip === null) return null;
  at = skip.end;
  if (at === bytes.length) return { kind: 'keyset', binding, ref, skip: skip.value };
  const rest = bytes.subarray(at + 1);
  if (bytes[at] === UUID_HEX && rest.length === 16) return { kind: 'keyset', binding, ref, skip: skip.value, uuid: rest.toString('hex') };
  if (bytes[at] === UUID_TEXT) return { kind: 'keyset', binding, ref, skip: skip.value, uuid: rest.toString('utf8') };
  return null;
}

function decodePosition(bytes: Buffer, binding: Buffer, start: number): CursorPayload | null {
  let at = start;
  const flags = bytes[at++];
  if (flags === undefined || at + ISSUED_AT_BYTES > bytes.length) return null;
  const issuedAt = bytes.readUIntBE(at, ISSUED_AT_BYTES);
  at += ISSUED_AT_BYTES;
  let uuid: string;
  if (flags & FLAG_UUID_HEX) {
    if (at + 16 > bytes.length) return null;
    uuid = bytes.subarray(at, at + 16).toString('hex');
    at += 16;
  } else {
    const length = readVarint(bytes, at);
    if (length === null || length.end + length.value > bytes.length) return null;
    uuid = bytes.subarray(length.end, length.end + length.value).toString('utf8');
    at = length.end + length.value;
  }
  const key = decodeKey(bytes.subarray(at));
  if (key === null) return null;
  return { kind: 'position', binding, issuedAt, kept: (flags & FLAG_KEPT) !== 0, uuid, key: key.value };
}

/** The sort key last in the payload: a tag, then its text (a number as its decimal text). */
function encodeKey(key: WireKey | undefined): Buffer {
  if (key === undefined) return Buffer.of(KEY_NONE);
  if (key === null) return Buffer.of(KEY_NULL);
  if (typeof key === 'boolean') return Buffer.of(key ? KEY_TRUE : KEY_FALSE);
  const wallClock = typeof key === 'string' ? readWallClock(key) : null;
  if (wallClock !== null && wallClock < 2 ** (8 * WALL_CLOCK_BYTES)) {
    const bytes = Buffer.alloc(1 + WALL_CLOCK_BYTES);
    bytes[0] = KEY_WALL_CLOCK;
    bytes.writeUIntBE(wallClock, 1, WALL_CLOCK_BYTES);
    return bytes;
  }
  const text = Buffer.from(String(key), 'utf8');
  if (text.length > MAX_KEY_BYTES) return Buffer.of(KEY_NONE);
  return Buffer.concat([Buffer.of(typeof key === 'number' ? KEY_NUMBER : KEY_TEXT), text]);
}

function decodeKey(bytes: Buffer): { value: WireKey | undefined } | null {
  const tag = bytes[0];
  const rest = bytes.subarray(1);
  const bare = rest.length === 0;
  if (tag === KEY_NONE && bare) return { value: undefined };
  if (tag === KEY_NULL && bare) return { value: null };
  if (tag === KEY_TRUE && bare) return { value: true };
  if (tag === KEY_FALSE && bare) return { value: false };
  if (tag === KEY_TEXT) return { value: rest.toString('utf8') };
  if (tag === KEY_WALL_CLOCK) return rest.length === WALL_CLOCK_BYTES ? { value: writeWallClock(rest.readUIntBE(0, WALL_CLOCK_BYTES)) } : null;
  if (tag === KEY_NUMBER) {
    const value = Number(rest.toString('latin1'));
    return bare || !Number.isFinite(value) ? null : { value };
  }
  return null;
}

function varint(value: number): Buffer {
  if (!Number.isInteger(value) || value < 0 || value > MAX_COUNT) throw new RangeError(`cursor count out of range: ${value}`);
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest & 0x7f) | 0x80);
    rest >>>= 7;
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

function readVarint(bytes: Buffer, start: number): { value: number; end: number } | null {
  let value = 0;
  for (let at = start, shift = 0; at < bytes.length && shift <= 28; at++, shift += 7) {
    const byte = bytes[at]!;
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return value > MAX_COUNT ? null : { value, end: at + 1 };
  }
  return null;
}
