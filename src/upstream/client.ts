/**
 * `createUpstreamClient`: the one place that speaks HTTP to the infrastructure service, for both
 * of its families. It sends any operation of the catalogue (`operations/`) from its declaration,
 * through the composed dispatcher of `http.ts`, maps every failure to one error class of
 * `errors.ts` and decodes answers with the operation's decoder. It knows nothing of GraphQL.
 */
import type { Span } from '@opentelemetry/api';
import type { Dispatcher } from 'undici';
import { SpanKind, injectTraceHeaders, recordFailure, startChildSpan } from '../tracing/spans.js';
import { DecodeError, RecordDecoder, asObject } from './decode.js';
import type { RecordDemand } from './demand.js';
import {
  UpstreamAuthenticationError,
  UpstreamBadRequestError,
  UpstreamBusinessError,
  UpstreamForbiddenError,
  UpstreamNotFoundError,
  UpstreamProtocolError,
  UpstreamRequestError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
} from './errors.js';
import { CircuitBreakers, type BreakerState, type BreakerTicket } from './breaker.js';
import { CredentialGate, type CredentialGateOptions, type CredentialVerdict, type GatePass } from './credential-gate.js';
import { cursorIdentity, readableAuthorization, resourceIdentity } from './credentials.js';
import { CONNECT_FAILURE_CODES, createUpstreamDispatcher, transportErrorCode, type RetryListener } from './http.js';
import { OriginLimiter, QueueFullError } from './limiter.js';
import { mayQuote, redact, secretOf } from './redact.js';
import { SharedFlights } from './shared-flights.js';
import {
  CursorNext,
  CursorQuery,
  PollJob,
  QUERY_OPERATIONS,
  buildBody,
  buildPath,
  buildQuery,
  matchPathOf,
  type AnyOperation,
  type HttpMethod,
  type OperationParams,
  type ParamSpecs,
  type QueryPairs,
  type ReadOperation,
  type ResultOf,
} from './operations/index.js';
import type { ErrorCodeRecord, Uuid } from './records.js';
import type {
  AsyncAccepted,
  CallOptions,
  CursorCredential,
  CursorFilter,
  CursorPage,
  CursorResourceTypes,
  JobPoll,
  PollJobOptions,
  QueryCondition,
  ResourceCredential,
  UpstreamClient,
} from './types.js';

/** What the `onRequest` hook hears about each upstream call (once per call, after any retries). */
export interface UpstreamRequestEvent {
  /** The spec operation name, e.g. `QueryFiberChannelLun`, `CursorQuery`, `PollJob`, `Ping`. */
  operation: string;
  method: string;
  /** HTTP status of the last answer; null when none came (connection error, timeout). */
  status: number | null;
  durationMs: number;
  /** The `UpstreamErrorCode` of the failure, when the call failed. */
  error?: string;
}

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

type Headers = Record<string, string>;

/** A configured base URL: its origin, and its path ending with `/`. */
interface Base {
  origin: string;
  pathname: string;
}

/** Where a request goes: undici takes the origin and the path (with its query) apart. */
interface Target {
  origin: string;
  /** Path and query, already percent-encoded. */
  path: string;
}

interface RawRequest {
  operation: string;
  method: HttpMethod;
  target: Target;
  headers: Headers;
  body?: string | undefined;
  /** false: never retried (writes, pings). */
  retryable: boolean;
  /** Who the upstream takes the call for (`credentials.ts`); undefined for calls that need no credential. */
  identity?: string | undefined;
  timeoutMs?: number | undefined;
}

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Upstream text quoted in an error message is cut to this length: enough to diagnose, no dump. */
const MAX_QUOTED_CHARS = 200;
/** Where the resource family's operations live below `{base_url}`. */
const RESOURCE_ROOT = 'svc/v1/';
// An id that needed escaping (never one the gateway chose) is polled at the address as written.
const matchJobPath = matchPathOf(PollJob, RESOURCE_ROOT);

