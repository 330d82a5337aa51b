/**
 * The resource family's query operations (convention 4): `GET <collection>` with `q=` conditions
 * and the paging parameters the gateway documents, answered with `inventories` (and `total`).
 */
import type { RecordDecoder } from '../decode.js';
import type { QueryResult } from '../types.js';
import { defineOperation, type PathOfRoute, type ReadOperation, type Route } from './define.js';
import { decodeQueryResult, type ItemDecoder } from './results.js';

/** Where every query operation sends its conditions and paging, in this order. */
const QUERY_PARAMS = { q: 'query', limit: 'query', start: 'query', sort: 'query', replyWithCount: 'query' } as const;

export type QueryParamLocations = typeof QUERY_PARAMS;

/** A query operation over the records `itemOf` decodes. */
function defineQuery<const R extends Route<'GET'>, T>(
  name: string,
  route: R,
  itemOf: (decoder: RecordDecoder) => ItemDecoder<T>,
): ReadOperation<PathOfRoute<R>, QueryParamLocations, QueryResult<T>> {
  return defineOperation(name, route, { params: QUERY_PARAMS, decode: (body, decoder) => decodeQueryResult(body, itemOf(decoder)) });
}

export const QueryHBADevice = defineQuery('QueryHBADevice', 'GET storage-devices/hba', (decoder) => decoder.hbaDevice);
export const QueryFiberChannelLun = defineQuery('QueryFiberChannelLun', 'GET storage-devices/fiber-channel/luns', (decoder) => decoder.fiberChannelLun);
export const QueryCbtTask = defineQuery('QueryCbtTask', 'GET cbt-task', (decoder) => decoder.cbtTask);
export const QueryVolumeSnapshotGroup = defineQuery('QueryVolumeSnapshotGroup', 'GET volume-snapshots/group', (decoder) => decoder.volumeSnapshotGroup);
export const QuerySNSEmailAddress = defineQuery(
  'QuerySNSEmailAddress',
  'GET sns/application-endpoints/emails/email-addresses',
  (decoder) => decoder.snsEmailAddress,
);
