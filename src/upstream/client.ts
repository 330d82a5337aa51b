/**
 * `createUpstreamClient`: the one place that speaks HTTP to the infrastructure service, for both
 * of its families. It composes the pieces that each do one job: where a request goes
 * (`addressing.ts`), who it is made for (`credentials.ts`), how a filter is spelled
 * (`families.ts`), the dispatcher with its deadline, origin limit, retry and timeout interceptors
 * (`http.ts`), the gate, breaker, span and report around each call (`calls.ts`), shared reads
 * (`shared-reads.ts`), and what an answer means (`answers.ts`). It knows nothing of GraphQL.
 */
import type { Dispatcher } from 'undici';
import { createAddressing } from './addressing.js';
import { readAccepted, readJobPoll, readResult } from './answers.js';
import { CircuitBreakers, type BreakerState } from './breaker.js';
import { createCalls, type UpstreamCall, type UpstreamRequestEvent } from './calls.js';
import { CredentialGate, type CredentialGateOptions } from './credential-gate.js';
import { cursorCaller, cursorIdentity, resourceCaller, resourceIdentity, type Caller } from './credentials.js';
import { RecordDecoder } from './decode.js';
import type { RecordDemand } from './demand.js';
import { cursorQueryParamsOf, queryParamsOf } from './families.js';
import { createUpstreamDispatcher } from './http.js';
import { OriginLimiter } from './limiter.js';
import { CursorNext, CursorQuery, QUERY_OPERATIONS, buildBody, type ReadOperation, type ResultOf } from './operations/index.js';
import { SharedFlights } from './shared-flights.js';
import { createSharedRead, operationOfKey } from './shared-reads.js';
import type { CallOptions, CursorPage, CursorResourceTypes, UpstreamClient } from './types.js';

export type { UpstreamRequestEvent } from './calls.js';

export interface UpstreamClientOptions {
  /** The resource family's `{base_url}` (`UPSTREAM_URL`); the client appends `svc/v1/...`. A path prefix is kept. */
  upstreamUrl: string;
  /** Where the generic family (`/api/v1/resources/...`) lives (`RESOURCES_URL`). @default the origin of `upstreamUrl` */
  resourcesUrl?: string | undefined;
  /** IANA zone of the upstream's Timestamp text (`UPSTREAM_TIMEZONE`). @default 'UTC' */
  timezone?: string | undefined;
  /** Time allowed for one call, all retries and the body included (`UPSTREAM_TIMEOUT_MS`). @default 10000 */
  timeoutMs?: number | undefined;
  /** Keep-alive connections per upstream origin (`UPSTREAM_CONNECTIONS`). @default 32 */
  connections?: number | undefined;
  /** Retries of an idempotent GET after a connection error or a 502/503/504 without ErrorCode. Writes are never retried. @default 2 */
  retries?: number | undefined;
  /** Backoff ceiling of the first retry in ms (doubling, full jitter). @default 100 */
  retryBaseDelayMs?: number | undefined;
  /** Largest response body accepted, in bytes; a bigger one is an `UPSTREAM_PROTOCOL_ERROR`. @default 256 MiB */
  maxResponseBytes?: number | undefined;
  /** Send requests through this dispatcher (e.g. undici's `MockAgent`) instead of a new `Agent`. `close()` leaves it open. */
  dispatcher?: Dispatcher | undefined;
  /** Called once per call when it ends, for metrics. Exceptions it throws are ignored. */
  onRequest?: ((event: UpstreamRequestEvent) => void) | undefined;
  /** Calls in a row failing because the upstream is away that open an origin's circuit breaker (`UPSTREAM_BREAKER_THRESHOLD`). @default 5 */
  breakerThreshold?: number | undefined;
  /** How long an open breaker fails calls at once before it probes the upstream again, in ms (`UPSTREAM_BREAKER_OPEN_MS`). @default 5000 */
  breakerOpenMs?: number | undefined;
  /** Hears every change of a breaker's state. Exceptions it throws are ignored. */
  onBreakerStateChange?: ((state: BreakerState, origin: string) => void) | undefined;
  /** Calls waiting per origin once `connections` calls are in flight; more fail at once with `UPSTREAM_UNAVAILABLE` (`UPSTREAM_MAX_QUEUED`). @default 1000 */
  maxQueued?: number | undefined;
  /** What the client learns of credentials from the upstream's answers, and the budget of unknown ones (see `credential-gate.ts`). */
  credentialGate?: CredentialGateOptions | undefined;
  /**
   * Identical reads in flight (same operation, URL with its query, and family headers: the same
   * credential as the upstream reads it) share one HTTP exchange, whichever requests they come
   * from (`SHARE_UPSTREAM_GETS`). Writes and job polls are never shared. @default true
   */
  shareReads?: boolean | undefined;
  /** Hears every read that joined an identical one in flight instead of making its own request. Exceptions it throws are ignored. */
  onSharedRead?: ((operation: string) => void) | undefined;
}

