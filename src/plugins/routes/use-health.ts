/**
 * `useHealth(options)`: the liveness probe. `/healthz` answers 200 whenever the process can answer
 * at all, any method, with what it knows of its dependencies: `{"status": "ok", "dependencies":
 * {"upstream": "up", "redis": "down"}}` (`redis` only with `REDIS_URL`), and `"breaker": "open"`
 * (or `"half-open"`) while an upstream circuit breaker is not closed. The status stays 200
 * whatever the dependencies: restarting the replica cures neither. Nothing is asked of them here
 * (`createDependencyWatch` pings in the background), so the probe never waits.
 */
import type { Plugin } from 'graphql-yoga';
import type { DependencyWatch } from '../../observability/dependencies.js';
import { jsonAnswer, requestPath } from './answers.js';

export interface HealthOptions {
  /** The path answered. @default '/healthz' */
  endpoint?: string;
  /** What the replica knows of the upstream and Redis. */
  dependencies: Pick<DependencyWatch, 'states' | 'breaker'>;
}

export function useHealth(options: HealthOptions): Plugin {
  const endpoint = options.endpoint ?? '/healthz';
  const { dependencies } = options;
  return {
    onRequest({ request, endResponse, fetchAPI }) {
      if (requestPath(request.url) !== endpoint) return;
      const states = Object.fromEntries(Object.entries(dependencies.states()).map(([name, up]) => [name, up ? 'up' : 'down']));
      const breaker = dependencies.breaker();
      endResponse(jsonAnswer(fetchAPI, 200, { status: 'ok', dependencies: states, ...(breaker ? { breaker } : {}) }));
    },
  };
}
