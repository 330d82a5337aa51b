/**
 * One keyset page of a table for the cursor family, answered from the table's indexes: the
 * records an `eq`/`in` condition on an indexed field names when there is one (then filtered and
 * sorted, a handful), else a seek into the sorted index of the page's order and a walk until the
 * page is full. Either way the answer is the one a scan and sort of the whole estate gives.
 */
import type { Owned } from './model.js';
import type { Position } from './order-index.js';
import { compareKeys, keyOf, type Condition, type FieldTypes, type Predicate } from './query.js';
import type { Table } from './store.js';

export interface PageRequest {
  tenantId: string;
  conditions: readonly Condition[];
  /** The conditions compiled (every one of them, ANDed). */
  predicate: Predicate;
  fields: FieldTypes;
  sort: string;
  order: 'asc' | 'desc';
  /** Records to return; one more is looked for to tell whether there is a next page. */
  pageSize: number;
  after: Position | null;
}

export interface PageResult<T> {
  /** Up to `pageSize + 1` records in page order. */
  records: T[];
  /** Every match of the conditions, pages before and after included. */
  total: number;
  /** Records the page examined (tests check it stays near the page size). */
  visited: number;
}

/** Reads one page of `table`. */
export function readPage<T extends Owned>(table: Table<T>, request: PageRequest): PageResult<T> {
  const { tenantId, predicate, sort, order, pageSize, after } = request;
  const wanted = pageSize + 1;
  const named = table.candidates(tenantId, request.conditions, request.fields);
  if (named !== null) {
    const sign = order === 'desc' ? -1 : 1;
    const compare = (a: Position, b: Position): number => sign * compareKeys(a.key, b.key) || compareKeys(a.uuid, b.uuid);
    const matches = named.filter(predicate);
    const keyed = matches.map((record) => ({ key: keyOf(record, sort), uuid: record.uuid, record }));
    const remaining = after === null ? keyed : keyed.filter((entry) => compare(entry, after) > 0);
    const records = remaining.sort(compare).slice(0, wanted).map((entry) => entry.record);
    return { records, total: matches.length, visited: named.length };
  }
  const records: T[] = [];
  let visited = 0;
  for (const record of table.ordered(tenantId, sort).walk(order, after)) {
    visited++;
    if (!predicate(record)) continue;
    records.push(record);
    if (records.length === wanted) break;
  }
  let total = table.count(tenantId);
  if (request.conditions.length > 0) {
    // A filter no equality index answers: the page was a walk, but its total counts every match.
    total = 0;
    for (const record of table.list(tenantId)) if (predicate(record)) total++;
    visited += table.count(tenantId);
  }
  return { records, total, visited };
}
