/**
 * The simulator's HTTP server (`node:http`): both families of the upstream service at one
 * origin, fault injection, per-operation request counts, a request journal and the `/__sim/*`
 * control surface.
 */
import { defaultSimulatorOptions } from '../config/simulator.js';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { JobAnswer, JobRunner, MatchedWrite } from './contracts.js';
import { SimBadRequest, SimError, errorCode } from './errors.js';
import type { Tenant } from './model.js';
import { createChurn, readChurnRequest, type Churn } from './churn.js';
import { CursorService } from './cursor.js';
import { deriveTenants, generateEstate } from './estate.js';
import { assertTimeZone, encodeJson } from './format.js';
import { createJobRunner } from './jobs.js';
import { matchRead } from './reads.js';
import { isKnownResourcePath, isWritePath } from './routes.js';
import { SimulatorStore } from './store.js';
import { beginWrite, executeWrite, matchWrite } from './writes.js';
import { isPlainObject } from './write-arguments.js';
import type { SimulatorOptions } from './options.js';
import { isRelease, NEWEST_RELEASE } from '../upstream/releases.js';
import { operationExists, withoutNewerParameters } from './releases.js';

export type { SimulatorOptions } from './options.js';

export interface TenantCredentials {
  session: string;
  token: string;
  tenantId: string;
}

export interface SimulatorCredentials extends TenantCredentials {
  second: TenantCredentials;
}

/** Runtime-adjustable behaviour (`POST /__sim/config`). */
export interface SimulatorConfig {
  latencyMs: number;
  faultRate: number;
  asyncDelayMs: number;
  dropWebhooks: boolean;
}

export interface JournalHeaders {
  'x-job-uuid'?: string;
  'x-web-hook'?: string;
  'x-request-id'?: string;
  authorization?: string;
  'x-tenant-id'?: string;
  /** The W3C trace context the gateway propagates (its upstream call's span). */
  traceparent?: string;
}

/** One API request as received. */
export interface JournalEntry {
  operation: string;
  method: string;
  path: string;
  /** The raw query string without `?` (empty when none). */
  query: string;
  headers: JournalHeaders;
  /** Parsed JSON body; raw text when it was not JSON; null when empty. */
  body: unknown;
}

export interface SimulatorStats {
  total: number;
  byOperation: Record<string, number>;
}

export interface Simulator {
  /** `http://host:port`, known once `start()` resolved. */
  readonly url: string;
  readonly credentials: SimulatorCredentials;
  readonly store: SimulatorStore;
  readonly jobs: JobRunner;
  /** The estate's own changes (`SIM_CHURN`, `POST /__sim/churn`). */
  readonly churn: Churn;
  /** Listens (port 0: any free port) and resolves to `url`. */
  start(port?: number, host?: string): Promise<string>;
  stop(): Promise<void>;
  configure(patch: Partial<SimulatorConfig>): void;
  config(): SimulatorConfig;
  stats(): SimulatorStats;
  resetStats(): void;
  journal(): readonly JournalEntry[];
}

/** Operation name under which job polls are counted. */
export const POLL_OPERATION = 'PollJob';
/** Operation name under which requests to unknown routes are counted. */
export const UNKNOWN_OPERATION = 'Unknown';

/** The simulator's options when none are given: `npm run simulator`'s `SIM_*` variables default to these. */
export const SIMULATOR_DEFAULTS: Readonly<SimulatorOptions> = {
  // The settings' defaults (`src/config/simulator.ts`), and what no setting changes.
  ...defaultSimulatorOptions,
  webhookRetries: 15,
  journalLimit: 1000,
  random: Math.random,
  version: NEWEST_RELEASE,
};

const RESOURCE_FAMILY_PREFIX = '/svc/v1/';
const CURSOR_FAMILY_PREFIX = '/api/v1/resources/';
const MAX_BODY_BYTES = 10 * 1024 * 1024;

/** What the router decided for one API request. */
type Routed =
  | { kind: 'poll'; operation: string; jobUuid: string }
  | { kind: 'read'; operation: string; run: (tenant: Tenant) => Record<string, unknown> }
  | { kind: 'write'; operation: string; matched: MatchedWrite; body: Record<string, unknown> }
  | { kind: 'cursor'; operation: string; run: (tenant: Tenant) => Record<string, unknown> }
  | { kind: 'reject'; operation: string; status: number; text: string };

