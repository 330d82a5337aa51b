/**
 * The simulator's HTTP server (`node:http`): both families of the upstream service at one
 * origin, and the `/__sim/*` control surface (`http/control.ts`). Each API request is routed
 * (`http/routing.ts`), journaled (`http/journal.ts`), delayed or failed (`http/faults.ts`),
 * authenticated (`http/authentication.ts`), then answered: a read or cursor call at once, a
 * write as an asynchronous job (`jobs.ts`).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { defaultSimulatorOptions } from '../config/simulator.js';
import { isRelease, NEWEST_RELEASE } from '../upstream/releases.js';
import { authenticateCursorFamily, authenticateResourceFamily, type TenantCredentials } from './http/authentication.js';
import { parseBody, readBody } from './http/body.js';
import { createChurn, type Churn } from './churn.js';
import type { JobRunner } from './contracts.js';
import { handleControl, type Controlled, type SimulatorConfig } from './http/control.js';
import { CursorService } from './cursor.js';
import { SimBadRequest, SimError, errorCode } from './errors.js';
import { deriveTenants, generateEstate } from './estate/index.js';
import { delayOrFail } from './http/faults.js';
import { assertTimeZone } from './format.js';
import { header, sendAnswer, sendJson, sendText } from './http/io.js';
import { createJobRunner } from './jobs.js';
import { createJournal, journalHeaders, type JournalEntry, type SimulatorStats } from './http/journal.js';
import type { Tenant } from './model.js';
import type { SimulatorOptions } from './options.js';
import { isApiPath, route, UNKNOWN_OPERATION, type RouterContext, type Routed } from './http/routing.js';
import { SimulatorStore } from './store.js';
import { beginWrite, executeWrite } from './writes/index.js';

export type { TenantCredentials } from './http/authentication.js';
export type { SimulatorConfig } from './http/control.js';
export type { JournalEntry, JournalHeaders, SimulatorStats } from './http/journal.js';
export type { SimulatorOptions } from './options.js';
export { POLL_OPERATION, UNKNOWN_OPERATION } from './http/routing.js';

export interface SimulatorCredentials extends TenantCredentials {
  second: TenantCredentials;
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

/** The simulator's options when none are given: `npm run simulator`'s `SIM_*` variables default to these. */
export const SIMULATOR_DEFAULTS: Readonly<SimulatorOptions> = {
  // The settings' defaults (`src/config/simulator.ts`), and what no setting changes.
  ...defaultSimulatorOptions,
  webhookRetries: 15,
  journalLimit: 1000,
  random: Math.random,
  version: NEWEST_RELEASE,
};

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
    holdJobs: false,
  };
  let url = '';
  const jobs = createJobRunner({
    baseUrl: () => url,
    asyncDelayMs: () => config.asyncDelayMs,
    dropWebhooks: () => config.dropWebhooks,
    holdJobs: () => config.holdJobs,
    webhookRetryMs: () => options.webhookRetryMs,
    webhookRetries: options.webhookRetries,
  });
  const router: RouterContext = {
    store,
    cursors: new CursorService(store, { ttlMs: options.cursorTtlMs, secret: randomBytes(32) }),
    version: options.version,
  };
  const journal = createJournal(options.journalLimit);
  let server: Server | null = null;
  const sockets = new Set<Socket>();

  async function handleApi(request: IncomingMessage, response: ServerResponse, requestUrl: URL): Promise<void> {
    const method = request.method ?? 'GET';
    const raw = await readBody(request);
    const { body, error: bodyError } = parseBody(raw);
    let routed: Routed;
    try {
      routed = route(router, { method, pathname: requestUrl.pathname, query: requestUrl.searchParams, body, bodyError });
    } catch (error) {
      if (!(error instanceof SimBadRequest || error instanceof URIError)) throw error;
      routed = { kind: 'reject', operation: UNKNOWN_OPERATION, status: 400, text: error.message };
    }
    journal.record({
      operation: routed.operation,
      method,
      path: requestUrl.pathname,
      query: requestUrl.search.replace(/^\?/, ''),
      headers: journalHeaders(request),
      body: raw.length === 0 ? null : bodyError === null ? body : raw.toString('utf8'),
    });
    if (await delayOrFail(config, options.random, request, response)) return;
    switch (routed.kind) {
      case 'reject':
        sendText(response, routed.status, routed.text);
        return;
      case 'poll':
        sendAnswer(response, jobs.poll(routed.jobUuid));
        return;
      case 'cursor': {
        const tenant = authenticateCursorFamily(store, request, response);
        if (tenant !== undefined) sendJson(response, 200, routed.run(tenant));
        return;
      }
      case 'read': {
        const tenant = authenticateResourceFamily(store, request, response);
        if (tenant !== undefined) sendJson(response, 200, routed.run(tenant));
        return;
      }
      case 'write': {
        const tenant = authenticateResourceFamily(store, request, response);
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

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const requestUrl = new URL(request.url ?? '/', 'http://simulator.invalid');
    try {
      if (requestUrl.pathname.startsWith('/__sim/')) await handleControl(controlled, request, response, requestUrl);
      else if (isApiPath(requestUrl.pathname)) await handleApi(request, response, requestUrl);
      // Outside both families (a gateway's reachability ping at the root): no API request, so
      // neither counted nor journaled, as the real service's web server answers it.
      else sendText(response, 404, 'Not Found');
    } catch (error) {
      if (response.headersSent || response.destroyed) return;
      if (error instanceof SimBadRequest || error instanceof URIError) sendText(response, 400, error.message);
      else if (error instanceof SimError) sendJson(response, error.status, { error: error.errorCode });
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
      if (patch.holdJobs !== undefined) config.holdJobs = patch.holdJobs;
      if (!config.holdJobs) jobs.release();
    },
    config() {
      return { ...config };
    },
    stats: () => journal.stats(),
    resetStats: () => journal.reset(),
    journal: () => journal.entries(),
  };
  const controlled: Controlled = {
    store,
    tenants: [first, second],
    journal,
    churn,
    config: () => simulator.config(),
    configure: (patch) => simulator.configure(patch),
  };
  return simulator;
}
