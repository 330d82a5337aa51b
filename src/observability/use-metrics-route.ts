/**
 * `useMetricsRoute(options)`: `/metrics` answers the Prometheus text exposition of the app's
 * registry (`metrics.ts`; the operation counters themselves are `operation-metrics.ts`'s).
 */
import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { failedRouteAnswer, requestLogger, requestPath } from '../utils/route-answers.js';

export interface MetricsRouteOptions {
  /** The path answered. @default '/metrics' */
  endpoint?: string;
  /** The registry exposed: the app's own, so two apps in one process never share counters. */
  registry: Pick<Registry, 'metrics' | 'contentType'>;
  /** Where a rendering that threw is logged. */
  logger: Logger;
}

export function useMetricsRoute(options: MetricsRouteOptions): Plugin {
  const endpoint = options.endpoint ?? '/metrics';
  const { registry } = options;
  return {
    // Not async: every GraphQL request passes here, and only /metrics should wait for anything.
    onRequest({ request, endResponse, fetchAPI }) {
      const path = requestPath(request.url);
      if (path !== endpoint) return undefined;
      return registry.metrics().then(
        (text) => endResponse(new fetchAPI.Response(text, { status: 200, headers: { 'content-type': registry.contentType } })),
        (error: unknown) => endResponse(failedRouteAnswer(fetchAPI, error, requestLogger(options.logger, request), path)),
      );
    },
  };
}