export function createUpstreamClient(options: UpstreamClientOptions): UpstreamClient {
  const upstreamBase = parseBase(options.upstreamUrl, 'upstreamUrl');
  const resourcesBase = parseBase(options.resourcesUrl ?? upstreamBase.origin, 'resourcesUrl');
  // Read once: a URL's getters serialize on every read.
  const upstreamRoot: Base = { origin: upstreamBase.origin, pathname: upstreamBase.pathname };
  const resourcesRoot: Base = { origin: resourcesBase.origin, pathname: resourcesBase.pathname };
  const timeoutMs = positive(options.timeoutMs, 10_000);
  const maxResponseBytes = positive(options.maxResponseBytes, 256 * 1024 * 1024);
  const decoder = new RecordDecoder(options.timezone ?? 'UTC');
  // One decoder per demand: a query's demand is kept per operation, so this holds one entry per
  // operation text in use, and lets it go with it.
  const decodersByDemand = new WeakMap<RecordDemand, RecordDecoder>();
  const decoderFor = (callOptions: CallOptions | undefined): RecordDecoder => {
    const demand = callOptions?.demand;
    if (demand === undefined) return decoder;
    let demanded = decodersByDemand.get(demand);
    if (demanded === undefined) {
      demanded = decoder.withDemand(demand);
      decodersByDemand.set(demand, demanded);
    }
    return demanded;
  };
  const { dispatcher, close } = createUpstreamDispatcher({
    connections: positive(options.connections, 32),
    timeoutMs,
    retry: { retries: options.retries ?? 2, baseDelayMs: options.retryBaseDelayMs ?? 100 },
    dispatcher: options.dispatcher,
  });
  const breakers = new CircuitBreakers({
    failureThreshold: options.breakerThreshold,
    openMs: options.breakerOpenMs,
    onStateChange: options.onBreakerStateChange,
  });
  const limiter = new OriginLimiter({ maxConcurrent: positive(options.connections, 32), maxQueued: options.maxQueued });
  const credentialGate = new CredentialGate(options.credentialGate);
  const sharedReads = options.shareReads === false ? undefined : new SharedFlights(reportSharedRead);
  let closed = false;

  /**
   * Where an operation goes: `{base_url}/svc/v1/<path>` (the base's own path prefix kept) or
   * `{resources origin}/api/v1/resources/<path>`, with its query string.
   */
  function targetOf(operation: AnyOperation, params: Readonly<Record<string, unknown>>): Target {
    const path = buildPath(operation, params);
    const query = buildQuery(operation, params);
    return operation.family === 'resource'
      ? buildTarget(upstreamRoot, `${RESOURCE_ROOT}${path}`, query)
      : buildTarget(resourcesRoot, `api/v1/resources/${path}`, query);
  }

  /**
   * Sends one request; resolves with any HTTP answer, rejects only when none came. With a `span`
   * (the call's), its `traceparent` goes upstream and each retry is counted on it.
   */
  async function send(request: RawRequest, callOptions: CallOptions | undefined, span?: Span): Promise<RawResponse> {
    if (closed) {
      throw new UpstreamUnavailableError(`${request.operation}: the upstream client is closed`, { operation: request.operation });
    }
    const deadline = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      deadline.abort(new Error('upstream deadline'));
    }, request.timeoutMs ?? timeoutMs);
    const callerSignal = callOptions?.signal;
    const onCallerAbort = (): void => deadline.abort(callerSignal?.reason);
    if (callerSignal?.aborted) onCallerAbort();
    else callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
    const headers: Headers = { accept: 'application/json', ...request.headers };
    if (callOptions?.requestId) headers['x-request-id'] = callOptions.requestId;
    if (span !== undefined) injectTraceHeaders(span, headers);
    let release: (() => void) | undefined;
    try {
      // Waiting for a slot counts against the call's deadline, like the request itself.
      release = await limiter.acquire(request.target.origin, deadline.signal);
      return await exchange(
        dispatcher,
        {
          origin: request.target.origin,
          path: request.target.path,
          method: request.method,
          headers,
          body: request.body ?? null,
          idempotent: request.retryable,
        },
        deadline.signal,
        maxResponseBytes,
        request.operation,
        span === undefined ? undefined : (attempt) => span.setAttribute('upstream.retries', attempt),
      );
    } catch (error) {
      if (error instanceof UpstreamRequestError) throw error;
      if (error instanceof QueueFullError) {
        throw new UpstreamUnavailableError(`${request.operation}: the gateway is at its limit of upstream calls (${error.message})`, {
          operation: request.operation,
          cause: error,
        });
      }
      if (timedOut) {
        throw new UpstreamTimeoutError(`${request.operation}: no answer from the upstream within ${request.timeoutMs ?? timeoutMs} ms`, {
          operation: request.operation,
          cause: error,
          mayHaveBeenDelivered: release !== undefined,
        });
      }
      if (callerSignal?.aborted) throw callerGaveUp(request.operation, callerSignal, release !== undefined);
      throw mapTransportError(request.operation, error);
    } finally {
      release?.();
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onCallerAbort);
    }
  }

  /**
   * Runs one call: sends, reports to `onRequest`, and lets `handle` turn the answer into a result.
   * Under a trace (`callOptions.trace`) the call is one span, counted on its parent.
   */
  async function call<T>(request: RawRequest, callOptions: CallOptions | undefined, handle: (response: RawResponse) => T): Promise<T> {
    const started = performance.now();
    let status: number | null = null;
    let ticket: BreakerTicket | undefined;
    let pass: GatePass | undefined;
    const span = callOptions?.trace === undefined ? undefined : startCallSpan(request, callOptions.trace);
    try {
      if (request.identity !== undefined) pass = await credentialGate.enter(request.identity, callOptions?.clientAddress, request.operation, callOptions?.signal);
      ticket = admit(request, span);
      if (callOptions?.trace !== undefined) callOptions.trace.upstreamRequests += 1;
      const response = withoutCredentials(await send(request, callOptions, span), request.headers.authorization);
      status = response.status;
      span?.setAttribute('http.response.status_code', status);
      const result = handle(response);
      ticket.success();
      pass?.settle('accepted', true);
      report(request, status, started);
      span?.end();
      return result;
    } catch (error) {
      if (span !== undefined) {
        recordFailure(span, error);
        span.end();
      }
      if (ticket !== undefined) settle(ticket, error, callOptions);
      pass?.settle(verdictOf(request, status, error), ticket !== undefined && wasSent(error));
      report(request, status, started, error);
      if (error instanceof DecodeError) {
        throw new UpstreamProtocolError(`${request.operation}: unexpected answer: ${error.message}`, {
          operation: request.operation,
          status: status ?? undefined,
          cause: error,
        });
      }
      throw error;
    }
  }

  /** The span of one upstream call, under `parent`: the spec's operation name, its method and origin. */
  function startCallSpan(request: RawRequest, parent: NonNullable<CallOptions['trace']>): Span {
    return startChildSpan(
      parent,
      `upstream ${request.operation}`,
      { 'upstream.operation': request.operation, 'http.request.method': request.method, 'server.address': request.target.origin, 'upstream.retries': 0 },
      SpanKind.CLIENT,
    );
  }

  /** Lets the call through its origin's breaker, or fails it at once while the upstream is away. */
  function admit(request: RawRequest, span?: Span): BreakerTicket {
    const breaker = breakers.for(request.target.origin);
    // The state the call met: an open breaker explains a call that failed without being sent.
    span?.setAttribute('upstream.breaker.state', breaker.snapshot().state);
    const admission = breaker.admit();
    if (admission.admitted) return admission.ticket;
    const seconds = Math.max(1, Math.ceil(admission.retryAfterMs / 1000));
    throw new UpstreamUnavailableError(
      `${request.operation}: the upstream is failing; the gateway stops calling it for a while (circuit breaker open, next try in about ${seconds} s)`,
      { operation: request.operation },
    );
  }

  /** What a failed call's answer says about its credential. */
  function verdictOf(request: RawRequest, status: number | null, error: unknown): CredentialVerdict {
    // No answer, or the service away (5xx without an ErrorCode): nothing learnt.
    if (status === null || (error instanceof UpstreamRequestError && error.code === 'UPSTREAM_UNAVAILABLE')) return 'unknown';
    if (error instanceof UpstreamRequestError && error.code === 'UNAUTHENTICATED') return 'rejected';
    // The service answers 400 to a request it reads no credential from (UPSTREAM-NOTES).
    if (status === 400 && readableAuthorization(request.headers.authorization ?? '') === null) return 'rejected';
    // Any other answer came after the service had taken the credential.
    return 'accepted';
  }

  /** Tells the breaker what a failed call says about the upstream. */
  function settle(ticket: BreakerTicket, error: unknown, callOptions: CallOptions | undefined): void {
    if (callOptions?.signal?.aborted) return ticket.release();
    const away =
      error instanceof UpstreamRequestError &&
      (error.code === 'UPSTREAM_TIMEOUT' || (error.code === 'UPSTREAM_UNAVAILABLE' && !(error.cause instanceof QueueFullError)));
    if (away) ticket.failure();
    // Any other answer (an ErrorCode, a 4xx, an unreadable body) proves the upstream is there.
    else ticket.success();
  }

  function report(request: RawRequest, status: number | null, started: number, error?: unknown): void {
    if (options.onRequest === undefined) return;
    const event: UpstreamRequestEvent = {
      operation: request.operation,
      method: request.method,
      status,
      durationMs: performance.now() - started,
    };
    if (error !== undefined) {
      event.error = error instanceof UpstreamRequestError ? error.code : error instanceof DecodeError ? 'UPSTREAM_PROTOCOL_ERROR' : 'ABORTED';
    }
    try {
      options.onRequest(event);
    } catch {
      // Metrics must never fail a call.
    }
  }

  function reportSharedRead(key: string): void {
    try {
      options.onSharedRead?.(key.slice(0, key.indexOf('\n')));
    } catch {
      // Metrics must never fail a call.
    }
  }

  /**
   * Sends one read of the catalogue under the caller's credential and decodes its 2xx JSON
   * object with the operation's decoder (the one for the caller's demand), or rejects with the
   * mapped error.
   */
  function sendRead<Path extends string, Locations extends ParamSpecs, Result>(
    operation: ReadOperation<Path, Locations, Result>,
    params: OperationParams<Path, Locations>,
    [identity, headers]: readonly [string, Headers],
    callOptions: CallOptions | undefined,
  ): Promise<Result> {
    const target = targetOf(operation, params);
    const name = operation.name;
    const demanded = decoderFor(callOptions);
    const request: RawRequest = { operation: name, method: 'GET', target, headers, retryable: true, identity };
    if (sharedReads === undefined) {
      return call(request, callOptions, (response) => operation.decode(expectSuccess(name, response), demanded, params));
    }
    return readShared(request, callOptions, (body) => operation.decode(body, demanded, params));
  }

  /**
   * A read from the identical one in flight or from a new exchange. The exchange (its credential
   * gate, breaker, retries and `onRequest` report: one upstream call) is made once; the caller
   * that started it decodes the answer as soon as it arrives, as an unshared read does (a parsed
   * page kept waiting is what young-generation collections copy), and the JSON object is handed
   * on only when other callers wait for it, each decoding it for its own demand (decoders never
   * change it). The first caller's request id and address go upstream. A caller whose signal
   * aborts is rejected alone; the exchange is aborted when no caller is left.
   */
  async function readShared<Result>(request: RawRequest, callOptions: CallOptions | undefined, decode: (body: Record<string, unknown>) => Result): Promise<Result> {
    const { authorization = '', 'x-tenant-id': tenant = '' } = request.headers;
    const key = `${request.operation}\n${request.target.origin}${request.target.path}\n${authorization}\n${tenant}`;
    const callerSignal = callOptions?.signal;
    let started: { decoded: () => Result } | undefined;
    let body: Record<string, unknown> | undefined;
    try {
      body = await sharedReads!.run(key, callerSignal, (flight) =>
        call(request, { ...callOptions, signal: flight.signal }, (response) => {
          const parsed = expectSuccess(request.operation, response);
          const waiting = flight.land();
          // The caller that started the exchange may have left while others still wait.
          const stayed = callerSignal?.aborted !== true;
          if (stayed) started = decodeNow(request.operation, () => decode(parsed));
          return waiting > (stayed ? 1 : 0) ? parsed : undefined;
        }),
      );
    } catch (error) {
      if (callerSignal?.aborted && error === callerSignal.reason) throw callerGaveUp(request.operation, callerSignal);
      throw error;
    }
    if (started !== undefined) return started.decoded();
    return decodeNow(request.operation, () => decode(body!)).decoded();
  }

  const client: UpstreamClient = {
    decoder,

    hasAccepted(resource, cursor) {
      return (resource !== undefined && credentialGate.isAccepted(resourceIdentity(resource))) || (cursor !== undefined && credentialGate.isAccepted(cursorIdentity(cursor)));
    },

    async read(credential, operation, params, callOptions) {
      const who = operation.family === 'cursor' ? cursorCall(credential) : resourceCall(credential);
      return sendRead(operation, params, who, callOptions) as Promise<ResultOf<typeof operation>>;
    },

    async query(credential, collection, request, callOptions) {
      const q: string[] = [];
      for (const condition of request.conditions ?? []) {
        const text = conditionText(condition);
        if (text === null) return { inventories: [], total: request.replyWithCount ? 0 : null };
        if (text !== '') q.push(text);
      }
      const params = {
        q,
        limit: request.limit,
        start: request.start,
        sort: request.sort === undefined ? undefined : `${request.sort.direction === 'desc' ? '-' : '+'}${request.sort.field}`,
        replyWithCount: request.replyWithCount ? true : undefined,
      };
      return sendRead(QUERY_OPERATIONS[collection], params, resourceCall(credential), callOptions);
    },

    async cursorQuery(credential, request, callOptions) {
      const filter: string[] = [];
      for (const condition of request.filter ?? []) {
        const text = filterText(condition);
        if (text === null) return { items: [], total: 0, nextCursor: null, hasMore: false };
        if (text !== '') filter.push(text);
      }
      const params = { resourceType: request.resourceType, sort: request.sort, order: request.order, pageSize: request.pageSize, filter };
      return sendRead(CursorQuery, params, cursorCall(credential), callOptions) as Promise<CursorPage<CursorResourceTypes[typeof request.resourceType]>>;
    },

    async cursorNext(credential, request, callOptions) {
      const params = { cursor: request.cursor, pageSize: request.pageSize, resourceType: request.resourceType };
      return sendRead(CursorNext, params, cursorCall(credential), callOptions) as Promise<CursorPage<CursorResourceTypes[typeof request.resourceType]>>;
    },

    async submit(credential, request, callOptions) {
      const { operation, params, jobUuid } = request;
      const target = targetOf(operation, params);
      const headers = resourceHeaders(credential);
      headers['x-job-uuid'] = jobUuid;
      if (request.webHook !== undefined) headers['x-web-hook'] = request.webHook;
      const json = buildBody(operation, params, request);
      let body: string | undefined;
      if (json !== undefined) {
        headers['content-type'] = 'application/json;charset=UTF-8';
        body = JSON.stringify(json);
      }
      try {
        return await call({ operation: operation.name, method: operation.method, target, headers, body, retryable: false, identity: resourceIdentity(credential) }, callOptions, (response) =>
          readAccepted(operation.name, jobUuid, response),
        );
      } finally {
        // A write answered synchronously is done; an accepted job is closed again when it finishes.
        sharedReads?.closeAll();
      }
    },

    jobLocation(jobUuid) {
      const { origin, path } = targetOf(PollJob, { jobUuid });
      return `${origin}${path}`;
    },

    async pollJob(location, pollOptions?: PollJobOptions) {
      const headers: Headers = pollOptions?.credential === undefined ? {} : resourceHeaders(pollOptions.credential);
      return call({ operation: 'PollJob', method: 'GET', target: jobTarget(location), headers, retryable: true }, pollOptions, (response) =>
        readJobPoll(response),
      );
    },

    async ping() {
      try {
        // Any HTTP answer, even a 404, proves the upstream is there.
        await send({ operation: 'Ping', method: 'GET', target: { origin: upstreamRoot.origin, path: upstreamRoot.pathname }, headers: {}, retryable: false, timeoutMs: Math.min(timeoutMs, 5000) }, undefined);
        return true;
      } catch {
        return false;
      }
    },

    health() {
      return { breakers: breakers.snapshot(), concurrency: limiter.snapshot() };
    },

    closeReadsInFlight() {
      sharedReads?.closeAll();
    },

    async close() {
      closed = true;
      await close();
    },
  };
  return client;

  /** A job's polling address, moved onto the configured base when it has the usual shape. */
  function jobTarget(location: string): Target {
    // The service writes its own idea of its address, which behind a proxy or NAT may not be
    // reachable from here; the job path on the configured base always is.
    const url = new URL(location, upstreamBase);
    const params = matchJobPath(url.pathname);
    if (params === undefined) return { origin: url.origin, path: `${url.pathname}${url.search}` };
    return targetOf(PollJob, params);
  }
}

