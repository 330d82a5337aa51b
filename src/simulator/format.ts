/**
 * The wire's text forms: the spec's timestamp text and `1.0`-style integers (the records
 * themselves are declared in `wire.ts`).
 *
 * Answers must be encoded with `encodeJson` to get the `1.0` rendering; a plain
 * `JSON.stringify` still yields valid JSON, with those integers written as `1`.
 */
import { randomBytes } from 'node:crypto';

export type Wire = Record<string, unknown>;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const zoneFormatters = new Map<string, Intl.DateTimeFormat>();
const zoneTextCache = new Map<string, string>();
const ZONE_CACHE_LIMIT = 200_000;

/** `Jan 5, 2024 3:04:05 PM` in the IANA zone `timeZone`. */
export function formatTimestamp(date: Date, timeZone = 'UTC'): string {
  if (timeZone === 'UTC' || timeZone === 'Etc/UTC') return formatUtc(date);
  const key = `${timeZone}|${Math.floor(date.getTime() / 1000)}`;
  const cached = zoneTextCache.get(key);
  if (cached !== undefined) return cached;
  const parts: Record<string, string> = {};
  for (const part of zoneFormatter(timeZone).formatToParts(date)) parts[part.type] = part.value;
  const text = `${parts.month} ${parts.day}, ${parts.year} ${parts.hour}:${parts.minute}:${parts.second} ${parts.dayPeriod}`;
  if (zoneTextCache.size >= ZONE_CACHE_LIMIT) zoneTextCache.clear();
  zoneTextCache.set(key, text);
  return text;
}

function formatUtc(date: Date): string {
  const hours = date.getUTCHours();
  const hour12 = hours % 12 === 0 ? 12 : hours % 12;
  return (
    `${MONTHS[date.getUTCMonth()]} ${date.getUTCDate()}, ${date.getUTCFullYear()} ` +
    `${hour12}:${pad2(date.getUTCMinutes())}:${pad2(date.getUTCSeconds())} ${hours < 12 ? 'AM' : 'PM'}`
  );
}

function pad2(value: number): string {
  return value < 10 ? `0${value}` : String(value);
}

function zoneFormatter(timeZone: string): Intl.DateTimeFormat {
  let formatter = zoneFormatters.get(timeZone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
      second: '2-digit',
      hour12: true,
    });
    zoneFormatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Throws a RangeError when `timeZone` is not a zone the runtime knows. */
export function assertTimeZone(timeZone: string): void {
  zoneFormatter(timeZone);
}

const TIMESTAMP_TEXT = /^([A-Z][a-z]{2}) (\d{1,2}), (\d{4}) (\d{1,2}):(\d{2}):(\d{2}) (AM|PM)$/;

/**
 * Reads a timestamp as a query value: the spec's text (in `timeZone`), ISO 8601, or epoch
 * milliseconds. Null when it is none of these.
 */
export function parseTimestamp(text: string, timeZone = 'UTC'): Date | null {
  const match = TIMESTAMP_TEXT.exec(text.trim());
  if (match !== null) {
    const [, mon, day, year, hour, minute, second, period] = match;
    const month = MONTHS.indexOf(mon ?? '');
    if (month < 0) return null;
    const hour24 = (Number(hour) % 12) + (period === 'PM' ? 12 : 0);
    const wall = Date.UTC(Number(year), month, Number(day), hour24, Number(minute), Number(second));
    return new Date(wall - zoneOffsetMs(wall, timeZone));
  }
  if (/^-?\d+$/.test(text)) return new Date(Number(text));
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
    const date = new Date(text);
    return Number.isNaN(date.getTime()) ? null : date;
  }
  return null;
}

/** Offset of `timeZone` from UTC (ms) around the wall-clock instant `wall` read as UTC. */
function zoneOffsetMs(wall: number, timeZone: string): number {
  if (timeZone === 'UTC' || timeZone === 'Etc/UTC') return 0;
  let offset = offsetAt(wall, timeZone);
  offset = offsetAt(wall - offset, timeZone);
  return offset;
}

function offsetAt(instant: number, timeZone: string): number {
  const shown = parseTimestamp(formatTimestamp(new Date(instant), timeZone), 'UTC');
  return shown === null ? 0 : shown.getTime() - Math.floor(instant / 1000) * 1000;
}

const DECIMAL_MARK = `@@dec-${randomBytes(6).toString('hex')}:`;
const DECIMAL_PATTERN = new RegExp(`"${DECIMAL_MARK}(-?\\d+)@@"`, 'g');
let encodingDecimals = false;

/** An Integer the spec says is rendered with a decimal point (`snapshotCount`: `1.0`). */
export class DecimalInteger {
  constructor(readonly value: number) {}

  toJSON(): string | number {
    return encodingDecimals ? `${DECIMAL_MARK}${this.value}@@` : this.value;
  }
}

/** JSON text of an answer, with `DecimalInteger`s written as `N.0`. */
export function encodeJson(value: unknown): string {
  encodingDecimals = true;
  let text: string;
  try {
    text = JSON.stringify(value);
  } finally {
    encodingDecimals = false;
  }
  return text.includes(DECIMAL_MARK) ? text.replace(DECIMAL_PATTERN, '$1.0') : text;
}
