/**
 * Structured JSON logs (pino). Lines written for a request carry its id as `reqId`: GraphQL code
 * reads it from the context, HTTP routes log through `logger.child({ reqId })`. (Not
 * AsyncLocalStorage: on Node 20 its first use turns on promise hooks for the whole process, which
 * cost about a tenth of the gateway's throughput in `npm run bench`.)
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { pino, stdSerializers, type DestinationStream, type Logger, type SerializedError } from 'pino';
import sonicBoom, { type SonicBoom as SonicBoomStream } from 'sonic-boom';

// sonic-boom is CommonJS (`module.exports = SonicBoom`) typed as an ES module: its default
// import is the class at run time, which its types call the module.
const SonicBoom = sonicBoom as unknown as typeof SonicBoomStream;

/**
 * The secret segment of a job's webhook path (`/webhooks/jobs/<id>/<secret>`): whoever holds it
 * can deliver the job's result, so it never reaches a log line.
 */
const WEBHOOK_SECRET = /(\/webhooks\/jobs\/[^/?#\s"]*\/)[^/?#\s"]+/g;

/** `text` with every webhook secret in it replaced by `[redacted]`. */
export function redactSecrets(text: string): string {
  return text.replace(WEBHOOK_SECRET, '$1[redacted]');
}

function redactString(value: unknown): unknown {
  return typeof value === 'string' ? redactSecrets(value) : value;
}

function redactError(error: Error): SerializedError {
  const serialized = stdSerializers.err(error);
  serialized.message = redactSecrets(serialized.message);
  serialized.stack = redactSecrets(serialized.stack);
  return serialized;
}

/** The log fields that may carry a request's path or a webhook URL, each redacted in one place. */
const SECRET_SERIALIZERS = { path: redactString, url: redactString, webHook: redactString, err: redactError };

/**
 * The log output on stdout. Written asynchronously (a slow log reader never blocks the event
 * loop), it stops at its first error (a reader that is gone: EPIPE), and it is flushed only
 * asynchronously and within a bound (`drainLogs`). pino's own stdout destination also flushes
 * synchronously when the process exits, and sonic-boom 4 retries a write that failed with EPIPE
 * there forever, 100 ms at a time: a gateway whose log shipper had died never exited on SIGTERM.
 */
class StdoutLog implements DestinationStream {
  private readonly output = new SonicBoom({ fd: 1, sync: false });
  private broken = false;

  constructor() {
    this.output.on('error', () => {
      this.broken = true;
    });
  }

  write(line: string): void {
    if (!this.broken) this.output.write(line);
  }

  /** Calls `done` once what is buffered is written, or at once when the output broke. */
  flush(done: (error?: Error) => void): void {
    if (this.broken) done();
    else this.output.flush((error?: Error) => done(error));
  }
}

/** A pino logger at `level`, to stdout or `destination`, that never writes a webhook secret. */
export function createLogger(level: string, destination: DestinationStream = new StdoutLog()): Logger {
  return pino({ level, base: { service: 'infra-graphql-gateway' }, serializers: SECRET_SERIALIZERS }, destination);
}

/**
 * Waits until `logger` has written what it buffered, at most `timeoutMs`: what a process does
 * before it exits, and never longer (a log reader that stopped reading, or is gone, costs only
 * the lines it did not take).
 */
export function drainLogs(logger: Logger, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    timer.unref();
    logger.flush(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** `logger`, made to redact secrets as `createLogger`'s do (for a logger built elsewhere). */
export function withSecretsRedacted(logger: Logger): Logger {
  return logger.child({}, { serializers: SECRET_SERIALIZERS });
}

/** An incoming id a client may set (printable, bounded), so it cannot forge log lines. */
const ACCEPTED_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** The caller's `X-Request-ID` when it is a sane token, else a fresh UUID. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  const value = Array.isArray(given) ? given[0] : given;
  return value !== undefined && ACCEPTED_ID.test(value) ? value : randomUUID();
}
