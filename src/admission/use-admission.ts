/**
 * `useAdmission(control)`: operations over HTTP wait for their place under the admission control
 * (`admission-control.ts`) before their body is even read, and give it back with their response.
 * A refused one is answered 503 `OVERLOADED` with `Retry-After`; a waiting client that hangs up
 * leaves the queue. SSE subscriptions are not counted (they last as long as the client wants).
 */
import type { IncomingMessage } from 'node:http';
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { declaresBody } from '../server/http-timeouts.js';
import { OverloadedError, RETRY_AFTER_SECONDS, type AdmissionControl } from './admission-control.js';

export function useAdmission(control: Pick<AdmissionControl, 'acquire'>): Plugin {
  // Keyed by the server context, which (unlike the request) no plugin can replace.
  const releases = new WeakMap<object, () => void>();
  /** Requests whose body was still arriving: they take their place once it is in (`onRequestParse`). */
  const admitAfterBody = new WeakSet<object>();

  async function take(signal: AbortSignal, serverContext: object): Promise<void> {
    const release = await control.acquire(signal);
    releases.set(serverContext, release);
    // Over node:http the slot is also freed if no response is ever made (the socket closes).
    (serverContext as ServerContext).res?.once?.('close', release);
  }

  return {
    async onRequest({ request, serverContext, endResponse, fetchAPI }) {
      if (request.headers.get('accept')?.includes('text/event-stream')) return;
      // A client that stalls its body must not hold a place others wait for (issue 19: 100 stalled
      // bodies held the whole limit once the loop was busy, and normal callers queued behind them
      // until each was cut). Such a request is read first (BODY_IDLE_TIMEOUT_MS bounds its pauses)
      // and waits with its body parsed, at most MAX_BODY_BYTES.
      if (await bodyStillArriving((serverContext as ServerContext).req)) {
        admitAfterBody.add(serverContext);
        return;
      }
      try {
        await take(request.signal, serverContext);
      } catch (error) {
        // A client that hung up while waiting: nobody reads an answer.
        if (!(error instanceof OverloadedError)) return endResponse(new fetchAPI.Response(null, { status: 499 }));
        return endResponse(overloaded(fetchAPI, error));
      }
    },
    onRequestParse({ request, serverContext }) {
      if (!admitAfterBody.has(serverContext)) return;
      return {
        async onRequestParseDone() {
          try {
            await take(request.signal, serverContext);
          } catch (error) {
            if (!(error instanceof OverloadedError)) throw error;
            throw overloadedDuringParse(error);
          }
        },
      };
    },
    onResponse({ serverContext }) {
      releases.get(serverContext)?.();
      releases.delete(serverContext);
    },
  };
}

/** What yoga's node:http adapter passes as the server context. */
interface ServerContext {
  req?: IncomingMessage;
  res?: { once?: (event: 'close', listener: () => void) => void };
}

/**
 * Whether `req`'s body is still on its way. Bytes already read are parsed before the next turn of
 * the event loop, so a small body sent with its headers is in by then.
 */
async function bodyStillArriving(req: IncomingMessage | undefined): Promise<boolean> {
  if (req === undefined || req.complete || !declaresBody(req)) return false;
  await new Promise((resolve) => setImmediate(resolve));
  return !req.complete;
}

/** The 503 `OVERLOADED` refusal, thrown once yoga has read the body (it answers a thrown error itself). */
function overloadedDuringParse(error: OverloadedError): GraphQLError {
  return new GraphQLError(`The gateway is overloaded (${error.message}); retry after ${RETRY_AFTER_SECONDS} s.`, {
    extensions: { code: 'OVERLOADED', retryAfter: RETRY_AFTER_SECONDS, http: { status: 503, headers: { 'retry-after': String(RETRY_AFTER_SECONDS) } } },
  });
}

/** 503 `OVERLOADED`, shaped like every other GraphQL error answer. */
function overloaded(fetchAPI: { Response: typeof Response }, error: OverloadedError): Response {
  const body = {
    errors: [
      {
        message: `The gateway is overloaded (${error.message}); retry after ${RETRY_AFTER_SECONDS} s.`,
        extensions: { code: 'OVERLOADED', retryAfter: RETRY_AFTER_SECONDS },
      },
    ],
  };
  return new fetchAPI.Response(JSON.stringify(body), {
    status: 503,
    headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': String(RETRY_AFTER_SECONDS) },
  });
}
