/**
 * `useReadiness(options)`: the readiness probe, on the model of graphql-yoga's `useReadinessCheck`.
 * `/readyz` answers 200 `{"status": "ready", "upstream": true}` when the upstream answers its ping
 * (and Redis, when configured, is reachable), 503 `{"status": "unavailable", ...}` otherwise, and
 * 503 `{"status": "draining"}` once the app is stopping, so a load balancer sends no new work.
 */
import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { UpstreamClient } from '../../upstream/types.js';
import { failedRouteAnswer, jsonAnswer, requestLogger, requestPath, type RouteFetchApi } from './answers.js';

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
  /** Hears each check's outcome: true when it answered 200 (see `createReadinessState`). */
  onCheck?: ((ready: boolean) => void) | undefined;
}

export function useReadiness(options: ReadinessOptions): Plugin {
  const endpoint = options.endpoint ?? '/readyz';
  const { upstream, stopping } = options;
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
    if (stopping.aborted) {
      options.onCheck?.(false);
      return jsonAnswer(fetchAPI, 503, { status: 'draining' });
    }
    const [reachable, redis] = await Promise.all([upstream.ping(), options.redisReachable()]);
    const ready = reachable && redis !== false;
    options.onCheck?.(ready);
    return jsonAnswer(fetchAPI, ready ? 200 : 503, {
      status: ready ? 'ready' : 'unavailable',
      upstream: reachable,
      ...(redis === undefined ? {} : { redis }),
      // Shown only while a breaker is not closed: the upstream is failing and calls fail fast.
      ...breakerState(upstream),
    });
  }
}

export interface ReadinessStateOptions {
  upstream: Pick<UpstreamClient, 'health'>;
  /** Whether every Redis connection is up; undefined without Redis. */
  redisConnected: () => boolean | undefined;
  /** Aborted once the app starts stopping. */
  stopping: AbortSignal;
  /** How long a check's outcome stands for the replica's readiness. @default DEFAULT_FRESH_MS */
  freshMs?: number;
}

/** How long a `/readyz` check's outcome stands, in ms: several of the kubelet's probes. */
const DEFAULT_FRESH_MS = 30_000;

/**
 * Whether the replica is ready, known without asking the upstream or Redis (so reading it, as
 * `/metrics` does at every scrape, costs them nothing): the last `/readyz` check's outcome while
 * it is fresh (the kubelet probes every few seconds), else what the replica knows by itself: it is
 * not shutting down, its Redis connections are up, and no upstream circuit breaker is open.
 */
export function createReadinessState(options: ReadinessStateOptions): { record(ready: boolean): void; readyNow(): boolean } {
  const freshMs = options.freshMs ?? DEFAULT_FRESH_MS;
  let last: { at: number; ready: boolean } | undefined;
  return {
    record(ready) {
      last = { at: Date.now(), ready };
    },
    readyNow() {
      if (options.stopping.aborted) return false;
      if (last !== undefined && Date.now() - last.at <= freshMs) return last.ready;
      const breakerOpen = Object.values(options.upstream.health().breakers).some((breaker) => breaker.state === 'open');
      return options.redisConnected() !== false && !breakerOpen;
    },
  };
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
