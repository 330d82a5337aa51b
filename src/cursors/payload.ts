/**
 * What a gateway cursor says, in as few bytes as it takes (the seal adds 16): a keyset position
 * (the kept upstream cursor a page started at, how many records to skip after it, and the uuid of
 * the edge's record) or an offset, each with the binding to its credential and connection.
 */
import { REF_BYTES } from './store.js';

export const BINDING_BYTES = 8;

export type CursorPayload =
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
const UUID_HEX = 0;
const UUID_TEXT = 1;
const MAX_COUNT = 2 ** 31 - 1;

export function encodePayload(payload: CursorPayload): Buffer {
  const parts: Buffer[] = [];
  if (payload.kind === 'offset') {
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
