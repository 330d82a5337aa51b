/**
 * The per-request context: the caller's credentials and upstream session. Built once per
 * GraphQL operation (HTTP request or WebSocket subscribe), so every DataLoader hung on it lives
 * at most as long as one request (a subscription empties them before each event) and never
 * serves one caller's records to another.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { contextCacheSymbol } from '@pothos/core';
import { clearAllDataLoaders } from '@pothos/plugin-dataloader';
import { GraphQLError } from 'graphql';
import type { CursorKeeper } from './cursors/keeper.js';
import type { JobManager } from './jobs/manager.js';
import type { SpanScope } from './tracing/spans.js';
import type { RecordDemand } from './upstream/demand.js';
import { createUpstreamSession, type CredentialFamily, type UpstreamSession } from './upstream/session.js';
import { Caller } from './upstream/credentials.js';
import type { CursorCredential, ResourceCredential, UpstreamClient } from './upstream/types.js';

/** The three credential headers (docs/reference/api-promise.md#credentials), as the caller sent them. */
export interface Credentials {
  /** `Authorization: OAuth <SESSION_UUID>`, forwarded unchanged to the resource family. */
  readonly resource: ResourceCredential | undefined;
  /** `X-Resources-Authorization` (+ `X-Tenant-ID`), forwarded as the cursor family's `Authorization`. */
  readonly cursor: CursorCredential | undefined;
}

export interface GatewayContext {
  readonly requestId: string;
  /**
   * The caller: its credentials and its keys (budget, caches, live scope, job owner), worked out
   * once for the request and read by every plugin and resolver that keys anything per caller.
   */
  readonly caller: Caller;
  /** The client itself: writes and their jobs (`mutation-kit.ts`) and the result decoders. */
  readonly upstream: UpstreamClient;
  /**
   * The upstream reads bound to this request's caller, signal, id, address and record demand:
   * what resolvers and loaders read through.
   */
  readonly session: UpstreamSession;
  /** Most keys one DataLoader batch sends upstream. */
  readonly maxBatchSize: number;
  /** Starts upstream writes as jobs and reads them back. */
  readonly jobs: JobManager;
  /** How long a mutation with `async: false` waits for its job before answering RUNNING. */
  readonly mutationWaitMs: number;
  /** Seals connection cursors and keeps the upstream cursors they stand for (shared by the replicas). */
  readonly cursors: CursorKeeper;
  /**
   * Aborted when the HTTP client hangs up before its answer: the reads still waiting on the
   * upstream are cancelled and no further ones start. Writes ignore it (a write that started runs
   * to its end as a job). Over WebSocket it never aborts: a subscription ends by `complete`.
   */
  readonly signal: AbortSignal | undefined;
  /** The caller's address (`client-address.ts`): calls under a credential not yet accepted upstream draw on its budget. */
  readonly clientAddress: string | undefined;
  /** The key of the request's DataLoaders in Pothos' context caches (see createContext). */
  readonly [contextCacheSymbol]: object;
}

/** Header-like lookups, so HTTP headers and WebSocket `connectionParams` share one reader. */
export type CredentialSource = (name: string) => string | undefined;

// One caller per HTTP request: the response cache reads it before the context exists.
const callersByRequest = new WeakMap<Request, Caller>();

/** The caller of an HTTP request, from its credential headers; the same object for every reader of the request. */
export function callerOfRequest(request: Request): Caller {
  let caller = callersByRequest.get(request);
  if (caller === undefined) {
    const { resource, cursor } = readCredentials((name) => request.headers.get(name) ?? undefined);
    caller = new Caller(resource, cursor);
    callersByRequest.set(request, caller);
  }
  return caller;
}

/** The three credential headers, in the case `connectionParams` are read in. */
const CREDENTIAL_NAMES = ['authorization', 'x-resources-authorization', 'x-tenant-id'] as const;

/**
 * Longest credential value (each of the three) accepted over any transport, in characters. Over
 * HTTP node:http refuses a header block over 16 KB before the gateway sees it (431); over
 * graphql-ws `connectionParams` are a message, as large as a body may be. One bound for both, so
 * a credential that no upstream session or token comes near in size reaches neither the upstream
 * nor a log line, however it was sent.
 */
export const MAX_CREDENTIAL_CHARS = 8 * 1024;

/**
 * Throws `UNAUTHENTICATED` when one of the credentials is longer than `MAX_CREDENTIAL_CHARS`. The
 * error names the header and the limit, never the value.
 */
export function refuseOverlongCredentials(get: CredentialSource): void {
  for (const name of CREDENTIAL_NAMES) {
    const length = get(name)?.length ?? 0;
    if (length <= MAX_CREDENTIAL_CHARS) continue;
    throw new GraphQLError(`The ${name} credential is ${length} characters long; no credential is longer than ${MAX_CREDENTIAL_CHARS}.`, {
      extensions: { code: 'UNAUTHENTICATED', http: { status: 401 }, credential: name, limit: MAX_CREDENTIAL_CHARS },
    });
  }
}

/**
 * Reads the credentials from request headers (`Headers`) or `connectionParams` (case-insensitive).
 * One over `MAX_CREDENTIAL_CHARS` is read as absent, so it can reach neither the upstream nor a
 * key; the request that carried it is refused before this runs (`refuseOverlongCredentials`, in
 * `useRequestValidation` over HTTP and in graphql-ws' `onSubscribe`).
 */
