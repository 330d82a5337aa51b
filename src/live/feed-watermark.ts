/**
 * What the change feed knows of one (scope, collection) between polls: the newest `lastOpDate`
 * it has seen (the watermark), the collection's count, and a fingerprint of each record changed
 * near the watermark.
 *
 * The upstream writes timestamps to the second, and several records can share a second (or change
 * again within it), so "changed after the watermark" cannot be read as a strict `>`: each poll
 * reads back an overlap (`OVERLAP_MS` before the watermark) and reports a record of that window
 * only when its content differs from what the previous poll saw. Removals leave no trace in
 * `lastOpDate`; they show as a count smaller than the last one plus the records created since.
 */
import { createHash } from 'node:crypto';
import type { Instant } from '../upstream/define-record.js';
import type { FeedRecord } from './feed-sources.js';

/**
 * How far before the watermark each poll reads again: one second of timestamp precision, plus a
 * second for a change written with an earlier timestamp than one already visible (a slower
 * transaction committing later).
 */
export const OVERLAP_MS = 2000;

/** How recent (by the gateway's clock) a change seen by the first poll must be to be reported by the second. */
const RECENT_MS = OVERLAP_MS + 5000;

/** What survives a poller handing over to another replica (kept in Redis; no credential, no record). */
export interface WatermarkState {
  /** The newest `lastOpDate` seen. */
  readonly newest: Instant;
  /** The collection's count at the last poll. */
  readonly total: number;
}

/** What a poll found. */
export interface PollFindings {
  /** Records created or changed since the last poll. */
  readonly changed: readonly string[];
  /** The count does not add up: a record was removed (or created unseen). */
  readonly countChanged: boolean;
}

interface Seen {
  readonly lastOpDate: Instant;
  /** Digest of the record's content; empty: known to exist, never reported (from a baseline). */
  readonly fingerprint: string;
}

export class ChangeTracker {
  private newest: Instant | null;
  private total: number | null;
  private readonly seen = new Map<string, Seen>();

  constructor(state?: WatermarkState) {
    this.newest = state?.newest ?? null;
    this.total = state?.total ?? null;
  }

  /** True once a poll or a handed-over state gave a watermark. */
  started(): boolean {
    return this.newest !== null && this.total !== null;
  }

  /** The oldest `lastOpDate` the next poll must read; null before the first poll. */
  windowStart(): Instant | null {
    return this.newest === null ? null : this.newest - OVERLAP_MS;
  }

  /**
   * The first poll: takes the watermark and count, reports nothing. Records changed lately (by the
   * gateway's clock, `now`) are remembered without a fingerprint, so the next poll reports them
   * once: a change made between a live query's first execution and this poll is not lost, at the
   * price of one extra run. Older ones are fingerprinted, so a still collection reports nothing.
   */
  baseline(records: readonly FeedRecord[], total: number, now: number): void {
    this.total = total;
    for (const record of records) this.advance(record.lastOpDate);
    const start = this.windowStart();
    for (const record of records) {
      const lastOpDate = record.lastOpDate;
      if (lastOpDate === null || lastOpDate === undefined || start === null || lastOpDate < start) continue;
      const recent = lastOpDate >= now - RECENT_MS;
      this.seen.set(record.uuid, { lastOpDate, fingerprint: recent ? '' : fingerprintOf(record) });
    }
  }

  /** A later poll: `records` must hold every record of the window (`windowStart()` on). */
  take(records: readonly FeedRecord[], total: number): PollFindings {
    const start = this.windowStart();
    const changed: string[] = [];
    let created = 0;
    for (const record of records) {
      const lastOpDate = record.lastOpDate;
      if (lastOpDate === null || lastOpDate === undefined || (start !== null && lastOpDate < start)) continue;
      const fingerprint = fingerprintOf(record);
      const before = this.seen.get(record.uuid);
      if (before?.fingerprint === fingerprint) continue;
      changed.push(record.uuid);
      const createDate = record.createDate;
      if (before === undefined && createDate !== null && createDate !== undefined && start !== null && createDate >= start) created++;
      this.seen.set(record.uuid, { lastOpDate, fingerprint });
      this.advance(lastOpDate);
    }
    const countChanged = this.total !== null && total !== this.total + created;
    this.total = total;
    this.forgetBefore(this.windowStart());
    return { changed, countChanged };
  }

  state(): WatermarkState | null {
    return this.newest === null || this.total === null ? null : { newest: this.newest, total: this.total };
  }

  /** Records remembered for de-duplication (bounded by the changes of one overlap window). */
  remembered(): number {
    return this.seen.size;
  }

  private advance(lastOpDate: Instant | null | undefined): void {
    if (lastOpDate !== null && lastOpDate !== undefined && (this.newest === null || lastOpDate > this.newest)) this.newest = lastOpDate;
  }

  private forgetBefore(start: Instant | null): void {
    if (start === null) return;
    for (const [uuid, seen] of this.seen) if (seen.lastOpDate < start) this.seen.delete(uuid);
  }
}

function fingerprintOf(record: FeedRecord): string {
  const text = JSON.stringify(record, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
  return createHash('sha1').update(text).digest('base64');
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * An instant as the upstream writes timestamps (`<Mon> <d>, <yyyy> <h:mm:ss> <AM|PM>` in its zone,
 * `UPSTREAM_TIMEZONE`), for a `lastOpDate>=…` condition in the syntax the upstream reads back.
 */
export function createTimestampFormatter(timeZone: string): (instant: Instant) => string {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    second: '2-digit',
    hour12: true,
  });
  return (instant) => {
    const parts = Object.fromEntries(format.formatToParts(new Date(instant)).map((part) => [part.type, part.value]));
    const month = MONTHS[Number(parts.month) - 1] ?? 'Jan';
    return `${month} ${Number(parts.day)}, ${parts.year} ${Number(parts.hour)}:${parts.minute}:${parts.second} ${String(parts.dayPeriod).toUpperCase()}`;
  };
}
