/**
 * The cursor family: `CursorQuery` starts a query, `CursorNext` continues it.
 *
 * Pagination is keyset: the cursor carries the query and the last item's (sort key, uuid), so a
 * page is "the first `pageSize` matches strictly after that key". Records added or removed
 * between pages therefore never make the walk repeat or skip a record that stays. The cursor is
 * base64url JSON plus an HMAC over it, bound to the tenant and valid for a limited time.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { SimBadRequest } from './errors.js';
import type { Wire } from './format.js';
import type { Owned } from './model.js';
import { readPage, type PageRequest, type PageResult } from './paging.js';
import { compileConditions, keyOf, parseFilter, type FieldTypes, type SortKey } from './query.js';
import type { SimulatorStore, Table } from './store.js';
import { DIRECTORY_WIRE, HOST_WIRE, SNS_ENDPOINT_WIRE, SNS_PLATFORM_WIRE, VM_WIRE, VOLUME_WIRE, type WireRecord } from './wire.js';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 1000;
export const DEFAULT_CURSOR_TTL_MS = 15 * 60 * 1000;

interface ResourceType {
  fields: FieldTypes;
  read: (store: SimulatorStore, request: PageRequest) => PageResult<Owned>;
  toWire: (store: SimulatorStore, record: Owned) => Wire;
}

function resourceType<T extends Owned>(wire: WireRecord<T>, table: (store: SimulatorStore) => Table<T>): ResourceType {
  return {
    fields: wire.queryable,
    read: (store, request) => readPage(table(store), request),
    toWire: (store, record) => store.wire.write(wire, record as T),
  };
}

/** The resourceTypes the family serves, with their tables and wire records. */
const RESOURCE_TYPES: Readonly<Record<string, ResourceType>> = {
  host: resourceType(HOST_WIRE, (store) => store.hosts),
  vm: resourceType(VM_WIRE, (store) => store.vms),
  volume: resourceType(VOLUME_WIRE, (store) => store.volumes),
  'sns-application-platform': resourceType(SNS_PLATFORM_WIRE, (store) => store.snsPlatforms),
  'sns-application-endpoint': resourceType(SNS_ENDPOINT_WIRE, (store) => store.snsEndpoints),
  directory: resourceType(DIRECTORY_WIRE, (store) => store.directories),
};

export const RESOURCE_TYPE_NAMES: readonly string[] = Object.keys(RESOURCE_TYPES);

/** What a cursor carries (and what CursorQuery builds from its parameters). */
interface CursorState {
  /** Format version. */
  v: 1;
  /** Tenant the cursor belongs to. */
  t: string;
  resourceType: string;
  sort: string;
  order: 'asc' | 'desc';
  pageSize: number;
  filters: string[];
  /** Sort key and uuid of the last item served. */
  after: { key: SortKey; uuid: string } | null;
  /** Expiry, epoch ms. */
  exp: number;
}

export interface CursorPage {
  items: Wire[];
  total: number;
  nextCursor: string | null;
  hasMore: boolean;
}

export interface CursorServiceOptions {
  /** How long a cursor stays valid. @default 15 minutes */
  ttlMs?: number;
  /** HMAC key; a fresh random one per service by default. */
  secret?: Buffer;
  now?: () => number;
}

/** Serves CursorQuery and CursorNext for one simulator (one signing secret). */
export class CursorService {
  private readonly secret: Buffer;
  private readonly now: () => number;
  ttlMs: number;
  /** Records the last page examined to answer (read by tests: it follows the page, not the estate). */
  visited = 0;

  constructor(
    private readonly store: SimulatorStore,
    options: CursorServiceOptions = {},
  ) {
    this.secret = options.secret ?? randomBytes(32);
    this.ttlMs = options.ttlMs ?? DEFAULT_CURSOR_TTL_MS;
    this.now = options.now ?? Date.now;
  }

