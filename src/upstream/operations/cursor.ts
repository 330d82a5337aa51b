/**
 * The cursor family (the spec's "Generic cursor query", since 1.0.0): CursorQuery starts a
 * query and answers its first page, CursorNext follows `nextCursor`.
 */
import { DecodeError, type RecordDecoder } from '../decode.js';
import type { CursorPage, CursorResourceType, CursorResourceTypes } from '../types.js';
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

/** The decoder of one item of a page of `resourceType`. */
export function cursorItemDecoder(decoder: RecordDecoder, resourceType: CursorResourceType): ItemDecoder<CursorRecord> {
  return decoder[ITEM_DECODERS[resourceType]];
}

/** A page: `items` (one that cannot be read an `UnreadableRecord` in its slot), `total`, and `nextCursor` whenever `hasMore`. */
function decodeCursorPage(body: Record<string, unknown>, decoder: RecordDecoder, resourceType: unknown): CursorPage<CursorRecord> {
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
  return { items: decoder.each(items, 'body.items', decodeItem), total, nextCursor, hasMore };
}

export const CursorQuery = defineOperation('CursorQuery', 'GET cursor-query', {
  since: '1.0.0',
  family: 'cursor',
  // `filter` repeats, one `<field>:<op>:<value>` each: the gateway's and the simulator's
  // documented encoding, as the spec leaves the Filter structure unshown.
  params: { resourceType: 'query', sort: 'query', order: 'query', pageSize: 'query', filter: 'query' },
  decode: (body, decoder, params) => decodeCursorPage(body, decoder, params.resourceType),
});

export const CursorNext = defineOperation('CursorNext', 'GET cursor-next', {
  since: '1.0.0',
  family: 'cursor',
  // The cursor knows its resource type upstream; the gateway needs it to decode the items.
  params: { cursor: 'query', pageSize: 'query', resourceType: 'local' },
  decode: (body, decoder, params) => decodeCursorPage(body, decoder, params.resourceType),
});
