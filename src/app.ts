/**
 * createApp(config): yoga on node:http, graphql-ws on the same path, SSE through yoga, health
 * routes, and, when no `UPSTREAM_URL` is configured, the embedded simulator as the upstream.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { GraphQLError, type ExecutionArgs } from 'graphql';
import type { OperationResult } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { createYoga, maskError, type YogaServerInstance } from 'graphql-yoga';
import { pino, type Logger } from 'pino';
import { WebSocketServer } from 'ws';
import type { GatewayConfig } from './config.js';
import {
  connectionParamsSource,
  createContext,
  readCredentials,
  type CredentialSource,
  type GatewayContext,
} from './context.js';
import { createJobPubSub } from './jobs/events.js';
import { createJobManager, WEBHOOK_PATH, type JobManager } from './jobs/manager.js';
import { createMemoryJobStore } from './jobs/store.js';
import { schema } from './schema/index.js';
import { upstreamToGraphQLError } from './schema/errors.js';
import { createSimulator, type Simulator } from './simulator/server.js';
import { createUpstreamClient } from './upstream/client.js';
import type { UpstreamClient } from './upstream/types.js';

export interface App {
  readonly yoga: YogaServerInstance<ServerContext, GatewayContext>;
  readonly server: Server;
  /** The gateway's base URL once started, e.g. `http://127.0.0.1:4000`. */
  readonly url: string;
  /** The embedded simulator, when the app started one. */
  readonly simulator: Simulator | undefined;
  start(): Promise<string>;
  stop(): Promise<void>;
}

export interface AppOptions {
  /** Use this client instead of creating one from the config (the app will not close it). */
  upstream?: UpstreamClient;
  logger?: Logger;
}

/** What yoga receives besides the request: `connectionParams` for WebSocket operations. */
interface ServerContext {
  connectionParams?: Readonly<Record<string, unknown>> | undefined;
}

const GRAPHQL_PATH = '/graphql';

const DEFAULT_QUERY = /* GraphQL */ `# The gateway federates the resource API and the generic cursor family.
# Credentials go in the Headers tab below (already filled in for the embedded simulator).
query Dashboard {
  vmInstances(first: 5) {
    totalCount
    nodes {
      name
      state
      host { name managementIp cpuStatus }
      rootVolume { name size }
      nics { ip mac driverType }
      snapshotGroups(first: 3) { totalCount nodes { name snapshotCount } }
    }
  }
}
`;

