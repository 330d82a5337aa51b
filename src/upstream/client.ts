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
import { CredentialGate } from './credential-gate.js';
import { cursorCallCredentials, cursorIdentity, resourceCallCredentials, resourceIdentity, type CallCredentials } from './credentials.js';
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

/**
 * Every option is required but the hooks: a setting (`src/config/settings/`) under the same name (its
 * default lives there), one of `UPSTREAM_FIXED_OPTIONS`, or `strictRecordReads`, which the
 * caller states as undici's interceptors take their policy.
 */
export interface UpstreamClientOptions {
  /** The resource family's `{base_url}` (`UPSTREAM_URL`); the client appends `svc/v1/...`. A path prefix is kept. */
  upstreamUrl: string;
  /** Where the cursor family (`/api/v1/resources/...`) lives (`RESOURCES_URL`); undefined: the origin of `upstreamUrl`. */
  cursorUrl: string | undefined;
  /** IANA zone of the upstream's Timestamp text (`UPSTREAM_TIMEZONE`). */
  upstreamTimezone: string;
  /** Time allowed for one call, the wait for a connection, all retries and the body included (`UPSTREAM_TIMEOUT_MS`). */
  upstreamTimeoutMs: number;
  /** Keep-alive connections, and calls in flight, per upstream origin (`UPSTREAM_CONNECTIONS`). */
  upstreamConnections: number;
  /** Calls waiting per origin once `upstreamConnections` calls are in flight; more fail at once with `UPSTREAM_UNAVAILABLE` (`UPSTREAM_MAX_QUEUED`). */
  upstreamMaxQueued: number;
  /** Calls in a row failing because the upstream is away that open an origin's circuit breaker (`UPSTREAM_BREAKER_THRESHOLD`). */
  upstreamBreakerThreshold: number;
  /** How long an open breaker fails calls at once before it probes the upstream again, in ms (`UPSTREAM_BREAKER_OPEN_MS`). */
  upstreamBreakerOpenMs: number;
  /**
   * Identical reads in flight (same operation, URL with its query, and family headers: the same
   * credential as the upstream reads it) share one HTTP exchange, whichever requests they come
   * from (`SHARE_UPSTREAM_GETS`). Writes and job polls are never shared.
   */
  shareUpstreamGets: boolean;
  /** How long calls under a credential the upstream rejected fail without asking it again, in ms (`REJECTED_CREDENTIAL_TTL_MS`; see `credential-gate.ts`). */
  rejectedCredentialTtlMs: number;
  /** Credentials remembered as accepted, and as rejected, at most (`REMEMBERED_CREDENTIALS`). */
  rememberedCredentials: number;
  /** Calls a client address may make in a burst under credentials not yet accepted; 0 turns the budget off (`UNVERIFIED_CALLS_PER_ADDRESS`). */
  unverifiedCallsPerAddress: number;
  /** Such calls an address regains per minute (`UNVERIFIED_CALLS_PER_MINUTE`). */
  unverifiedCallsPerMinute: number;
  /** Addresses whose budget is kept at most. */
  rememberedAddresses: number;
  /** Retries of an idempotent GET after a connection error or a 502/503/504 without ErrorCode. Writes are never retried. */
  retries: number;
  /** Backoff ceiling of the first retry in ms (doubling, full jitter). */
  retryBaseDelayMs: number;
  /** Backoff ceiling of any retry, in ms. */
  retryMaxDelayMs: number;
  /** Largest response body accepted, in bytes; a bigger one is an `UPSTREAM_PROTOCOL_ERROR`. */
  maxResponseBytes: number;
  /**
   * Reading a record field the caller's demand left out throws `UndecodedFieldError` instead of
   * answering null (`decode.ts`), so that a starved demand fails loudly. The gateway's value is
   * `strictRecordReads` (`config/index.ts`): on under the test runner only.
   */
  strictRecordReads: boolean;
  /** Send requests through this dispatcher (e.g. undici's `MockAgent`) instead of a new `Agent`. `close()` leaves it open. */
  dispatcher?: Dispatcher | undefined;
  /** Called once per call when it ends, for metrics. Exceptions it throws are ignored. */
  onRequest?: ((event: UpstreamRequestEvent) => void) | undefined;
  /** Hears every change of a breaker's state. Exceptions it throws are ignored. */
  onBreakerStateChange?: ((state: BreakerState, origin: string) => void) | undefined;
  /** Hears every read that joined an identical one in flight instead of making its own request. Exceptions it throws are ignored. */
  onSharedRead?: ((operation: string) => void) | undefined;
}

