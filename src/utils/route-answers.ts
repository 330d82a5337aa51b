/**
 * What the gateway's own HTTP routes (`useHealth`, `useReadiness`, `useMetricsRoute`,
 * `useJobWebhook`) share: the path they match on, their JSON answers, and the answer to a route
 * that failed.
 */
import type { Logger } from 'pino';
import { isRedisUnavailableError } from '../redis/connection.js';

/** The fetch API a plugin hook receives (`fetchAPI`). */
export interface RouteFetchApi {
  Response: typeof Response;
}

/**
 * The path of `url` as the client sent it: no query, no normalization of `.` segments or
 * percent-escapes (the URL parser's `pathname` resolves `/a/%2e%2e/b` to `/b`), so a route
 * matches exactly the bytes it was asked for.
 */
export function requestPath(url: string): string {
  const authority = url.indexOf('://');
  const start = authority === -1 ? 0 : url.indexOf('/', authority + 3);
  if (start === -1) return '/';
  const end = url.search(/[?#]/);
  return url.slice(start, end === -1 || end < start ? undefined : end);
}

/** `body` as JSON with `status`. */
export function jsonAnswer(fetchAPI: RouteFetchApi, status: number, body: unknown): Response {
  return new fetchAPI.Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8' } });
}

/**
 * The answer of a route that threw: a Redis outage is 503 `{"error": "REDIS_UNAVAILABLE"}` (retry
 * later), anything else 500 `{"error": "INTERNAL"}`; logged with the path either way.
 */
export function failedRouteAnswer(fetchAPI: RouteFetchApi, error: unknown, log: Logger, path: string): Response {
  log.error({ err: error, path }, 'request failed');
  return isRedisUnavailableError(error) ? jsonAnswer(fetchAPI, 503, { error: error.code }) : jsonAnswer(fetchAPI, 500, { error: 'INTERNAL' });
}

/** `logger` with the request's id (`X-Request-ID`, set by the node:http adapter) on every line. */
export function requestLogger(logger: Logger, request: Request): Logger {
  const requestId = request.headers.get('x-request-id');
  return requestId === null ? logger : logger.child({ reqId: requestId });
}
