/**
 * The upstream client's public surface: what resolvers and loaders may call.
 *
 * Implemented by `createUpstreamClient` (`client.ts`). Every method takes the caller's own
 * credential; the client keeps none between calls. Every failure rejects with an
 * `UpstreamRequestError` subclass from `errors.ts`, each with a stable `code`.
 */
import type {
  DirectoryRecord,
  FiberChannelLunRecord,
  HbaDeviceRecord,
  HostNetworkFactsRecord,
  HostRecord,
  CbtTaskRecord,
  PrimaryStorageCapacityRecord,
  SnsApplicationEndpointRecord,
  SnsApplicationPlatformRecord,
  SnsEmailAddressRecord,
  Uuid,
  VmInstanceRecord,
  VolumeRecord,
  VolumeSnapshotGroupRecord,
} from './records.js';

/** Resource family (`svc/v1/`): the full `Authorization` header value, `OAuth <SESSION_UUID>`. */
export interface ResourceCredential {
  authorization: string;
}

/** Generic cursor family: `Authorization: Bearer <TOKEN>` and the optional `X-Tenant-ID`. */
export interface CursorCredential {
  authorization: string;
  tenantId?: string | undefined;
}

/** Per-request options every call accepts. */
export interface CallOptions {
  /** Sent upstream as `X-Request-ID` so upstream logs can be correlated. */
  requestId?: string | undefined;
  signal?: AbortSignal | undefined;
}

// ---------------------------------------------------------------------------------------------
// Resource family queries: GET <collection>?q=...

/** Query operators of the resource family (UPSTREAM-NOTES "Queries"). */
export type QueryOperator = '=' | '!=' | '>' | '<' | '>=' | '<=' | '?=' | '!?=' | '~=' | '!~=';

export interface QueryCondition {
  field: string;
  op: QueryOperator;
  /** A list is joined with commas (for `?=` and `!?=`). */
  value: string | readonly string[];
}

export interface QueryRequest {
  conditions?: readonly QueryCondition[];
  /** Upstream default 1000. */
  limit?: number;
  start?: number;
  sort?: { field: string; direction: 'asc' | 'desc' };
  /** Ask for `total` (sent as `replyWithCount=true`). */
  replyWithCount?: boolean;
}

export interface QueryResult<T> {
  inventories: T[];
  /** Present when `replyWithCount` was asked for. */
  total: number | null;
}

/** The resource-family collections that have a query operation in the spec. */
export interface QueryCollections {
  /** QueryHBADevice: `GET storage-devices/hba` */
  hbaDevices: HbaDeviceRecord;
  /** QueryFiberChannelLun: `GET storage-devices/fiber-channel/luns` */
  fiberChannelLuns: FiberChannelLunRecord;
  /** QueryCbtTask: `GET cbt-task` */
  cbtTasks: CbtTaskRecord;
  /** QueryVolumeSnapshotGroup: `GET volume-snapshots/group` */
  volumeSnapshotGroups: VolumeSnapshotGroupRecord;
  /** QuerySNSEmailAddress: `GET sns/application-endpoints/emails/email-addresses` */
  snsEmailAddresses: SnsEmailAddressRecord;
}
export type QueryCollection = keyof QueryCollections;

// ---------------------------------------------------------------------------------------------
// Generic cursor family: /api/v1/resources/cursor-query and cursor-next

export interface CursorResourceTypes {
  host: HostRecord;
  vm: VmInstanceRecord;
  volume: VolumeRecord;
  'sns-application-platform': SnsApplicationPlatformRecord;
  'sns-application-endpoint': SnsApplicationEndpointRecord;
  directory: DirectoryRecord;
}
export type CursorResourceType = keyof CursorResourceTypes;

/**
 * One filter, sent as `filter=<field>:<op>:<value>` (repeated filters are ANDed; an `in`/`nin`
 * value is comma-separated). This is the gateway's and the simulator's documented encoding; the
 * spec leaves the Filter structure unshown.
 */
export interface CursorFilter {
  field: string;
  op: 'eq' | 'ne' | 'in' | 'nin' | 'like' | 'gt' | 'ge' | 'lt' | 'le';
  value: string | readonly string[];
}

export interface CursorQueryRequest<K extends CursorResourceType = CursorResourceType> {
  resourceType: K;
  sort?: string;
  order?: 'asc' | 'desc';
  pageSize?: number;
  filter?: readonly CursorFilter[];
}

export interface CursorNextRequest<K extends CursorResourceType = CursorResourceType> {
  /** Tells the client how to decode the items; not sent upstream. */
  resourceType: K;
  cursor: string;
  pageSize?: number;
}

export interface CursorPage<T> {
  items: T[];
  total: number;
  nextCursor: string | null;
  hasMore: boolean;
}

// ---------------------------------------------------------------------------------------------
// Other synchronous GETs

export interface PrimaryStorageCapacityRequest {
  zoneUuids?: readonly Uuid[];
  clusterUuids?: readonly Uuid[];
  primaryStorageUuids?: readonly Uuid[];
  all?: boolean;
}

// ---------------------------------------------------------------------------------------------
// Asynchronous writes

/** The 202 answer of an asynchronous call. */
export interface AsyncAccepted {
  /** The polling address (`.../svc/v1/api-jobs/<uuid>`), from the body or a Location header. */
  location: string;
  /** The job uuid the call ran under (the `X-Job-UUID` sent, or parsed from `location`). */
  jobUuid: Uuid;
  apiTimeout: number | null;
}

/** Result of one poll of `location`. */
export type JobPoll =
  | { status: 'running' }
  | { status: 'succeeded'; body: Record<string, unknown> }
  | { status: 'failed'; body: Record<string, unknown> };

export interface UpstreamClient {
  query<C extends QueryCollection>(
    credential: ResourceCredential,
    collection: C,
    request: QueryRequest,
    options?: CallOptions,
  ): Promise<QueryResult<QueryCollections[C]>>;

  cursorQuery<K extends CursorResourceType>(
    credential: CursorCredential,
    request: CursorQueryRequest<K>,
    options?: CallOptions,
  ): Promise<CursorPage<CursorResourceTypes[K]>>;

  cursorNext<K extends CursorResourceType>(
    credential: CursorCredential,
    request: CursorNextRequest<K>,
    options?: CallOptions,
  ): Promise<CursorPage<CursorResourceTypes[K]>>;

  /** GetHostNetworkFacts */
  getHostNetworkFacts(credential: ResourceCredential, hostUuid: Uuid, options?: CallOptions): Promise<HostNetworkFactsRecord>;
  /** GetHostBlockDevices: the body's shape is unshown in the spec; returned as parsed JSON minus success/error. */
  getHostBlockDevices(credential: ResourceCredential, hostUuid: Uuid, options?: CallOptions): Promise<Record<string, unknown>>;
  /** GetHostSensors: as above. */
  getHostSensors(credential: ResourceCredential, hostUuid: Uuid, options?: CallOptions): Promise<Record<string, unknown>>;
  /** GetPrimaryStorageCapacity */
  getPrimaryStorageCapacity(
    credential: ResourceCredential,
    request: PrimaryStorageCapacityRequest,
    options?: CallOptions,
  ): Promise<PrimaryStorageCapacityRecord>;
  /** GetVmAttachableDataVolume */
  getVmAttachableDataVolumes(credential: ResourceCredential, vmInstanceUuid: Uuid, options?: CallOptions): Promise<VolumeRecord[]>;

  /** Is the upstream answering at all (for `/readyz`)? Never throws. */
  ping(): Promise<boolean>;

  /** Close the connection pools. */
  close(): Promise<void>;
}
