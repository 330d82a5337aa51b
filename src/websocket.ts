/**
 * graphql-ws on a `ws` server: graphql-ws's protocol core (`makeServer`) behind an adapter of our
 * own, written like `graphql-ws/use/ws` but for two limits an attacker would otherwise set:
 *
 * - **One bounded send buffer per socket.** A client that stops reading keeps everything sent to
 *   it in the gateway's memory (30 introspection answers once pinned 500 MiB). Every message to a
 *   socket, graphql-ws's own and the shared subscriptions' direct writes alike (`SocketExtra.send`),
 *   goes through `send`: once more than `maxBufferedBytes` wait unsent, nothing more is written
 *   and the socket is closed with `CLOSE_SEND_BUFFER_FULL`. A single message larger than the limit
 *   still goes when the buffer is below it, so no answer is too big to be delivered to a client
 *   that reads.
 * - **Subscriptions per socket and per credential** (`createSubscriptionLimits`): each one holds a
 *   pub/sub listener and its state for as long as the client likes. The one past a cap is
 *   refused with an error message for that operation (`TOO_MANY_SUBSCRIPTIONS`); the socket and
 *   its other subscriptions go on.
 */
import type { IncomingMessage } from 'node:http';
import { GraphQLError } from 'graphql';
import { CloseCode, handleProtocols, makeServer, type ServerOptions } from 'graphql-ws';
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

export interface GraphqlWsOptions {
  /** graphql-ws's server options (`onSubscribe`, `execute`, ...); `ctx.extra` is `SocketExtra`. */
  server: ServerOptions<Record<string, unknown> | undefined, SocketExtra>;
  /** Bytes that may wait unsent on a socket before it is closed with `CLOSE_SEND_BUFFER_FULL`. */
  maxBufferedBytes: number;
  /** Interval of the server's pings; a client that answers none within it is cut. @default 12000 */
  keepAliveMs?: number;
  logger: Logger;
}

/** Serves the graphql-ws protocol (`graphql-transport-ws`) on every connection of `wsServer`. */
export function serveGraphqlWs(wsServer: WebSocketServer, options: GraphqlWsOptions): void {
  const server = makeServer<Record<string, unknown> | undefined, SocketExtra>(options.server);
  const keepAliveMs = options.keepAliveMs ?? 12_000;
  const { logger } = options;
  wsServer.options.handleProtocols = handleProtocols;
  // The HTTP server's own errors (a port in use) reach `listen`'s caller; the ws server only re-emits them.
  wsServer.on('error', () => undefined);

  wsServer.on('connection', (socket, request) => {
    const closing = new AbortController();
    const send = boundedSend(socket, options.maxBufferedBytes);
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
            handle(String(data)).catch((error: unknown) => {
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

export interface SubscriptionLimitsOptions {
  /** Subscriptions open at once on one socket. */
  perSocket: number;
  /** Subscriptions open at once under one credential, over all its sockets on this replica. */
  perCredential: number;
}

export interface SubscriptionLimits {
  /**
   * Takes a place for subscription `id` on the socket under `credential` (a digest of it): null
   * when it may run, or the error that refuses it. The place is freed by `release`, or when the
   * socket closes.
   */
  take(extra: SocketExtra, id: string, credential: string): GraphQLError | null;
  /** Frees subscription `id`'s place (nothing when it holds none). */
  release(extra: SocketExtra, id: string): void;
}

export function createSubscriptionLimits(options: SubscriptionLimitsOptions): SubscriptionLimits {
  const perCredential = new Map<string, number>();
  /** Each socket's open subscriptions: id to credential. */
  const sockets = new WeakMap<SocketExtra, Map<string, string>>();

  function release(extra: SocketExtra, id: string): void {
    const open = sockets.get(extra);
    const credential = open?.get(id);
    if (credential === undefined) return;
    open!.delete(id);
    const count = (perCredential.get(credential) ?? 1) - 1;
    if (count > 0) perCredential.set(credential, count);
    else perCredential.delete(credential);
  }

  return {
    take(extra, id, credential) {
      // Closed while its operation was being prepared: graphql-ws drops the operation, and a place
      // taken now would never be given back.
      if (extra.closed.aborted) return null;
      let open = sockets.get(extra);
      if (open === undefined) {
        const created = new Map<string, string>();
        sockets.set(extra, created);
        extra.closed.addEventListener('abort', () => {
          for (const openId of [...created.keys()]) release(extra, openId);
        });
        open = created;
      }
      if (open.size >= options.perSocket) {
        return tooMany(`This connection already has ${open.size} subscriptions open, the most allowed; complete one first.`, 'socket', options.perSocket);
      }
      const count = perCredential.get(credential) ?? 0;
      if (count >= options.perCredential) {
        return tooMany(`Your credential already has ${count} subscriptions open, the most allowed; complete one first.`, 'credential', options.perCredential);
      }
      open.set(id, credential);
      perCredential.set(credential, count + 1);
      return null;
    },
    release,
  };
}

function tooMany(message: string, per: 'socket' | 'credential', limit: number): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'TOO_MANY_SUBSCRIPTIONS', per, limit } });
}
