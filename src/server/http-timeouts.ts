/**
 * How long a client may take to send a request. Without bounds, a connection that declares a
 * body and then stalls holds what it sent for as long as it likes: 300 such connections pinned
 * +300 MB (issue 19). node:http bounds the headers and the whole request; the body's pauses are
 * bounded here, since node:http has no timeout that counts only the time the server is reading.
 *
 * None of these touch an answer in progress: node:http's request timeout ends when the request
 * has been received, so SSE streams and WebSocket connections (upgraded on headers alone) last as
 * long as their clients want.
 */
import type { IncomingMessage, ServerOptions, ServerResponse } from 'node:http';

export interface RequestTimeouts {
  /** Time to send the headers. */
  headersTimeoutMs: number;
  /** Time to send the whole request, body included. */
  requestTimeoutMs: number;
  /** Idle keep-alive connections close this long after their last answer. */
  keepAliveTimeoutMs: number;
}

/** node:http's options for `timeouts`. */
export function serverTimeoutOptions(timeouts: RequestTimeouts): ServerOptions {
  return {
    headersTimeout: timeouts.headersTimeoutMs,
    requestTimeout: timeouts.requestTimeoutMs,
    keepAliveTimeout: timeouts.keepAliveTimeoutMs,
    // node:http checks the two request timeouts on this interval (default 30 s): without a
    // shorter one a stalled request outlives its timeout by up to that much.
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(Math.min(timeouts.headersTimeoutMs, timeouts.requestTimeoutMs) / 4))),
  };
}

const REQUEST_TIMEOUT_ANSWER = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n';

/**
 * Cuts `req`'s connection (answering 408 when nothing was answered yet) once its body has not
 * advanced for `idleMs` while the gateway was ready to read it. A body the gateway is not reading
 * yet (its operation waits for admission, its buffer is full) is not the client's pause: only the
 * request timeout bounds that. Checked every quarter of `idleMs`, so a stall is cut within 1.25x.
 */
export function cutStalledBody(req: IncomingMessage, res: ServerResponse, idleMs: number, onCut: () => void): void {
  if (req.complete || !declaresBody(req)) return;
  const socket = req.socket;
  let lastBytes = socket.bytesRead;
  let lastProgress = Date.now();
  const timer = setInterval(() => {
    if (req.complete || socket.destroyed) return stop();
    const now = Date.now();
    const waitingForUs = req.readableLength >= req.readableHighWaterMark;
    if (socket.bytesRead !== lastBytes || waitingForUs) {
      lastBytes = socket.bytesRead;
      lastProgress = now;
      return;
    }
    if (now - lastProgress < idleMs) return;
    stop();
    if (!res.headersSent && socket.writable) socket.write(REQUEST_TIMEOUT_ANSWER);
    socket.destroy();
    onCut();
  }, Math.max(10, Math.floor(idleMs / 4)));
  timer.unref();
  function stop(): void {
    clearInterval(timer);
    res.off('close', stop);
  }
  res.once('close', stop);
}

/** The request says a body follows (a `Content-Length` above 0, or chunks). */
export function declaresBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}
