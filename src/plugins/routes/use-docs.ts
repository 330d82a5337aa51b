/**
 * `useDocs(options)`: the project's documentation pages (`docs/**.md`), served as plain text at
 * `/docs/<path>.md`, so that GraphiQL's guide link opens the guide of the very gateway that serves
 * it, with nothing fetched from elsewhere. GET and HEAD; any other path under the prefix is 404.
 */
import { readFile } from 'node:fs/promises';
import type { Plugin } from 'graphql-yoga';
import { requestPath } from '../../utils/route-answers.js';

export interface DocsOptions {
  /** The folder served, e.g. `new URL('../../docs/', import.meta.url)`. */
  root: URL;
  /** The path prefix answered. @default '/docs/' */
  prefix?: string;
}

/** One path segment of a page: no `..`, no hidden file, no escape of any kind. */
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9_-]*(\.md)?$/;

/** The file of `relative` under `root`, or undefined when it names no page (`a/b.md`, segments of SEGMENT). */
function pageFile(root: URL, relative: string): URL | undefined {
  const segments = relative.split('/');
  if (!relative.endsWith('.md') || !segments.every((segment) => SEGMENT.test(segment))) return undefined;
  return new URL(segments.join('/'), root);
}

export function useDocs(options: DocsOptions): Plugin {
  const prefix = options.prefix ?? '/docs/';
  const root = options.root.href.endsWith('/') ? options.root : new URL(`${options.root.href}/`);
  return {
    // Not async: every GraphQL request passes here, and only a page should wait for a file.
    onRequest({ request, endResponse, fetchAPI }) {
      const path = requestPath(request.url);
      if (!path.startsWith(prefix)) return undefined;
      const file = request.method === 'GET' || request.method === 'HEAD' ? pageFile(root, path.slice(prefix.length)) : undefined;
      const text = file === undefined ? Promise.resolve(undefined) : readFile(file, 'utf8').catch(() => undefined);
      return text.then((page) => {
        if (page === undefined) {
          endResponse(new fetchAPI.Response('No such page.\n', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } }));
          return;
        }
        // Plain text: a browser shows Markdown as it is written, and runs nothing in it.
        const headers = { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' };
        endResponse(new fetchAPI.Response(request.method === 'HEAD' ? null : page, { status: 200, headers }));
      });
    },
  };
}
