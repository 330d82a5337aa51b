/**
 * The upstream client's public surface and the request and result shapes it speaks.
 *
 * Implemented by `createUpstreamClient` (`client.ts`); resolvers and loaders never call it
 * directly but through the per-request `UpstreamSession` (`session.ts`), which supplies the
 * caller's credential. Any read or write of the catalogue (`operations/`) is sent from its
 * declaration (`read`, `submit`); `query`, `cursorQuery` and `cursorNext` are the two families'
 * collection reads, which spell a filter the way their family reads it. Every method takes the
 * caller's own credential; the client keeps none between calls. Every failure rejects with an
 * `UpstreamRequestError` subclass from `errors.ts`, each with a stable `code`.
 */
import type { SpanScope } from '../tracing/spans.js';
import type { Readable, RecordDecoder } from './decode.js';
import type { RecordDemand } from './demand.js';
import type { ParamsOf, ReadOperation, ResultOf, WriteOperation } from './operations/define.js';
import type { WriteTags } from './operations/request.js';
import type {
  DirectoryRecord,
  ErrorCodeRecord,
  FiberChannelLunRecord,
  HbaDeviceRecord,
  HostRecord,
  CbtTaskRecord,
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

/** Cursor family (`/api/v1/resources/`): `Authorization: Bearer <TOKEN>` and the optional `X-Tenant-ID`. */
export interface CursorCredential {
  authorization: string;
  tenantId?: string | undefined;
}

/** Per-request options every call accepts. */
export interface CallOptions {
  /** Sent upstream as `X-Request-ID` so upstream logs can be correlated. */
  requestId?: string | undefined;
  signal?: AbortSignal | undefined;
  /**
   * Which fields of the large record types to decode (`demand.ts`): a read made for a query
   * passes what the query selects. Omitted, every field is decoded.
   */
  demand?: RecordDemand | undefined;
  /**
   * The address of the client the call is made for. A call under a credential the upstream has
   * not accepted yet draws on this address's budget; undefined: a call of the gateway's own.
   */
  clientAddress?: string | undefined;
  /**
   * The span the call's own span goes under (`src/tracing/`); its `traceparent` goes upstream.
   * Undefined (tracing off, or a call of the gateway's own): no span, no header.
   */
  trace?: SpanScope | undefined;
}

// ---------------------------------------------------------------------------------------------
// Resource family queries: GET <collection>?q=...

/** Query operators of the resource family (docs/upstream/assumptions.md#resource-family-queries). */
export type QueryOperator = '=' | '!=' | '>' | '<' | '>=' | '<=' | '?=' | '!?=' | '~=' | '!~=';

/**
 * One `q=<field><op><value>` condition. An empty list under `?=` matches nothing (the client
 * answers an empty result without a request); under `!?=` it matches everything (dropped).
 */
export type QueryCondition =
  | {
      field: string;
      op: QueryOperator;
      /** A list is joined with commas (for `?=` and `!?=`). */
      value: string | readonly string[];
    }
  /** `q=<field> is null` / `q=<field> not null`. */
  | { field: string; op: 'is null' | 'not null' };

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
  /** The records, one the gateway cannot read an `UnreadableRecord` in its own slot. */
  inventories: Readable<T>[];
  /** Present when `replyWithCount` was asked for. */
  total: number | null;
}

/** The resource-family collections that have a query operation in the spec, each read by its operation. */
export interface ResourceCollections {
  /** QueryHBADevice (`operations/queries.ts`) */
  hbaDevices: HbaDeviceRecord;
  /** QueryFiberChannelLun (`operations/queries.ts`) */
  fiberChannelLuns: FiberChannelLunRecord;
  /** QueryCbtTask (`operations/queries.ts`) */
  cbtTasks: CbtTaskRecord;
  /** QueryVolumeSnapshotGroup (`operations/queries.ts`) */
  volumeSnapshotGroups: VolumeSnapshotGroupRecord;
  /** QuerySNSEmailAddress (`operations/queries.ts`) */
  snsEmailAddresses: SnsEmailAddressRecord;
}
export type ResourceCollection = keyof ResourceCollections;

// ---------------------------------------------------------------------------------------------
// Cursor family: /api/v1/resources/cursor-query and cursor-next

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
/** An empty `in` list matches nothing (empty page, no request); an empty `nin` list is dropped. */
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
  /** The query's sort field, whose wire values the page reports in `keys`; not sent upstream. Default `createDate`. */
  sort?: string | undefined;
  cursor: string;
  pageSize?: number;
}

/** A record's sort key as the upstream wrote it (a timestamp is its wire text); null when absent or not a scalar. */
export type WireSortKey = string | number | boolean | null;

/** The sort field of a cursor query that names none (the upstream's default order). */
export const DEFAULT_CURSOR_SORT = 'createDate';

export interface CursorPage<T> {
  /** The records, one the gateway cannot read an `UnreadableRecord` in its own slot. */
  items: Readable<T>[];
  total: number;
  nextCursor: string | null;
  hasMore: boolean;
  /**
   * Each item's sort key as the upstream wrote it, by uuid: what a gateway cursor carries to
   * resume after the item once the upstream cursor is gone (the decoded record may not hold the
   * field, or holds it parsed).
   */
  keys: ReadonlyMap<string, WireSortKey>;
}

