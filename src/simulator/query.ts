/**
 * Query languages of both families, compiled to predicates over stored records:
 * - the resource family's `q=<field><op><value>` with `limit`, `start`, `replyWithCount`,
 *   `count` and `sort=+field|-field`;
 * - the cursor family's `filter=<field>:<op>:<value>`.
 * Conditions name top-level scalar fields of the wire record (the stored records use the same
 * names), or a field of the items of a nested list (`scsiLunHostRefs.hostUuid`: the service's
 * expanded query, met when any item meets it) where the record declares one; an unknown field or
 * a malformed condition is a `SimBadRequest` (400 plain text).
 */
import { SimBadRequest } from './errors.js';
import { parseTimestamp } from './format.js';

export type FieldType = 'string' | 'number' | 'boolean' | 'date';

/** The queryable (top-level scalar) fields of one record kind and their types (see `wire.ts`). */
export type FieldTypes = Readonly<Record<string, FieldType>>;

export type Operator = 'eq' | 'ne' | 'gt' | 'ge' | 'lt' | 'le' | 'in' | 'nin' | 'like' | 'nlike' | 'null' | 'notnull';

/** One parsed condition, as written by the caller. */
export interface Condition {
  field: string;
  op: Operator;
  values: string[];
}

/** A comparable form of a field value: dates as epoch ms, absent as null. */
export type SortKey = string | number | boolean | null;

export type Predicate = (record: object) => boolean;

const Q_OPERATORS: readonly [string, Operator][] = [
  ['!?=', 'nin'],
  ['!~=', 'nlike'],
  ['?=', 'in'],
  ['~=', 'like'],
  ['!=', 'ne'],
  ['>=', 'ge'],
  ['<=', 'le'],
  ['=', 'eq'],
  ['>', 'gt'],
  ['<', 'lt'],
];

const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z][A-Za-z0-9_]*)?$/;

/** Parses one `q` value (`name=web-001`, `cpuNum>=4`, `hostUuid is null`, ...). */
export function parseQ(text: string): Condition {
  const nullMatch = /^\s*([^\s]+)\s+(is null|not null)\s*$/i.exec(text);
  if (nullMatch !== null) {
    const field = nullMatch[1] ?? '';
    return { field: checkFieldName(field, text), op: nullMatch[2]?.toLowerCase() === 'is null' ? 'null' : 'notnull', values: [] };
  }
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char !== '=' && char !== '!' && char !== '?' && char !== '~' && char !== '>' && char !== '<') continue;
    const spelling = Q_OPERATORS.find(([candidate]) => text.startsWith(candidate, i));
    if (spelling === undefined) break;
    const [symbol, op] = spelling;
    const field = checkFieldName(text.slice(0, i).trim(), text);
    const raw = text.slice(i + symbol.length);
    return { field, op, values: op === 'in' || op === 'nin' ? raw.split(',') : [raw] };
  }
  throw new SimBadRequest(`malformed query condition "${text}": expected <field><operator><value>`);
}

function checkFieldName(field: string, text: string): string {
  if (!FIELD_NAME.test(field)) throw new SimBadRequest(`malformed query condition "${text}": bad field name`);
  return field;
}

const FILTER_OPERATORS: ReadonlySet<string> = new Set(['eq', 'ne', 'in', 'nin', 'like', 'gt', 'ge', 'lt', 'le']);

/** Parses one `filter` value: `<field>:<op>:<value>` (the value may itself hold colons). */
export function parseFilter(text: string): Condition {
  const first = text.indexOf(':');
  const second = first < 0 ? -1 : text.indexOf(':', first + 1);
  if (first < 0 || second < 0) {
    throw new SimBadRequest(`malformed filter "${text}": expected <field>:<op>:<value>`);
  }
  const field = text.slice(0, first);
  const op = text.slice(first + 1, second);
  const raw = text.slice(second + 1);
  if (!FIELD_NAME.test(field)) throw new SimBadRequest(`malformed filter "${text}": bad field name`);
  if (!FILTER_OPERATORS.has(op)) {
    throw new SimBadRequest(`malformed filter "${text}": unknown operator "${op}" (eq, ne, in, nin, like, gt, ge, lt, le)`);
  }
  return { field, op: op as Operator, values: op === 'in' || op === 'nin' ? raw.split(',') : [raw] };
}

/** Compiles conditions (ANDed) against a kind's fields; unknown fields and bad values are 400s. */
export function compileConditions(conditions: readonly Condition[], fields: FieldTypes, timeZone: string): Predicate {
  const predicates = conditions.map((condition) => compileCondition(condition, fields, timeZone));
  if (predicates.length === 0) return () => true;
  return (record) => {
    for (const predicate of predicates) if (!predicate(record)) return false;
    return true;
  };
}

function compileCondition(condition: Condition, fields: FieldTypes, timeZone: string): Predicate {
  const { field } = condition;
  const type = fields[field];
  if (type === undefined) throw new SimBadRequest(`unknown field "${field}"; queryable fields: ${Object.keys(fields).join(', ')}`);
  const test = compileTest(condition, type, timeZone);
  const dot = field.indexOf('.');
  if (dot < 0) return (record) => test(keyOf(record, field));
  // A field of a nested list's items: the record meets the condition when one of its items does.
  const list = field.slice(0, dot);
  const itemField = field.slice(dot + 1);
  return (record) => {
    const items = (record as Record<string, unknown>)[list];
    return Array.isArray(items) && items.some((item) => typeof item === 'object' && item !== null && test(keyOf(item, itemField)));
  };
}

