/**
 * Builds the wire request of an operation from its declaration and its parameters: the one place
 * that knows the spec's conventions for paths, query strings and bodies (Endpoints, Conventions
 * 2, 3 and 8). Pure: no HTTP here.
 */
import { UpstreamBadRequestError } from '../errors.js';
import type { AnyOperation } from './define.js';

/** Query string pairs, in the order they are sent, not yet encoded. */
export type QueryPairs = Array<readonly [string, string]>;

/** Tags every write may carry in its body (convention 8). */
export interface WriteTags {
  systemTags?: unknown;
  userTags?: unknown;
}

/**
 * The path relative to the family's root, each path parameter one percent-encoded segment.
 * `.`, `..` and the empty string would change the path, so they never reach the URL.
 */
export function buildPath(operation: AnyOperation, params: Readonly<Record<string, unknown>>): string {
  let path = '';
  for (const part of operation.pathParts) {
    if ('text' in part) {
      path += part.text;
      continue;
    }
    const value = params[part.param];
    if (typeof value !== 'string' || value === '' || value === '.' || value === '..') {
      throw new UpstreamBadRequestError(`${operation.name}: invalid path parameter ${part.param} ${JSON.stringify(value)}`, {
        operation: operation.name,
      });
    }
    path += encodeURIComponent(value);
  }
  return path;
}

/**
 * Recognises paths built by `buildPath` for `operation` below `root` (`'svc/v1/'`): the matcher
 * takes a URL's path and answers the path parameters when it ends with `/<root><template>` (a
 * trailing `/` allowed), whatever comes before; undefined otherwise. A parameter is one segment
 * without `%`, so an id that needed escaping is not taken for one (it was not built here).
 */
export function matchPathOf(operation: AnyOperation, root: string): (path: string) => Readonly<Record<string, string>> | undefined {
  const names: string[] = [];
  let pattern = escapeRegExp(`/${root}`);
  for (const part of operation.pathParts) {
    if ('text' in part) {
      pattern += escapeRegExp(part.text);
    } else {
      names.push(part.param);
      pattern += '([^/?#%]+)';
    }
  }
  const regExp = new RegExp(`${pattern}/?$`);
  return (path) => {
    const match = regExp.exec(path);
    return match ? Object.fromEntries(names.map((name, index) => [name, match[index + 1]!])) : undefined;
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** The query string parameters: a list repeats its key, `undefined` and `null` are left out. */
export function buildQuery(operation: AnyOperation, params: Readonly<Record<string, unknown>>): QueryPairs {
  const pairs: QueryPairs = [];
  for (const name of operation.queryNames) {
    const value = params[name];
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const item of value) pairs.push([name, String(item)]);
    else pairs.push([name, String(value)]);
  }
  return pairs;
}

/**
 * The JSON body of a write, or undefined for none: POST `{params, systemTags?, userTags?}`; PUT
 * `{<actionKey>: {...}, systemTags?, userTags?}`; DELETE as POST, but only when it carries
 * something. Parameters that are `undefined` or `null` are left out; tags only when they are lists.
 */
export function buildBody(operation: AnyOperation, params: Readonly<Record<string, unknown>>, tags: WriteTags = {}): Record<string, unknown> | undefined {
  if (operation.method === 'GET') return undefined;
  const fields: Record<string, unknown> = {};
  for (const name of operation.bodyNames) {
    const value = params[name];
    if (value !== undefined && value !== null) fields[name] = value;
  }
  const tagFields = {
    ...(Array.isArray(tags.systemTags) ? { systemTags: tags.systemTags } : {}),
    ...(Array.isArray(tags.userTags) ? { userTags: tags.userTags } : {}),
  };
  if (operation.method === 'PUT') return { [operation.actionKey ?? 'params']: fields, ...tagFields };
  if (operation.method === 'POST') return { params: fields, ...tagFields };
  return Object.keys(fields).length > 0 || Object.keys(tagFields).length > 0 ? { params: fields, ...tagFields } : undefined;
}