// ---------------------------------------------------------------------------------------------
// Asynchronous writes

/**
 * A write submitted to the resource family (`submit`): an operation of the catalogue and its
 * parameters; the client builds the path, query and body from the declaration. Never retried:
 * every write is an asynchronous job, and the same `X-Job-UUID` twice is a 400 upstream.
 */
export interface SubmitRequest<Op extends WriteOperation = WriteOperation> extends WriteTags {
  operation: Op;
  params: ParamsOf<Op>;
  /** Sent as `X-Job-UUID`: 32 hexadecimal characters, unique per call. */
  jobUuid: Uuid;
  /** Sent as `X-Web-Hook`: where the service pushes the result. */
  webHook?: string | undefined;
}

/** The answer to `submit`: 202 accepted (poll `location`), or 200 already finished (`result`). */
export interface AsyncAccepted {
  /**
   * The polling address (`.../svc/v1/api-jobs/<uuid>`), from the body or a `Location` header;
   * null when the service finished the call synchronously (200) and `result` holds the answer.
   */
  location: string | null;
  /** The job uuid the call ran under (the `X-Job-UUID` sent). */
  jobUuid: Uuid;
  apiTimeout: number | null;
  /** The normal result body of a call answered 200 at once (202: absent). */
  result?: Record<string, unknown>;
}

/** Result of one poll of `location`. */
export type JobPoll =
  | { status: 'running' }
  /** 200: the normal result of the operation (decode it with `UpstreamClient.decoder`). */
  | { status: 'succeeded'; body: Record<string, unknown> }
  /** 503 `{"error": ErrorCode}`: the job failed; `error` is the decoded ErrorCode with its cause chain. */
  | { status: 'failed'; body: Record<string, unknown>; error: ErrorCodeRecord };

export interface PollJobOptions extends CallOptions {
  /** The service needs no credential to poll; sent as `Authorization` when given. */
  credential?: ResourceCredential | undefined;
}

/** The resilience state of each upstream origin. */
export interface UpstreamHealth {
  breakers: Record<string, { state: 'closed' | 'open' | 'half-open'; consecutiveFailures: number; probeAt: number | null }>;
  concurrency: Record<string, { active: number; waiting: number }>;
}

export interface UpstreamClient {
  query<C extends ResourceCollection>(
    credential: ResourceCredential,
    collection: C,
    request: QueryRequest,
    options?: CallOptions,
  ): Promise<QueryResult<ResourceCollections[C]>>;

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

  /**
   * Sends one write of the catalogue (POST/PUT/DELETE) with `X-Job-UUID` and `X-Web-Hook`.
   * Resolves on 202 (with the polling address) or 200 (with the result); a 503 `{error}` or 400
   * rejects as for reads.
   */
  submit<Op extends WriteOperation>(credential: ResourceCredential, request: SubmitRequest<Op>, options?: CallOptions): Promise<AsyncAccepted>;

  /**
   * Polls a job: 202 → running, 200 → succeeded, 503 `{error}` → failed; 404 (unknown or
   * expired job) rejects with `UpstreamNotFoundError`. A `location` whose path ends as the
   * `PollJob` declaration's (`.../svc/v1/api-jobs/<uuid>`) is polled on the configured base URL,
   * whatever host the service wrote into it.
   */
  pollJob(location: string, options?: PollJobOptions): Promise<JobPoll>;

  /**
   * Where the job `jobUuid` is polled on the configured base URL (`PollJob`): the address to use
   * when the service's 202 gave none.
   */
  jobLocation(jobUuid: string): string;

  /**
   * Sends any read of the catalogue (`operations/`) and answers what its decoder reads: a new
   * read operation needs its declaration only. `credential` is the resource family's for a
   * `svc/v1` operation, the cursor family's (with its tenant) for the others.
   */
  read<Op extends ReadOperation>(
    credential: ResourceCredential | CursorCredential,
    operation: Op,
    params: ParamsOf<Op>,
    options?: CallOptions,
  ): Promise<ResultOf<Op>>;

  /** Decoders for result bodies the caller reads itself (job results, webhook bodies), in the configured zone. */
  readonly decoder: RecordDecoder;

  /** Is the upstream answering at all (for `/readyz`)? Never throws. */
  ping(): Promise<boolean>;

  /** The circuit breaker and concurrency cap of each upstream origin called so far (for `/readyz`). */
  health(): UpstreamHealth;

  /**
   * A write finished: the reads in flight may have been answered before it, so they take no new
   * callers (see `shareUpstreamGets`); reads from now on start fresh exchanges. Read your writes.
   */
  closeReadsInFlight(): void;

  /**
   * Whether the upstream has accepted either credential in a call this client made (see
   * `credential-gate.ts`): false for one it rejected, never saw, or has forgotten.
   */
  hasAccepted(resource: ResourceCredential | undefined, cursor: CursorCredential | undefined): boolean;

  /** Close the connection pools. */
  close(): Promise<void>;
}
