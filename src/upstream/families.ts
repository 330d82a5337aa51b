/**
 * The two upstream families as one interface: conditions stated once in family-neutral terms
 * (`Condition`), spelled by each family (the cursor family's `filter=field:op:value`, the
 * resource family's `q=` conditions): the one place that writes either, down to the wire text
 * the client sends. And a read of every record meeting them, page after page.
 *
 * The Relay side (sealed cursors, `first`/`after`) is the schema's: `schema/kit/families.ts`.
 */
import { CursorQuery, QUERY_OPERATIONS } from './operations/index.js';
import type { Release } from './releases.js';
import type { Readable } from './wire.js';
import type { CredentialFamily, UpstreamSession } from './session.js';
import type {
  CursorFilter,
  CursorQueryRequest,
  CursorResourceType,
  CursorResourceTypes,
  ResourceCollection,
  ResourceCollections,
  QueryCondition,
  QueryRequest,
} from './types.js';

/** Operators of a `Condition`; each family spells them in its own syntax. */
export type ConditionOperator = 'eq' | 'ne' | 'gt' | 'ge' | 'lt' | 'le' | 'contains' | 'in' | 'notIn';

/**
 * One condition on a record field. `contains` matches the text anywhere in the field; `in` with
 * one value is an equality, and with none matches nothing (the client answers an empty result
 * without a request); `notIn` with none matches everything.
 */
export type Condition =
  | { readonly field: string; readonly op: Exclude<ConditionOperator, 'in' | 'notIn'>; readonly value: string }
  | { readonly field: string; readonly op: 'in' | 'notIn'; readonly value: readonly string[] };

/** A sort key; without a direction each family uses its own default. */
export interface Sort {
  readonly field: string;
  readonly direction?: 'asc' | 'desc' | undefined;
}

/** Largest page of either family used when reading every record that meets a condition. */
const READ_ALL_PAGE_SIZE = 1000;

/** One family's spelling of each operator; `contains` is a like-match of `%text%`. */
type Operators<Op extends string> = { readonly [K in ConditionOperator]: Op };

const CURSOR_OPERATORS = { eq: 'eq', ne: 'ne', gt: 'gt', ge: 'ge', lt: 'lt', le: 'le', contains: 'like', in: 'in', notIn: 'nin' } as const;

const QUERY_OPERATORS = { eq: '=', ne: '!=', gt: '>', ge: '>=', lt: '<', le: '<=', contains: '~=', in: '?=', notIn: '!?=' } as const;

/** `where` in one family's operators: both spell an `in` of one value as an equality. */
function spell<Op extends string>(where: readonly Condition[], operators: Operators<Op>): { field: string; op: Op; value: string | readonly string[] }[] {
  return where.map((condition) => {
    const { field } = condition;
    if (condition.op === 'contains') return { field, op: operators.contains, value: `%${condition.value}%` };
    if (condition.op === 'in' && condition.value.length === 1) return { field, op: operators.eq, value: condition.value[0]! };
    return { field, op: operators[condition.op], value: condition.value };
  });
}

/** The cursor family's `filter=` spelling of `where`. */
export function toCursorFilters(where: readonly Condition[]): CursorFilter[] {
  return spell(where, CURSOR_OPERATORS);
}

/** The resource family's `q=` spelling of `where`. */
export function toQueryConditions(where: readonly Condition[]): QueryCondition[] {
  return spell(where, QUERY_OPERATORS);
}

// Type aliases, not interfaces: operations take their parameters as a record.

/** The parameters of a resource-family query operation (`QUERY_OPERATIONS`), as sent. */
export type QueryParams = {
  readonly q: readonly string[];
  readonly limit: number | undefined;
  readonly start: number | undefined;
  /** `+field` or `-field`. */
  readonly sort: string | undefined;
  readonly replyWithCount: true | undefined;
};

/** The parameters of `CursorQuery`, as sent. */
export type CursorQueryParams = {
  readonly resourceType: string;
  readonly sort: string | undefined;
  readonly order: 'asc' | 'desc' | undefined;
  readonly pageSize: number | undefined;
  readonly filter: readonly string[];
};

/** A query's wire parameters; null when one of its conditions matches nothing (the answer is empty without a request). */
export function queryParamsOf(request: QueryRequest): QueryParams | null {
  const q = spellAll(request.conditions ?? [], conditionText);
  if (q === null) return null;
  return {
    q,
    limit: request.limit,
    start: request.start,
    sort: request.sort === undefined ? undefined : `${request.sort.direction === 'desc' ? '-' : '+'}${request.sort.field}`,
    replyWithCount: request.replyWithCount ? true : undefined,
  };
}