/** Builds a simulator with a generated estate; call `start()` to listen. */
export function createSimulator(overrides: Partial<SimulatorOptions> = {}): Simulator {
  const options: SimulatorOptions = { ...SIMULATOR_DEFAULTS, ...overrides };
  assertTimeZone(options.timeZone);
  const store = new SimulatorStore();
  store.timeZone = options.timeZone;
  if (!isRelease(options.version)) throw new Error(`SIM_VERSION must be a release such as 4.7.0, got "${options.version}"`);
  store.release = options.version;
  const tenants = deriveTenants(options.seed, options.first, options.second);
  generateEstate(store, options.seed, { hosts: options.hosts, vms: options.vms }, tenants);
  const [first, second] = tenants as [Tenant, Tenant];
  const churn = createChurn(store, options.seed, options.churn);
  const credentials: SimulatorCredentials = {
    session: first.session,
    token: first.token,
    tenantId: first.id,
    second: { session: second.session, token: second.token, tenantId: second.id },
  };

  const config: SimulatorConfig = {
    latencyMs: options.latencyMs,
    faultRate: options.faultRate,
    asyncDelayMs: options.asyncDelayMs,
    dropWebhooks: options.dropWebhooks,
  };
  let url = '';
  const jobs = createJobRunner({
    baseUrl: () => url,
    asyncDelayMs: () => config.asyncDelayMs,
    dropWebhooks: () => config.dropWebhooks,
    webhookRetryMs: () => options.webhookRetryMs,
    webhookRetries: options.webhookRetries,
  });
  const cursors = new CursorService(store, { ttlMs: options.cursorTtlMs, secret: randomBytes(32) });
  let counts = new Map<string, number>();
  let total = 0;
  let journal: JournalEntry[] = [];
  let server: Server | null = null;
  const sockets = new Set<Socket>();

  function record(entry: JournalEntry): void {
    total++;
    counts.set(entry.operation, (counts.get(entry.operation) ?? 0) + 1);
    journal.push(entry);
    if (journal.length > options.journalLimit) journal = journal.slice(-options.journalLimit);
  }

  function route(method: string, pathname: string, query: URLSearchParams, body: unknown, bodyError: string | null): Routed {
    return inRelease(routeAny(method, pathname, query, body, bodyError));
  }

  /** What the release played has of a routed request: an operation it lacks is an unknown route, newer parameters are ignored. */
  function inRelease(routed: Routed): Routed {
    if (routed.kind === 'reject' || routed.kind === 'poll') return routed;
    if (!operationExists(routed.operation, options.version)) return { kind: 'reject', operation: UNKNOWN_OPERATION, status: 404, text: 'Not Found' };
    if (routed.kind !== 'write') return routed;
    return { ...routed, body: withoutNewerParameters(routed.operation, routed.body, options.version) };
  }

  function routeAny(method: string, pathname: string, query: URLSearchParams, body: unknown, bodyError: string | null): Routed {
    if (pathname.startsWith(RESOURCE_FAMILY_PREFIX)) return routeResourceFamily(method, pathname, query, body, bodyError);
    if (pathname.startsWith(CURSOR_FAMILY_PREFIX)) return routeCursorFamily(method, pathname.slice(CURSOR_FAMILY_PREFIX.length), query);
    return { kind: 'reject', operation: UNKNOWN_OPERATION, status: 404, text: 'Not Found' };
  }

  function routeResourceFamily(method: string, pathname: string, query: URLSearchParams, body: unknown, bodyError: string | null): Routed {
    const subPath = pathname.slice(RESOURCE_FAMILY_PREFIX.length).replace(/\/+$/, '');
    const poll = /^api-jobs\/([^/]+)$/.exec(subPath);
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
      return routeWrite(method, pathname, body, bodyError);
    }
    if (isKnownResourcePath(subPath)) return { kind: 'reject', operation: UNKNOWN_OPERATION, status: 405, text: 'Method Not Allowed' };
    return { kind: 'reject', operation: UNKNOWN_OPERATION, status: 404, text: 'Not Found' };
  }

  function routeWrite(method: string, pathname: string, body: unknown, bodyError: string | null): Routed {
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

  function routeCursorFamily(method: string, subPath: string, query: URLSearchParams): Routed {
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

  async function handleApi(request: IncomingMessage, response: ServerResponse, requestUrl: URL): Promise<void> {
    const method = request.method ?? 'GET';
    const raw = await readBody(request);
    const { body, error: bodyError } = parseBody(raw);
    let routed: Routed;
    try {
      routed = route(method, requestUrl.pathname, requestUrl.searchParams, body, bodyError);
    } catch (error) {
      if (!(error instanceof SimBadRequest || error instanceof URIError)) throw error;
      routed = { kind: 'reject', operation: UNKNOWN_OPERATION, status: 400, text: error.message };
    }
    record({
      operation: routed.operation,
      method,
      path: requestUrl.pathname,
      query: requestUrl.search.replace(/^\?/, ''),
      headers: journalHeaders(request),
      body: raw.length === 0 ? null : bodyError === null ? body : raw.toString('utf8'),
    });
    if (config.latencyMs > 0) await sleep(config.latencyMs);
    if (config.faultRate > 0 && options.random() < config.faultRate) {
      if (options.random() < 0.5) {
        sendText(response, 503, 'Service Unavailable');
      } else {
        request.socket.destroy();
      }
      return;
    }
    switch (routed.kind) {
      case 'reject':
        sendText(response, routed.status, routed.text);
        return;
      case 'poll':
        sendAnswer(response, jobs.poll(routed.jobUuid));
        return;
      case 'cursor': {
        const tenant = authenticateCursorFamily(request, response);
        if (tenant !== undefined) sendJson(response, 200, routed.run(tenant));
        return;
      }
      case 'read': {
        const tenant = authenticateResourceFamily(request, response);
        if (tenant !== undefined) sendJson(response, 200, routed.run(tenant));
        return;
      }
      case 'write': {
        const tenant = authenticateResourceFamily(request, response);
        if (tenant === undefined) return;
        const { matched, body: writeBody } = routed;
        const writeRequest = { ...matched, body: writeBody, query: requestUrl.searchParams, tenant };
        const answer = jobs.submit({
          jobUuidHeader: header(request, 'x-job-uuid'),
          webHook: header(request, 'x-web-hook'),
          operation: routed.operation,
          tenant,
          run: () => executeWrite(writeRequest, store),
        });
        if (answer.status === 202) beginWrite(writeRequest, store);
        sendAnswer(response, answer);
        return;
      }
    }
  }

  /** Resource family: `Authorization: OAuth <session>`. */
  function authenticateResourceFamily(request: IncomingMessage, response: ServerResponse): Tenant | undefined {
    const authorization = header(request, 'authorization');
    if (authorization === undefined || authorization.trim() === '') {
      sendText(response, 400, 'Missing the Authorization header: Authorization: OAuth <session uuid>');
      return undefined;
    }
    const match = /^OAuth\s+(\S+)\s*$/i.exec(authorization);
    const tenant = match === null ? undefined : store.tenantBySession(match[1] ?? '');
    if (tenant === undefined) {
      sendJson(response, 503, {
        error: errorCode('ID.1001', 'The session is invalid, please login again', `Invalid session[${authorization}]`),
      });
    }
    return tenant;
  }

  /** Cursor family: `Authorization: Bearer <token>` and optional `X-Tenant-ID`. */
  function authenticateCursorFamily(request: IncomingMessage, response: ServerResponse): Tenant | undefined {
    const authorization = header(request, 'authorization') ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    const tenant = match === null ? undefined : store.tenantByToken(match[1] ?? '');
    if (tenant === undefined) {
      sendJson(response, 401, {
        error: errorCode('ID.1001', 'Missing or invalid bearer token', 'Send Authorization: Bearer <token>'),
      });
      return undefined;
    }
    const tenantId = header(request, 'x-tenant-id');
    if (tenantId !== undefined && tenantId !== '' && tenantId !== tenant.id) {
      sendJson(response, 403, {
        error: errorCode('ID.1002', 'Permission denied', `The token does not belong to tenant ${tenantId}`),
      });
      return undefined;
    }
    return tenant;
  }

  async function handleControl(request: IncomingMessage, response: ServerResponse, requestUrl: URL): Promise<void> {
    const method = request.method ?? 'GET';
    // `?operation=` narrows the journal to one operation: a caller polling it stays cheap.
    const operation = requestUrl.searchParams.get('operation');
    const raw = await readBody(request);
    /** A POST control whose body must be a JSON object (an empty body reads as `{}`): 400 otherwise. */
    const withObjectBody = (handle: (body: Record<string, unknown>) => void) => () => {
      const { body, error } = parseBody(raw);
      if (error !== null || !isPlainObject(body)) {
        sendText(response, 400, error ?? 'The body must be a JSON object');
        return;
      }
      handle(body);
    };
    const controls: Record<string, [string, () => void]> = {
      '/__sim/stats': ['GET', () => sendJson(response, 200, { ...simulator.stats() })],
      '/__sim/reset': [
        'POST',
        () => {
          simulator.resetStats();
          sendJson(response, 200, {});
        },
      ],
      '/__sim/requests': [
        'GET',
        () => sendJson(response, 200, { requests: operation === null ? journal : journal.filter((entry) => entry.operation === operation) }),
      ],
      '/__sim/config': [
        'POST',
        withObjectBody((body) => {
          simulator.configure(readConfigPatch(body));
          sendJson(response, 200, { ...config });
        }),
      ],
      '/__sim/sessions': ['POST', withObjectBody((body) => sendJson(response, 200, { credentials: addSessions(body) }))],
      '/__sim/churn': [
        'POST',
        withObjectBody((body) => {
          const { apply, spec } = readChurnRequest(body);
          if (spec !== null) churn.setSpec(spec);
          const changes = apply === null ? [] : churn.apply(apply);
          sendJson(response, 200, { changes, ...churn.spec() });
        }),
      ],
    };
    const control = controls[requestUrl.pathname];
    if (control === undefined) {
      sendText(response, 404, 'Not Found');
    } else if (control[0] !== method) {
      sendText(response, 405, 'Method Not Allowed');
    } else {
      control[1]();
    }
  }

  /**
   * `POST /__sim/sessions` `{count, tenant}`: `count` more sessions and bearer tokens of the first
   * (or second) tenant, as many logins of one account would hold: each a credential of its own.
   */
  function addSessions(body: Record<string, unknown>): TenantCredentials[] {
    const { count = 1, tenant: which = 'first' } = body;
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > 10_000) throw new SimBadRequest('count must be an integer from 1 to 10000');
    if (which !== 'first' && which !== 'second') throw new SimBadRequest('tenant must be "first" or "second"');
    const tenant = which === 'first' ? first : second;
    const added: TenantCredentials[] = [];
    for (let index = 0; index < count; index++) {
      const session = randomBytes(16).toString('hex');
      const token = `simtok-${randomBytes(20).toString('hex')}`;
      store.extraSessions.set(session, tenant);
      store.extraTokens.set(token, tenant);
      added.push({ session, token, tenantId: tenant.id });
    }
    return added;
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const requestUrl = new URL(request.url ?? '/', 'http://simulator.invalid');
    try {
      if (requestUrl.pathname.startsWith('/__sim/')) await handleControl(request, response, requestUrl);
      else if (requestUrl.pathname.startsWith(RESOURCE_FAMILY_PREFIX) || requestUrl.pathname.startsWith(CURSOR_FAMILY_PREFIX)) await handleApi(request, response, requestUrl);
      // Outside both families (a gateway's reachability ping at the root): no API request, so
      // neither counted nor journaled, as the real service's web server answers it.
      else sendText(response, 404, 'Not Found');
    } catch (error) {
      if (response.headersSent || response.destroyed) return;
      if (error instanceof SimBadRequest || error instanceof URIError) sendText(response, 400, error.message);
      else if (error instanceof SimError) sendJson(response, error.status, { error: error.errorCode });
      else if (error instanceof ConfigError) sendText(response, 400, error.message);
      else {
        sendJson(response, 503, {
          error: errorCode('SYS.1000', 'An internal error happened in the system', String(error)),
        });
      }
    }
  }

  const simulator: Simulator = {
    get url() {
      return url;
    },
    credentials,
    store,
    jobs,
    churn,
    async start(port = 0, host = '127.0.0.1') {
      if (server !== null) return url;
      const created = createServer({ keepAlive: true }, (request, response) => {
        void handle(request, response);
      });
      created.keepAliveTimeout = 65_000;
      created.headersTimeout = 66_000;
      created.requestTimeout = 0;
      created.maxHeadersCount = 200;
      created.on('connection', (socket: Socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
      });
      await new Promise<void>((resolve, reject) => {
        created.once('error', reject);
        created.listen(port, host, () => {
          created.off('error', reject);
          resolve();
        });
      });
      server = created;
      const address = created.address() as AddressInfo;
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      url = `http://${shownHost === '0.0.0.0' ? '127.0.0.1' : shownHost === '[::]' ? '127.0.0.1' : shownHost}:${address.port}`;
      return url;
    },
    async stop() {
      const running = server;
      server = null;
      churn.stop();
      await jobs.close();
      if (running === null) return;
      await new Promise<void>((resolve) => {
        running.close(() => resolve());
        running.closeIdleConnections();
        for (const socket of sockets) socket.destroy();
      });
    },
    configure(patch) {
      if (patch.latencyMs !== undefined) config.latencyMs = patch.latencyMs;
      if (patch.faultRate !== undefined) config.faultRate = patch.faultRate;
      if (patch.asyncDelayMs !== undefined) config.asyncDelayMs = patch.asyncDelayMs;
      if (patch.dropWebhooks !== undefined) config.dropWebhooks = patch.dropWebhooks;
    },
    config() {
      return { ...config };
    },
    stats() {
      return { total, byOperation: Object.fromEntries(counts) };
    },
    resetStats() {
      counts = new Map();
      total = 0;
      journal = [];
    },
    journal() {
      return journal;
    },
  };
  return simulator;
}

