/**
 * The position a cursor-family cursor carries survives sealing exactly, in few bytes; the formats
 * of earlier releases still open.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodePayload, encodePayload, type CursorPayload } from '../../src/cursors/payload.js';
import { CursorSeal } from '../../src/cursors/seal.js';
import { readWallClock, writeWallClock } from '../../src/upstream/timestamps.js';

const seal = new CursorSeal(randomBytes(32));
const binding = Buffer.from('0123456789abcdef', 'hex');
const uuid = '5ca3ea8ad948a0e0618cb445e87d32fd';

function roundTrip(payload: CursorPayload): { cursor: string; back: CursorPayload | null } {
  const cursor = seal.seal(encodePayload(payload));
  return { cursor, back: decodePayload(seal.open(cursor)!) };
}

describe('position cursors', () => {
  it('carry every kind of sort key back exactly, a timestamp in under 80 characters', () => {
    const issuedAt = Date.now();
    for (const key of ['Dec 7, 2026 3:04:05 PM', 'web-001', '', 'Running', 4, 8589934592, 1.5, true, false, null, undefined]) {
      const { cursor, back } = roundTrip({ kind: 'position', binding, issuedAt, kept: true, uuid, key });
      expect(back).toEqual({ kind: 'position', binding, issuedAt, kept: true, uuid, key });
      expect(cursor.length).toBeLessThanOrEqual(80);
    }
  });

  it('leave out a sort key too long to carry, and keep a uuid that is not 32 hex digits', () => {
    const { back } = roundTrip({ kind: 'position', binding, issuedAt: 1, kept: false, uuid: 'not-hex', key: 'x'.repeat(500) });
    expect(back).toEqual({ kind: 'position', binding, issuedAt: 1, kept: false, uuid: 'not-hex', key: undefined });
  });

  it('a timestamp not in the canonical spelling is carried as its text, unchanged', () => {
    for (const text of ['Dec 07, 2026 3:04:05 PM', '2026-12-07T15:04:05Z', 'Dec 7, 2026, 3:04:05\u202fPM']) {
      expect(readWallClock(text)).toBeNull();
      expect(roundTrip({ kind: 'position', binding, issuedAt: 1, kept: false, uuid, key: text }).back).toMatchObject({ key: text });
    }
    expect(writeWallClock(readWallClock('Jan 1, 2025 12:00:00 AM')! + 1)).toBe('Jan 1, 2025 12:00:01 AM');
    expect(writeWallClock(readWallClock('Dec 31, 2025 11:59:59 PM')! + 1)).toBe('Jan 1, 2026 12:00:00 AM');
  });

  it('the formats of earlier releases (keyset with or without a kept cursor, offset) still open', () => {
    const ref = randomBytes(12);
    for (const payload of [
      { kind: 'keyset', binding, ref, skip: 0 },
      { kind: 'keyset', binding, ref: null, skip: 7, uuid },
      { kind: 'offset', binding, offset: 35 },
    ] as CursorPayload[]) {
      expect(roundTrip(payload).back).toEqual(payload);
    }
  });
});
