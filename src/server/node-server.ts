/**
 * The gateway on node:http: only what the fetch API cannot do. One request id per request
 * (echoed, logged, sent upstream), the server's request timeouts and the body idle cut
 * (`http-timeouts.ts`), draining on shutdown (`shutdown.ts`), and the WebSocket upgrade to
 * graphql-ws on the GraphQL path (`websocket.ts`). Every HTTP answer comes from `handler`: yoga,
 * with the gateway's routes as its plugins.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { WebSocketServer } from 'ws';
import { cutStalledBody, serverTimeoutOptions, type RequestTimeouts } from './http-timeouts.js';
import { requestIdOf } from '../observability/logging.js';
import { answerBadTarget, answerClientError, requestTargetProblem } from './request-target.js';
import { createHttpDrain } from './shutdown.js';
import { serveGraphqlWs, type GraphqlWsOptions } from './websocket.js';

export interface NodeServerOptions {
  /** Answers every HTTP request (yoga's `requestListener`). */
  handler: (req: IncomingMessage, res: ServerResponse) => unknown;
  timeouts: RequestTimeouts & {
    /** A request body that does not advance for this long has its connection cut (408). */
    bodyIdleTimeoutMs: number;
  };
  /**
   * graphql-ws on `path`. A message is read whole before graphql-ws sees it: at most
   * `maxBodyBytes`, as large as an HTTP body may be (`MAX_BODY_BYTES`).
   */
  websocket: Omit<GraphqlWsOptions, 'logger'> & { path: string; maxBodyBytes: number };
  logger: Logger;
}

export interface NodeServer {
  readonly server: Server;
  /** The base URL once listening (e.g. `http://127.0.0.1:4000`); empty before. */
  readonly url: string;
  /** Listens; resolves with the base URL (e.g. `http://127.0.0.1:4000`), or rejects with the listen error. */
  listen(port: number, host: string): Promise<string>;
  /**
   * Stops accepting, tells WebSocket clients to go elsewhere (1001 Going Away), ends SSE streams and
   * lets in-flight requests finish, cutting what is left after `timeoutMs`.
   */
  close(timeoutMs: number): Promise<void>;
}

export function createNodeServer(options: NodeServerOptions): NodeServer {
  const { logger, timeouts } = options;
  const server = createServer(serverTimeoutOptions(timeouts), (req, res) => {
    // The caller's X-Request-ID or a new one: yoga's plugins read it from the request.
    const requestId = requestIdOf(req);
    req.headers['x-request-id'] = requestId;
    res.setHeader('x-request-id', requestId);
    drain.track(req, res);
    cutStalledBody(req, res, timeouts.bodyIdleTimeoutMs, () =>
      logger.child({ reqId: requestId }).info({ path: req.url }, 'request body stalled: connection cut'),
    );
    const badTarget = requestTargetProblem(req);
    if (badTarget !== null) {
      answerBadTarget(res, badTarget);
      return;
    }
    options.handler(req, res);
  });
  // Node answers a head it cannot parse with a bare status: the caller gets a coded body instead.
  server.on('clientError', answerClientError);
  const drain = createHttpDrain(server, logger);
  const { path, maxBodyBytes, ...graphqlWs } = options.websocket;
  // ws allows 100 MiB messages by default.
  const wsServer = new WebSocketServer({ server, path, maxPayload: maxBodyBytes });
  serveGraphqlWs(wsServer, { ...graphqlWs, logger });
  // Known once listening: port 0 picks the port then.
  let url = '';

  return {
    server,
    get url() {
      return url;
    },
    async listen(port, host) {
      url = await listenAt(server, port, host);
      return url;
    },
    async close(timeoutMs) {
      const drained = drain.drain(timeoutMs);
      for (const client of wsServer.clients) client.close(1001, 'server shutting down');
      await new Promise<void>((resolve) => wsServer.close(() => resolve()));
      await drained;
    },
  };
}

/**
 * Listens and resolves with the base URL a client on this machine reaches it at (port 0 picks the
 * port then), or rejects with the listen error (EADDRINUSE, ...) for the caller to report. The
 * WebSocket server re-emits the server's errors, and graphql-ws answers any with a stack trace
 * on the console: while listening, the server's own error listeners are set aside.
 */
export async function listenAt(server: Server, port: number, host: string): Promise<string> {
  const errorListeners = server.rawListeners('error') as ((error: Error) => void)[];
  server.removeAllListeners('error');
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } finally {
    for (const listener of errorListeners) server.on('error', listener);
  }
  const address = server.address() as AddressInfo;
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${address.port}`;
}
