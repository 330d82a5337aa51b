/**
 * Resuming a cursor-family walk from a position (a record's sort key and uuid) once the upstream
 * cursor that continued it is gone: expired upstream, evicted from the store, or never kept
 * because Redis was away. The page after the position is the page a fresh walk would give.
 *
 * The cursor family's filters are ANDed, so "key after K, or key K and uuid after U" is not one
 * condition. Instead the query asks from the position's key on (`sort:ge:K`, or in descending
 * order `sort:le:K`), and the gateway skips what comes up to the position itself: the upstream
 * breaks ties by uuid, ascending whatever the order (docs/upstream/assumptions.md).
 *
 * Two kinds of key need more than that:
 * - A timestamp is written to the second while the upstream may order by finer instants, so the
 *   key names a second, not an instant: the query asks from that whole second (descending,
 *   `lt` the next second) and the gateway skips up to the record itself. When that record has
 *   since gone and other records share its second, where it stood among them cannot be known:
 *   no exact resumption.
 * - A record without the key (null) sorts first, and no filter selects it: records without the
 *   key are read from the start of the ascending order, where they stand in uuid order.
 *
 * A position whose record stands in a run of ties longer than `MAX_SEEK_PAGES` upstream pages
 * is not resumed either (the caller answers `CURSOR_EXPIRED`).
 */
import type { Readable } from '../../upstream/wire.js';
import { RECORDS } from '../../upstream/records.js';
import { cursorRecordOf } from '../../upstream/operations/index.js';
import type { UpstreamSession } from '../../upstream/session.js';
import { readWallClock, writeWallClock } from '../../upstream/timestamps.js';
import type { CursorFilter, CursorPage, CursorResourceType, CursorResourceTypes, WireSortKey } from '../../upstream/types.js';

/** Upstream pages read past the position's key before giving up on finding where it stood. */
const MAX_SEEK_PAGES = 5;
/** Records asked beyond those wanted, so that a few ties before the position cost no second request. */
const SEEK_SLACK = 20;
const UPSTREAM_MAX_PAGE_SIZE = 1000;

/** A query of the cursor family: the conditions and the order of the walk being resumed. */
export interface CursorWalk<K extends CursorResourceType> {
  resourceType: K;
  filter: readonly CursorFilter[];
  /** The sort field (the upstream's default when the client asked for none). */
  sort: string;
  order: 'asc' | 'desc';
}

/** What follows a position: up to the records wanted, and whether the walk has more after them. */
export interface ResumedRecords<T> {
  /** One the gateway cannot read is an `UnreadableRecord` in its slot, as in any page. */
  items: Readable<T>[];
  keys: Map<string, WireSortKey>;
  hasMore: boolean;
}

/** Where a walk stands: the last record served, by its sort key and uuid. */
export interface WalkPosition {
  key: WireSortKey;
  uuid: string;
}

type Item<K extends CursorResourceType> = CursorResourceTypes[K];

/**
 * The `want` records after `position` in `walk`, as a fresh walk would give them; null when no
 * exact resumption is possible (the caller answers `CURSOR_EXPIRED`).
 */