// ---------------------------------------------------------------------------------------------
// Requests

function parseBase(text: string, name: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TypeError(`${name} is not an absolute URL: ${text}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`${name} must be http or https: ${text}`);
  url.search = '';
  url.hash = '';
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

function positive(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;
}

/**
 * `base` ends with `/`; `relative` has none in front and is already encoded (constants and
 * `segment`s). Built as text: a `URL` object re-parses on every setter, 1.5% of the gateway's CPU
 * at 50 clients for four requests per dashboard (profiled).
 */
function buildTarget(base: Base, relative: string, params: QueryPairs): Target {
  const query = params.length === 0 ? '' : encodeParams(params);
  return { origin: base.origin, path: query === '' ? `${base.pathname}${relative}` : `${base.pathname}${relative}?${query}` };
}

/**
 * Percent-encodes every reserved character (`%20` for a space, `%2B` for `+`), so the server
 * reads the same text whether it decodes the query as a form or as a URI.
 */
function encodeParams(params: readonly (readonly [string, string])[]): string {
  return params.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&');
}

function resourceHeaders(credential: ResourceCredential): Headers {
  return { authorization: credential.authorization };
}

/** Who a resource-family read is made for, and its headers. */
function resourceCall(credential: ResourceCredential): readonly [string, Headers] {
  return [resourceIdentity(credential), resourceHeaders(credential)];
}

/** Who a cursor-family read is made for, and its headers. */
function cursorCall(credential: CursorCredential): readonly [string, Headers] {
  const headers: Headers = { authorization: credential.authorization };
  if (credential.tenantId) headers['x-tenant-id'] = credential.tenantId;
  return [cursorIdentity(credential), headers];
}

function joinValue(value: string | readonly string[]): string {
  return typeof value === 'string' ? value : value.join(',');
}

/** `<field><op><value>`; `''` for a condition that is always true, null for one never true. */
function conditionText(condition: QueryCondition): string | null {
  if (!('value' in condition)) return `${condition.field} ${condition.op}`;
  if (typeof condition.value !== 'string' && condition.value.length === 0) {
    // "in ()" matches nothing and "not in ()" everything; the wire has no spelling for either.
    if (condition.op === '?=') return null;
    if (condition.op === '!?=') return '';
  }
  return `${condition.field}${condition.op}${joinValue(condition.value)}`;
}

function filterText(filter: CursorFilter): string | null {
  if (typeof filter.value !== 'string' && filter.value.length === 0) {
    if (filter.op === 'in') return null;
    if (filter.op === 'nin') return '';
  }
  return `${filter.field}:${filter.op}:${joinValue(filter.value)}`;
}

// ---------------------------------------------------------------------------------------------
// Responses

/**
 * Sends one request through undici's `dispatch` and buffers its answer as text. Not
 * `dispatcher.request()`: that wraps every answer in a Readable stream which the gateway only
 * drains into one buffer, 0.17 ms of CPU per read of a 160 KB page (a fifth of it, measured).
 * A body over `maxBytes` is refused while it arrives; `signal` aborts the request at any point;
 * a connection lost mid-body fails the request.
 */
function exchange(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  signal: AbortSignal,
  maxBytes: number,
  operation: string,
  onRetry?: (attempt: number) => void,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    let controller: Dispatcher.DispatchController | null = null;
    let status = 0;
    let headers: RawResponse['headers'] = {};
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const onAbort = (): void => {
      if (controller !== null) controller.abort(signal.reason as Error);
      else fail(signal.reason);
    };
    /** True the first time only: the request is over, whichever way. */
    function settle(): boolean {
      if (settled) return false;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      return true;
    }
    function fail(error: unknown): void {
      if (settle()) reject(error);
    }
    signal.addEventListener('abort', onAbort, { once: true });
    const handler: Dispatcher.DispatchHandler & RetryListener = {
      onRetry,
      onRequestStart(started) {
        controller = started;
      },
      onResponseStart(_controller, statusCode, responseHeaders) {
        // 1xx answers are interim: the final one follows.
        if (statusCode < 200) return;
        status = statusCode;
        headers = responseHeaders;
      },
      onResponseData(current, chunk) {
        size += chunk.length;
        if (size > maxBytes) {
          current.abort(new UpstreamProtocolError(`${operation}: the upstream answer exceeds ${maxBytes} bytes`, { operation, status }));
          return;
        }
        chunks.push(chunk);
      },
      onResponseEnd() {
        if (settle()) resolve({ status, headers, text: Buffer.concat(chunks, size).toString('utf8') });
      },
      onResponseError(_controller, error) {
        fail(error);
      },
    };
    try {
      dispatcher.dispatch(options, handler);
    } catch (error) {
      fail(error);
    }
  });
}

/** The caller gave up: not an upstream failure, so the caller's own reason comes back (a deadline as a timeout). */
function callerGaveUp(operation: string, signal: AbortSignal, mayHaveBeenDelivered = true): unknown {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name === 'TimeoutError') {
    return new UpstreamTimeoutError(`${operation}: the caller's deadline passed`, { operation, cause: reason, mayHaveBeenDelivered });
  }
  return reason;
}

