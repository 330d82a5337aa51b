/**
 * Relay connections over the two upstream families.
 *
 * Paging is forward only (`first`/`after`): the cursor family's keyset cursors only go
 * forward. Every edge carries an opaque gateway cursor, so `after` may be any edge's cursor:
 *
 * - Cursor family: an edge cursor names the upstream cursor its page started at plus the edge's
 *   uuid (and position, as a fallback when the record has since been deleted). The last edge of
 *   an upstream page instead names the upstream `nextCursor`, so walking page by page costs
 *   one upstream request per page. Upstream cursors are long and show the tenant and filters, so
 *   a gateway cursor names one by a 12-byte reference to where it is kept (`src/cursors/store.ts`).
 * - Resource family (`q=` queries, no upstream cursor): an edge cursor is the offset after it.
 * - Lists already in memory (children loaded for many parents at once): offsets as well.
 *
 * Every cursor is sealed (authenticated encryption, `src/cursors/seal.ts`) with a binding to the
 * caller's credential and the connection's arguments, so an altered cursor, or one of another
 * caller, connection or filters, is `INVALID_CURSOR` instead of silently paging something else;
 * one whose upstream cursor is gone is `CURSOR_EXPIRED`. Both tell the client to start again.
 */
import { GraphQLError } from 'graphql';
import { builder } from '../../builder.js';
import type { GatewayContext } from '../../context.js';
import type { CursorKeeper } from '../../cursors/keeper.js';
import { decodePayload, encodePayload, type CursorPayload } from '../../cursors/payload.js';
import { isUpstreamRequestError } from '../../upstream/errors.js';
import { toCursorFilters, toQueryConditions, type Condition, type Sort } from '../../upstream/families.js';
import type { CredentialFamily } from '../../upstream/session.js';
import type { CursorResourceType, CursorResourceTypes, QueryCollection, QueryCollections } from '../../upstream/types.js';
import { UnreadableRecord, type Readable } from '../../upstream/wire.js';
import { unreadableRecordError } from './errors.js';
import { childKey, type ChildQuery } from './loading.js';

/** Default page size when `first` is omitted. */
export const DEFAULT_PAGE_SIZE = 20;
/** Largest `first` a caller may ask for; more is `BAD_USER_INPUT`. */
export const MAX_PAGE_SIZE = 100;

/** The shape every connection resolver returns (Pothos' connection shape plus `totalCount`). */
export interface ConnectionResult<T> {
  edges: { cursor: string; node: T }[];
  pageInfo: {
    hasNextPage: boolean;
    hasPreviousPage: boolean;
    startCursor: string | null;
    endCursor: string | null;
  };
  totalCount: number;
}

export interface PageArgs {
  first?: number | null | undefined;
  after?: string | null | undefined;
}

/** `first` and `after`, the only paging arguments (forward pagination). */
export const pageArgs = builder.args((t) => ({
  first: t.int({
    description: `How many records to return, from 0 to ${MAX_PAGE_SIZE}. Default ${DEFAULT_PAGE_SIZE}.`,
  }),
  after: t.string({
    description: 'Return the records after the edge with this cursor (any edge\'s `cursor`, not only `endCursor`).',
  }),
}));

function badInput(message: string, extensions: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', ...extensions } });
}

/** Validates `first` against the page bounds of CONTRACT section 4. */
export function readPageSize(first: number | null | undefined): number {
  if (first === null || first === undefined) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(first) || first < 0 || first > MAX_PAGE_SIZE) {
    throw badInput(`\`first\` must be from 0 to ${MAX_PAGE_SIZE}, got ${first}.`, { argument: 'first', max: MAX_PAGE_SIZE });
  }
  return first;
}

/** What a client must do with a cursor the gateway no longer honours. */
const START_AGAIN = 'Start again from the first page: repeat the query without `after`.';

function invalidCursor(): GraphQLError {
  return new GraphQLError(
    `\`after\` is not a cursor of this connection: it is malformed or altered, or was issued for another credential, another connection or other arguments. ${START_AGAIN}`,
    { extensions: { code: 'INVALID_CURSOR', argument: 'after' } },
  );
}