class ConfigError extends Error {}

/** The operation a write path names whatever its body, for counting a rejected request. */
function writeOperationName(method: string, pathname: string): string {
  try {
    return matchWrite(method, pathname, {})?.operation ?? UNKNOWN_OPERATION;
  } catch {
    return UNKNOWN_OPERATION;
  }
}

function readConfigPatch(body: Record<string, unknown>): Partial<SimulatorConfig> {
  const patch: Partial<SimulatorConfig> = {};
  const nonNegative = (name: 'latencyMs' | 'asyncDelayMs') => {
    const value = body[name];
    if (value === undefined) return;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new ConfigError(`${name} must be a non-negative number`);
    }
    patch[name] = value;
  };
  nonNegative('latencyMs');
  nonNegative('asyncDelayMs');
  if (body.faultRate !== undefined) {
    if (typeof body.faultRate !== 'number' || !(body.faultRate >= 0 && body.faultRate <= 1)) {
      throw new ConfigError('faultRate must be a number between 0 and 1');
    }
    patch.faultRate = body.faultRate;
  }
  if (body.dropWebhooks !== undefined) {
    if (typeof body.dropWebhooks !== 'boolean') throw new ConfigError('dropWebhooks must be true or false');
    patch.dropWebhooks = body.dropWebhooks;
  }
  return patch;
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function journalHeaders(request: IncomingMessage): JournalHeaders {
  const headers: JournalHeaders = {};
  for (const name of ['x-job-uuid', 'x-web-hook', 'x-request-id', 'authorization', 'x-tenant-id', 'traceparent'] as const) {
    const value = header(request, name);
    if (value !== undefined) headers[name] = value;
  }
  return headers;
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new SimBadRequest('Request body too large');
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

function parseBody(raw: Buffer): { body: unknown; error: string | null } {
  if (raw.length === 0) return { body: {}, error: null };
  try {
    return { body: JSON.parse(raw.toString('utf8')), error: null };
  } catch (error) {
    return { body: {}, error: `Malformed JSON body: ${(error as Error).message}` };
  }
}

function sendJson(response: ServerResponse, status: number, body: Record<string, unknown>): void {
  const text = encodeJson(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

function sendText(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

function sendAnswer(response: ServerResponse, answer: JobAnswer): void {
  if ('json' in answer) sendJson(response, answer.status, answer.json);
  else sendText(response, answer.status, answer.text);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
