/**
 * Pieces of DataLoader batch functions: per-request loaders, results matched to keys by key
 * (never by position), a missing key an error in its own slot only. The upstream reads by keys
 * are the families' `whereIn` (`families.ts`).
 */
import { dataloaderGetter } from '@pothos/plugin-dataloader';
import { GraphQLError } from 'graphql';
import type { GatewayContext } from '../../context.js';
import { isUpstreamRequestError } from '../../upstream/errors.js';

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
