/**
 * Which operation an API request names, decided before anything is answered (so that a request
 * that fails is still counted under its operation): the job poll, a read (`reads.ts`), a write
 * (`writes/`) or a cursor call (`cursor.ts`), restricted to the release played; or a
 * rejection, telling a wrong method (405) from an unknown route (404) and a bad body (400).
 */
import { RESOURCE_FAMILY_PREFIX, type MatchedWrite } from '../contracts.js';
import type { CursorService } from '../cursor.js';
import { SimBadRequest } from '../errors.js';
import type { Tenant } from '../model.js';
import { matchRead } from '../reads.js';
import { operationExists, withoutNewerParameters } from '../releases.js';
import type { SimulatorStore } from '../store.js';
import { isPlainObject } from '../writes/arguments.js';
import { isWritePath, isWriteSubPath, matchWrite } from '../writes/index.js';

/** Operation name under which job polls are counted. */
export const POLL_OPERATION = 'PollJob';
/** Operation name under which requests to unknown routes are counted. */
export const UNKNOWN_OPERATION = 'Unknown';

const CURSOR_FAMILY_PREFIX = '/api/v1/resources/';

/** A job poll's path under the resource family, capturing the job's uuid. */
const JOB_POLL_PATH = /^api-jobs\/([^/]+)$/;

/** What the router decided for one API request. */
export type Routed =
  | { kind: 'poll'; operation: string; jobUuid: string }
  | { kind: 'read'; operation: string; run: (tenant: Tenant) => Record<string, unknown> }
  | { kind: 'write'; operation: string; matched: MatchedWrite; body: Record<string, unknown> }
  | { kind: 'cursor'; operation: string; run: (tenant: Tenant) => Record<string, unknown> }
  | { kind: 'reject'; operation: string; status: number; text: string };

/** One API request as the router reads it. */
export interface ApiRequest {
  method: string;
  pathname: string;
  query: URLSearchParams;
  /** The parsed body (`{}` when empty or not JSON). */
  body: unknown;
  /** Why the body is not JSON, or null. */
  bodyError: string | null;
}

/** What the router routes to. */
export interface RouterContext {
  readonly store: SimulatorStore;
  readonly cursors: CursorService;
  /** The release played (`SIM_VERSION`). */
  readonly version: string;
}

/** Whether a path is one of the API's (either family), rather than a control or a stray request. */
export function isApiPath(pathname: string): boolean {
  return pathname.startsWith(RESOURCE_FAMILY_PREFIX) || pathname.startsWith(CURSOR_FAMILY_PREFIX);
}

/** Routes one API request in the release played: an operation it lacks is an unknown route, newer parameters are ignored. */
export function route(context: RouterContext, request: ApiRequest): Routed {
  const routed = routeAny(context, request);
  if (routed.kind === 'reject' || routed.kind === 'poll') return routed;
  if (!operationExists(routed.operation, context.version)) return { kind: 'reject', operation: UNKNOWN_OPERATION, status: 404, text: 'Not Found' };
  if (routed.kind !== 'write') return routed;
  return { ...routed, body: withoutNewerParameters(routed.operation, routed.body, context.version) };
}

function routeAny(context: RouterContext, request: ApiRequest): Routed {
  const { method, pathname, query } = request;
  if (pathname.startsWith(RESOURCE_FAMILY_PREFIX)) return routeResourceFamily(context, request);
  if (pathname.startsWith(CURSOR_FAMILY_PREFIX)) return routeCursorFamily(context, method, pathname.slice(CURSOR_FAMILY_PREFIX.length), query);
  return { kind: 'reject', operation: UNKNOWN_OPERATION, status: 404, text: 'Not Found' };
}

function routeResourceFamily({ store }: RouterContext, request: ApiRequest): Routed {
  const { method, pathname, query } = request;
  const subPath = pathname.slice(RESOURCE_FAMILY_PREFIX.length).replace(/\/+$/, '');
  const poll = JOB_POLL_PATH.exec(subPath);
  if (poll !== null) {
    if (method !== 'GET') return { kind: 'reject', operation: POLL_OPERATION, status: 405, text: 'Method Not Allowed' };
    return { kind: 'poll', operation: POLL_OPERATION, jobUuid: poll[1] ?? '' };
  }
  if (method === 'GET') {
    const read = matchRead(subPath);
    if (read !== null) {
      const { route: readRoute, params } = read;
      return {
        kind: 'read',
        operation: readRoute.operation,
        run: (tenant) => readRoute.handle({ store, tenant, params, query }),
      };
    }
  } else if (isWritePath(method, subPath)) {
    return routeWrite(request);
  }
  if (isKnownResourcePath(subPath)) return { kind: 'reject', operation: UNKNOWN_OPERATION, status: 405, text: 'Method Not Allowed' };
  return { kind: 'reject', operation: UNKNOWN_OPERATION, status: 404, text: 'Not Found' };
}

/** Whether some method is routed at `subPath` of the resource family. */
function isKnownResourcePath(subPath: string): boolean {
  return matchRead(subPath) !== null || isWriteSubPath(subPath) || JOB_POLL_PATH.test(subPath);
}

function routeWrite({ method, pathname, body, bodyError }: ApiRequest): Routed {
  const reject = (text: string, operation = writeOperationName(method, pathname)): Routed => ({
    kind: 'reject',
    operation,
    status: 400,
    text,
  });
  if (bodyError !== null) return reject(bodyError);
  if (!isPlainObject(body)) return reject('The request body must be a JSON object');
  let matched: MatchedWrite | null;
  try {
    matched = matchWrite(method, pathname, body);
  } catch (error) {
    if (error instanceof SimBadRequest) return reject(error.message);
    throw error;
  }
  if (matched === null) return reject('The request names no operation this resource accepts');
  return { kind: 'write', operation: matched.operation, matched, body };
}

/** The operation a write path names whatever its body, for counting a rejected request. */
function writeOperationName(method: string, pathname: string): string {
  try {
    return matchWrite(method, pathname, {})?.operation ?? UNKNOWN_OPERATION;
  } catch {
    return UNKNOWN_OPERATION;
  }
}

function routeCursorFamily({ cursors }: RouterContext, method: string, subPath: string, query: URLSearchParams): Routed {
  const operations: Record<string, string> = { 'cursor-query': 'CursorQuery', 'cursor-next': 'CursorNext' };
  const operation = operations[subPath.replace(/\/+$/, '')];
  if (operation === undefined) return { kind: 'reject', operation: UNKNOWN_OPERATION, status: 404, text: 'Not Found' };
  if (method !== 'GET') return { kind: 'reject', operation, status: 405, text: 'Method Not Allowed' };
  return {
    kind: 'cursor',
    operation,
    run: (tenant) =>
      operation === 'CursorQuery' ? { ...cursors.query(query, tenant.id) } : { ...cursors.next(query, tenant.id) },
  };
}