function expiredCursor(): GraphQLError {
  return new GraphQLError(`\`after\` has expired: the position it stands for is no longer kept. ${START_AGAIN}`, {
    extensions: { code: 'CURSOR_EXPIRED', argument: 'after' },
  });
}

/** The payload of `after`, checked against what the cursor must belong to; INVALID_CURSOR otherwise. */
function openCursor(keeper: CursorKeeper, after: string, binding: Buffer): CursorPayload {
  const bytes = keeper.open(after);
  const payload = bytes === null ? null : decodePayload(bytes);
  if (payload === null || !payload.binding.equals(binding)) throw invalidCursor();
  return payload;
}

function openOffsetCursor(keeper: CursorKeeper, after: string, binding: Buffer): number {
  const payload = openCursor(keeper, after, binding);
  if (payload.kind !== 'offset') throw invalidCursor();
  return payload.offset;
}

function offsetCursor(keeper: CursorKeeper, binding: Buffer, offset: number): string {
  return keeper.seal(encodePayload({ kind: 'offset', binding, offset }));
}

/** Computes `compute()` once, on first use. */
function lazy<T>(compute: () => T): () => T {
  let computed = false;
  let value: T;
  return () => {
    if (!computed) {
      value = compute();
      computed = true;
    }
    return value;
  };
}

/** A cursor, or the promise of one whose upstream cursor is being kept first; GraphQL awaits either. */
type CursorValue = string | Promise<string>;

/**
 * An edge whose cursor is encoded only when a client selects it: dashboards read `nodes`, and
 * encoding a cursor for every record of every nested connection would be wasted work (and, for
 * the page's last edge, would keep an upstream cursor nobody asked for).
 */
class Edge<T> {
  constructor(
    readonly node: T,
    private readonly index: number,
    private readonly cursors: Cursors,
  ) {}

  get cursor(): CursorValue {
    return this.cursors.at(this.index);
  }
}

/** Encodes the cursor of a page's `index`-th edge. */
interface Cursors {
  at(index: number): CursorValue;
}

/**
 * The offset cursors of a page cut from one parent's list (`resolveListConnection`): an object of
 * its own rather than closures, as a page of 50 VMs makes a hundred such pages, whose cursors are
 * almost never read.
 */
class ListCursors implements Cursors {
  constructor(
    private readonly context: GatewayContext,
    private readonly field: string,
    private readonly key: string,
    private readonly offset: number,
    private binding: Buffer | undefined,
  ) {}

  at(index: number): string {
    this.binding ??= listBinding(this.context, this.field, this.key);
    return offsetCursor(this.context.cursors, this.binding, this.offset + index + 1);
  }
}

/**
 * A list's cursors belong to the parent's list and to the caller. Which family a list was read
 * from is its loader's business, so every credential the caller sent binds them.
 */
function listBinding(context: GatewayContext, field: string, key: string): Buffer {
  return context.cursors.bind(['list', ...context.session.callerIdentities(), field, key]);
}

/**
 * A page's `pageInfo`, its cursors encoded only when selected. A class rather than an object
 * literal with getters: V8 allocates such literals straight into the old generation, and
 * everything they point to (here the page's edges and records) then survives every young-generation
 * collection until the next full one. Reading pages of 50 VMs one after another, 8.4 MB of each
 * ~14 MB cycle survived with the literal, 0.2 MB with this class.
 */
class PageInfo<T> {
  constructor(
    private readonly edges: readonly Edge<T>[],
    readonly hasNextPage: boolean,
    readonly hasPreviousPage: boolean,
  ) {}

  get startCursor(): CursorValue | null {
    return this.edges[0]?.cursor ?? null;
  }

  get endCursor(): CursorValue | null {
    return this.edges.at(-1)?.cursor ?? null;
  }
}

/**
 * A page's connection. A record the gateway cannot read keeps its edge, so the cursors around it
 * stay valid, and its node is its error: null in `nodes` and in `edges { node }`, with an
 * `UPSTREAM_PROTOCOL_ERROR` at that index, while the page's other records answer.
 */