/**
 * Decodes a shared answer for one caller, now; `decoded()` gives the result or throws. A record
 * the decoder refuses is that caller's protocol error, not the exchange's.
 */
function decodeNow<T>(operation: string, decode: () => T): { decoded: () => T } {
  try {
    const value = decode();
    return { decoded: () => value };
  } catch (error) {
    const failure = error instanceof DecodeError ? new UpstreamProtocolError(`${operation}: unexpected answer: ${error.message}`, { operation, cause: error }) : error;
    return {
      decoded: () => {
        throw failure;
      },
    };
  }
}

function quote(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_QUOTED_CHARS ? `${flat.slice(0, MAX_QUOTED_CHARS)}…` : flat;
}

/**
 * The answer with the credential it was sent scrubbed from its text, so no error, payload, job or
 * log line built from it can show it. A success is scanned for the credential as sent (a cheap
 * `includes` on the hot path); a failure, which is where the service quotes it, for every spelling.
 */
function withoutCredentials(response: RawResponse, authorization: string | undefined): RawResponse {
  const secret = secretOf(authorization);
  const secrets = secret === undefined ? [] : [secret];
  const success = response.status >= 200 && response.status < 300;
  if (success && !mayQuote(response.text, secrets)) return response;
  const text = redact(response.text, secrets);
  return text === response.text ? response : { ...response, text };
}

