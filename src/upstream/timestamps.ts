/**
 * The spec's Timestamp text, `<Mon> <d>, <yyyy> <h:mm:ss> <AM|PM>` (Java's `MMM d, yyyy h:mm:ss a`,
 * Gson's default date format), written in the upstream's wall-clock zone (`UPSTREAM_TIMEZONE`).
 *
 * The text carries no offset, so the zone decides the instant. Offsets come from `Intl`, which
 * knows every IANA zone and its DST rules; they are cached per quarter hour of UTC because a
 * page of 10,000 records holds ~100,000 timestamps and `formatToParts` costs microseconds.
 */

const MONTHS: Readonly<Record<string, number>> = {
  jan: 0, feb: 1, mar: 2, apr: 3, may: 4, jun: 5, jul: 6, aug: 7, sep: 8, oct: 9, nov: 10, dec: 11,
};

// Newer JDKs (CLDR 42+) write U+202F before AM/PM and may add a comma after the year; accept both.
const TIMESTAMP = /^\s*([A-Za-z]{3})[a-z]*\.?\s+(\d{1,2}),\s*(\d{4}),?\s+(\d{1,2}):(\d{2}):(\d{2})[\s\u00a0\u202f]*([AaPp])\.?[Mm]\.?\s*$/;
// Tolerated too: an ISO 8601 instant with an explicit offset (unambiguous whatever the zone).
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

const QUARTER_HOUR_MS = 15 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Parses Timestamp text into the instant it names (epoch milliseconds); `null` when the text is not a valid timestamp. */
export type TimestampParser = (text: string) => number | null;

/**
 * Builds a parser for one zone. Throws `RangeError` at once for an unknown zone, so a bad
 * `UPSTREAM_TIMEZONE` fails at startup rather than on the first record.
 */
export function createTimestampParser(timeZone = 'UTC'): TimestampParser {
  const offsetAt = isUtc(timeZone) ? null : createOffsetLookup(timeZone);
  // The same records come back on every read of a page, so their timestamp texts repeat: a
  // memo of text → instant spares the regex and the calendar checks (a hot path in profiles).
  const instants = new Map<string, number | null>();
  return (text) => {
    let instant = instants.get(text);
    if (instant === undefined) {
      instant = parseInstant(text, offsetAt);
      if (instants.size >= MEMO_LIMIT) instants.clear();
      instants.set(text, instant);
    }
    return instant;
  };
}

/** Timestamp texts remembered per parser before the memo starts over. */
const MEMO_LIMIT = 100_000;

function parseInstant(text: string, offsetAt: ((instant: number) => number) | null): number | null {
  const match = TIMESTAMP.exec(text);
  if (match === null) return parseIsoInstant(text)?.getTime() ?? null;
  const wall = wallClockMs(match);
  if (wall === null) return null;
  return offsetAt === null ? wall : wallToInstant(wall, offsetAt);
}

function isUtc(timeZone: string): boolean {
  const upper = timeZone.toUpperCase();
  if (upper === 'UTC' || upper === 'ETC/UTC' || upper === 'GMT' || upper === 'ETC/GMT' || upper === 'Z') return true;
  // Validates the zone (RangeError when unknown).
  new Intl.DateTimeFormat('en-US', { timeZone });
  return false;
}

/** The wall-clock fields read as if they were UTC, or null when out of range (e.g. Feb 30). */
function wallClockMs(match: RegExpExecArray): number | null {
  const month = MONTHS[(match[1] ?? '').toLowerCase()];
  const day = Number(match[2]);
  const year = Number(match[3]);
  const hour12 = Number(match[4]);
  const minute = Number(match[5]);
  const second = Number(match[6]);
  const pm = match[7] === 'P' || match[7] === 'p';
  if (month === undefined || hour12 < 1 || hour12 > 12 || minute > 59 || second > 59 || day < 1) return null;
  // 12:xx AM is the first hour of the day, 12:xx PM the thirteenth.
  const hour = (hour12 % 12) + (pm ? 12 : 0);
  const ms = Date.UTC(year, month, day, hour, minute, second);
  // Date.UTC rolls Feb 30 over into March: reject instead of guessing.
  if (new Date(ms).getUTCDate() !== day) return null;
  return ms;
}