function toConnection<T>(
  nodes: readonly Readable<T>[],
  cursors: Cursors,
  totalCount: number,
  hasNextPage: boolean,
  hasPreviousPage: boolean,
): ConnectionResult<T> {
  // Every engine raises an Error found as a field's value (or a list slot) as that field's error.
  const edges = nodes.map((node, index) => new Edge(node instanceof UnreadableRecord ? (unreadableRecordError(node) as T) : node, index, cursors));
  // Pothos types a cursor as a string; a field's value may be a promise of one, which GraphQL awaits.
  return { edges, pageInfo: new PageInfo(edges, hasNextPage, hasPreviousPage), totalCount } as unknown as ConnectionResult<T>;
}

/** Largest page the cursor family accepts (docs/upstream/assumptions.md: pageSize 1..1000). */
const UPSTREAM_MAX_PAGE_SIZE = 1000;

/** A page of a family's records: the paging arguments, the conditions and the sort. */
export interface FamilyPageRequest extends PageArgs {
  where: readonly Condition[];
  sort?: Sort | undefined;
}

/** Where a cursor-family page starts: the query's start, or a kept upstream cursor. */
interface KeysetStart {
  ref: Buffer | null;
  upstream: string | null;
  skip: number;
  uuid?: string | undefined;
}

/** The start `after` stands for: INVALID_CURSOR when it is not one of this connection's, CURSOR_EXPIRED once its upstream cursor is gone. */
async function openKeysetStart(keeper: CursorKeeper, after: string, binding: Buffer): Promise<KeysetStart> {
  const payload = openCursor(keeper, after, binding);
  if (payload.kind !== 'keyset') throw invalidCursor();
  const upstream = payload.ref === null ? null : await keeper.recall(payload.ref);
  if (payload.ref !== null && upstream === null) throw expiredCursor();
  return { ref: payload.ref, upstream, skip: payload.skip, uuid: payload.uuid };
}

/**
 * What reading a page of either family starts with: the caller as the family knows it (which
 * binds the page's cursors; throws when the credential is missing), the page size (a bad `first`
 * fails before any upstream request) and the cursor keeper.
 */
function openPage(context: GatewayContext, family: CredentialFamily, request: FamilyPageRequest) {
  const session = context.session;
  return { session, caller: session.callerIdentity(family), size: readPageSize(request.first), keeper: context.cursors };
}

/** A Relay page read through CursorQuery / CursorNext. One upstream request per page. */
export async function readCursorPage<K extends CursorResourceType>(
  context: GatewayContext,
  resourceType: K,
  request: FamilyPageRequest,
): Promise<ConnectionResult<CursorResourceTypes[K]>> {
  const { session, caller, size, keeper } = openPage(context, 'cursor', request);
  const filter = toCursorFilters(request.where);
  const sort = request.sort?.field;
  const order = request.sort?.direction;
  const binding = lazy(() => keeper.bind(['cursor', ...caller, resourceType, sort ?? null, order ?? null, filter]));
  const start: KeysetStart = request.after ? await openKeysetStart(keeper, request.after, binding()) : { ref: null, upstream: null, skip: 0 };

  const pageSize = Math.min(UPSTREAM_MAX_PAGE_SIZE, Math.max(1, start.skip + size));
  const page =
    start.upstream === null
      ? await session.cursorQuery({
          resourceType,
          pageSize,
          ...(sort === undefined ? {} : { sort }),
          ...(order === undefined ? {} : { order }),
          filter,
        })
      : await session.cursorNext({ resourceType, cursor: start.upstream, pageSize }).catch((error: unknown) => {
          // The gateway sends only upstream cursors the upstream gave it: one refused now has
          // expired there (or the upstream forgot it, restarting), whatever its text says.
          throw isUpstreamRequestError(error) && error.code === 'UPSTREAM_BAD_REQUEST' ? expiredCursor() : error;
        });

  const items = page.items;
  const anchor = start.uuid === undefined ? -1 : items.findIndex((item) => item.uuid === start.uuid);
  const skip = anchor >= 0 ? anchor + 1 : Math.min(start.skip, items.length);
  const nodes = items.slice(skip, skip + size);

  const { nextCursor } = page;
  // Kept only when a client reads the cursor that needs it, and before the client has it, so
  // whichever replica the client asks next finds it.
  let nextPageCursor: Promise<string> | undefined;
  const cursorAt = (index: number): CursorValue => {
    const position = skip + index;
    if (position === items.length - 1 && nextCursor !== null) {
      nextPageCursor ??= keeper.keep(nextCursor).then((ref) => keeper.seal(encodePayload({ kind: 'keyset', binding: binding(), ref, skip: 0 })));
      return nextPageCursor;
    }
    return keeper.seal(encodePayload({ kind: 'keyset', binding: binding(), ref: start.ref, skip: position + 1, uuid: uuidOf(items[position]!) }));
  };
  return toConnection(nodes, { at: cursorAt }, page.total, skip + size < items.length || page.hasMore, request.after != null);
}