function parseJson(text: string): unknown {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The ErrorCode of `{"error": {...}}`, or null when the body carries none. */
function errorCodeOf(body: unknown, decoder: RecordDecoder): ErrorCodeRecord | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const error = (body as Record<string, unknown>).error;
  if (typeof error !== 'object' || error === null || typeof (error as { code?: unknown }).code !== 'string') return null;
  try {
    return decoder.errorCode(error, 'error');
  } catch {
    // An ErrorCode with a malformed member is still an ErrorCode: keep what can be read.
    const raw = error as Record<string, unknown>;
    return { code: String(raw.code), description: null, details: null, elaboration: null, opaque: null, cause: null };
  }
}

/** The error for an ErrorCode: ID.1001 and ID.1002 are about the caller, the rest business. */
function errorFromCode(operation: string, status: number, errorCode: ErrorCodeRecord): UpstreamRequestError {
  const details = { operation, status, errorCode };
  const summary = `${operation}: ${errorCode.code}: ${errorCode.description ?? errorCode.details ?? 'upstream error'}`;
  if (errorCode.code === 'ID.1001') return new UpstreamAuthenticationError(summary, details);
  if (errorCode.code === 'ID.1002') return new UpstreamForbiddenError(summary, details);
  return new UpstreamBusinessError(errorCode, { operation, status });
}

