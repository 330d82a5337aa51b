/**
 * Starts the real simulator and the real gateway on port 0 and talks to the gateway over HTTP,
 * as a client would. Nothing is mocked: every upstream request crosses a socket.
 */
import { createApp, type App } from '../../src/app.js';
import { defaultConfig, type GatewayConfig } from '../../src/config/index.js';
import { createSimulator, type Simulator } from '../../src/simulator/server.js';
import { pino } from 'pino';

export interface GraphQLResponse<T = Record<string, unknown>> {
  status: number;
  data?: T | null;
  errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, unknown> }[];
  extensions?: Record<string, unknown>;
}

/** The three credential headers (docs/reference/api-promise.md#credentials). */
export interface CredentialHeaders extends Record<string, string> {
  authorization: string;
  'x-resources-authorization': string;
  'x-tenant-id': string;
}

/** The headers a client sends for a simulator tenant's credentials. */
export function credentialHeaders(tenant: { session: string; token: string; tenantId: string }): CredentialHeaders {
  return { authorization: `OAuth ${tenant.session}`, 'x-resources-authorization': `Bearer ${tenant.token}`, 'x-tenant-id': tenant.tenantId };
}

export interface Harness {
  app: App;
  simulator: Simulator;
  /** Gateway base URL, e.g. http://127.0.0.1:PORT */
  url: string;
  /** Headers carrying the first tenant's credentials for both families. */
  headers: CredentialHeaders;
  /** Headers carrying the second tenant's credentials. */
  secondHeaders: CredentialHeaders;
  gql<T = Record<string, unknown>>(
    query: string,
    variables?: Record<string, unknown>,
    headers?: Record<string, string>,
  ): Promise<GraphQLResponse<T>>;
  /** Upstream requests counted by the simulator since the last `resetStats()`. */
  upstreamRequests(): number;
  resetStats(): void;
  close(): Promise<void>;
}

export interface HarnessOptions {
  simulator?: Parameters<typeof createSimulator>[0];
  config?: Partial<GatewayConfig>;
  /** Compose the app as `npm start` does without UPSTREAM_URL: the simulator is its demo upstream (GraphiQL opens with its credentials). */
  demo?: boolean;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  // As index.ts does: the upstream first, then the app composed on it.
  const simulator = createSimulator({ asyncDelayMs: 5, ...options.simulator });
  const simulatorUrl = await simulator.start(0, '127.0.0.1');
  const logger = pino({ level: 'silent' });
  const app = options.demo
    ? createApp({ ...defaultConfig, port: 0, host: '127.0.0.1', upstreamUrl: undefined, ...options.config }, { logger, demo: { url: simulatorUrl, credentials: simulator.credentials } })
    : createApp({ ...defaultConfig, port: 0, host: '127.0.0.1', upstreamUrl: simulatorUrl, ...options.config }, { logger });
  const url = await app.start();
  const headers = credentialHeaders(simulator.credentials);
  const secondHeaders = credentialHeaders(simulator.credentials.second);

  return {
    app,
    simulator,
    url,
    headers,
    secondHeaders,
    async gql(query, variables, requestHeaders = headers) {
      const response = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', ...requestHeaders },
        body: JSON.stringify({ query, variables }),
      });
      const body = (await response.json()) as Omit<GraphQLResponse, 'status'>;
      return { status: response.status, ...body } as GraphQLResponse<never>;
    },
    upstreamRequests: () => simulator.stats().total,
    resetStats: () => simulator.resetStats(),
    async close() {
      await app.stop();
      await simulator.stop();
    },
  };
}

/** The sum of a metric's samples (every label set) in the `/metrics` of the gateway at `url`. */
export async function metricTotal(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name} `) || line.startsWith(`${name}{`))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
}

/** The error codes of a response, in order. */
export function errorCodes(response: { errors?: readonly unknown[] | undefined }): unknown[] {
  return (response.errors ?? []).map((error) => (error as { extensions?: { code?: unknown } }).extensions?.code);
}

/**
 * Runs a suite twice: with webhooks delivered, and with the simulator dropping every webhook,
 * so each write must complete through the gateway's polling fallback.
 */
export const WEBHOOK_MODES = [
  { mode: 'delivered', dropWebhooks: false },
  { mode: 'dropped, completed by polling', dropWebhooks: true },
] as const;
