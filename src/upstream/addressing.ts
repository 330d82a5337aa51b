/**
 * Where each request goes, from the two configured base URLs: the resource family below
 * `{UPSTREAM_URL}/svc/v1/` (the base's own path prefix kept), the cursor family below
 * `{RESOURCES_URL}/api/v1/resources/`. Also where a job is polled: on the configured base,
 * whatever host the service wrote into its polling address.
 */
import { PollJob, buildPath, buildQuery, matchPathOf, type AnyOperation, type QueryPairs } from './operations/index.js';

/** Where a request goes: undici takes the origin and the path (with its query) apart. */
export interface Target {
  origin: string;
  /** Path and query, already percent-encoded. */
  path: string;
}

export interface AddressingOptions {
  /** The resource family's `{base_url}` (`UPSTREAM_URL`). */
  upstreamUrl: string;
  /** Where the cursor family lives (`RESOURCES_URL`); undefined: the origin of `upstreamUrl`. */
  cursorUrl: string | undefined;
}

export interface Addressing {
  /** The resource family's base: what `ping` asks. */
  readonly upstreamRoot: Target;
  /** Where `operation` goes with `params`: its family's root, its path, its query string. */
  targetOf(operation: AnyOperation, params: Readonly<Record<string, unknown>>): Target;
  /** A job's polling address, moved onto the configured base when it has the usual shape. */
  jobTarget(location: string): Target;
  /** Where the job `jobUuid` is polled on the configured base, as one URL. */
  jobLocation(jobUuid: string): string;
}

/** A configured base URL: its origin, and its path ending with `/`. */
interface Base {
  origin: string;
  pathname: string;
}

/** Where the resource family's operations live below `{base_url}`. */
const RESOURCE_ROOT = 'svc/v1/';
/** Where the cursor family's operations live below its origin. */
const CURSOR_ROOT = 'api/v1/resources/';
// An id that needed escaping (never one the gateway chose) is polled at the address as written.
const matchJobPath = matchPathOf(PollJob, RESOURCE_ROOT);

export function createAddressing(options: AddressingOptions): Addressing {
  const upstreamUrl = parseBase(options.upstreamUrl, 'upstreamUrl');
  // Read once: a URL's getters serialize on every read.
  const resourceBase: Base = { origin: upstreamUrl.origin, pathname: upstreamUrl.pathname };
  const cursorUrl = parseBase(options.cursorUrl ?? upstreamUrl.origin, 'cursorUrl');
  const cursorBase: Base = { origin: cursorUrl.origin, pathname: cursorUrl.pathname };

  function targetOf(operation: AnyOperation, params: Readonly<Record<string, unknown>>): Target {
    const path = buildPath(operation, params);
    const query = buildQuery(operation, params);
    return operation.family === 'resource' ? buildTarget(resourceBase, `${RESOURCE_ROOT}${path}`, query) : buildTarget(cursorBase, `${CURSOR_ROOT}${path}`, query);
  }

  return {
    upstreamRoot: { origin: resourceBase.origin, path: resourceBase.pathname },
    targetOf,
    jobTarget(location) {
      // The service writes its own idea of its address, which behind a proxy or NAT may not be
      // reachable from here; the job path on the configured base always is.
      const url = new URL(location, upstreamUrl);
      const params = matchJobPath(url.pathname);
      if (params === undefined) return { origin: url.origin, path: `${url.pathname}${url.search}` };
      return targetOf(PollJob, params);
    },
    jobLocation(jobUuid) {
      const { origin, path } = targetOf(PollJob, { jobUuid });
      return `${origin}${path}`;
    },
  };
}

function parseBase(text: string, name: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TypeError(`${name} is not an absolute URL: ${text}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`${name} must be http or https: ${text}`);
  url.search = '';
  url.hash = '';
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

/**
 * `base` ends with `/`; `relative` has none in front and is already encoded (constants and
 * `segment`s). Built as text: a `URL` object re-parses on every setter, 1.5% of the gateway's CPU
 * at 50 clients for four requests per dashboard (profiled).
 */
function buildTarget(base: Base, relative: string, params: QueryPairs): Target {
  const query = params.length === 0 ? '' : encodeParams(params);
  return { origin: base.origin, path: query === '' ? `${base.pathname}${relative}` : `${base.pathname}${relative}?${query}` };
}

/**
 * Percent-encodes every reserved character (`%20` for a space, `%2B` for `+`), so the server
 * reads the same text whether it decodes the query as a form or as a URI.
 */
function encodeParams(params: readonly (readonly [string, string])[]): string {
  return params.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&');
}