// Errors do not know which decoder decoded them, and ErrorCode has no timestamps: any zone will do.
const errorDecoder = new RecordDecoder('UTC');

/** The error an unsuccessful answer stands for. */
function errorFromResponse(operation: string, response: RawResponse, parsed: unknown): UpstreamRequestError {
  const { status } = response;
  const errorCode = errorCodeOf(parsed, errorDecoder);
  if (errorCode !== null) return errorFromCode(operation, status, errorCode);
  const text = parsed === undefined ? quote(response.text) : '';
  const said = text === '' ? '' : `: ${text}`;
  const details = { operation, status };
  if (status === 401) return new UpstreamAuthenticationError(`${operation}: the upstream rejected the credential (401)${said}`, details);
  if (status === 403) return new UpstreamForbiddenError(`${operation}: the upstream refused the caller (403)${said}`, details);
  if (status === 404) return new UpstreamNotFoundError(`${operation}: not found upstream (404)${said}`, details);
  if (status === 405) return new UpstreamProtocolError(`${operation}: the upstream does not allow this method (405)`, details);
  if (status >= 400 && status < 500) return new UpstreamBadRequestError(`${operation}: the upstream rejected the request (${status})${said}`, details);
  if (status >= 500) return new UpstreamUnavailableError(`${operation}: the upstream is unavailable (${status})${said}`, details);
  return new UpstreamProtocolError(`${operation}: unexpected upstream status ${status}`, details);
}

