/**
 * Relay connections over the two upstream families.
 *
 * Paging is forward only (`first`/`after`): the cursor family's keyset cursors only go
 * forward. Every edge carries an opaque gateway cursor, so `after` may be any edge's cursor:
 *
 * - Cursor family: an edge cursor names its record's position in the walk (sort key and uuid).
 *   The last edge of an upstream page also has the upstream `nextCursor` kept, under a reference
 *   derived from the position (`src/cursors/store.ts`: upstream cursors are long and show the
 *   tenant and filters), so walking page by page costs one upstream request per page. Once that
 *   upstream cursor is gone (expired, evicted, or never kept while Redis was away), the walk
 *   resumes from the position itself (`cursor-resume.ts`): a cursor lives `CURSOR_TTL_MS`,
 *   whatever the upstream cursor's life, and is issued and honoured without Redis.
 * - Resource family (`q=` queries, no upstream cursor): an edge cursor is the offset after it.
 * - Lists already in memory (children loaded for many parents at once): offsets as well.
 *
 * Every cursor is sealed (authenticated encryption, `src/cursors/seal.ts`) with a binding to the
 * caller's credential and the connection's arguments, so an altered cursor, or one of another
 * caller, connection or filters, is `INVALID_CURSOR` instead of silently paging something else;
 * one older than `CURSOR_TTL_MS`, or whose position cannot be resumed exactly, is `CURSOR_EXPIRED`.
 * Both tell the client to start again.
 */
import { GraphQLError } from 'graphql';
import { builder } from '../../builder.js';
import type { GatewayContext } from '../../context.js';
import type { CursorKeeper } from '../../cursors/keeper.js';
import { decodePayload, encodePayload, type CursorPayload } from '../../cursors/payload.js';
import { isUpstreamRequestError } from '../../upstream/errors.js';
import { toCursorFilters, toQueryConditions, type Condition, type Sort } from '../../upstream/families.js';
import type { CredentialFamily, UpstreamSession } from '../../upstream/session.js';
import {
  DEFAULT_CURSOR_SORT,
  type CursorResourceType,
  type CursorResourceTypes,
  type ResourceCollection,
  type ResourceCollections,
  type WireSortKey,
} from '../../upstream/types.js';
import { UnreadableRecord, type Readable } from '../../upstream/wire.js';
import { resumeWalk, type CursorWalk } from './cursor-resume.js';
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

