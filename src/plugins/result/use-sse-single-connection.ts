/**
 * `useSseSingleConnection`: graphql-sse's single connection mode on the GraphQL endpoint itself,
 * beside yoga's own SSE, which is the protocol's distinct connections mode. A client with
 * `singleConnection: true` reserves a stream with `PUT`, opens it with the token it was given,
 * and `POST`s each operation with that token (`X-GraphQL-Event-Stream-Token`). Only requests that
 * carry these marks go to graphql-sse's handler; every other request, distinct-connection streams
 * included, is yoga's as before.
 *
 * Each operation runs as yoga runs the parameters of any request (`getResultForParams`): the
 * same `onParams` checks, persisted queries, response cache, envelop pipeline (limits, cost,
 * shared subscriptions) and context, with the credentials of the request that POSTed it. Only
 * yoga's request parsing is skipped, so the body limit is enforced here, on `Content-Length`.
 *
 * Not `@graphql-yoga/plugin-graphql-sse`: it executes through the envelop pipeline alone, where
 * the response cache cannot find the parameters yoga's `onParams` would have given it.
 */
import { randomUUID } from 'node:crypto';
import { GraphQLError, type ExecutionResult, type GraphQLFormattedError } from 'graphql';
import { createHandler } from 'graphql-sse/lib/use/fetch';
import { isAsyncIterable, mapAsyncIterator, type GraphQLParams, type Plugin, type YogaServerInstance } from 'graphql-yoga';

/** How long a reserved stream may wait to be opened, in ms. */
const DEFAULT_RESERVATION_TTL_MS = 30_000;
/** Reserved streams waiting to be opened, at most. */
const DEFAULT_MAX_PENDING_RESERVATIONS = 10_000;

export interface SseSingleConnectionOptions {
  /** The GraphQL endpoint's path. */
  endpoint: string;
  /** Largest operation body, in bytes; a bigger one (or one of unknown length) is refused. */
  maxBodyBytes: number;
  /** How long a reserved stream may wait to be opened before it is dropped. @default DEFAULT_RESERVATION_TTL_MS */
  reservationTtlMs?: number;
  /** Reserved streams waiting to be opened, at most; a reservation past it is refused 503 `OVERLOADED`. @default DEFAULT_MAX_PENDING_RESERVATIONS */
  maxPendingReservations?: number;
}

/** The header graphql-sse's client sends the reservation token in (it also accepts `?token=`). */
const TOKEN_HEADER = 'x-graphql-event-stream-token';

export function useSseSingleConnection(options: SseSingleConnectionOptions): Plugin {
  const reservationTtlMs = options.reservationTtlMs ?? DEFAULT_RESERVATION_TTL_MS;
  const maxPendingReservations = options.maxPendingReservations ?? DEFAULT_MAX_PENDING_RESERVATIONS;
  // The server context of each operation's request (its node:http `req`/`res`), for yoga.
  const serverContexts = new WeakMap<Request, Record<string, unknown>>();
  // graphql-sse keeps a reserved stream until it is opened and closed, and queues the events of
  // the operations posted to it meanwhile: unbounded, for a client that reserves and never opens.
  // Here a reservation waits at most `reservationTtlMs`, at most `maxPendingReservations` at once,
  // and takes no operation before it is opened (the graphql-sse client opens before it posts).
  const pending = new Map<string, NodeJS.Timeout>();
  let handler: ((request: Request) => Promise<Response>) | undefined;
  let endpointUrl = '';

  function reserve(): string {
    const token = randomUUID();
    const timer = setTimeout(() => void drop(token), reservationTtlMs);
    timer.unref();
    pending.set(token, timer);
    return token;
  }

  /** Ends a reservation nobody opened, by opening it with a request already hung up. */
  async function drop(token: string): Promise<void> {
    if (!pending.delete(token) || handler === undefined) return;
    const response = await handler(new Request(endpointUrl, { headers: { accept: 'text/event-stream', [TOKEN_HEADER]: token }, signal: AbortSignal.abort() }));
    await response.body?.cancel();
  }

  return {
    onYogaInit({ yoga }) {
      const server = yoga as unknown as YogaServerInstance<Record<string, unknown>, Record<string, unknown>>;
      handler = createHandler(
        {
          // A reservation's token is the server's own, never one the client proposes.
          authenticate: (request) => (request.method === 'PUT' ? reserve() : tokenOf(request.raw)),
          onConnect: (request) => {
            const token = tokenOf(request.raw);
            if (token === null || !pending.has(token)) return;
            clearTimeout(pending.get(token));
            pending.delete(token);
          },
          onSubscribe: async (request, params) => {
            const raw = request.raw;
            try {
              const context = Object.create(serverContexts.get(raw) ?? {}) as Record<string, unknown>;
              const result = await server.getResultForParams({ params: params as GraphQLParams, request: raw }, context);
              if (result === undefined) return { errors: [new GraphQLError('The operation gave no result.')] };
              return isAsyncIterable(result) ? mapAsyncIterator(result, withoutInternals) : withoutInternals(result);
            } catch (error) {
              // A refusal of yoga's `onParams` hooks (a malformed or unknown persisted operation).
              if (error instanceof GraphQLError) return { errors: [error] };
              throw error;
            }
          },
        },
        server.fetchAPI,
      );
    },
    onRequest({ request, url, endResponse, fetchAPI, serverContext }) {
      if (handler === undefined || url.pathname !== options.endpoint || !isSingleConnectionRequest(request, url)) return;
      endpointUrl ||= `${url.origin}${url.pathname}`;
      const refusal = refusalOf(request, pending, maxPendingReservations, options.maxBodyBytes);
      if (refusal) {
        const body = JSON.stringify({ errors: [{ message: refusal.message, extensions: { code: refusal.code } }] });
        const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
        if (refusal.status === 503) headers['retry-after'] = '1';
        endResponse(new fetchAPI.Response(body, { status: refusal.status, headers }));
        return;
      }
      serverContexts.set(request, serverContext as Record<string, unknown>);
      return handler(request)
        .then((response) => codedRefusal(response, fetchAPI))
        .then(endResponse);
    },
  };
}

