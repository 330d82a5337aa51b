/**
 * `useReadiness(options)`: the readiness probe (`readiness.ts`), on the model of graphql-yoga's
 * `useReadinessCheck`. Ready is this replica's own state, never its dependencies': `/readyz` answers 200
 * `{"status": "ready"}` once the app has started (schema built, connections opened, listening),
 * 503 `{"status": "starting"}` before and 503 `{"status": "draining"}` once it is stopping, so a
 * load balancer sends it no new work. The upstream and Redis are shared by every replica: were
 * they part of readiness, one failing would empty the Service at once, and callers would get the
 * ingress' bare 503 instead of the gateway's coded errors (`/healthz` and `gateway_dependency_up`
 * report them). Overload is not part of it either: admission control answers the operations it
 * cannot take with 503 `OVERLOADED` and a `Retry-After`, while taking a loaded replica out would
 * pour its load onto the others; an event loop too stalled to answer fails the probe by its
 * timeout anyway.
 */
import type { Plugin } from 'graphql-yoga';
import { jsonAnswer, requestPath } from '../utils/route-answers.js';
import type { Readiness } from './readiness.js';

export interface ReadinessOptions {
  /** The path answered. @default '/readyz' */
  endpoint?: string;
  readiness: Pick<Readiness, 'status'>;
}

export function useReadiness(options: ReadinessOptions): Plugin {
  const endpoint = options.endpoint ?? '/readyz';
  return {
    onRequest({ request, endResponse, fetchAPI }) {
      if (requestPath(request.url) !== endpoint) return;
      const status = options.readiness.status();
      endResponse(jsonAnswer(fetchAPI, status === 'ready' ? 200 : 503, { status }));
    },
  };
}
