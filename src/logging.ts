/**
 * Structured JSON logs (pino). Lines written for a request carry its id as `reqId`: GraphQL code
 * reads it from the context, HTTP routes log through `logger.child({ reqId })`. (Not
 * AsyncLocalStorage: on Node 20 its first use turns on promise hooks for the whole process, which
 * cost about a tenth of the gateway's throughput in `npm run bench`.)
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { pino, type DestinationStream, type Logger } from 'pino';

/** A pino logger at `level`, to stdout or `destination`. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, base: { service: 'infra-graphql-gateway' } };
  return destination ? pino(options, destination) : pino(options);
}

/** An incoming id a client may set (printable, bounded), so it cannot forge log lines. */
const ACCEPTED_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** The caller's `X-Request-ID` when it is a sane token, else a fresh UUID. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  const value = Array.isArray(given) ? given[0] : given;
  return value !== undefined && ACCEPTED_ID.test(value) ? value : randomUUID();
}
