/**
 * The request target, checked before the fetch API sees it. Yoga's node adapter builds the
 * request's URL as `http://<Host><target>`: a target in absolute form
 * (`POST http://127.0.0.1:1/graphql`), `*` (`OPTIONS *`) or authority form, or a Host header that is
 * no host, made that URL invalid, and its TypeError was answered 500 with a stack naming the
 * server's files. The gateway serves paths only, and takes no request meant for a proxy: any other
 * target is the caller's mistake, answered 400 `BAD_REQUEST` in a GraphQL body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Why the request's target or Host cannot be served; null when it can. */
export function requestTargetProblem(req: Pick<IncomingMessage, 'url' | 'headers'>): string | null {
  const target = req.url ?? '';
  if (!target.startsWith('/')) {
    return 'The request target must be a path (origin form, e.g. `/graphql`): absolute, authority and asterisk forms are not served.';
  }
  const host = req.headers.host ?? 'localhost';
  if (!URL.canParse(`http://${host}${target}`)) return 'The Host header and the request target do not make a URL.';
  return null;
}

/** Answers `res` 400 `BAD_REQUEST` with `message`, as a GraphQL response. */
export function answerBadTarget(res: ServerResponse, message: string): void {
  const body = JSON.stringify({ errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] });
  res.writeHead(400, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