/** A record's uuid; an unreadable one's when its wire has one, else undefined (its cursor then names its position only). */
function uuidOf(item: Readable<{ uuid: string }>): string | undefined {
  return item instanceof UnreadableRecord ? (item.uuid ?? undefined) : item.uuid;
}

/** A Relay page read through a resource-family query (`limit`/`start`/`replyWithCount`). */
export async function readQueryPage<C extends QueryCollection>(
  context: GatewayContext,
  collection: C,
  request: FamilyPageRequest,
): Promise<ConnectionResult<QueryCollections[C]>> {
  const { session, caller, size, keeper } = openPage(context, 'resource', request);
  const conditions = toQueryConditions(request.where);
  const sort = request.sort === undefined ? undefined : { field: request.sort.field, direction: request.sort.direction ?? 'asc' };
  const binding = lazy(() => keeper.bind(['query', ...caller, collection, conditions, sort ?? null]));
  const offset = request.after ? openOffsetCursor(keeper, request.after, binding()) : 0;

  const result = await session.query(collection, {
    conditions,
    // `limit: 0` would mean "the upstream default"; ask for one record and show none.
    limit: Math.max(1, size),
    start: offset,
    replyWithCount: true,
    ...(sort === undefined ? {} : { sort }),
  });
  const nodes = result.inventories.slice(0, size);
  const total = result.total ?? offset + result.inventories.length;
  return toConnection(
    nodes,
    { at: (index) => offsetCursor(keeper, binding(), offset + index + 1) },
    total,
    offset + nodes.length < total,
    offset > 0,
  );
}

/**
 * A Relay page over a list already in memory (e.g. one parent's children out of a batch that
 * loaded the children of many parents in one upstream request): the children of parent `key` for
 * connection `field`, which together bind its cursors.
 */
export function resolveListConnection<T>(
  context: GatewayContext,
  list: readonly Readable<T>[],
  args: PageArgs,
  field: string,
  key: string,
): ConnectionResult<T> {
  const size = readPageSize(args.first);
  let binding: Buffer | undefined;
  let offset = 0;
  if (args.after) {
    binding = listBinding(context, field, key);
    offset = openOffsetCursor(context.cursors, args.after, binding);
  }
  const nodes = list.slice(offset, offset + size);
  return toConnection(nodes, new ListCursors(context, field, key, offset, binding), list.length, offset + nodes.length < list.length, offset > 0);
}

/**
 * A page of the children of parent `parentUuid` meeting `query`, from a per-request loader of
 * each parent's whole list (`childrenLoader`), for connection `field` (e.g.
 * `VmInstance.snapshotGroups`): the page's cursors are bound to the parent and the query. A bad
 * `first` fails before the upstream request rather than after it.
 */
export function loadListConnection<T>(
  context: GatewayContext,
  loader: { load(key: string): Promise<readonly Readable<T>[]> },
  parentUuid: string,
  query: ChildQuery,
  args: PageArgs,
  field: string,
): Promise<ConnectionResult<T>> {
  readPageSize(args.first);
  const key = childKey(parentUuid, query);
  return loader.load(key).then((list) => resolveListConnection(context, list, args, field, key));
}
