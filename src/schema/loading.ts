/**
 * Batch functions for DataLoaders: one upstream request per batch (an in-list condition), split
 * into chunks of `maxBatchSize`, results matched to keys by key (never by position), a missing
 * key an error in its own slot only.
 */
import { dataloaderGetter } from '@pothos/plugin-dataloader';
import { GraphQLError } from 'graphql';
import type { GatewayContext } from '../context.js';
import { readOptions, requireCursorCredential, requireResourceCredential } from '../context.js';
import { observeBatch } from '../metrics.js';
import { isUpstreamRequestError } from '../upstream/errors.js';
import type {
  CursorFilter,
  CursorResourceType,
  CursorResourceTypes,
  QueryCollection,
  QueryCollections,
} from '../upstream/types.js';

/** Largest page of either family used when loading every child of a set of parents. */
const LOAD_PAGE_SIZE = 1000;

/**
 * A per-request DataLoader by uuid, from Pothos' own getter so that `clearAllDataLoaders` (see
 * `useReleaseLoadedRecords`) empties it with the request's other loaders.
 */
export function requestLoader<V>(load: (keys: readonly string[], context: GatewayContext) => Promise<V[]>) {
  // The getter is typed for any schema's context; ours is always a GatewayContext.
  return dataloaderGetter<string, V, string>(undefined, (keys, context) => load(keys, context as GatewayContext), undefined, undefined);
}

/** A record the caller asked for by uuid that the upstream does not have (or does not show this caller). */
export function notFound(typeName: string, uuid: string): GraphQLError {
  return new GraphQLError(`No ${typeName} with uuid ${uuid}.`, { extensions: { code: 'NOT_FOUND', uuid, type: typeName } });
}

/**
 * The error of a record embedded in a parent that failed to load (a VM's NIC when the VM could
 * not be read): `NOT_FOUND` of the record itself when the parent does not exist, else a copy of
 * the parent's error. Never the parent's error object itself: Pothos brands the value of each
 * `nodes` slot with its type, and one object shared by a VmNic and a UsedIp slot cannot carry
 * two brands.
 */
export function embeddedLoadError(parentError: Error, typeName: string, uuid: string): Error {
  if (isMissingRecordError(parentError)) return notFound(typeName, uuid);
  return new GraphQLError(parentError.message, { originalError: parentError });
}

function isMissingRecordError(error: Error): boolean {
  if (error instanceof GraphQLError) return error.extensions.code === 'NOT_FOUND';
  // A per-record GET of a uuid the upstream does not know answers SYS.1003 (or 404).
  return isUpstreamRequestError(error) && (error.code === 'UPSTREAM_NOT_FOUND' || error.errorCode?.code === 'SYS.1003');
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let index = 0; index < items.length; index += size) chunks.push(items.slice(index, index + size));
  return chunks;
}

/** Orders `records` by `keys`, an error in the slot of each key with no record. */
export function matchByKey<T>(
  keys: readonly string[],
  records: Iterable<T>,
  keyOf: (record: T) => string,
  missing: (key: string) => Error,
): (T | Error)[] {
  const byKey = new Map<string, T>();
  for (const record of records) byKey.set(keyOf(record), record);
  return keys.map((key) => byKey.get(key) ?? missing(key));
}

/** Groups `records` under each key (records with no key of the batch are dropped). */
export function groupByKey<T>(keys: readonly string[], records: Iterable<T>, keyOf: (record: T) => string | null): T[][] {
  const groups = new Map<string, T[]>(keys.map((key) => [key, []]));
  for (const record of records) {
    const key = keyOf(record);
    if (key !== null) groups.get(key)?.push(record);
  }
  return keys.map((key) => groups.get(key) ?? []);
}

/**
 * Every record of a generic-family resource type whose `field` is one of `values`: one
 * CursorQuery per chunk of values, followed by CursorNext while the upstream has more.
 */
export async function loadCursorRecordsWhereIn<K extends CursorResourceType>(
  context: GatewayContext,
  resourceType: K,
  field: string,
  values: readonly string[],
  extraFilter: readonly CursorFilter[] = [],
): Promise<CursorResourceTypes[K][]> {
  const credential = requireCursorCredential(context);
  const distinct = [...new Set(values)];
  observeBatch(context, resourceType, distinct.length);
  const options = readOptions(context);
  const pages = await Promise.all(
    chunk(distinct, context.maxBatchSize).map(async (keys) => {
      const records: CursorResourceTypes[K][] = [];
      let page = await context.upstream.cursorQuery(
        credential,
        {
          resourceType,
          pageSize: LOAD_PAGE_SIZE,
          filter: [...extraFilter, { field, op: keys.length === 1 ? 'eq' : 'in', value: keys.length === 1 ? keys[0]! : keys }],
        },
        options,
      );
      records.push(...page.items);
      while (page.hasMore && page.nextCursor !== null) {
        page = await context.upstream.cursorNext(credential, { resourceType, cursor: page.nextCursor, pageSize: LOAD_PAGE_SIZE }, options);
        records.push(...page.items);
      }
      return records;
    }),
  );
  return pages.flat();
}

/**
 * Every record of a resource-family collection whose `field` is one of `values`: one query per
 * chunk of values (`q=<field>?=a,b,c`), followed by further pages while `total` says so.
 */
export async function loadQueryRecordsWhereIn<C extends QueryCollection>(
  context: GatewayContext,
  collection: C,
  field: string,
  values: readonly string[],
): Promise<QueryCollections[C][]> {
  const credential = requireResourceCredential(context);
  const distinct = [...new Set(values)];
  observeBatch(context, collection, distinct.length);
  const options = readOptions(context);
  const pages = await Promise.all(
    chunk(distinct, context.maxBatchSize).map(async (keys) => {
      const records: QueryCollections[C][] = [];
      const conditions = [keys.length === 1 ? { field, op: '=' as const, value: keys[0]! } : { field, op: '?=' as const, value: keys }];
      for (;;) {
        const result = await context.upstream.query(
          credential,
          collection,
          { conditions, limit: LOAD_PAGE_SIZE, start: records.length, replyWithCount: true },
          options,
        );
        records.push(...result.inventories);
        const total = result.total ?? records.length;
        if (result.inventories.length === 0 || records.length >= total) return records;
      }
    }),
  );
  return pages.flat();
}
