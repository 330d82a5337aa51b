/**
 * Graceful shutdown: the HTTP side (stop accepting, let in-flight requests finish, end streams
 * that never finish by themselves) and the process side (SIGTERM/SIGINT → stop → exit 0).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { drainLogs } from '../observability/logging.js';
import { acceptsSubscriptionStream } from '../execution/execution-kind.js';

/** How long an exiting process waits for its last log lines to be written: a gone reader costs no more. */
const LOG_DRAIN_MS = 1000;

export interface HttpDrain {
  /** Call for every request: tracks it until its response is done. */
  track(req: IncomingMessage, res: ServerResponse): void;
  /** True once `drain` was called: new requests should be told to go elsewhere. */
  readonly draining: boolean;
  /**
   * Stops accepting connections, ends SSE streams, lets other in-flight requests finish (their
   * connections close after the answer) and resolves when none is left, or after `timeoutMs`,
   * when the remaining connections are cut.
   */
  drain(timeoutMs: number): Promise<void>;
}

export function createHttpDrain(server: Server, logger: Logger): HttpDrain {
  const active = new Map<ServerResponse, { streaming: boolean }>();
  let draining = false;

  function closeAfterAnswer(res: ServerResponse): void {
    if (!res.headersSent) res.setHeader('connection', 'close');
  }

  return {
    get draining() {
      return draining;
    },
    track(req, res) {
      const streaming = acceptsSubscriptionStream(req.headers.accept ?? null);
      active.set(res, { streaming });
      if (draining) closeAfterAnswer(res);
      res.once('close', () => {
        active.delete(res);
        // A keep-alive connection that just went idle would otherwise hold `server.close` open.
        if (draining) setImmediate(() => server.closeIdleConnections());
      });
    },
    async drain(timeoutMs) {
      draining = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      let streams = 0;
      for (const [res, { streaming }] of active) {
        if (streaming) {
          // An SSE (or multipart) subscription never ends by itself; its client reconnects to another replica.
          streams += 1;
          res.destroy();
        } else {
          closeAfterAnswer(res);
        }
      }
      logger.info({ inFlight: active.size - streams, sseStreams: streams }, 'draining: no new connections; waiting for in-flight requests');
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), timeoutMs);
      });
      const outcome = await Promise.race([closed.then(() => 'done' as const), deadline]);
      clearTimeout(timer);
      if (outcome === 'timeout') {
        logger.warn({ inFlight: active.size }, 'shutdown deadline passed; cutting the remaining connections');
        server.closeAllConnections();
        await closed;
      }
    },
  };
}

/**
 * Stops `app` on the first SIGTERM or SIGINT and exits 0 (1 when stopping failed); a second
 * signal exits at once with 1.
 */
export function exitOnSignals(app: { stop(): Promise<void> }, logger: Logger): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const exit = (code: number): void => void drainLogs(logger, LOG_DRAIN_MS).then(() => process.exit(code));
    app.stop().then(
      () => {
        logger.info('stopped');
        exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
