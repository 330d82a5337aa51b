/**
 * `useHealth(options)`: the liveness probe. `/healthz` answers 200 whenever the process can answer
 * at all, any method, with what it knows of its dependencies: `{"status": "ok", "dependencies":
 * {"upstream": "up", "redis": "down"}}` (`redis` only with `REDIS_URL`), and `"breaker": "open"`
 * (or `"half-open"`) while an upstream circuit breaker is not closed. The status stays 200
 * whatever the dependencies: restarting the replica cures neither. Redis is read from its
 * connections; the upstream from its last ping, sent again first when that is stale (the probe
 * waits for it a second at most, and probes in a row share one ping).
 */
import type { Plugin } from 'graphql-yoga';
import type { DependencyWatch } from '../../observability/dependencies.js';
import { jsonAnswer, requestPath } from '../../utils/route-answers.js';

export interface HealthOptions {
  /** The path answered. @default '/healthz' */
  endpoint?: string;
  /** What the replica knows of the upstream and Redis. */
  dependencies: Pick<DependencyWatch, 'freshStates' | 'breaker'>;
}

export function useHealth(options: HealthOptions): Plugin {
  const endpoint = options.endpoint ?? '/healthz';
  const { dependencies } = options;
  return {
    async onRequest({ request, endResponse, fetchAPI }) {
      if (requestPath(request.url) !== endpoint) return;
      const states = Object.fromEntries(Object.entries(await dependencies.freshStates()).map(([name, up]) => [name, up ? 'up' : 'down']));
      const breaker = dependencies.breaker();
      endResponse(jsonAnswer(fetchAPI, 200, { status: 'ok', dependencies: states, ...(breaker ? { breaker } : {}) }));
    },
  };
}
