/**
 * The cursor family (the spec's "Generic cursor query", since 1.0.0): CursorQuery starts a
 * query and answers its first page, CursorNext follows `nextCursor`.
 */
import { DecodeError, type RecordDecoder } from '../decode.js';
import { DEFAULT_CURSOR_SORT, type CursorPage, type CursorResourceType, type CursorResourceTypes, type WireSortKey } from '../types.js';
import { defineOperation } from './define.js';
import { optionalCount, type ItemDecoder } from './results.js';

/** Any record the cursor family serves. */
export type CursorRecord = CursorResourceTypes[CursorResourceType];

/** The decoder of each resource type the cursor family serves. */
const ITEM_DECODERS = {
  host: 'host',
  vm: 'vmInstance',
  volume: 'volume',
  'sns-application-platform': 'snsApplicationPlatform',
  'sns-application-endpoint': 'snsApplicationEndpoint',
  directory: 'directory',
} as const satisfies { readonly [K in CursorResourceType]: keyof RecordDecoder };

/** The record definition (`RECORDS`) of the items of `resourceType`. */
export function cursorRecordOf(resourceType: CursorResourceType): (typeof ITEM_DECODERS)[CursorResourceType] {
  return ITEM_DECODERS[resourceType];
}

/** The decoder of one item of a page of `resourceType`. */
export function cursorItemDecoder(decoder: RecordDecoder, resourceType: CursorResourceType): ItemDecoder<CursorRecord> {
  return decoder[ITEM_DECODERS[resourceType]];
}

/** A page: `items` (one that cannot be read an `UnreadableRecord` in its slot), `total`, and `nextCursor` whenever `hasMore`. */
function decodeCursorPage(body: Record<string, unknown>, decoder: RecordDecoder, resourceType: unknown, sort: unknown): CursorPage<CursorRecord> {
  const decodeItem = cursorItemDecoder(decoder, resourceType as CursorResourceType);
  const items = body.items;
  if (!Array.isArray(items)) throw new DecodeError('body.items', 'the page has no items list');
  const nextCursor = body.nextCursor ?? null;
  if (nextCursor !== null && typeof nextCursor !== 'string') throw new DecodeError('body.nextCursor', 'expected text or null');
  const hasMore = body.hasMore ?? nextCursor !== null;
  if (typeof hasMore !== 'boolean') throw new DecodeError('body.hasMore', 'expected a boolean');
  // A page that says "more" without a way to get it would stop a walk silently or loop it.
  if (hasMore && nextCursor === null) throw new DecodeError('body.nextCursor', 'hasMore is true but nextCursor is null');
  const total = optionalCount(body, 'total');
  if (total === null) throw new DecodeError('body.total', 'the page has no total');
  return { items: decoder.each(items, 'body.items', decodeItem), total, nextCursor, hasMore, keys: sortKeysOf(items, typeof sort === 'string' && sort !== '' ? sort : DEFAULT_CURSOR_SORT) };
}

/** Each wire item's `field`, by uuid (items without a text uuid are left out: they cannot be positions). */
function sortKeysOf(items: readonly unknown[], field: string): Map<string, WireSortKey> {
  const keys = new Map<string, WireSortKey>();
  for (const item of items) {
    if (typeof item !== 'object' || item === null) continue;
    const { uuid, [field]: value } = item as Record<string, unknown>;
    if (typeof uuid !== 'string') continue;
    keys.set(uuid, typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : null);
  }
  return keys;
}

export const CursorQuery = defineOperation('CursorQuery', 'GET cursor-query', {
  since: '1.0.0',
  family: 'cursor',
  // `filter` repeats, one `<field>:<op>:<value>` each: the gateway's and the simulator's
  // documented encoding, as the spec leaves the Filter structure unshown.
  params: { resourceType: 'query', sort: 'query', order: 'query', pageSize: 'query', filter: 'query' },
  decode: (body, decoder, params) => decodeCursorPage(body, decoder, params.resourceType, params.sort),
});

export const CursorNext = defineOperation('CursorNext', 'GET cursor-next', {
  since: '1.0.0',
  family: 'cursor',
  // The cursor knows its resource type upstream; the gateway needs it to decode the items.
  // So does its sort field, whose wire values the gateway's cursors carry.
  params: { cursor: 'query', pageSize: 'query', resourceType: 'local', sort: 'local' },
  decode: (body, decoder, params) => decodeCursorPage(body, decoder, params.resourceType, params.sort),
});
