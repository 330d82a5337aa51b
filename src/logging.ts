/**
 * Structured JSON logs (pino) that carry the request id of the HTTP request they were written
 * for, without threading a child logger through every layer: the id rides on AsyncLocalStorage.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { pino, type DestinationStream, type Logger } from 'pino';

const requestIds = new AsyncLocalStorage<string>();

/** A pino logger at `level` (to stdout, or `destination`) whose lines written during a request carry its `reqId`. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service: 'infra-graphql-gateway' },
    mixin: () => {
      const reqId = requestIds.getStore();
      return reqId === undefined ? {} : { reqId };
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

/** Runs `fn` with `reqId` attached to every log line written within it (and its async work). */
export function runWithRequestId<T>(reqId: string, fn: () => T): T {
  return requestIds.run(reqId, fn);
}

/** An incoming id a client may set (printable, bounded), so it cannot forge log lines. */
const ACCEPTED_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** The caller's `X-Request-ID` when it is a sane token, else a fresh UUID. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  const value = Array.isArray(given) ? given[0] : given;
  return value !== undefined && ACCEPTED_ID.test(value) ? value : randomUUID();
}