export function readCredentials(get: CredentialSource): Credentials {
  const bounded = (name: string): string | undefined => {
    const value = get(name);
    return value !== undefined && value.length <= MAX_CREDENTIAL_CHARS ? value.trim() : undefined;
  };
  const authorization = bounded('authorization');
  const cursorAuthorization = bounded('x-resources-authorization');
  const tenantId = bounded('x-tenant-id');
  return {
    resource: authorization ? { authorization } : undefined,
    cursor: cursorAuthorization
      ? { authorization: cursorAuthorization, tenantId: tenantId || undefined }
      : undefined,
  };
}

/** A case-insensitive view of WebSocket `connectionParams`. */
export function connectionParamsSource(params: Readonly<Record<string, unknown>> | undefined): CredentialSource {
  const lowered = new Map<string, string>();
  for (const [key, value] of Object.entries(params ?? {})) {
    if (typeof value === 'string') lowered.set(key.toLowerCase(), value);
  }
  return (name) => lowered.get(name.toLowerCase());
}

/** The headers of a socket's upgrade request, read as credentials are (the first of a repeated one). */
function upgradeHeadersSource(upgradeHeaders: IncomingHttpHeaders): CredentialSource {
  return (name) => {
    const value = upgradeHeaders[name.toLowerCase()];
    return Array.isArray(value) ? value[0] : value;
  };
}

/**
 * Throws `UNAUTHENTICATED` when a WebSocket operation's credentials (its `connectionParams`, else
 * its upgrade request's headers, as `webSocketCaller` reads them) hold one over `MAX_CREDENTIAL_CHARS`.
 */
export function refuseOverlongWebSocketCredentials(params: Readonly<Record<string, unknown>> | undefined, upgradeHeaders: IncomingHttpHeaders): void {
  refuseOverlongCredentials(connectionParamsSource(params));
  refuseOverlongCredentials(upgradeHeadersSource(upgradeHeaders));
}

/**
 * The credentials of a WebSocket operation: its `connectionParams` when they carry any (what
 * clients send), else the headers of the socket's upgrade request, where a router's header
 * propagation puts them (Apollo Router's `headers` rules on a graphql-ws passthrough to a
 * subgraph). Never a mix of the two.
 */
export function webSocketCaller(params: Readonly<Record<string, unknown>> | undefined, upgradeHeaders: IncomingHttpHeaders): Caller {
  const fromParams = readCredentials(connectionParamsSource(params));
  if (fromParams.resource !== undefined || fromParams.cursor !== undefined) return new Caller(fromParams.resource, fromParams.cursor);
  const fromHeaders = readCredentials(upgradeHeadersSource(upgradeHeaders));
  return new Caller(fromHeaders.resource, fromHeaders.cursor);
}

export function createContext(options: {
  caller: Caller;
  upstream: UpstreamClient;
  maxBatchSize: number;
  jobs: JobManager;
  mutationWaitMs: number;
  cursors: CursorKeeper;
  requestId?: string | undefined;
  signal?: AbortSignal | undefined;
  clientAddress?: string | undefined;
  /** The operation's span scope (`createOperationTracing`); undefined: tracing off. */
  trace?: SpanScope | undefined;
}): GatewayContext {
  const requestId = options.requestId ?? randomUUID();
  return {
    // The key of the request's DataLoaders in Pothos' context caches, its own object so that a copy
    // of the context (a shared subscription's) can be given loaders of its own. (What Pothos'
    // initContextCache() returns; spreading that symbol-keyed object took V8's slow path, about
    // 5 µs a request.)
    [contextCacheSymbol]: {},
    requestId,
    caller: options.caller,
    upstream: options.upstream,
    maxBatchSize: options.maxBatchSize,
    jobs: options.jobs,
    mutationWaitMs: options.mutationWaitMs,
    cursors: options.cursors,
    signal: options.signal,
    clientAddress: options.clientAddress,
    session: createUpstreamSession(options.upstream, {
      caller: options.caller,
      requestId,
      signal: options.signal,
      clientAddress: options.clientAddress,
      trace: options.trace,
      missingCredential,
    }),
  };
}

/**
 * Drops every record the context's DataLoaders hold. A request's loaders live as long as its
 * context, which for a subscription is its whole life: each event must read its records anew,
 * not get the first event's answers again. (`useReleaseLoadedRecords` does the same when a
 * query's execution ends.)
 */
export function forgetLoadedRecords(context: object): void {
  clearAllDataLoaders(context);
}

/**
 * Narrows the request's reads to the record fields its operation needs (`useRecordDemand`);
 * without it (outside a query) they decode every field.
 */
export function setRecordDemand(context: GatewayContext, demand: RecordDemand): void {
  context.session.narrowDemand(demand);
}

/** The UNAUTHENTICATED error of a field whose family's credential the caller did not send. */
function missingCredential(family: CredentialFamily): GraphQLError {
  if (family === 'resource') {
    return new GraphQLError('This field reads the resource API: send `Authorization: OAuth <session>`.', {
      extensions: { code: 'UNAUTHENTICATED', http: { status: 200 }, credential: 'Authorization' },
    });
  }
  return new GraphQLError(
    'This field reads the cursor family (`/api/v1/resources/`): send `X-Resources-Authorization: Bearer <token>` (and `X-Tenant-ID`).',
    { extensions: { code: 'UNAUTHENTICATED', http: { status: 200 }, credential: 'X-Resources-Authorization' } },
  );
}