/**
 * The client's options that are no setting (`src/config/settings/`): the gateway's one value of each,
 * stated here once. The app passes them with the settings; tests change them at will.
 */
export const UPSTREAM_FIXED_OPTIONS = {
  rememberedAddresses: 10_000,
  retries: 2,
  retryBaseDelayMs: 100,
  retryMaxDelayMs: 2000,
  maxResponseBytes: 256 * 1024 * 1024,
} as const satisfies Partial<UpstreamClientOptions>;

/** A readiness ping waits at most this long, whatever the calls' timeout. */
const PING_TIMEOUT_MS = 5000;

export function createUpstreamClient(options: UpstreamClientOptions): UpstreamClient {
  const addressing = createAddressing({ upstreamUrl: options.upstreamUrl, cursorUrl: options.cursorUrl });
  const decoder = new RecordDecoder(options.upstreamTimezone, undefined, { strict: options.strictRecordReads });
  const decoderFor = createDemandDecoders(decoder);
  const limiter = new OriginLimiter({ maxConcurrent: options.upstreamConnections, maxQueued: options.upstreamMaxQueued });
  const breakers = new CircuitBreakers({
    failureThreshold: options.upstreamBreakerThreshold,
    openMs: options.upstreamBreakerOpenMs,
    onStateChange: options.onBreakerStateChange,
  });
  // Its options are the client's, under the same names.
  const credentialGate = new CredentialGate(options);
  const { dispatcher, close } = createUpstreamDispatcher({
    connections: options.upstreamConnections,
    timeoutMs: options.upstreamTimeoutMs,
    retry: { retries: options.retries, baseDelayMs: options.retryBaseDelayMs, maxDelayMs: options.retryMaxDelayMs, random: Math.random },
    limiter,
    dispatcher: options.dispatcher,
  });
  let closed = false;
  const calls = createCalls({
    dispatcher,
    maxResponseBytes: options.maxResponseBytes,
    breakers,
    credentialGate,
    onRequest: options.onRequest,
    isClosed: () => closed,
  });
  const sharedFlights = options.shareUpstreamGets ? new SharedFlights((key) => hear(options.onSharedRead, operationOfKey(key))) : undefined;
  const readShared = sharedFlights === undefined ? undefined : createSharedRead(sharedFlights, calls);

  /** Sends one read of the catalogue under `credentials` and decodes its answer for the caller's demand. */
  function read<Op extends ReadOperation>(operation: Op, params: Readonly<Record<string, unknown>>, credentials: CallCredentials, callOptions: CallOptions | undefined): Promise<ResultOf<Op>> {
    const target = addressing.targetOf(operation, params);
    const call: UpstreamCall = { operation: operation.name, method: 'GET', target, headers: credentials.headers, retryable: true, identity: credentials.identity };
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
      return read(operation, params, operation.family === 'cursor' ? cursorCallCredentials(credential) : resourceCallCredentials(credential), callOptions);
    },

    async query(credential, collection, request, callOptions) {
      const params = queryParamsOf(request);
      if (params === null) return { inventories: [], total: request.replyWithCount ? 0 : null };
      return read(QUERY_OPERATIONS[collection], params, resourceCallCredentials(credential), callOptions);
    },

    async cursorQuery(credential, request, callOptions) {
      const params = cursorQueryParamsOf(request);
      if (params === null) return { items: [], total: 0, nextCursor: null, hasMore: false, keys: new Map() };
      return read(CursorQuery, params, cursorCallCredentials(credential), callOptions) as Promise<CursorPage<CursorResourceTypes[typeof request.resourceType]>>;
    },

    async cursorNext(credential, request, callOptions) {
      const params = { cursor: request.cursor, pageSize: request.pageSize, resourceType: request.resourceType, sort: request.sort };
      return read(CursorNext, params, cursorCallCredentials(credential), callOptions) as Promise<CursorPage<CursorResourceTypes[typeof request.resourceType]>>;
    },

    async submit(credential, request, callOptions) {
      const { operation, params, jobUuid } = request;
      const { identity, headers } = resourceCallCredentials(credential);
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
      const headers = pollOptions?.credential === undefined ? {} : resourceCallCredentials(pollOptions.credential).headers;
      return calls.run({ operation: 'PollJob', method: 'GET', target: addressing.jobTarget(location), headers, retryable: true }, pollOptions, readJobPoll);
    },

    async ping() {
      try {
        // Any HTTP answer, even a 404, proves the upstream is there.
        const call: UpstreamCall = { operation: 'Ping', method: 'GET', target: addressing.upstreamRoot, headers: {}, retryable: false, deadlineMs: Math.min(options.upstreamTimeoutMs, PING_TIMEOUT_MS) };
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
