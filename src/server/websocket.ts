/**
 * graphql-ws on a `ws` server: graphql-ws's protocol core (`makeServer`) behind an adapter of our
 * own, written like `graphql-ws/use/ws` but with one bounded send buffer per socket.
 *
 * A client that stops reading keeps everything sent to it in the gateway's memory (30
 * introspection answers once pinned 500 MiB). Every message to a socket, graphql-ws's own and the
 * shared subscriptions' direct writes alike (`SocketExtra.send`), goes through one send: once more
 * than `wsMaxBufferedBytes` wait unsent, nothing more is written and the socket is closed with
 * `CLOSE_SEND_BUFFER_FULL`. A single message larger than the limit still goes when the buffer is
 * below it, so no answer is too big to be delivered to a client that reads.
 *
 * Subscriptions per socket and per credential are capped by `use-subscription-limits.ts`.
 */
import type { IncomingMessage } from 'node:http';
import { CloseCode, handleProtocols, makeServer, MessageType, type ServerOptions } from 'graphql-ws';
import type { Logger } from 'pino';
import type { WebSocket, WebSocketServer } from 'ws';

/**
 * The close code of a socket whose client stopped reading (more than the send buffer's limit
 * unsent). In the private range (4000-4999) beside graphql-ws's own 44xx codes, which its client
 * treats as fatal: this one it retries, as a client that fell behind should.
 */
export const CLOSE_SEND_BUFFER_FULL = 4008;

/** What graphql-ws hands the server hooks as `ctx.extra` for each socket. */
export interface SocketExtra {
  readonly socket: WebSocket;
  readonly request: IncomingMessage;
  /**
   * Writes a message through the socket's bounded buffer; false when it was not written (the
   * socket is closing, or was just closed for having too much unsent).
   */
  send(data: string): boolean;
  /** Aborts when the socket closes. */
  readonly closed: AbortSignal;
}

/** Interval of the server's pings, in ms; a client that answers none within it is cut. */
const DEFAULT_KEEP_ALIVE_MS = 12_000;

export interface GraphqlWsOptions {
  /** graphql-ws's server options (`onSubscribe`, `execute`, ...); `ctx.extra` is `SocketExtra`. */
  server: ServerOptions<Record<string, unknown> | undefined, SocketExtra>;
  /** Bytes that may wait unsent on a socket before it is closed with `CLOSE_SEND_BUFFER_FULL` (`WS_MAX_BUFFERED_BYTES`). */
  wsMaxBufferedBytes: number;
  /** Interval of the server's pings; a client that answers none within it is cut. @default DEFAULT_KEEP_ALIVE_MS */
  keepAliveMs?: number;
  logger: Logger;
}

/** Serves the graphql-ws protocol (`graphql-transport-ws`) on every connection of `wsServer`. */
export function serveGraphqlWs(wsServer: WebSocketServer, options: GraphqlWsOptions): void {
  const server = makeServer<Record<string, unknown> | undefined, SocketExtra>(options.server);
  const keepAliveMs = options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
  const { logger } = options;
  wsServer.options.handleProtocols = handleProtocols;
  // The HTTP server's own errors (a port in use) reach `listen`'s caller; the ws server only re-emits them.
  wsServer.on('error', () => undefined);

  wsServer.on('connection', (socket, request) => {
    const closing = new AbortController();
    const send = boundedSend(socket, options.wsMaxBufferedBytes);
    socket.once('error', (error) => {
      logger.debug({ err: error }, 'websocket error');
      socket.close(CloseCode.InternalServerError, 'Internal server error');
    });
    const keepAlive = keepAliveMs > 0 ? startKeepAlive(socket, keepAliveMs) : () => undefined;
    const closed = server.opened(
      {
        protocol: socket.protocol,
        // graphql-ws awaits each message: a subscription's next event waits until its last one left.
        send: (data) =>
          new Promise<void>((resolve) => {
            if (!send(data, () => resolve())) resolve();
          }),
        close: (code, reason) => socket.close(code, reason),
        onMessage: (handle) =>
          socket.on('message', (data) => {
            const text = String(data);
            handle(text).catch((error: unknown) => {
              const serverOnly = serverOnlyTypeOf(text);
              if (serverOnly !== undefined) {
                // graphql-ws throws on a well-formed message of a type it never reads (its 4500):
                // that is the client breaking the protocol, not the gateway failing.
                logger.debug({ type: serverOnly }, 'graphql-ws client sent a message only a server sends: socket closed');
                socket.close(CloseCode.BadRequest, `A client may not send "${serverOnly}" messages`);
                return;
              }
              logger.error({ err: error }, 'graphql-ws message handling failed');
              socket.close(CloseCode.InternalServerError, 'Internal server error');
            });
          }),
      },
      { socket, request, send: (data) => send(data), closed: closing.signal },
    );
    socket.once('close', (code, reason) => {
      keepAlive();
      closing.abort();
      void closed(code, reason.toString());
    });
  });
}

/** The message types of `graphql-transport-ws` that only a server sends. */
const SERVER_ONLY_TYPES: ReadonlySet<string> = new Set([MessageType.ConnectionAck, MessageType.Next, MessageType.Error]);

/** The type of `text` when it is a message only a server sends; undefined otherwise. Read only once handling it failed. */
function serverOnlyTypeOf(text: string): string | undefined {
  try {
    const type = (JSON.parse(text) as { type?: unknown } | null)?.type;
    return typeof type === 'string' && SERVER_ONLY_TYPES.has(type) ? type : undefined;
  } catch {
    return undefined;
  }
}

/** The socket's send with the buffer bound: false when the message was not written. */
function boundedSend(socket: WebSocket, maxBufferedBytes: number): (data: string, written?: () => void) => boolean {
  return (data, written) => {
    if (socket.readyState !== socket.OPEN) return false;
    if (socket.bufferedAmount > maxBufferedBytes) {
      socket.close(CLOSE_SEND_BUFFER_FULL, `Over ${maxBufferedBytes} bytes unsent: the client is not reading`);
      return false;
    }
    // A write that fails means a closed socket, whose subscriptions graphql-ws ends on its own.
    socket.send(data, written && (() => written()));
    return true;
  };
}

/** Pings every `intervalMs`; a client that has not answered by the next ping is cut. Answers the stop function. */
function startKeepAlive(socket: WebSocket, intervalMs: number): () => void {
  let answered = true;
  socket.on('pong', () => (answered = true));
  const timer = setInterval(() => {
    if (socket.readyState !== socket.OPEN) return;
    if (!answered) {
      socket.terminate();
      return;
    }
    answered = false;
    socket.ping();
  }, intervalMs);
  return () => clearInterval(timer);
}
