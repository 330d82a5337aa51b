/**
 * Admission control: how many GraphQL operations run at once, adapted to how busy the process is.
 *
 * Node runs every operation on one thread. Once that thread is saturated, admitting more
 * operations only interleaves more of them on it: each takes longer, the slowest much longer, and
 * each holds its answers, records and results in memory all that time, which the garbage
 * collector copies at every young-generation collection. So operations beyond the limit wait,
 * first come first served, before their body is even read, and the admitted ones finish sooner.
 *
 * The limit follows the event loop's utilization (the share of the time it was running code), not
 * operation latency, which mostly measures the upstream: every `intervalMs`, at or above
 * `admissionTargetUtilization` the limit shrinks by a tenth (not below `min`); below it, if
 * operations had to wait, it grows by a tenth (not above `maxConcurrentOperations`). So it settles near the fewest operations that
 * keep the thread busy: a slow upstream with an idle thread never caps concurrency, and a
 * saturated thread settles near the floor.
 *
 * Beyond `maxQueuedOperations` waiting, an operation is refused at once: 503 `OVERLOADED` with
 * `Retry-After`, so a burst cannot pile up memory. A waiting client that hangs up leaves the queue.
 * SSE subscriptions are not counted (they last as long as the client wants). Queries and mutations
 * over graphql-ws take their place through `control` (see the WebSocket bridge in `app.ts`).
 */
import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { AdmissionControl, OverloadedError, RETRY_AFTER_SECONDS, type AdmissionControlOptions } from './admission-control.js';
import { declaresBody } from '../server/http-timeouts.js';

/** How often the limit is adjusted, in ms. */
const DEFAULT_INTERVAL_MS = 100;

export interface AdmissionOptions extends AdmissionControlOptions {
  /** Event-loop utilization (0 to 1) at or above which the limit shrinks (`ADMISSION_TARGET_UTILIZATION`); 0 keeps the limit at `maxConcurrentOperations`. */
  admissionTargetUtilization: number;
  /** How often the limit is adjusted. @default DEFAULT_INTERVAL_MS */
  intervalMs?: number;
}

export interface Admission {
  readonly control: AdmissionControl;
  readonly plugin: Plugin;
  /** Stops measuring the event loop. */
  close(): void;
}

export function createAdmission(options: AdmissionOptions): Admission {
  const control = new AdmissionControl(options);
  const intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  let timer: NodeJS.Timeout | undefined;
  if (options.admissionTargetUtilization > 0) {
    let since = performance.eventLoopUtilization();
    timer = setInterval(() => {
      const now = performance.eventLoopUtilization();
      control.adjust(performance.eventLoopUtilization(now, since).utilization, options.admissionTargetUtilization);
      since = now;
    }, intervalMs);
    timer.unref();
  }

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

  const plugin: Plugin = {
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

  return {
    control,
    plugin,
    close() {
      clearInterval(timer);
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
