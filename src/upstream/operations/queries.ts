/**
 * The resource family's query operations (convention 4): `GET <collection>` with `q=` conditions
 * and the paging parameters the gateway documents, answered with `inventories` (and `total`).
 */
import type { RecordDecoder } from '../decode.js';
import type { Release } from '../releases.js';
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
  since: Release,
  itemOf: (decoder: RecordDecoder) => ItemDecoder<T>,
): ReadOperation<PathOfRoute<R>, QueryParamLocations, QueryResult<T>> {
  return defineOperation(name, route, { since, params: QUERY_PARAMS, decode: (body, decoder) => decodeQueryResult(body, itemOf(decoder)) });
}

export const QueryHBADevice = defineQuery('QueryHBADevice', 'GET storage-devices/hba', '5.3.0', (decoder) => decoder.hbaDevice);
export const QueryFiberChannelLun = defineQuery('QueryFiberChannelLun', 'GET storage-devices/fiber-channel/luns', '3.1.0', (decoder) => decoder.fiberChannelLun);
export const QueryCbtTask = defineQuery('QueryCbtTask', 'GET cbt-task', '4.10.10', (decoder) => decoder.cbtTask);
export const QueryVolumeSnapshotGroup = defineQuery('QueryVolumeSnapshotGroup', 'GET volume-snapshots/group', '3.6.0', (decoder) => decoder.volumeSnapshotGroup);
export const QuerySNSEmailAddress = defineQuery(
  'QuerySNSEmailAddress',
  'GET sns/application-endpoints/emails/email-addresses', '3.7.0',
  (decoder) => decoder.snsEmailAddress,
);