/** A cursor query's wire parameters; null when one of its filters matches nothing (the answer is empty without a request). */
export function cursorQueryParamsOf(request: CursorQueryRequest): CursorQueryParams | null {
  const filter = spellAll(request.filter ?? [], filterText);
  if (filter === null) return null;
  return { resourceType: request.resourceType, sort: request.sort, order: request.order, pageSize: request.pageSize, filter };
}

/** Each condition's text, those always true left out; null when one is never true. */
function spellAll<C>(conditions: readonly C[], textOf: (condition: C) => string | null): string[] | null {
  const texts: string[] = [];
  for (const condition of conditions) {
    const text = textOf(condition);
    if (text === null) return null;
    if (text !== '') texts.push(text);
  }
  return texts;
}

/** `<field><op><value>`; `''` for a condition that is always true, null for one never true. */
function conditionText(condition: QueryCondition): string | null {
  if (!('value' in condition)) return `${condition.field} ${condition.op}`;
  if (typeof condition.value !== 'string' && condition.value.length === 0) {
    // "in ()" matches nothing and "not in ()" everything; the wire has no spelling for either.
    if (condition.op === '?=') return null;
    if (condition.op === '!?=') return '';
  }
  return `${condition.field}${condition.op}${joinValue(condition.value)}`;
}

/** `<field>:<op>:<value>`; `''` for a filter that is always true, null for one never true. */
function filterText(filter: CursorFilter): string | null {
  if (typeof filter.value !== 'string' && filter.value.length === 0) {
    if (filter.op === 'in') return null;
    if (filter.op === 'nin') return '';
  }
  return `${filter.field}:${filter.op}:${joinValue(filter.value)}`;
}

function joinValue(value: string | readonly string[]): string {
  return typeof value === 'string' ? value : value.join(',');
}

/** A family's read of a set of records, whatever its paging. */
export interface UpstreamFamily<R> {
  /** The records' name upstream (resource type or collection), for metrics and cursor bindings. */
  readonly name: string;
  /** The credential its reads need. */
  readonly credential: CredentialFamily;
  /** The release that brought its reads (CursorQuery's, or the collection's query operation's). */
  readonly since: Release;
  /**
   * Every record meeting `where`, in `sort`'s order: the first page, then the next while the
   * upstream has more. One the gateway cannot read is an `UnreadableRecord` in its place.
   */
  readAll(session: UpstreamSession, where: readonly Condition[], sort?: Sort): Promise<Readable<R>[]>;
}

/** The cursor family: CursorQuery, then CursorNext while `hasMore`. */
export function cursorFamilyOf<K extends CursorResourceType>(resourceType: K): UpstreamFamily<CursorResourceTypes[K]> {
  return {
    name: resourceType,
    credential: 'cursor',
    since: CursorQuery.since,
    async readAll(session, where, sort) {
      const records: Readable<CursorResourceTypes[K]>[] = [];
      const order = sort === undefined ? {} : { sort: sort.field, ...(sort.direction === undefined ? {} : { order: sort.direction }) };
      let page = await session.cursorQuery({ resourceType, pageSize: READ_ALL_PAGE_SIZE, filter: toCursorFilters(where), ...order });
      records.push(...page.items);
      while (page.hasMore && page.nextCursor !== null) {
        page = await session.cursorNext({ resourceType, cursor: page.nextCursor, pageSize: READ_ALL_PAGE_SIZE });
        records.push(...page.items);
      }
      return records;
    },
  };
}

/** The resource family's query of `collection` (`q=`), page after page while `total` says so. */
export function resourceFamilyOf<C extends ResourceCollection>(collection: C): UpstreamFamily<ResourceCollections[C]> {
  return {
    name: collection,
    credential: 'resource',
    since: QUERY_OPERATIONS[collection].since,
    async readAll(session, where, sort) {
      const records: Readable<ResourceCollections[C]>[] = [];
      const conditions = toQueryConditions(where);
      const order = sort === undefined ? {} : { sort: { field: sort.field, direction: sort.direction ?? 'asc' } };
      for (;;) {
        const result = await session.query(collection, { conditions, limit: READ_ALL_PAGE_SIZE, start: records.length, replyWithCount: true, ...order });
        records.push(...result.inventories);
        const total = result.total ?? records.length;
        if (result.inventories.length === 0 || records.length >= total) return records;
      }
    },
  };
}