export function createApp(config: GatewayConfig, options: AppOptions = {}): App {
  const logger = options.logger ?? pino({ level: config.logLevel });
  let upstreamBase = config.upstreamUrl;
  let upstream: UpstreamClient | undefined = options.upstream ?? (config.upstreamUrl ? buildClient(config, config.upstreamUrl) : undefined);
  let simulator: Simulator | undefined;
  let graphiqlHeaders: Record<string, string> = {};
  let url = '';

  const jobs: JobManager = createJobManager({
    store: createMemoryJobStore({ ttlMs: config.jobTtlMs }),
    pubsub: createJobPubSub(),
    upstream: () => {
      if (!upstream) throw new Error('the upstream is not configured yet');
      return upstream;
    },
    publicUrl: () => config.publicUrl ?? url,
    jobLocation: (id) => new URL(`svc/v1/api-jobs/${id}`, withTrailingSlash(upstreamBase ?? '')).toString(),
    logger,
    pollAfterMs: config.jobPollAfterMs,
  });

  const yoga = createYoga<ServerContext, GatewayContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    landingPage: false,
    graphiql: config.graphiql
      ? () => ({ title: 'Infrastructure GraphQL gateway', defaultQuery: DEFAULT_QUERY, headers: JSON.stringify(graphiqlHeaders, null, 2) })
      : false,
    renderGraphiQL,
    logging: {
      debug: (...args) => logger.debug(args.map(String).join(' ')),
      info: (...args) => logger.info(args.map(String).join(' ')),
      warn: (...args) => logger.warn(args.map(String).join(' ')),
      error: (...args) => logger.error({ err: args.find((arg) => arg instanceof Error) }, args.map(String).join(' ')),
    },
    maskedErrors: { maskError: maskUnexpectedError },
    context: ({ request, connectionParams }) => {
      if (!upstream) throw new GraphQLError('The upstream is not configured yet.', { extensions: { code: 'UPSTREAM_UNAVAILABLE' } });
      const source: CredentialSource = connectionParams
        ? connectionParamsSource(connectionParams)
        : (name) => request.headers.get(name) ?? undefined;
      return createContext({
        credentials: readCredentials(source),
        upstream,
        maxBatchSize: config.maxBatchSize,
        jobs,
        mutationWaitMs: config.mutationWaitMs,
        requestId: request.headers.get('x-request-id') ?? undefined,
      });
    },
  });

  const server = createServer((req, res) => {
    void routeHttp(req, res);
  });

  async function routeHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz') return sendJson(res, 200, { status: 'ok' });
    if (path === '/readyz') {
      const reachable = upstream ? await upstream.ping() : false;
      return sendJson(res, reachable ? 200 : 503, { status: reachable ? 'ready' : 'unavailable', upstream: reachable });
    }
    if (path?.startsWith(WEBHOOK_PATH)) {
      const [id = '', secret = ''] = path.slice(WEBHOOK_PATH.length).split('/');
      return jobs.handleWebhook(req, res, id, secret);
    }
    if (path === '/') {
      res.writeHead(302, { location: GRAPHQL_PATH }).end();
      return;
    }
    await yoga.requestListener(req, res);
  }

  const wsServer = new WebSocketServer({ server, path: GRAPHQL_PATH });
  useServer<Record<string, unknown>>(
    {
      execute: (args) => (args.rootValue as Enveloped).execute(args),
      subscribe: (args) => (args.rootValue as Enveloped).subscribe(args),
      onSubscribe: async (ctx, _id, payload) => {
        const { schema: enveloped, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
          connectionParams: ctx.connectionParams,
          request: new Request(`http://localhost${GRAPHQL_PATH}`),
          params: payload,
        });
        const document = parse(payload.query);
        const errors = validate(enveloped, document);
        if (errors.length > 0) return errors;
        const args: ExecutionArgs = {
          schema: enveloped,
          document,
          operationName: payload.operationName ?? null,
          variableValues: payload.variables ?? null,
          contextValue: await contextFactory(),
          rootValue: { execute, subscribe } satisfies Enveloped,
        };
        return args;
      },
    },
    wsServer,
  );

  return {
    yoga,
    server,
    get url() {
      return url;
    },
    get simulator() {
      return simulator;
    },
    async start() {
      if (!upstream) {
        simulator = createSimulator();
        const simulatorUrl = await simulator.start(0, '127.0.0.1');
        upstreamBase = simulatorUrl;
        upstream = buildClient(config, simulatorUrl);
        const { session, token, tenantId } = simulator.credentials;
        graphiqlHeaders = { Authorization: `OAuth ${session}`, 'X-Resources-Authorization': `Bearer ${token}`, 'X-Tenant-ID': tenantId };
        logger.info({ simulator: simulatorUrl }, 'started the embedded simulator as the upstream');
      }
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(config.port, config.host, () => resolve());
      });
      const address = server.address() as AddressInfo;
      const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
      url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
      logger.info({ url: `${url}${GRAPHQL_PATH}` }, 'gateway listening');
      return url;
    },
    async stop() {
      for (const client of wsServer.clients) client.close(1001, 'server shutting down');
      await new Promise<void>((resolve) => wsServer.close(() => resolve()));
      server.closeIdleConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await jobs.close();
      if (!options.upstream) await upstream?.close();
      await simulator?.stop();
    },
  };
}

interface Enveloped {
  execute: (args: ExecutionArgs) => OperationResult;
  subscribe: (args: ExecutionArgs) => OperationResult;
}

function buildClient(config: GatewayConfig, upstreamUrl: string): UpstreamClient {
  return createUpstreamClient({
    upstreamUrl,
    resourcesUrl: config.resourcesUrl ?? new URL(upstreamUrl).origin,
    timezone: config.upstreamTimezone,
    timeoutMs: config.upstreamTimeoutMs,
    connections: config.upstreamConnections,
  });
}

/**
 * Errors meant for clients pass through: GraphQL errors raised on purpose (yoga's own rule), and
 * upstream failures, which become `extensions.code` + `extensions.upstream`. Anything else is
 * masked as INTERNAL_SERVER_ERROR.
 */
function maskUnexpectedError(error: unknown, message: string, isDev?: boolean): Error {
  const mapped = upstreamToGraphQLError(deepestOriginal(error));
  if (mapped) {
    const located = error as Partial<GraphQLError>;
    return new GraphQLError(mapped.message, {
      nodes: located.nodes ?? null,
      source: located.source ?? null,
      positions: located.positions ?? null,
      path: located.path ?? null,
      extensions: mapped.extensions,
    });
  }
  return maskError(error, message, isDev);
}

/** The error at the bottom of a chain of `originalError`s (resolvers' errors arrive wrapped). */
function deepestOriginal(error: unknown): unknown {
  let current = error;
  while (typeof current === 'object' && current !== null && 'originalError' in current && current.originalError) {
    current = current.originalError;
  }
  return current;
}

function withTrailingSlash(base: string): string {
  return base.endsWith('/') ? base : `${base}/`;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}
