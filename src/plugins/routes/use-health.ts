/**
 * `useHealth()`: the liveness probe. `/healthz` answers 200 `{"status": "ok"}` whenever the process
 * can answer at all, whatever the upstream's state (that is `/readyz`'s question), any method.
 */
import type { Plugin } from 'graphql-yoga';
import { jsonAnswer, requestPath } from './answers.js';

export interface HealthOptions {
  /** The path answered. @default '/healthz' */
  endpoint?: string;
}

export function useHealth(options: HealthOptions = {}): Plugin {
  const endpoint = options.endpoint ?? '/healthz';
  return {
    onRequest({ request, endResponse, fetchAPI }) {
      if (requestPath(request.url) === endpoint) endResponse(jsonAnswer(fetchAPI, 200, { status: 'ok' }));
    },
  };
}
