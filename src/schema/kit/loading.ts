/**
 * Pieces of DataLoader batch functions: per-request loaders, results matched to keys by key
 * (never by position), a missing key an error in its own slot only. The upstream reads by keys
 * are the families' `whereIn` (`families.ts`).
 */
import { dataloaderGetter } from '@pothos/plugin-dataloader';
import { GraphQLError } from 'graphql';
import type { GatewayContext } from '../../context.js';
import { isUpstreamRequestError } from '../../upstream/errors.js';
import type { Condition, Sort } from '../../upstream/families.js';
import { UnreadableRecord, type Readable } from '../../upstream/wire.js';
import { unreadableRecordError } from './errors.js';

/**
 * A per-request DataLoader by uuid, from Pothos' own getter so that `clearAllDataLoaders` (see
 * `useReleaseLoadedRecords`) empties it with the request's other loaders.
 */
export function requestLoader<V>(load: (keys: readonly string[], context: GatewayContext) => Promise<V[]>) {
  // The getter is typed for any schema's context; ours is always a GatewayContext.
  return dataloaderGetter<string, V, string>(undefined, (keys, context) => load(keys, context as GatewayContext), undefined, undefined);
}

/** What a nested connection asks of each parent's children besides being theirs: conditions and an order. */
export interface ChildQuery {
  readonly where: readonly Condition[];
  readonly sort?: Sort | undefined;
}

/** A parent's children as a `childrenLoader` is keyed: the parent's uuid (no space in it), then the query. */
export function childKey(parentUuid: string, query: ChildQuery): string {
  return `${parentUuid} ${JSON.stringify([query.where, query.sort ?? null])}`;
}

/**
 * A per-request loader of each parent's whole list of children meeting a `ChildQuery`, keyed by
 * `childKey`: the parents of one batch asking the same query share one `load` (one upstream read
 * for all of them), those asking another query (an alias with other filters) one of their own.
 * A query that fails gives its error to its own keys only.
 */
export function childrenLoader<T>(load: (parentUuids: readonly string[], query: ChildQuery, context: GatewayContext) => Promise<T[][]>) {
  return requestLoader<T[]>(async (keys, context) => {
    const groups = new Map<string, { query: ChildQuery; parents: string[]; slots: number[] }>();
    keys.forEach((key, slot) => {
      const space = key.indexOf(' ');
      const queryText = key.slice(space + 1);
      let group = groups.get(queryText);
      if (group === undefined) {
        const [where, sort] = JSON.parse(queryText) as [Condition[], Sort | null];
        groups.set(queryText, (group = { query: { where, sort: sort ?? undefined }, parents: [], slots: [] }));
      }
      group.parents.push(key.slice(0, space));
      group.slots.push(slot);
    });
    const results: (T[] | Error)[] = new Array(keys.length);
    await Promise.all(
      [...groups.values()].map(async ({ query, parents, slots }) => {
        const lists = await load(parents, query, context).catch((error: unknown) => error as Error);
        slots.forEach((slot, index) => (results[slot] = lists instanceof Error ? lists : lists[index]!));
      }),
    );
    // DataLoader takes an Error in the slot of a key that failed.
    return results as T[][];
  });
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

/**
 * Orders records read by uuid as `uuids` are: a record the gateway cannot read gives its error to
 * its own uuid only. A uuid with no record is `missing`, unless a record whose uuid cannot be read
 * came too: that one may be it, so the uuid gets that record's error rather than a false
 * "not found". Each slot's error is its own object (Pothos brands a slot's value with its type).
 */
export function matchByUuid<T extends { uuid: string }>(
  uuids: readonly string[],
  records: readonly Readable<T>[],
  missing: (uuid: string) => Error,
): (T | Error)[] {
  const byUuid = new Map<string, T | UnreadableRecord>();
  let anonymous: UnreadableRecord | undefined;
  for (const record of records) {
    if (!(record instanceof UnreadableRecord)) byUuid.set(record.uuid, record);
    else if (record.uuid !== null) byUuid.set(record.uuid, record);
    else anonymous ??= record;
  }
  return uuids.map((uuid) => {
    const found = byUuid.get(uuid) ?? anonymous;
    if (found === undefined) return missing(uuid);
    return found instanceof UnreadableRecord ? unreadableRecordError(found) : found;
  });
}

/**
 * Groups `records` under each key by the uuid they hold in `field` (records with no key of the
 * batch are dropped). A record the gateway cannot read goes under the key its wire text names, in
 * its place, so its parent's list shows it as an error; one naming no readable key cannot be placed.
 */
export function groupByField<T, F extends keyof T & string>(keys: readonly string[], records: Iterable<Readable<T>>, field: F): Readable<T>[][] {
  const groups = new Map<string, Readable<T>[]>(keys.map((key) => [key, []]));
  for (const record of records) {
    const key = record instanceof UnreadableRecord ? record.text(field) : (record[field] as string | null);
    if (key !== null) groups.get(key)?.push(record);
  }
  return keys.map((key) => groups.get(key) ?? []);
}