/** Whether one value meets `condition` (a field of `type`). */
function compileTest(condition: Condition, type: FieldType, timeZone: string): (value: SortKey) => boolean {
  const { field, op } = condition;
  if (op === 'null') return (value) => value === null;
  if (op === 'notnull') return (value) => value !== null;
  if (op === 'like' || op === 'nlike') {
    if (type !== 'string') throw new SimBadRequest(`operator like needs a text field; "${field}" is ${type}`);
    const pattern = likePattern(condition.values[0] ?? '');
    return op === 'like' ? (value) => typeof value === 'string' && pattern.test(value) : (value) => typeof value === 'string' && !pattern.test(value);
  }
  const operands = condition.values.map((value) => parseOperand(value, type, field, timeZone));
  if (op === 'in' || op === 'nin') {
    const set = new Set<SortKey>(operands);
    return op === 'in' ? (value) => value !== null && set.has(value) : (value) => value !== null && !set.has(value);
  }
  const operand = operands[0] as SortKey;
  return (value) => {
    if (value === null) return false;
    const order = compareKeys(value, operand);
    switch (op) {
      case 'eq':
        return order === 0;
      case 'ne':
        return order !== 0;
      case 'gt':
        return order > 0;
      case 'ge':
        return order >= 0;
      case 'lt':
        return order < 0;
      default:
        return order <= 0;
    }
  };
}

function parseOperand(text: string, type: FieldType, field: string, timeZone: string): SortKey {
  switch (type) {
    case 'number': {
      const value = Number(text);
      if (text.trim() === '' || !Number.isFinite(value)) throw new SimBadRequest(`"${field}" needs a number, got "${text}"`);
      return value;
    }
    case 'boolean':
      if (text !== 'true' && text !== 'false') throw new SimBadRequest(`"${field}" needs true or false, got "${text}"`);
      return text === 'true';
    case 'date': {
      const date = parseTimestamp(text, timeZone);
      if (date === null) throw new SimBadRequest(`"${field}" needs a timestamp, got "${text}"`);
      return date.getTime();
    }
    default:
      return text;
  }
}

function likePattern(text: string): RegExp {
  const body = text
    .split('%')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`, 'is');
}

/** A record's field as a comparable key: `Date` → epoch ms; undefined → null. */
export function keyOf(record: object, field: string): SortKey {
  const value = (record as Record<string, unknown>)[field];
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return null;
}

/** Total order on keys: null first, then by value (strings by code unit). */
export function compareKeys(a: SortKey, b: SortKey): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return a ? 1 : -1;
  const sa = String(a);
  const sb = String(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

export interface ResourceQuery {
  conditions: Condition[];
  predicate: Predicate;
  limit: number;
  start: number;
  replyWithCount: boolean;
  /** `count=true`: answer only `total`. */
  countOnly: boolean;
  sort: { field: string; descending: boolean } | null;
}

/** Reads a resource-family query string (`q`, `limit`, `start`, `replyWithCount`, `count`, `sort`). */
export function parseResourceQuery(params: URLSearchParams, fields: FieldTypes, timeZone: string): ResourceQuery {
  const conditions = params.getAll('q').map(parseQ);
  const sortParam = params.get('sort');
  let sort: ResourceQuery['sort'] = null;
  if (sortParam !== null && sortParam !== '') {
    // An unencoded `+` arrives as a space.
    const descending = sortParam.startsWith('-');
    const field = sortParam.replace(/^[+\- ]/, '').trim();
    if (fields[field] === undefined || field.includes('.')) throw new SimBadRequest(`cannot sort by unknown field "${field}"`);
    sort = { field, descending };
  }
  return {
    conditions,
    predicate: compileConditions(conditions, fields, timeZone),
    limit: readCount(params, 'limit', 1000),
    start: readCount(params, 'start', 0),
    replyWithCount: readFlag(params, 'replyWithCount'),
    countOnly: readFlag(params, 'count'),
    sort,
  };
}

function readCount(params: URLSearchParams, name: string, fallback: number): number {
  const text = params.get(name);
  if (text === null || text === '') return fallback;
  if (!/^\d+$/.test(text)) throw new SimBadRequest(`${name} must be a non-negative integer, got "${text}"`);
  return Number(text);
}

function readFlag(params: URLSearchParams, name: string): boolean {
  const text = params.get(name);
  if (text === null || text === '' || text === 'false') return false;
  if (text === 'true') return true;
  throw new SimBadRequest(`${name} must be true or false, got "${text}"`);
}

/** The uuids a query names with `uuid=` / `uuid?=`, for a direct map lookup; null when none. */
export function namedUuids(query: ResourceQuery): string[] | null {
  let named: string[] | null = null;
  for (const condition of query.conditions) {
    if (condition.field !== 'uuid' || (condition.op !== 'eq' && condition.op !== 'in')) continue;
    named = named === null ? condition.values : named.filter((uuid) => condition.values.includes(uuid));
  }
  return named;
}

/** Filters, sorts and pages `records`; `total` counts every match. */
export function runResourceQuery<T extends { uuid: string }>(records: Iterable<T>, query: ResourceQuery): { items: T[]; total: number } {
  const matches: T[] = [];
  for (const record of records) if (query.predicate(record)) matches.push(record);
  if (query.sort !== null) {
    const { field, descending } = query.sort;
    const sign = descending ? -1 : 1;
    matches.sort((a, b) => sign * compareKeys(keyOf(a, field), keyOf(b, field)) || compareKeys(a.uuid, b.uuid));
  }
  return { items: matches.slice(query.start, query.start + query.limit), total: matches.length };
}
