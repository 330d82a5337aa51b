/**
 * `useReadiness(options)`: the readiness probe, on the model of graphql-yoga's `useReadinessCheck`.
 * `/readyz` answers 200 `{"status": "ready", "upstream": true}` when the upstream answers its ping
 * (and Redis, when configured, is reachable), 503 `{"status": "unavailable", ...}` otherwise, and
 * 503 `{"status": "draining"}` once the app is stopping, so a load balancer sends no new work.
 */
import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { UpstreamClient } from '../upstream/types.js';
import { failedRouteAnswer, jsonAnswer, requestLogger, requestPath, type RouteFetchApi } from './routes.js';

export interface ReadinessOptions {
  /** The path answered. @default '/readyz' */
  endpoint?: string;
  /** The upstream: ready when its `ping()` answers true; its breakers' state is shown while one is not closed. */
  upstream: Pick<UpstreamClient, 'ping' | 'health'>;
  /** Whether Redis answers; resolves undefined when the app runs without Redis (then not shown). */
  redisReachable: () => Promise<boolean | undefined>;
  /** Aborted once the app starts stopping: from then on every answer is 503 draining. */
  stopping: AbortSignal;
  /** Where a check that threw is logged. */
  logger: Logger;
}

export function useReadiness(options: ReadinessOptions): Plugin {
  const endpoint = options.endpoint ?? '/readyz';
  const { upstream } = options;
  return {
    // Not async: every GraphQL request passes here, and only /readyz should wait for anything.
    onRequest({ request, endResponse, fetchAPI }) {
      const path = requestPath(request.url);
      if (path !== endpoint) return undefined;
      return answer(request, fetchAPI).then(endResponse, (error: unknown) =>
        endResponse(failedRouteAnswer(fetchAPI, error, requestLogger(options.logger, request), path)),
      );
    },
  };

  async function answer(request: Request, fetchAPI: RouteFetchApi): Promise<Response> {
    const readiness = await checkReadiness(options);
    if (readiness.status === 'draining') return jsonAnswer(fetchAPI, 503, { status: 'draining' });
    const { ready, upstream: reachable, redis } = readiness;
    return jsonAnswer(fetchAPI, ready ? 200 : 503, {
      status: ready ? 'ready' : 'unavailable',
      upstream: reachable,
      ...(redis === undefined ? {} : { redis }),
      // Shown only while a breaker is not closed: the upstream is failing and calls fail fast.
      ...breakerState(upstream),
    });
  }
}

/** What `/readyz` decides from: `ready` is what it answers 200 for. */
export type Readiness =
  | { status: 'draining'; ready: false }
  | { status: 'checked'; ready: boolean; upstream: boolean; redis: boolean | undefined };

/** The readiness check itself, for `/readyz` and for the `gateway_ready` gauge. */
export async function checkReadiness(options: Pick<ReadinessOptions, 'upstream' | 'redisReachable' | 'stopping'>): Promise<Readiness> {
  if (options.stopping.aborted) return { status: 'draining', ready: false };
  const [reachable, redis] = await Promise.all([options.upstream.ping(), options.redisReachable()]);
  return { status: 'checked', ready: reachable && redis !== false, upstream: reachable, redis };
}

/**
 * `{breaker: 'open'}` (or `'half-open'`) while any upstream breaker is not closed; empty when all
 * are. Which origin fails is not said: `/readyz` answers anyone, and the upstream's address is
 * not theirs to learn.
 */
function breakerState(upstream: Pick<UpstreamClient, 'health'>): { breaker?: string } {
  const states = Object.values(upstream.health().breakers).map((breaker) => breaker.state);
  if (states.includes('open')) return { breaker: 'open' };
  return states.includes('half-open') ? { breaker: 'half-open' } : {};
}
