/**
 * `useMultipartSubscriptions`: subscriptions over plain HTTP in Apollo's multipart protocol
 * (`Accept: multipart/mixed;subscriptionSpec=1.0`), what Apollo Client's `HttpLink` sends for
 * every subscription and Apollo Kotlin and iOS speak too. Yoga serves subscriptions over HTTP as
 * SSE only, and answered this `Accept` with an empty 406.
 *
 * The answer is `multipart/mixed;boundary="graphql";subscriptionSpec=1.0`: each event a part
 * `{"payload": <result>}`, a `{}` heartbeat first and every `heartbeatMs` so proxies keep the
 * connection open, and the closing boundary when the subscription ends. An error of the stream
 * itself is the part `{"payload": null, "errors": [...]}`, then the end. A subscription refused
 * before it started (a limit, a bad variable) is the one payload of such a stream, when the client
 * accepts nothing else; otherwise yoga answers it as JSON, as before.
 *
 * Everything else about the subscription (limits, cost, shared executions, tracing) is what it is
 * over SSE: only the framing differs.
 */
import { isAsyncIterable } from '@envelop/core';
import { GraphQLError, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { maskUnexpectedError } from '../../errors/mask.js';
import { acceptsMultipartSubscriptions } from '../../execution/execution-kind.js';

/** Interval of the `{}` heartbeat parts, in ms: Apollo Router's. */
const DEFAULT_HEARTBEAT_MS = 5_000;

export interface MultipartSubscriptionsOptions {
  /** Interval of the `{}` heartbeat parts, ms. @default DEFAULT_HEARTBEAT_MS */
  heartbeatMs?: number;
}

export const MULTIPART_SUBSCRIPTION_CONTENT_TYPE = 'multipart/mixed;boundary="graphql";subscriptionSpec=1.0';
// Each part is closed by the boundary that follows it, as clients only hand a part on once they
// read the next boundary: an event framed the other way round waited for the next heartbeat.
const BOUNDARY = '\r\n--graphql';
const part = (json: string): string => `\r\ncontent-type: application/json\r\n\r\n${json}${BOUNDARY}`;
const END = '--\r\n';

export function useMultipartSubscriptions(options: MultipartSubscriptionsOptions = {}): Plugin {
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const subscriptionRequests = new WeakSet<Request>();
  return {
    onSubscribe({ args }) {
      const request = (args.contextValue as { request?: Request }).request;
      if (request) subscriptionRequests.add(request);
    },
    onResultProcess({ request, result, setResultProcessor }) {
      const accept = request.headers.get('accept');
      if (!acceptsMultipartSubscriptions(accept)) return;
      if (isAsyncIterable(result)) {
        // A stream that is not a subscription (a @defer query) keeps yoga's incremental delivery.
        if (!subscriptionRequests.has(request)) return;
      } else if (acceptsJson(accept)) {
        // A refusal answered before the stream started goes as JSON when the client takes JSON too
        // (Apollo Client does): yoga's regular processor has set itself by now. Otherwise it is the
        // stream's one payload; a refusal can come before this plugin's onSubscribe has run.
        return;
      }
      setResultProcessor((processed, fetchAPI) => multipartResponse(processed as ExecutionResult | AsyncIterable<ExecutionResult>, fetchAPI, heartbeatMs), MULTIPART_SUBSCRIPTION_CONTENT_TYPE);
    },
  };
}

function multipartResponse(result: ExecutionResult | AsyncIterable<ExecutionResult>, fetchAPI: { ReadableStream: typeof ReadableStream; Response: typeof Response; TextEncoder: typeof TextEncoder }, heartbeatMs: number): Response {
  const encoder = new fetchAPI.TextEncoder();
  const iterator: AsyncIterator<ExecutionResult> = isAsyncIterable(result) ? result[Symbol.asyncIterator]() : once(result);
  let heartbeat: NodeJS.Timeout | undefined;
  const stop = (): void => clearInterval(heartbeat);
  const body = new fetchAPI.ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(BOUNDARY + part('{}')));
      heartbeat = setInterval(() => controller.enqueue(encoder.encode(part('{}'))), heartbeatMs);
      heartbeat.unref();
    },
    async pull(controller) {
      try {
        const next = await iterator.next();
        if (next.done) {
          stop();
          controller.enqueue(encoder.encode(END));
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(part(JSON.stringify({ payload: publicResult(next.value) }))));
      } catch (error) {
        stop();
        // What the client may see of it, as for any error (`errors/mask.ts`): a Redis outage or an upstream failure as such, anything else masked.
        const shown = maskUnexpectedError(error, 'Unexpected error.');
        const errors = [shown instanceof GraphQLError ? publicError(shown) : { message: 'Unexpected error.' }];
        controller.enqueue(encoder.encode(part(JSON.stringify({ payload: null, errors })) + END));
        controller.close();
      }
    },
    async cancel() {
      stop();
      await iterator.return?.();
    },
  });
  return new fetchAPI.Response(body, {
    status: 200,
    headers: { 'content-type': MULTIPART_SUBSCRIPTION_CONTENT_TYPE, 'cache-control': 'no-store', connection: 'keep-alive' },
  });
}

/** A result as clients see it: errors serialized without the extensions only the server reads (`http`, `unexpected`), as yoga does. */
function publicResult(result: ExecutionResult): Record<string, unknown> {
  const { errors, extensions, data } = result;
  const { http: _http, ...publicExtensions } = (extensions ?? {}) as Record<string, unknown>;
  return {
    ...(errors?.length ? { errors: errors.map(publicError) } : {}),
    ...(data === undefined ? {} : { data }),
    ...(Object.keys(publicExtensions).length > 0 ? { extensions: publicExtensions } : {}),
  };
}

function publicError(error: GraphQLError): unknown {
  const json = typeof error.toJSON === 'function' ? error.toJSON() : { message: error.message };
  const { http: _http, unexpected: _unexpected, ...extensions } = (json.extensions ?? {}) as Record<string, unknown>;
  return { ...json, extensions: Object.keys(extensions).length > 0 ? extensions : undefined };
}

function acceptsJson(accept: string | null): boolean {
  return accept !== null && /application\/(graphql-response\+)?json|\*\/\*/i.test(accept);
}

async function* once(result: ExecutionResult): AsyncGenerator<ExecutionResult> {
  yield result;
}