  /** `GET /api/v1/resources/cursor-query`. */
  query(params: URLSearchParams, tenantId: string): CursorPage {
    const resourceTypeName = params.get('resourceType') ?? '';
    const resourceType = RESOURCE_TYPES[resourceTypeName];
    if (resourceType === undefined) {
      throw new SimBadRequest(
        `unknown resourceType "${resourceTypeName}"; one of: ${RESOURCE_TYPE_NAMES.join(', ')}`,
      );
    }
    const sort = params.get('sort') || 'createDate';
    if (resourceType.fields[sort] === undefined) {
      throw new SimBadRequest(`cannot sort ${resourceTypeName} by unknown field "${sort}"`);
    }
    const order = params.get('order') || 'asc';
    if (order !== 'asc' && order !== 'desc') throw new SimBadRequest(`order must be asc or desc, got "${order}"`);
    const state: CursorState = {
      v: 1,
      t: tenantId,
      resourceType: resourceTypeName,
      sort,
      order,
      pageSize: readPageSize(params.get('pageSize'), DEFAULT_PAGE_SIZE),
      filters: params.getAll('filter'),
      after: null,
      exp: 0,
    };
    return this.page(state, resourceType);
  }

  /** `GET /api/v1/resources/cursor-next`. */
  next(params: URLSearchParams, tenantId: string): CursorPage {
    const token = params.get('cursor');
    if (token === null || token === '') throw new SimBadRequest('cursor is required');
    const state = this.open(token);
    if (state.t !== tenantId) throw new SimBadRequest('invalid cursor: it belongs to another tenant');
    if (state.exp <= this.now()) throw new SimBadRequest('invalid cursor: it has expired; start again with cursor-query');
    const resourceType = RESOURCE_TYPES[state.resourceType];
    if (resourceType === undefined) throw new SimBadRequest('invalid cursor: unknown resourceType');
    state.pageSize = readPageSize(params.get('pageSize'), state.pageSize);
    return this.page(state, resourceType);
  }

  private page(state: CursorState, resourceType: ResourceType): CursorPage {
    const conditions = state.filters.map(parseFilter);
    const predicate = compileConditions(conditions, resourceType.fields, this.store.timeZone);
    const { sort } = state;
    const found = resourceType.read(this.store, {
      tenantId: state.t,
      conditions,
      predicate,
      fields: resourceType.fields,
      sort,
      order: state.order,
      pageSize: state.pageSize,
      after: state.after,
    });
    this.visited = found.visited;
    const { total } = found;
    const page = found.records;
    const hasMore = page.length > state.pageSize;
    if (hasMore) page.length = state.pageSize;
    const last = page[page.length - 1];
    const nextCursor =
      hasMore && last !== undefined
        ? this.seal({ ...state, after: { key: keyOf(last, sort), uuid: last.uuid }, exp: this.now() + this.ttlMs })
        : null;
    return { items: page.map((record) => resourceType.toWire(this.store, record)), total, nextCursor, hasMore };
  }

  private seal(state: CursorState): string {
    const body = Buffer.from(JSON.stringify(state)).toString('base64url');
    return `${body}.${this.sign(body)}`;
  }

  private open(token: string): CursorState {
    const dot = token.lastIndexOf('.');
    if (dot <= 0) throw new SimBadRequest('invalid cursor: not a cursor issued by this service');
    const body = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1), 'base64url');
    const expected = Buffer.from(this.sign(body), 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new SimBadRequest('invalid cursor: signature mismatch (tampered, or not issued by this service)');
    }
    try {
      const state = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as CursorState;
      if (state.v !== 1) throw new Error('version');
      return state;
    } catch {
      throw new SimBadRequest('invalid cursor: unreadable');
    }
  }

  private sign(body: string): string {
    return createHmac('sha256', this.secret).update(body).digest('base64url');
  }
}

function readPageSize(text: string | null, fallback: number): number {
  if (text === null || text === '') return fallback;
  if (!/^-?\d+$/.test(text)) throw new SimBadRequest(`pageSize must be an integer, got "${text}"`);
  const size = Number(text);
  if (size < 1 || size > MAX_PAGE_SIZE) {
    throw new SimBadRequest(`pageSize must be between 1 and ${MAX_PAGE_SIZE}, got ${size}`);
  }
  return size;
}