/** A readiness ping waits at most this long, whatever the calls' timeout. */
const PING_TIMEOUT_MS = 5000;

export function createUpstreamClient(options: UpstreamClientOptions): UpstreamClient {
  const addressing = createAddressing({ upstreamUrl: options.upstreamUrl, resourcesUrl: options.resourcesUrl });
  const timeoutMs = positive(options.timeoutMs, 10_000);
  const decoder = new RecordDecoder(options.timezone ?? 'UTC');
  const decoderFor = createDemandDecoders(decoder);
  const limiter = new OriginLimiter({ maxConcurrent: positive(options.connections, 32), maxQueued: options.maxQueued ?? 1000 });
  const breakers = new CircuitBreakers({ failureThreshold: options.breakerThreshold, openMs: options.breakerOpenMs, onStateChange: options.onBreakerStateChange });
  const credentialGate = new CredentialGate(options.credentialGate);
  const { dispatcher, close } = createUpstreamDispatcher({
    connections: positive(options.connections, 32),
    timeoutMs,
    retry: { retries: options.retries ?? 2, baseDelayMs: options.retryBaseDelayMs ?? 100, maxDelayMs: 2000, random: Math.random },
    limiter,
    dispatcher: options.dispatcher,
  });
  let closed = false;
  const calls = createCalls({
    dispatcher,
    maxResponseBytes: positive(options.maxResponseBytes, 256 * 1024 * 1024),
    breakers,
    credentialGate,
    onRequest: options.onRequest,
    isClosed: () => closed,
  });
  const sharedFlights = options.shareReads === false ? undefined : new SharedFlights((key) => hear(options.onSharedRead, operationOfKey(key)));
  const readShared = sharedFlights === undefined ? undefined : createSharedRead(sharedFlights, calls);

  /** Sends one read of the catalogue for `caller` and decodes its answer for the caller's demand. */
  function read<Op extends ReadOperation>(operation: Op, params: Readonly<Record<string, unknown>>, caller: Caller, callOptions: CallOptions | undefined): Promise<ResultOf<Op>> {
    const target = addressing.targetOf(operation, params);
    const call: UpstreamCall = { operation: operation.name, method: 'GET', target, headers: caller.headers, retryable: true, identity: caller.identity };
    const demanded = decoderFor(callOptions?.demand);
    const decode = (body: Record<string, unknown>): ResultOf<Op> => operation.decode(body, demanded, params) as ResultOf<Op>;
    if (readShared === undefined) return calls.run(call, callOptions, (answer) => readResult(call.operation, answer, decode));
    return readShared(call, callOptions, decode);
  }

  return {
    decoder,

    hasAccepted(resource, cursor) {
      return (resource !== undefined && credentialGate.isAccepted(resourceIdentity(resource))) || (cursor !== undefined && credentialGate.isAccepted(cursorIdentity(cursor)));
    },

    async read(credential, operation, params, callOptions) {
      return read(operation, params, operation.family === 'cursor' ? cursorCaller(credential) : resourceCaller(credential), callOptions);
    },

    async query(credential, collection, request, callOptions) {
      const params = queryParamsOf(request);
      if (params === null) return { inventories: [], total: request.replyWithCount ? 0 : null };
      return read(QUERY_OPERATIONS[collection], params, resourceCaller(credential), callOptions);
    },

    async cursorQuery(credential, request, callOptions) {
      const params = cursorQueryParamsOf(request);
      if (params === null) return { items: [], total: 0, nextCursor: null, hasMore: false };
      return read(CursorQuery, params, cursorCaller(credential), callOptions) as Promise<CursorPage<CursorResourceTypes[typeof request.resourceType]>>;
    },

    async cursorNext(credential, request, callOptions) {
      const params = { cursor: request.cursor, pageSize: request.pageSize, resourceType: request.resourceType };
      return read(CursorNext, params, cursorCaller(credential), callOptions) as Promise<CursorPage<CursorResourceTypes[typeof request.resourceType]>>;
    },

    async submit(credential, request, callOptions) {
      const { operation, params, jobUuid } = request;
      const { identity, headers } = resourceCaller(credential);
      headers['x-job-uuid'] = jobUuid;
      if (request.webHook !== undefined) headers['x-web-hook'] = request.webHook;
      const json = buildBody(operation, params, request);
      if (json !== undefined) headers['content-type'] = 'application/json;charset=UTF-8';
      const call: UpstreamCall = {
        operation: operation.name,
        method: operation.method,
        target: addressing.targetOf(operation, params),
        headers,
        body: json === undefined ? undefined : JSON.stringify(json),
        retryable: false,
        identity,
      };
      try {
        return await calls.run(call, callOptions, (answer) => readAccepted(operation.name, jobUuid, answer));
      } finally {
        // A write answered synchronously is done; an accepted job is closed again when it finishes.
        sharedFlights?.closeAll();
      }
    },

    jobLocation: (jobUuid) => addressing.jobLocation(jobUuid),

    async pollJob(location, pollOptions) {
      const headers = pollOptions?.credential === undefined ? {} : resourceCaller(pollOptions.credential).headers;
      return calls.run({ operation: 'PollJob', method: 'GET', target: addressing.jobTarget(location), headers, retryable: true }, pollOptions, readJobPoll);
    },

    async ping() {
      try {
        // Any HTTP answer, even a 404, proves the upstream is there.
        const call: UpstreamCall = { operation: 'Ping', method: 'GET', target: addressing.upstreamRoot, headers: {}, retryable: false, deadlineMs: Math.min(timeoutMs, PING_TIMEOUT_MS) };
        await calls.send(call, undefined);
        return true;
      } catch {
        return false;
      }
    },

    health() {
      return { breakers: breakers.snapshot(), concurrency: limiter.snapshot() };
    },

    closeReadsInFlight() {
      sharedFlights?.closeAll();
    },

    async close() {
      closed = true;
      await close();
    },
  };
}

/**
 * One decoder per demand: a query's demand is kept per operation, so this holds one entry per
 * operation text in use, and lets it go with it.
 */
function createDemandDecoders(decoder: RecordDecoder): (demand: RecordDemand | undefined) => RecordDecoder {
  const byDemand = new WeakMap<RecordDemand, RecordDecoder>();
  return (demand) => {
    if (demand === undefined) return decoder;
    let demanded = byDemand.get(demand);
    if (demanded === undefined) {
      demanded = decoder.withDemand(demand);
      byDemand.set(demand, demanded);
    }
    return demanded;
  };
}

/** Calls a hook; what it throws is ignored: metrics must never fail a call. */
function hear<A>(hook: ((argument: A) => void) | undefined, argument: A): void {
  try {
    hook?.(argument);
  } catch {
    // Metrics must never fail a call.
  }
}

function positive(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;
}