/**
 * The instant a wall-clock time names in a zone. An ambiguous time (the repeated hour when
 * clocks go back) takes the earlier instant and a skipped time (clocks go forward) is moved
 * forward by the gap: what `java.time` does, so the same text means the same instant on both sides.
 */
function wallToInstant(wall: number, offsetAt: (instant: number) => number): number {
  // Zones change offset at most once in any 48 hours, so the offsets a day either side are the
  // only candidates.
  const before = offsetAt(wall - DAY_MS);
  const after = offsetAt(wall + DAY_MS);
  const viaBefore = wall - before;
  const viaAfter = wall - after;
  const beforeFits = offsetAt(viaBefore) === before;
  const afterFits = offsetAt(viaAfter) === after;
  if (beforeFits && afterFits) return Math.min(viaBefore, viaAfter);
  if (afterFits) return viaAfter;
  // Fits the earlier offset, or falls in a gap: the earlier offset moves it past the gap.
  return viaBefore;
}

function createOffsetLookup(timeZone: string): (instant: number) => number {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
    era: 'short',
  });
  const cache = new Map<number, number>();
  return (instant) => {
    const bucket = Math.floor(instant / QUARTER_HOUR_MS);
    let offset = cache.get(bucket);
    if (offset === undefined) {
      offset = zoneOffsetMs(format, bucket * QUARTER_HOUR_MS);
      if (cache.size > 100_000) cache.clear();
      cache.set(bucket, offset);
    }
    return offset;
  };
}

/** Offset of the zone from UTC at an instant, in ms (positive east of Greenwich). */
function zoneOffsetMs(format: Intl.DateTimeFormat, instant: number): number {
  let year = 0;
  let month = 0;
  let day = 0;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let bc = false;
  for (const part of format.formatToParts(instant)) {
    switch (part.type) {
      case 'year': year = Number(part.value); break;
      case 'month': month = Number(part.value); break;
      case 'day': day = Number(part.value); break;
      case 'hour': hour = Number(part.value); break;
      case 'minute': minute = Number(part.value); break;
      case 'second': second = Number(part.value); break;
      case 'era': bc = part.value.startsWith('B'); break;
      default: break;
    }
  }
  const local = Date.UTC(bc ? 1 - year : year, month - 1, day, hour, minute, second);
  const whole = instant - (instant % 1000);
  return local - whole;
}

function parseIsoInstant(text: string): Date | null {
  if (!ISO_INSTANT.test(text)) return null;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : new Date(ms);
}

const MONTH_NAMES = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

/**
 * The wall-clock time of Timestamp text as seconds (its fields read as if they were UTC), only
 * when the text is the spec's canonical spelling (`Jan 2, 2025 3:04:05 PM`), so that
 * `writeWallClock` gives the very same text back; null otherwise. Cursors carry such a time in
 * five bytes instead of two dozen characters, and resuming after it adds a second to it.
 */
export function readWallClock(text: string): number | null {
  const match = TIMESTAMP.exec(text);
  if (match === null) return null;
  const wall = wallClockMs(match);
  if (wall === null) return null;
  const seconds = wall / 1000;
  return seconds >= 0 && writeWallClock(seconds) === text ? seconds : null;
}

/** The spec's canonical Timestamp text of a wall-clock time in seconds (see `readWallClock`). */
export function writeWallClock(seconds: number): string {
  const date = new Date(seconds * 1000);
  const hours = date.getUTCHours();
  const hour12 = hours % 12 === 0 ? 12 : hours % 12;
  const two = (value: number): string => String(value).padStart(2, '0');
  return `${MONTH_NAMES[date.getUTCMonth()]} ${date.getUTCDate()}, ${date.getUTCFullYear()} ${hour12}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} ${hours < 12 ? 'AM' : 'PM'}`;
}
