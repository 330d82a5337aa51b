/**
 * One interface over the two upstream families, as the schema reads them: records found by keys
 * (for DataLoaders) and Relay pages of the records meeting family-neutral conditions. The cursor
 * family (CursorQuery / CursorNext, resourceTypes `host`, `vm`, ...) and the resource family's
 * `q=` queries are its two implementations; a resource module names its family once.
 */
import type { GatewayContext } from '../../context.js';
import { observeBatch } from '../../observability/metrics.js';
import { inChildSpan } from '../../tracing/spans.js';
import { cursorFamilyOf, resourceFamilyOf, type UpstreamFamily } from '../../upstream/families.js';
import type { CredentialFamily } from '../../upstream/session.js';
import type { Release } from '../../upstream/releases.js';
import type { CursorResourceType, CursorResourceTypes, ResourceCollection, ResourceCollections } from '../../upstream/types.js';
import { readCursorPage, readResourcePage, type ConnectionResult, type FamilyPageRequest } from './connections.js';
import type { Readable } from '../../upstream/wire.js';
import { matchByUuid, notFound, type ChildQuery } from './loading.js';

export type { Condition, Sort } from '../../upstream/families.js';
export type { FamilyPageRequest } from './connections.js';

export interface RecordFamily<R> {
  /** The credential its reads need. */
  readonly credential: CredentialFamily;
  /** The release that brought its reads. */
  readonly since: Release;
  /** The order of its pages when the client asks for none, as the schema describes it. */
  readonly defaultOrder: string;
  /**
   * Every record whose `field` is one of `values` (and that meets `also`'s conditions, in its
   * order): one upstream read (plus its further pages) per chunk of `maxBatchSize` distinct values.
   * One the gateway cannot read is an `UnreadableRecord` in its place.
   */
  whereIn(context: GatewayContext, field: string, values: readonly string[], also?: ChildQuery): Promise<Readable<R>[]>;
  /** A Relay page of the records meeting `request.where`, in `request.sort`'s order. */
  page(context: GatewayContext, request: FamilyPageRequest): Promise<ConnectionResult<R>>;
}

/** The records of a cursor-family resource type. */
export function cursorFamily<K extends CursorResourceType>(resourceType: K): RecordFamily<CursorResourceTypes[K]> {
  return recordFamily(cursorFamilyOf(resourceType), 'creation time, ascending', (context, request) => readCursorPage(context, resourceType, request));
}

/** The records of a resource-family collection that has a query operation. */
export function resourceFamily<C extends ResourceCollection>(collection: C): RecordFamily<ResourceCollections[C]> {
  return recordFamily(resourceFamilyOf(collection), "the upstream's own (stable) order", (context, request) => readResourcePage(context, collection, request));
}

/** Either family: keys read through its upstream family, pages in its own kind of Relay cursor. */
function recordFamily<R>(upstream: UpstreamFamily<R>, defaultOrder: string, page: RecordFamily<R>['page']): RecordFamily<R> {
  return {
    credential: upstream.credential,
    since: upstream.since,
    defaultOrder,
    whereIn: (context, field, values, also) => readWhereIn(upstream, context, field, values, also),
    page,
  };
}

/**
 * One loader batch: its records by `field`, read in chunks of `maxBatchSize` keys. Traced, it is
 * one span (`loader <family>`: its keys and the upstream requests it made, its pages included).
 */
async function readWhereIn<R>(family: UpstreamFamily<R>, context: GatewayContext, field: string, values: readonly string[], also?: ChildQuery): Promise<Readable<R>[]> {
  context.session.requireCredential(family.credential);
  const distinct = [...new Set(values)];
  observeBatch(context, family.name, distinct.length);
  return inChildSpan(
    context.session.trace,
    `loader ${family.name}`,
    { 'loader.type': family.name, 'loader.field': field, 'loader.keys': distinct.length },
    async (batch) => {
      const session = context.session.withTrace(batch);
      const pages = await Promise.all(
        chunk(distinct, context.maxBatchSize).map((keys) => family.readAll(session, [{ field, op: 'in', value: keys }, ...(also?.where ?? [])], also?.sort)),
      );
      return pages.flat();
    },
    (span, batch) => span.setAttribute('loader.upstream_requests', batch.upstreamRequests),
  );
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let index = 0; index < items.length; index += size) chunks.push(items.slice(index, index + size));
  return chunks;
}

/**
 * The batch function of a type's loader by uuid: one `whereIn` read per batch, each uuid matched
 * to its record, `NOT_FOUND` in the slot of one the upstream does not have, and the record's
 * `UPSTREAM_PROTOCOL_ERROR` in the slot of one it sent unreadable.
 */
export function loadByUuid<R extends { uuid: string }>(family: RecordFamily<R>, typeName: string) {
  return async (uuids: string[], context: GatewayContext): Promise<(R | Error)[]> => {
    const records = await family.whereIn(context, 'uuid', uuids);
    return matchByUuid(uuids, records, (uuid) => notFound(typeName, uuid));
  };
}

/**
 * A loadable node's identity and loader by uuid: its global id is the record's uuid, and each
 * batch of uuids is one read of its family (CursorQuery `filter=uuid:in:...`, or its query's
 * `q=uuid?=...`): `...nodeByUuid(hosts, 'Host')`.
 */
export function nodeByUuid<R extends { uuid: string }>(family: RecordFamily<R>, typeName: string) {
  return { id: { resolve: (record: R) => record.uuid }, load: loadByUuid(family, typeName) };
}
