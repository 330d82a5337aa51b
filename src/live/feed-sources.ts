/**
 * Where the change feed reads each collection live queries may read: the upstream family that
 * serves its records (`src/upstream/families.ts`), asked two things:
 * - the newest records first, one page, with the collection's `total` (the poll of every interval:
 *   one request that carries both the records changed lately and the count that reveals removals);
 * - every record changed at or after an instant, `lastOpDate>=…` (`filter=lastOpDate:ge:…` on the
 *   cursor family, `q=lastOpDate>=…` on the resource family), when more changed than one page holds.
 *
 * Records embedded in others (a VM's NICs, a host's bonds) have no collection of their own: they
 * change with their parent's `lastOpDate`, or not visibly at all, and the feed cannot poll them.
 * A record the gateway cannot read has no timestamps to compare: the feed skips it (a query
 * reading it answers its error anyway) and sees its change once it reads again.
 */
import { cursorFamilyOf, resourceFamilyOf, type UpstreamFamily } from '../upstream/families.js';
import type { Instant } from '../upstream/define-record.js';
import { readableItems } from '../upstream/wire.js';
import {
  cbtTask,
  directory,
  fiberChannelLun,
  hbaDevice,
  host,
  snsApplicationEndpoint,
  snsApplicationPlatform,
  snsEmailAddress,
  vmInstance,
  volume,
  volumeSnapshotGroup,
} from '../upstream/records.js';
import type { CredentialFamily, UpstreamSession } from '../upstream/session.js';
import type { CursorResourceType, ResourceCollection } from '../upstream/types.js';
import type { LiveCollection } from './invalidation.js';

/** What the feed reads of a record: its identity and its two timestamps, plus the rest to fingerprint. */
export interface FeedRecord {
  readonly uuid: string;
  readonly createDate?: Instant | null;
  readonly lastOpDate?: Instant | null;
}

/** One page of a collection, newest `lastOpDate` first. */
export interface NewestPage {
  readonly records: readonly FeedRecord[];
  /** Records in the whole collection. */
  readonly total: number;
  /** More records follow the page. */
  readonly more: boolean;
}

export interface FeedSource {
  /** The record name live queries use for it (`vmInstance`). */
  readonly collection: LiveCollection;
  /** The credential its reads need. */
  readonly credential: CredentialFamily;
  /** The first `pageSize` records by `lastOpDate`, newest first, and the collection's total. */
  newest(session: UpstreamSession, pageSize: number): Promise<NewestPage>;
  /** Every record whose `lastOpDate` is at or after `since` (the upstream's timestamp text). */
  changedSince(session: UpstreamSession, since: string): Promise<readonly FeedRecord[]>;
}

function cursorSource(collection: LiveCollection, resourceType: CursorResourceType): FeedSource {
  return feedSource(collection, cursorFamilyOf(resourceType), async (session, pageSize) => {
    const page = await session.cursorQuery({ resourceType, sort: 'lastOpDate', order: 'desc', pageSize });
    return { records: readableItems(page.items), total: page.total, more: page.hasMore };
  });
}

function querySource(collection: LiveCollection, name: ResourceCollection): FeedSource {
  return feedSource(collection, resourceFamilyOf(name), async (session, pageSize) => {
    const result = await session.query(name, { sort: { field: 'lastOpDate', direction: 'desc' }, limit: pageSize, replyWithCount: true });
    const total = result.total ?? result.inventories.length;
    return { records: readableItems(result.inventories), total, more: total > result.inventories.length };
  });
}

/**
 * A collection's source: its newest page as its family spells it, and the records changed since a
 * time through the family's own filter, which both families read alike.
 */
function feedSource(collection: LiveCollection, family: UpstreamFamily<FeedRecord>, newest: FeedSource['newest']): FeedSource {
  return {
    collection,
    credential: family.credential,
    newest,
    changedSince: async (session, since) => readableItems(await family.readAll(session, [{ field: 'lastOpDate', op: 'ge', value: since }])),
  };
}

const SOURCES: ReadonlyMap<LiveCollection, FeedSource> = new Map(
  [
    cursorSource(host.name, 'host'),
    cursorSource(vmInstance.name, 'vm'),
    cursorSource(volume.name, 'volume'),
    cursorSource(snsApplicationPlatform.name, 'sns-application-platform'),
    cursorSource(snsApplicationEndpoint.name, 'sns-application-endpoint'),
    cursorSource(directory.name, 'directory'),
    querySource(hbaDevice.name, 'hbaDevices'),
    querySource(fiberChannelLun.name, 'fiberChannelLuns'),
    querySource(cbtTask.name, 'cbtTasks'),
    querySource(volumeSnapshotGroup.name, 'volumeSnapshotGroups'),
    querySource(snsEmailAddress.name, 'snsEmailAddresses'),
  ].map((source) => [source.collection, source]),
);

/** The feed's reader of a collection; undefined for a record the upstream serves no collection of. */
export function feedSourceOf(collection: LiveCollection): FeedSource | undefined {
  return SOURCES.get(collection);
}
