/**
 * The request target, checked before the fetch API sees it. Yoga's node adapter builds the
 * request's URL as `http://<Host><target>`: a target in absolute form
 * (`POST http://127.0.0.1:1/graphql`), `*` (`OPTIONS *`) or authority form, or a Host header that is
 * no host, made that URL invalid, and its TypeError was answered 500 with a stack naming the
 * server's files. The gateway serves paths only, and takes no request meant for a proxy: any other
 * target is the caller's mistake, answered 400 `BAD_REQUEST` in a GraphQL body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/** Stands for a Host header that was not sent, to check the target alone. */
const ABSENT_HOST = 'localhost';

/** Why the request's target or Host cannot be served; null when it can. */
export function requestTargetProblem(req: Pick<IncomingMessage, 'url' | 'headers'>): string | null {
  const target = req.url ?? '';
  if (!target.startsWith('/')) {
    return 'The request target must be a path (origin form, e.g. `/graphql`): absolute, authority and asterisk forms are not served.';
  }
  // No Host header (HTTP/1.0) is no problem: any name makes the URL.
  const authority = req.headers.host ?? ABSENT_HOST;
  if (!URL.canParse(`http://${authority}${target}`)) return 'The Host header and the request target do not make a URL.';
  return null;
}

/** Answers `res` 400 `BAD_REQUEST` with `message`, as a GraphQL response. */
export function answerBadTarget(res: ServerResponse, message: string): void {
  const body = JSON.stringify({ errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] });
  res.writeHead(400, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** What node:http's parser refusals mean (the head did not parse, so no handler saw the request). */
const CLIENT_ERRORS: Readonly<Record<string, { status: number; reason: string; message: string }>> = {
  HPE_HEADER_OVERFLOW: { status: 431, reason: 'Request Header Fields Too Large', message: 'The request headers are over 16 KB.' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, reason: 'Request Timeout', message: 'The request did not arrive in time.' },
};

/**
 * The server's `clientError` listener: what node:http answers a request whose head it could not
 * parse (an authority-form target, a malformed header, headers over 16 KB, a timeout), with the
 * same status as node's own answer but a coded GraphQL body instead of none.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const known = CLIENT_ERRORS[error.code ?? ''] ?? { status: 400, reason: 'Bad Request', message: 'The request could not be read as HTTP/1.1.' };
  const body = JSON.stringify({ errors: [{ message: known.message, extensions: { code: 'BAD_REQUEST' } }] });
  socket.end(
    `HTTP/1.1 ${known.status} ${known.reason}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
