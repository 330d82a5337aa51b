/**
 * `useCloseAfterRefusedBody`: a request refused before its body was read to the end (413 for a
 * body over `maxRequestBodySize`, a 4xx refused before parsing such as a CSRF rejection) leaves
 * unread bytes on the keep-alive socket. Answering `Connection: close` makes the client open a
 * fresh connection for its next request instead of failing on the spoiled one.
 */
import type { Plugin } from 'graphql-yoga';

export interface CloseAfterRefusedBodyOptions {
  /** 4xx statuses after which a connection whose request body was not read is closed (413 always is). @default [400, 403, 415] */
  statuses?: readonly number[] | undefined;
}

export function useCloseAfterRefusedBody(options: CloseAfterRefusedBodyOptions = {}): Plugin {
  const statuses = new Set(options.statuses ?? [400, 403, 415]);
  return {
    onResponse({ request, response }) {
      if (request.method === 'GET' || request.method === 'HEAD') return;
      const unread = request.body !== null && !request.bodyUsed;
      if (response.status === 413 || (unread && statuses.has(response.status))) response.headers.set('connection', 'close');
    },
  };
}
