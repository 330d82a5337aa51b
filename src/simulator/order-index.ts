/**
 * A table's records of one tenant in the order of one field, kept sorted as records come, go and
 * change, so that a page is a seek and a walk of `pageSize` entries rather than a scan and a sort
 * of the estate. The order is the one both query families page in: the field's key (`compareKeys`,
 * absent first), ties broken by uuid ascending, in either direction of the key.
 */
import { compareKeys, keyOf, type SortKey } from './query.js';

interface Entry<T> {
  key: SortKey;
  uuid: string;
  record: T;
}

/** Where a walk resumes: strictly after the record with this key and uuid. */
export interface Position {
  key: SortKey;
  uuid: string;
}

function compareEntries(a: Position, b: Position): number {
  return compareKeys(a.key, b.key) || compareKeys(a.uuid, b.uuid);
}

/** One tenant's records of one table, sorted by (key of `field`, uuid). */
export class OrderIndex<T extends { uuid: string }> {
  private readonly entries: Entry<T>[];
  /** Set when a walk met a record whose key changed behind the index's back (a write that bypassed `Table.update`). */
  stale = false;

  constructor(
    readonly field: string,
    records: Iterable<T>,
  ) {
    this.entries = [];
    for (const record of records) this.entries.push({ key: keyOf(record, field), uuid: record.uuid, record });
    this.entries.sort(compareEntries);
  }

  get size(): number {
    return this.entries.length;
  }

  add(record: T): void {
    const entry = { key: keyOf(record, this.field), uuid: record.uuid, record };
    this.entries.splice(this.lowerBound(entry), 0, entry);
  }

  /** Removes `record`, read with the key it has now (so call it before changing the field). */
  remove(record: T): void {
    const at = this.lowerBound({ key: keyOf(record, this.field), uuid: record.uuid });
    if (this.entries[at]?.uuid === record.uuid) {
      this.entries.splice(at, 1);
      return;
    }
    // The key changed without the index hearing of it: find the entry by uuid.
    const found = this.entries.findIndex((entry) => entry.uuid === record.uuid);
    if (found >= 0) this.entries.splice(found, 1);
    this.stale = true;
  }

  /**
   * The records in order (`desc`: keys descending, equal keys by uuid ascending, as the families
   * sort), strictly after `after` when given.
   */
  *walk(order: 'asc' | 'desc', after: Position | null): Generator<T> {
    if (order === 'asc') {
      let at = after === null ? 0 : this.lowerBound(after);
      if (after !== null && this.entries[at]?.uuid === after.uuid && compareKeys(this.entries[at]!.key, after.key) === 0) at++;
      for (; at < this.entries.length; at++) yield this.checked(this.entries[at]!);
      return;
    }
    let end = this.entries.length;
    if (after !== null) {
      // The rest of `after`'s own key first (uuids ascending), then every smaller key.
      const groupEnd = this.keyBound(after.key, true);
      let at = this.lowerBound(after);
      if (this.entries[at]?.uuid === after.uuid && compareKeys(this.entries[at]!.key, after.key) === 0) at++;
      for (; at < groupEnd; at++) yield this.checked(this.entries[at]!);
      end = this.keyBound(after.key, false);
    }
    while (end > 0) {
      const start = this.keyBound(this.entries[end - 1]!.key, false);
      for (let at = start; at < end; at++) yield this.checked(this.entries[at]!);
      end = start;
    }
  }

  private checked(entry: Entry<T>): T {
    if (compareKeys(keyOf(entry.record, this.field), entry.key) !== 0) this.stale = true;
    return entry.record;
  }

  /** The first index whose entry is not before `position`. */
  private lowerBound(position: Position): number {
    let low = 0;
    let high = this.entries.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (compareEntries(this.entries[mid]!, position) < 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** The first index whose key is after `key` (`past`), or not before it. */
  private keyBound(key: SortKey, past: boolean): number {
    let low = 0;
    let high = this.entries.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const order = compareKeys(this.entries[mid]!.key, key);
      if (order < 0 || (past && order === 0)) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