/** Validates `first` against the page bounds (default 20, at most 100: docs/features/schema-and-pagination.md). */
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
  return new GraphQLError(`\`after\` has expired: it is older than the cursors' lifetime, or the position it stands for can no longer be found exactly. ${START_AGAIN}`, {
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

type KeysetPayload = Extract<CursorPayload, { kind: 'keyset' }>;
type PositionPayload = Extract<CursorPayload, { kind: 'position' }>;

/**
 * What `after` names in a cursor-family connection: INVALID_CURSOR when it is not one of this
 * connection's, CURSOR_EXPIRED when it was issued longer than `CURSOR_TTL_MS` ago.
 */
function openKeysetAfter(keeper: CursorKeeper, after: string, binding: Buffer): KeysetPayload | PositionPayload {
  const payload = openCursor(keeper, after, binding);
  if (payload.kind === 'offset') throw invalidCursor();
  if (payload.kind === 'position' && Date.now() - payload.issuedAt > keeper.ttlMs) throw expiredCursor();
  return payload;
}

/** Where the upstream cursor continuing after a position is kept: derived from the position, so the gateway cursor needs no random reference. */
function keptReference(keeper: CursorKeeper, binding: Buffer, uuid: string, key: WireSortKey | undefined): Buffer {
  return keeper.reference([binding.toString('base64url'), uuid, key ?? null]);
}

/** A page of the cursor family as the connection cuts it: its records, their sort keys, and how it goes on. */
interface CursorFamilyPage<T> {
  items: Readable<T>[];
  keys: ReadonlyMap<string, WireSortKey>;
  hasMore: boolean;
  /** The upstream cursor continuing right after the last item; null when there is none to keep. */
  nextCursor: string | null;
  /** `total`, or how to ask for it (a resumed walk's own query counts only what follows the position). */
  total: number | (() => Promise<number>);
}

/**
 * What reading a page of either family starts with: the caller as the family knows it (throws
 * when the credential is missing), the page size (a bad `first` fails before any upstream
 * request), the cursor keeper, and `binding()`: the binding of the page's cursors to the caller
 * and to what the page reads (`query`, in the family's own terms), made when a cursor is first
 * sealed or opened.
 */
function openPage(context: GatewayContext, family: CredentialFamily, request: FamilyPageRequest, query: readonly unknown[]) {
  const { session, cursors: keeper } = context;
  const caller = session.callerIdentity(family);
  const binding = lazy(() => keeper.bind([BINDING_KINDS[family], ...caller, ...query]));
  return { session, size: readPageSize(request.first), keeper, binding };
}

/** The kind each family's cursors are bound as (kept as it was, so cursors already issued stay valid). */
const BINDING_KINDS: Readonly<Record<CredentialFamily, string>> = { cursor: 'cursor', resource: 'query' };

/** The upstream's refusal of a cursor it gave: it has expired there (or the upstream forgot it, restarting), whatever its text says. */
function isRefusedCursor(error: unknown): boolean {
  return isUpstreamRequestError(error) && error.code === 'UPSTREAM_BAD_REQUEST';
}

/**
 * A Relay page read through CursorQuery / CursorNext: one upstream request per page while the
 * upstream cursor behind `after` is kept; after it (expired upstream or here, or never kept while
 * Redis was away), the walk resumes from the position `after` names (`cursor-resume.ts`).
 */
export async function readCursorPage<K extends CursorResourceType>(
  context: GatewayContext,
  resourceType: K,
  request: FamilyPageRequest,
): Promise<ConnectionResult<CursorResourceTypes[K]>> {
  const filter = toCursorFilters(request.where);
  const sort = request.sort?.field;
  const order = request.sort?.direction;
  const { session, size, keeper, binding } = openPage(context, 'cursor', request, [resourceType, sort ?? null, order ?? null, filter]);
  const walk: CursorWalk<K> = { resourceType, filter, sort: sort ?? DEFAULT_CURSOR_SORT, order: order ?? 'asc' };
  const after = request.after ? openKeysetAfter(keeper, request.after, binding()) : null;

  let page: CursorFamilyPage<CursorResourceTypes[K]>;
  if (after?.kind === 'keyset') page = await readAfterKeyset(session, walk, keeper, after, size);
  else if (after?.kind === 'position') page = await readAfterPosition(session, walk, keeper, after, size);
  else {
    page = await session.cursorQuery({
      resourceType,
      pageSize: Math.max(1, size),
      ...(sort === undefined ? {} : { sort }),
      ...(order === undefined ? {} : { order }),
      filter,
    });
  }

  const { items, keys, nextCursor } = page;
  const nodes = items.slice(0, size);
  const issuedAt = Date.now();
  // Kept only when a client reads the cursor that needs it, and before the client has it, so
  // whichever replica the client asks next finds it. The position alone resumes the walk, so a
  // store that cannot keep it (Redis away) costs a cursor nothing but a resumption.
  let lastCursor: Promise<string> | undefined;
  const sealAt = (index: number, kept: boolean): string => {
    const uuid = positionUuid(nodes, index);
    return keeper.seal(encodePayload({ kind: 'position', binding: binding(), issuedAt, kept, uuid, key: keys.get(uuid) }));
  };
  const cursorAt = (index: number): CursorValue => {
    if (index !== items.length - 1 || nextCursor === null) return sealAt(index, false);
    lastCursor ??= (async () => {
      const uuid = positionUuid(nodes, index);
      const ref = keptReference(keeper, binding(), uuid, keys.get(uuid));
      const kept = await keeper.keep(nextCursor, ref).then(
        () => true,
        () => false,
      );
      return sealAt(index, kept);
    })();
    return lastCursor;
  };
  const hasNextPage = nodes.length < items.length || page.hasMore;
  const connection = toConnection(nodes, { at: cursorAt }, typeof page.total === 'number' ? page.total : 0, hasNextPage, after !== null);
  const { total } = page;
  if (typeof total !== 'number') {
    // Asked for only when selected: a resumed page costs its one request unless the client reads the count.
    const count = lazy(total);
    Object.defineProperty(connection, 'totalCount', { get: count, enumerable: true });
  }
  return connection;
}

/**
 * The uuid a cursor at `index` names: its record's, or, for a record that cannot be read and whose
 * wire carries no uuid, the nearest readable record's before it (the next page then starts with
 * the unreadable one again). None before it either: the edge's cursor is an error of its own.
 */
function positionUuid(nodes: readonly Readable<{ uuid: string }>[], index: number): string {
  for (let at = index; at >= 0; at -= 1) {
    const node = nodes[at]!;
    const uuid = node instanceof UnreadableRecord ? node.uuid : node.uuid;
    if (typeof uuid === 'string') return uuid;
  }
  throw new GraphQLError('This record cannot be read, and no cursor can be made at it: page on from the cursor of a record after it.', {
    extensions: { code: 'UPSTREAM_PROTOCOL_ERROR' },
  });
}

/** The page after a position: through the upstream cursor kept for it while there is one, else resumed from the position. */
async function readAfterPosition<K extends CursorResourceType>(
  session: UpstreamSession,
  walk: CursorWalk<K>,
  keeper: CursorKeeper,
  after: PositionPayload,
  size: number,
): Promise<CursorFamilyPage<CursorResourceTypes[K]>> {
  if (after.kept) {
    // Redis away or slow: the position stands in for the kept cursor.
    const upstream = await keeper.recall(keptReference(keeper, after.binding, after.uuid, after.key)).catch(() => null);
    if (upstream !== null) {
      try {
        return await session.cursorNext({ resourceType: walk.resourceType, cursor: upstream, pageSize: Math.max(1, size), sort: walk.sort });
      } catch (error) {
        if (!isRefusedCursor(error)) throw error;
      }
    }
  }
  // A sort key too long to carry: the kept cursor was the only way on.
  if (after.key === undefined) throw expiredCursor();
  const resumed = await resumeWalk(session, walk, { key: after.key, uuid: after.uuid }, size);
  if (resumed === null) throw expiredCursor();
  const countQuery = { resourceType: walk.resourceType, sort: walk.sort, order: walk.order, pageSize: 1, filter: walk.filter };
  return { ...resumed, nextCursor: null, total: async () => (await session.cursorQuery(countQuery)).total };
}

/**
 * The page after a cursor issued before 2.0 (a kept upstream cursor the page started at, the
 * records to skip, the edge's uuid): honoured while its upstream cursor is kept, CURSOR_EXPIRED
 * after, as it carries no position to resume from.
 */
async function readAfterKeyset<K extends CursorResourceType>(
  session: UpstreamSession,
  walk: CursorWalk<K>,
  keeper: CursorKeeper,
  after: KeysetPayload,
  size: number,
): Promise<CursorFamilyPage<CursorResourceTypes[K]>> {
  const upstream = after.ref === null ? null : await keeper.recall(after.ref);
  if (after.ref !== null && upstream === null) throw expiredCursor();
  const pageSize = Math.min(UPSTREAM_MAX_PAGE_SIZE, Math.max(1, after.skip + size));
  const { resourceType, sort, order, filter } = walk;
  const page =
    upstream === null
      ? await session.cursorQuery({ resourceType, pageSize, sort, order, filter })
      : await session.cursorNext({ resourceType, cursor: upstream, pageSize, sort }).catch((error: unknown) => {
          throw isRefusedCursor(error) ? expiredCursor() : error;
        });
  const anchor = after.uuid === undefined ? -1 : page.items.findIndex((item) => (item as { uuid: string }).uuid === after.uuid);
  const skip = anchor >= 0 ? anchor + 1 : Math.min(after.skip, page.items.length);
  const items = page.items.slice(skip, skip + size);
  // Cut short of the upstream page: the upstream cursor does not continue after the last item.
  const whole = skip + size >= page.items.length;
  return { ...page, items, hasMore: whole ? page.hasMore : true, nextCursor: whole ? page.nextCursor : null };
}

/** A Relay page read through a resource-family query (`limit`/`start`/`replyWithCount`). */
export async function readResourcePage<C extends ResourceCollection>(
  context: GatewayContext,
  collection: C,
  request: FamilyPageRequest,
): Promise<ConnectionResult<ResourceCollections[C]>> {
  const sort = request.sort === undefined ? undefined : { field: request.sort.field, direction: request.sort.direction ?? 'asc' };
  const conditions = toQueryConditions(request.where);
  const { session, size, keeper, binding } = openPage(context, 'resource', request, [collection, conditions, sort ?? null]);
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
