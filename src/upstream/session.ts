/**
 * A per-request upstream session: the client's reads bound to one caller's credentials, request
 * id, hang-up signal, address and record demand. Resolvers and loaders read through it and never
 * hold a credential. A read under a family whose credential the caller did not send throws at
 * once (as the resolver calling it did before sessions), before any upstream call. Writes take
 * their caller from `jobCaller()`, so no schema module holds a credential either.
 */
import type { SpanScope } from '../tracing/spans.js';
import type { Caller } from './credentials.js';
import { FULL_DEMAND, type RecordDemand } from './demand.js';
import type { ParamsOf, ReadOperation, ResultOf } from './operations/define.js';
import type {
  CallOptions,
  CursorCredential,
  CursorNextRequest,
  CursorPage,
  CursorQueryRequest,
  CursorResourceType,
  CursorResourceTypes,
  ResourceCollection,
  ResourceCollections,
  QueryRequest,
  QueryResult,
  ResourceCredential,
  UpstreamClient,
} from './types.js';

/** The two upstream families, each with a credential of its own (docs/reference/api-promise.md#credentials). */
export type CredentialFamily = 'resource' | 'cursor';

/** What a session binds: the caller's credentials and the request's read options. */
export interface SessionBinding {
  /** The caller: its credentials (either may be missing) and its keys, worked out once for the request. */
  readonly caller: Caller;
  readonly requestId: string;
  readonly signal: AbortSignal | undefined;
  readonly clientAddress: string | undefined;
  /** Where the spans of this session's upstream calls go (`src/tracing/`); undefined: tracing off. */
  readonly trace?: SpanScope | undefined;
  /**
   * The error a read raises when the caller sent no credential for its family. Given by the
   * caller of `createUpstreamSession` so that this layer stays free of GraphQL.
   */
  readonly missingCredential: (family: CredentialFamily) => Error;
}

/**
 * The caller of a write as the job manager must know it: the credential it keeps for the job's
 * life to poll the upstream with, and the owner digest its job and events are keyed by.
 */
export interface JobCaller {
  readonly credential: ResourceCredential;
  readonly owner: string;
}

export class UpstreamSession {
  /** The record fields this request's reads decode; undefined: every field. */
  private demand: RecordDemand | undefined;

  constructor(
    private readonly client: UpstreamClient,
    private readonly binding: SessionBinding,
    demand?: RecordDemand,
  ) {
    this.demand = demand;
  }

  /**
   * Narrows the reads to what the request's operation needs. A session that already served an
   * operation needing something else decodes whole records from then on: its loaders may hold
   * records decoded for either.
   */
  narrowDemand(demand: RecordDemand): void {
    this.demand = this.demand === undefined || this.demand === demand ? demand : FULL_DEMAND;
  }

  /**
   * The same caller and demand without the hang-up signal: for work that outlives the request
   * that started it (a subscription execution shared by several clients).
   */
  withoutSignal(): UpstreamSession {
    return this.withSignal(undefined);
  }

  /**
   * The same caller and demand under another hang-up signal: for work shared by several requests
   * that ends when the last of them hangs up (a query execution joined by identical queries).
   */
  withSignal(signal: AbortSignal | undefined): UpstreamSession {
    return new UpstreamSession(this.client, { ...this.binding, signal }, this.demand);
  }

  /**
   * The same caller, signal and demand, its calls' spans under `trace` (a loader batch's span):
   * the spans are passed along explicitly, never through a context manager (`src/tracing/spans.ts`).
   */
  withTrace(trace: SpanScope | undefined): UpstreamSession {
    return trace === undefined ? this : new UpstreamSession(this.client, { ...this.binding, trace }, this.demand);
  }

  /** Where this session's calls put their spans; undefined when tracing is off. */
  get trace(): SpanScope | undefined {
    return this.binding.trace;
  }

  /** Throws the missing-credential error now when the caller sent no credential for `family`. */
  requireCredential(family: CredentialFamily): void {
    if (family === 'resource') this.resourceCredential();
    else this.cursorCredential();
  }

  /**
   * What tells this caller apart in a family (its credential as the upstream reads it), for
   * binding cursors to their caller; throws like a read when the credential is missing.
   */
  callerIdentity(family: CredentialFamily): readonly (string | null)[] {
    if (family === 'resource') return [this.resourceCredential().authorization];
    const credential = this.cursorCredential();
    return [credential.authorization, credential.tenantId ?? null];
  }

  /** `callerIdentity` of both families at once, null where the caller sent no credential; never throws. */
  callerIdentities(): readonly (string | null)[] {
    const { resource, cursor } = this.binding.caller;
    return [resource?.authorization ?? null, cursor?.authorization ?? null, cursor?.tenantId ?? null];
  }

  /**
   * Who starts (or asks after) a job: writes are resource-family jobs owned by the credential that
   * started them. Throws the missing-credential error when the caller sent no `Authorization`.
   */
  jobCaller(): JobCaller {
    return { credential: this.resourceCredential(), owner: this.binding.caller.owner! };
  }

  query<C extends ResourceCollection>(collection: C, request: QueryRequest): Promise<QueryResult<ResourceCollections[C]>> {
    return this.client.query(this.resourceCredential(), collection, request, this.options());
  }

  cursorQuery<K extends CursorResourceType>(request: CursorQueryRequest<K>): Promise<CursorPage<CursorResourceTypes[K]>> {
    return this.client.cursorQuery(this.cursorCredential(), request, this.options());
  }

  cursorNext<K extends CursorResourceType>(request: CursorNextRequest<K>): Promise<CursorPage<CursorResourceTypes[K]>> {
    return this.client.cursorNext(this.cursorCredential(), request, this.options());
  }

  /**
   * Sends any read of the catalogue (`operations/`) under this caller's credential of the
   * operation's family: a new read operation needs its declaration and no method here.
   */
  read<Op extends ReadOperation>(operation: Op, params: ParamsOf<Op>): Promise<ResultOf<Op>> {
    const credential = operation.family === 'cursor' ? this.cursorCredential() : this.resourceCredential();
    return this.client.read(credential, operation, params, this.options());
  }

  private resourceCredential(): ResourceCredential {
    const credential = this.binding.caller.resource;
    if (!credential) throw this.binding.missingCredential('resource');
    return credential;
  }

  private cursorCredential(): CursorCredential {
    const credential = this.binding.caller.cursor;
    if (!credential) throw this.binding.missingCredential('cursor');
    return credential;
  }

  private options(): CallOptions {
    const { requestId, signal, clientAddress, trace } = this.binding;
    return { requestId, signal, demand: this.demand, clientAddress, trace };
  }
}

/** A session for one request (`createContext` makes one per GraphQL operation). */
export function createUpstreamSession(client: UpstreamClient, binding: SessionBinding): UpstreamSession {
  return new UpstreamSession(client, binding);
}