/** The JSON object of a 2xx answer whose `error` is null, or the error the answer stands for. */
function expectSuccess(operation: string, response: RawResponse): Record<string, unknown> {
  const parsed = parseJson(response.text);
  if (response.status < 200 || response.status >= 300) throw errorFromResponse(operation, response, parsed);
  const errorCode = errorCodeOf(parsed, errorDecoder);
  // "When error is null the operation succeeded; when not null it failed", whatever the status.
  if (errorCode !== null) throw errorFromCode(operation, response.status, errorCode);
  if (response.text.trim() === '') return {};
  if (parsed === undefined) throw new DecodeError('body', `expected JSON, got ${JSON.stringify(quote(response.text))}`);
  return asObject(parsed, 'body');
}

function headerValue(headers: RawResponse['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function readAccepted(operation: string, jobUuid: Uuid, response: RawResponse): AsyncAccepted {
  if (response.status === 202) {
    const parsed = response.text.trim() === '' ? {} : parseJson(response.text);
    if (parsed === undefined) throw new DecodeError('body', 'a 202 answer must be JSON');
    const body = asObject(parsed, 'body');
    const location = typeof body.location === 'string' ? body.location : headerValue(response.headers, 'location');
    if (location === undefined || location === '') throw new DecodeError('body.location', 'a 202 answer carries no polling address');
    const apiTimeout = typeof body.apiTimeout === 'number' ? body.apiTimeout : null;
    return { location, jobUuid, apiTimeout };
  }
  // A 200 is the service finishing the call synchronously: the result is already here.
  const result = expectSuccess(operation, response);
  return { location: null, jobUuid, apiTimeout: null, result };
}

function readJobPoll(response: RawResponse): JobPoll {
  const operation = 'PollJob';
  if (response.status === 202) return { status: 'running' };
  const parsed = parseJson(response.text);
  const errorCode = errorCodeOf(parsed, errorDecoder);
  if (errorCode !== null && (response.status === 503 || (response.status >= 200 && response.status < 300))) {
    return { status: 'failed', body: asObject(parsed, 'body'), error: errorCode };
  }
  if (response.status === 200) {
    if (response.text.trim() === '') return { status: 'succeeded', body: {} };
    if (parsed === undefined) throw new DecodeError('body', 'a finished job must answer JSON');
    return { status: 'succeeded', body: asObject(parsed, 'body') };
  }
  throw errorFromResponse(operation, response, parsed);
}

/** Whether a failed call may have reached the upstream: an answer came, or none came after sending. */
function wasSent(error: unknown): boolean {
  return !(error instanceof UpstreamRequestError) || error.status !== undefined || error.mayHaveBeenDelivered;
}

/** Failures that happen before a request leaves the gateway: the upstream surely did not see it. */
const NOT_SENT_CODES: ReadonlySet<string> = new Set([...CONNECT_FAILURE_CODES, 'UND_ERR_INVALID_ARG']);

/** A failure with no HTTP answer: a timeout of undici's own, or a connection that failed. */
function mapTransportError(operation: string, error: unknown): UpstreamRequestError {
  const code = transportErrorCode(error);
  const reason = error instanceof Error ? error.message : String(error);
  const mayHaveBeenDelivered = !NOT_SENT_CODES.has(code);
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT') {
    return new UpstreamTimeoutError(`${operation}: the upstream did not answer in time (${code})`, { operation, cause: error, mayHaveBeenDelivered });
  }
  if (code === 'UND_ERR_INVALID_ARG') {
    return new UpstreamBadRequestError(`${operation}: the request could not be sent: ${reason}`, { operation, cause: error });
  }
  return new UpstreamUnavailableError(`${operation}: the upstream is unreachable (${code || reason})`, { operation, cause: error, mayHaveBeenDelivered });
}