/** What graphql-sse's bodiless refusals mean, by status. */
const BODILESS_REFUSALS: Readonly<Record<number, { code: string; message: string }>> = {
  404: { code: 'BAD_REQUEST', message: 'No single-connection stream is reserved under this token.' },
  405: { code: 'BAD_REQUEST', message: 'This method does not apply to a single-connection stream: reserve with PUT, open with GET or POST, stop with DELETE.' },
  406: { code: 'NOT_ACCEPTABLE', message: 'A stream is reserved with PUT and `Accept: text/plain`, and opened with `Accept: text/event-stream`.' },
  415: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Send the operation as application/json.' },
};

/**
 * graphql-sse's refusal as a GraphQL response with a code: it answers some with no body (a
 * reservation with a JSON `Accept`: an empty 406) and others with errors that have no code.
 */
async function codedRefusal(response: Response, fetchAPI: { Response: typeof Response }): Promise<Response> {
  if (response.status < 400) return response;
  const text = await response.text();
  let errors: { message?: unknown; extensions?: Record<string, unknown> }[] | undefined;
  try {
    errors = text === '' ? undefined : (JSON.parse(text) as { errors?: typeof errors }).errors;
  } catch {
    errors = undefined;
  }
  const known = BODILESS_REFUSALS[response.status];
  const code = known?.code ?? 'BAD_REQUEST';
  const coded = Array.isArray(errors) && errors.length > 0
    ? errors.map((error) => ({ ...error, extensions: { code, ...error.extensions } }))
    : [{ message: known?.message ?? (response.statusText || 'The request was refused.'), extensions: { code } }];
  const headers = new Headers(response.headers);
  headers.set('content-type', 'application/json; charset=utf-8');
  headers.delete('content-length');
  return new fetchAPI.Response(JSON.stringify({ errors: coded }), { status: response.status, headers });
}

/**
 * A result as yoga writes it to any other transport: without the `http` (status and headers of an
 * HTTP answer, which this operation does not have) its errors carry for yoga's own use.
 */
function withoutInternals(result: ExecutionResult): ExecutionResult {
  if (!result.errors?.length) return result;
  const errors = result.errors.map((error): GraphQLFormattedError => {
    const { http: _http, unexpected: _unexpected, ...extensions } = error.extensions ?? {};
    const formatted = error.toJSON();
    return Object.keys(extensions).length > 0 ? { ...formatted, extensions } : { ...formatted, extensions: undefined };
  });
  return { ...result, errors: errors as unknown as ExecutionResult['errors'] };
}

/** A reservation (`PUT`), or a request naming a reserved stream by its token. */
function isSingleConnectionRequest(request: Request, url: URL): boolean {
  return request.method === 'PUT' || request.headers.has(TOKEN_HEADER) || url.searchParams.has('token');
}

function tokenOf(request: Request): string | null {
  return request.headers.get(TOKEN_HEADER) ?? new URL(request.url, 'http://localhost').searchParams.get('token');
}

/** Why the request is refused before graphql-sse sees it, or null. */
function refusalOf(request: Request, pending: ReadonlyMap<string, unknown>, maxPendingReservations: number, maxBodyBytes: number): Refusal | null {
  if (request.method === 'PUT' && pending.size >= maxPendingReservations) {
    return { status: 503, code: 'OVERLOADED', message: 'Too many event streams are reserved and not yet opened; retry after 1 s.' };
  }
  if (request.method !== 'POST') return null;
  const token = tokenOf(request);
  if (token !== null && pending.has(token)) {
    return { status: 409, code: 'BAD_REQUEST', message: 'Open the reserved event stream (GET with its token) before posting operations to it.' };
  }
  return bodyRefusal(request.headers.get('content-length'), maxBodyBytes);
}

interface Refusal {
  status: number;
  code: string;
  message: string;
}

function bodyRefusal(contentLength: string | null, maxBodyBytes: number): Refusal | null {
  if (contentLength === null || !/^\d+$/.test(contentLength)) {
    return { status: 411, code: 'BAD_REQUEST', message: 'An operation for a single-connection stream must say its Content-Length.' };
  }
  if (Number(contentLength) > maxBodyBytes) return { status: 413, code: 'REQUEST_ENTITY_TOO_LARGE', message: 'Request body too large' };
  return null;
}
