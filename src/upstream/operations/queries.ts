/**
 * The resource family's query operations (convention 4): `GET <collection>` with `q=` conditions
 * and the paging parameters the gateway documents, answered with `inventories` (and `total`).
 */
import { defineOperation } from './define.js';
import { decodeQueryResult } from './results.js';

/** Where every query operation sends its conditions and paging, in this order. */
const QUERY_PARAMS = { q: 'query', limit: 'query', start: 'query', sort: 'query', replyWithCount: 'query' } as const;

export type QueryParamLocations = typeof QUERY_PARAMS;

export const QueryHBADevice = defineOperation({
  name: 'QueryHBADevice',
  method: 'GET',
  family: 'resource',
  path: 'storage-devices/hba',
  params: QUERY_PARAMS,
  decode: (body, decoder) => decodeQueryResult(body, decoder.hbaDevice),
});

export const QueryFiberChannelLun = defineOperation({
  name: 'QueryFiberChannelLun',
  method: 'GET',
  family: 'resource',
  path: 'storage-devices/fiber-channel/luns',
  params: QUERY_PARAMS,
  decode: (body, decoder) => decodeQueryResult(body, decoder.fiberChannelLun),
});

export const QueryCbtTask = defineOperation({
  name: 'QueryCbtTask',
  method: 'GET',
  family: 'resource',
  path: 'cbt-task',
  params: QUERY_PARAMS,
  decode: (body, decoder) => decodeQueryResult(body, decoder.cbtTask),
});

export const QueryVolumeSnapshotGroup = defineOperation({
  name: 'QueryVolumeSnapshotGroup',
  method: 'GET',
  family: 'resource',
  path: 'volume-snapshots/group',
  params: QUERY_PARAMS,
  decode: (body, decoder) => decodeQueryResult(body, decoder.volumeSnapshotGroup),
});

export const QuerySNSEmailAddress = defineOperation({
  name: 'QuerySNSEmailAddress',
  method: 'GET',
  family: 'resource',
  path: 'sns/application-endpoints/emails/email-addresses',
  params: QUERY_PARAMS,
  decode: (body, decoder) => decodeQueryResult(body, decoder.snsEmailAddress),
});
