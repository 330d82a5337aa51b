/**
 * `useJobWebhook(options)`: the receiver of the upstream's job webhooks, on the model of Hive
 * Gateway's `useWebhooks`: `POST /webhooks/jobs/{id}/{secret}` (the `X-Web-Hook` the job manager
 * sent) turns into the job's finish, which the manager publishes to subscribers.
 *
 * The path alone says whether anyone may deliver: an unknown job is 404 and a wrong secret 403
 * before a byte of the body is read, so a stranger's body cannot hold memory while it trickles in
 * (its pauses are cut by the node:http adapter's body idle timeout, as every request's are). A
 * body is read up to `maxDeliveryBytes` and no further. Every refusal closes the connection, whose
 * unread body would spoil it for the next request.
 */
import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { WEBHOOK_PATH, type JobManager } from './manager.js';
import { isRedisUnavailableError } from '../redis/connection.js';
import { failedRouteAnswer, jsonAnswer, requestLogger, requestPath, type RouteFetchApi } from '../utils/route-answers.js';

/**
 * Largest delivery, 1 MiB. Not `MAX_BODY_BYTES`, which bounds what clients send: a delivery comes
 * from the upstream, only once its path named a running job and its secret, and carries the job's
 * result, which a limit set for clients must not refuse.
 */
const DEFAULT_MAX_DELIVERY_BYTES = 1_048_576;

export interface JobWebhookOptions {
  /** Checks a delivery's job and secret, and finishes the job with what it delivered. */
  jobs: Pick<JobManager, 'checkWebhook' | 'deliverWebhook'>;
  /** Where refusals (warn) and failed deliveries (error) are logged, with the request id. */
  logger: Logger;
  /** Largest body accepted; a larger one is 413. @default DEFAULT_MAX_DELIVERY_BYTES */
  maxDeliveryBytes?: number;
  /** Called with the status of every answer on the webhook path (e.g. to count deliveries). */
  onAnswer?: (status: number) => void;
}

export function useJobWebhook(options: JobWebhookOptions): Plugin {
  const maxDeliveryBytes = options.maxDeliveryBytes ?? DEFAULT_MAX_DELIVERY_BYTES;
  return {
    // Not async: every GraphQL request passes here, and only a delivery should wait for anything.
    onRequest({ request, endResponse, fetchAPI }) {
      const path = requestPath(request.url);
      if (!path.startsWith(WEBHOOK_PATH)) return undefined;
      return answer(request, path, fetchAPI).then((response) => {
        options.onAnswer?.(response.status);
        endResponse(response);
      });
    },
  };

  async function answer(request: Request, path: string, fetchAPI: RouteFetchApi): Promise<Response> {
    const [id = '', secret = ''] = path.slice(WEBHOOK_PATH.length).split('/');
    const log = requestLogger(options.logger, request);
    try {
      return await receive(request, id, secret, { jobs: options.jobs, maxDeliveryBytes, log, fetchAPI });
    } catch (error) {
      if (!isRedisUnavailableError(error)) return failedRouteAnswer(fetchAPI, error, log, path);
      // A store outage: the upstream delivers again later.
      log.warn({ job: id, err: error }, 'webhook not recorded: redis is unavailable');
      return jsonAnswer(fetchAPI, 503, { error: error.code });
    }
  }
}

interface Receiving {
  jobs: JobWebhookOptions['jobs'];
  maxDeliveryBytes: number;
  log: Logger;
  fetchAPI: RouteFetchApi;
}

async function receive(request: Request, id: string, secret: string, { jobs, maxDeliveryBytes, log, fetchAPI }: Receiving): Promise<Response> {
  const reject = (status: number, reason: string): Response => {
    log.warn({ job: id, status, reason }, 'webhook rejected');
    return new fetchAPI.Response(reason, { status, headers: { 'content-type': 'text/plain; charset=utf-8', connection: 'close' } });
  };
  if (request.method !== 'POST') return reject(405, 'POST only');
  const access = await jobs.checkWebhook(id, secret);
  if (access === 'unknown') return reject(404, 'unknown job');
  if (access === 'forbidden') return reject(403, 'wrong secret');
  if (request.headers.get('x-job-uuid') !== id) return reject(400, 'X-Job-UUID does not match');
  if (Number(request.headers.get('content-length') ?? 0) > maxDeliveryBytes) return reject(413, 'body too large');
  const body = await readBody(request, maxDeliveryBytes);
  if (body === null) return reject(413, 'body too large');

  const success = request.headers.get('x-job-success');
  if (success !== 'true' && success !== 'false') return reject(400, 'X-Job-Success must be true or false');
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return reject(400, 'body is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return reject(400, 'body is not a JSON object');
  const outcome = parsed as Record<string, unknown>;
  if (success === 'false' && (typeof outcome.error !== 'object' || outcome.error === null)) {
    return reject(400, 'a failure body carries {"error": ErrorCode}');
  }
  // The delivery's own trace, when the upstream sent one, is the parent of the webhook's span.
  const first = await jobs.deliverWebhook(id, { success: success === 'true', body: outcome }, request.headers.get('traceparent') ?? undefined);
  return new fetchAPI.Response(first ? 'recorded' : 'already recorded', { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' } });
}

/**
 * The request body, or null once it passes `limit`: reading stops there, and the rest stays
 * unread for the refusal's `Connection: close` to end.
 */
async function readBody(request: Request, limit: number): Promise<Buffer | null> {
  if (request.body === null) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks);
    size += value.byteLength;
    if (size > limit) {
      reader.releaseLock();
      return null;
    }
    chunks.push(value);
  }
}