export async function resumeWalk<K extends CursorResourceType>(
  session: UpstreamSession,
  walk: CursorWalk<K>,
  position: WalkPosition,
  want: number,
): Promise<ResumedRecords<Item<K>> | null> {
  const taken: ResumedRecords<Item<K>> = { items: [], keys: new Map(), hasMore: false };
  const timestamp = isTimestamp(walk);
  if (position.key === null) {
    const nulls = await readNullKeyed(session, walk, position.uuid, want, walk.order === 'asc', taken);
    return nulls ? taken : null;
  }
  const from = fromCondition(walk, position.key, timestamp);
  if (from === null) return null;
  const pages = walkPages(session, { ...walk, filter: [...walk.filter, from] }, want);
  // Records sharing the position's timestamp text, seen before the position's own record.
  let pending = 0;
  let seeking = true;
  let seekPages = 0;
  for await (const page of pages) {
    for (const item of page.items) {
      const { uuid } = item as { uuid: string };
      const key = page.keys.get(uuid) ?? null;
      if (seeking) {
        if (uuid === position.uuid) {
          seeking = false;
          continue;
        }
        if (key === position.key) {
          if (timestamp) pending++;
          else if (uuid > position.uuid) seeking = false;
          if (seeking) continue;
        } else {
          // Past the key: the record at the position has gone (or moved). Exact only when no
          // record shared its second, for a timestamp.
          if (pending > 0) return null;
          seeking = false;
        }
      }
      if (taken.items.length === want) {
        taken.hasMore = true;
        return taken;
      }
      taken.items.push(item);
      taken.keys.set(uuid, key);
    }
    if (seeking && ++seekPages >= MAX_SEEK_PAGES && page.hasMore) return null;
  }
  if (seeking && pending > 0) return null;
  // Descending, the records without the key come last, and no `le`/`lt` condition selects them.
  if (walk.order === 'desc') await readNullKeyed(session, walk, null, want, false, taken);
  return taken;
}

/** Whether the walk's sort field is a timestamp (its wire text names a second). */
function isTimestamp(walk: CursorWalk<CursorResourceType>): boolean {
  const fields = RECORDS[cursorRecordOf(walk.resourceType)].fields as Readonly<Record<string, { kind: string } | undefined>>;
  return fields[walk.sort]?.kind === 'timestamp';
}

/** The condition selecting the position's key and what follows it; null when none can be written. */
function fromCondition(walk: CursorWalk<CursorResourceType>, key: string | number | boolean, timestamp: boolean): CursorFilter | null {
  const value = String(key);
  if (walk.order === 'asc') return { field: walk.sort, op: 'ge', value };
  if (!timestamp) return { field: walk.sort, op: 'le', value };
  // The whole second the text names, whatever finer instant the upstream keeps.
  const seconds = typeof key === 'string' ? readWallClock(key) : null;
  return seconds === null ? null : { field: walk.sort, op: 'lt', value: writeWallClock(seconds + 1) };
}

/**
 * Reads the records without the sort key (the start of the ascending order, in uuid order) into
 * `taken`: after `afterUuid` when given, and, with `thenTheRest`, the keyed records after them
 * (the ascending walk goes on). False when the position could not be found within bounds.
 */
async function readNullKeyed<K extends CursorResourceType>(
  session: UpstreamSession,
  walk: CursorWalk<K>,
  afterUuid: string | null,
  want: number,
  thenTheRest: boolean,
  taken: ResumedRecords<Item<K>>,
): Promise<boolean> {
  let seekPages = 0;
  for await (const page of walkPages(session, { ...walk, order: 'asc' }, want - taken.items.length)) {
    for (const item of page.items) {
      const { uuid } = item as { uuid: string };
      const key = page.keys.get(uuid) ?? null;
      if (key !== null && !thenTheRest) return true;
      if (key === null && afterUuid !== null && uuid <= afterUuid) continue;
      if (taken.items.length === want) {
        taken.hasMore = true;
        return true;
      }
      taken.items.push(item);
      taken.keys.set(uuid, key);
    }
    if (taken.items.length === 0 && ++seekPages >= MAX_SEEK_PAGES && page.hasMore) return false;
  }
  return true;
}

/** The pages of a query, the first asked by CursorQuery and the next by CursorNext, sized for `want` records. */
async function* walkPages<K extends CursorResourceType>(session: UpstreamSession, walk: CursorWalk<K>, want: number): AsyncGenerator<CursorPage<Item<K>>> {
  const pageSize = Math.min(UPSTREAM_MAX_PAGE_SIZE, want + 1 + SEEK_SLACK);
  const { resourceType, sort, order } = walk;
  let page = await session.cursorQuery({ resourceType, sort, order, pageSize, filter: walk.filter });
  yield page;
  while (page.hasMore && page.nextCursor !== null) {
    page = await session.cursorNext({ resourceType, cursor: page.nextCursor, pageSize, sort });
    yield page;
  }
}
