/**
 * createApp(config): yoga on node:http, graphql-ws on the same path, SSE through yoga, health
 * routes, and, when no `UPSTREAM_URL` is configured, the embedded simulator as the upstream.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { useDisableIntrospection } from '@graphql-yoga/plugin-disable-introspection';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { getOperationAST, GraphQLError, type ExecutionArgs } from 'graphql';
import type { OperationResult } from 'graphql-ws';
import { createYoga, maskError, type YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import { WebSocketServer } from 'ws';
import { createClientAddressResolver } from './client-address.js';
import type { GatewayConfig } from './config.js';
import {
  connectionParamsSource,
  createContext,
  readCredentials,
  type CredentialSource,
  type GatewayContext,
} from './context.js';
import { createCursorKeeper } from './cursors/keeper.js';
import { createJobBackend } from './jobs/backend.js';
import { followFinishedJobs } from './jobs/events.js';
import { createJobManager, WEBHOOK_PATH, type JobManager } from './jobs/manager.js';
import type { JobRecord } from './jobs/store.js';
import { createLogger, requestIdOf, withSecretsRedacted } from './logging.js';
import { createMetrics, instrumentJobStore, withBatchObserver, type GatewayMetrics } from './metrics.js';
import { createOperationMetrics } from './plugins/use-metrics.js';
import { isRedisUnavailableError } from './redis.js';
import { createHttpDrain } from './shutdown.js';
import { cutStalledBody, serverTimeoutOptions } from './http-timeouts.js';
import { useCompression } from './plugins/use-compression.js';
import { useJit } from './plugins/use-jit.js';
import { usePersistedQueries } from './plugins/use-persisted-queries.js';
import { useVariableCoercion } from './plugins/use-variable-coercion.js';
import { createResponseCacheStore, createWriteInvalidation, useResponseCache } from './plugins/use-response-cache.js';
import { useCloseAfterRefusedBody } from './plugins/use-close-after-refused-body.js';
import { useCsrfPrevention } from './plugins/use-csrf-prevention.js';
import { useOperationLimits } from './plugins/use-operation-limits.js';
import { useMutationLimit } from './plugins/use-mutation-limit.js';
import { createQueryCost } from './plugins/use-query-cost.js';
import { createSubscriptionLimits } from './plugins/use-subscription-limits.js';
import { createAdmission, OverloadedError, overloadedError } from './plugins/use-admission.js';
import { useRequestBodyLimit } from './plugins/use-request-body-limit.js';
import { useRequestValidation } from './plugins/use-request-validation.js';
import { useVaryOrigin } from './plugins/use-vary-origin.js';
import { useSseSingleConnection } from './plugins/use-sse-single-connection.js';
import { useReleaseLoadedRecords } from './plugins/use-release-loaded-records.js';
import { useRecordDemand } from './plugins/use-record-demand.js';
import { deepestOriginal, useUnexpectedErrorLogging } from './plugins/use-unexpected-error-logging.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './schema/connections.js';
import { schema } from './schema/index.js';
import { declaredTouches, touchedBy } from './schema/mutation-kit.js';
import { upstreamToGraphQLError } from './schema/errors.js';
import { createSimulator, type Simulator } from './simulator/server.js';
import { createSharedSubscriptions, graphqlWsWriter, type DirectWriter } from './shared-subscriptions.js';
import { createUpstreamClient } from './upstream/client.js';
import { serveGraphqlWs } from './websocket.js';
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
  /** The node:http request (yoga's node adapter passes it; the WebSocket path passes the upgrade request). */
  req?: IncomingMessage | undefined;
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
  const logger = withSecretsRedacted(options.logger ?? createLogger(config.logLevel));
  const metrics = createMetrics();
  let upstreamBase = config.upstreamUrl;
  let upstream: UpstreamClient | undefined =
    options.upstream ?? (config.upstreamUrl ? buildClient(config, config.upstreamUrl, metrics, logger) : undefined);
  let simulator: Simulator | undefined;
  let graphiqlHeaders: Record<string, string> = {};
  let url = '';

  const operationMetrics = createOperationMetrics({ metrics, operationNames: config.metricsOperationNames });
  const resolveClientAddress = createClientAddressResolver(config.trustedProxies);
  const clientAddressOf = (remoteAddress: string | undefined, forwardedFor: string | string[] | undefined): string | undefined =>
    resolveClientAddress(remoteAddress, Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor);
  const admission = createAdmission({
    max: config.maxConcurrentOperations,
    maxQueued: config.maxQueuedOperations,
    targetUtilization: config.admissionTargetUtilization,
    onShed: () => metrics.operationsShed.inc(),
  });
  metrics.observeAdmission(() => admission.control.snapshot());
  const queryCost = createQueryCost({
    maxCost: config.maxCost,
    budget: config.costBudget,
    budgetRefillPerSecond: config.costBudgetRefill,
    upstreamCallCost: config.upstreamCallCost,
    defaultPageSize: DEFAULT_PAGE_SIZE,
    maxPageSize: MAX_PAGE_SIZE,
  });
  // Subscribers of the same events share one execution (see shared-subscriptions.ts).
  const sharedSubscriptions = createSharedSubscriptions({
    admit: queryCost.admitSubscriber,
    onSubscriber: operationMetrics.countSubscriber,
    onExecutions: (running) => metrics.subscriptionExecutions.set(running),
    writerOf: (args) => (args.rootValue as Enveloped).writer,
  });

  const subscriptionLimits = createSubscriptionLimits({
    perSocket: config.wsMaxSubscriptionsPerSocket,
    perCredential: config.maxSubscriptionsPerCredential,
  });

  const responseCache = createResponseCacheStore({ max: config.responseCacheMaxEntries });
  const invalidateWrite = createWriteInvalidation(responseCache, schema, declaredTouches());
  const forgetWrittenRecords = (job: JobRecord): void => {
    const touched = touchedBy(job);
    if (touched) invalidateWrite(touched);
  };

  // REDIS_URL: job store and pub/sub in Redis, so any replica takes any webhook and serves any subscriber.
  const backend = createJobBackend({ redisUrl: config.redisUrl, ttlMs: config.jobTtlMs, leaseMs: config.jobLeaseMs, logger });
  const jobs: JobManager = createJobManager({
    store: instrumentJobStore(backend.store, metrics),
    pubsub: backend.pubsub,
    upstream: () => {
      if (!upstream) throw new Error('the upstream is not configured yet');
      return upstream;
    },
    publicUrl: () => config.publicUrl ?? url,
    jobLocation: (id) => new URL(`svc/v1/api-jobs/${id}`, withTrailingSlash(upstreamBase ?? '')).toString(),
    logger,
    pollAfterMs: config.jobPollAfterMs,
    // At once on the replica that finished the job, or that hands it to a waiting mutation,
    // before anyone waiting for it reads again...
    onFinished: forgetWrittenRecords,
  });
  let stopFollowingJobs = (): void => {};
  // With Redis, the replicas share the cursors' key and the upstream cursors they stand for.
  const cursors = createCursorKeeper({
    secret: config.cursorSecret,
    ttlMs: config.cursorTtlMs,
    maxBytes: config.cursorStoreMaxBytes,
    redis: backend.redis,
    logger,
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
      error: (...args) => {
        const err = args.find((arg) => arg instanceof Error);
        // Yoga logs every error its masking replaced, the expected ones too (an expired session, a
        // hung-up client). Those are answers, not faults; useUnexpectedErrorLogging logs the
        // unexpected ones, with the request id.
        if (err instanceof GraphQLError) logger.debug({ err }, 'masked error');
        else logger.error({ err }, args.map(String).join(' '));
      },
    },
    maskedErrors: { maskError: maskUnexpectedError },
    // Enforced by useRequestBodyLimit below, which spares a body with a Content-Length yoga's stream.
    maxRequestBodySize: false,
    cors: corsOptions(config.corsOrigins),
    // Cross-cutting features, one `useX` from src/plugins/ each.
    plugins: [
      // First: an operation waiting for its turn has not even had its body read.
      admission.plugin,
      // Before any plugin reads the parameters: a malformed request is a 400, not their TypeError.
      useRequestValidation(),
      ...(config.corsOrigins.length > 0 ? [useVaryOrigin()] : []),
      // graphql-sse's single connection mode; its distinct connections mode is yoga's own SSE.
      useSseSingleConnection({ endpoint: GRAPHQL_PATH, maxBodyBytes: config.maxBodyBytes }),
      // Hardening: browsers' simple requests need a header; operation shape and cost limits are
      // enforced before execution, so a rejected operation never reaches the upstream.
      useCsrfPrevention(),
      useCloseAfterRefusedBody(),
      ...(config.graphiql ? [] : [useDisableIntrospection()]),
      useOperationLimits({
        maxDepth: config.maxDepth,
        maxAliases: config.maxAliases,
        maxTokens: config.maxTokens,
        maxDirectives: config.maxDirectives,
        maxIntrospectionRoots: config.maxIntrospectionRoots,
        blockFieldSuggestions: !config.graphiql,
      }),
      useMutationLimit(config.maxMutations),
      useUnexpectedErrorLogging({ logger }),
      operationMetrics.plugin,
      // Before the response cache, which wraps whatever executor is in place when it runs.
      ...(config.graphqlJit ? [useJit()] : []),
      useReleaseLoadedRecords(),
      ...(config.decodeSelectedFields ? [useRecordDemand()] : []),
      // Before the response cache: a hash-only request must have its query text by the time the
      // cache computes its key.
      usePersistedQueries(),
      // Before the response cache and the cost: an operation whose variables do not coerce is
      // answered BAD_USER_INPUT before either looks at it.
      useVariableCoercion(),
      // Around the response cache: an answer served from the cache is neither charged nor refused,
      // and the cost of the execution that filled it is not kept with it.
      queryCost.gate,
      subscriptionLimits.plugin,
      useResponseCache({ cache: responseCache, ttlMs: config.responseCacheTtlMs }),
      queryCost.report,
      useDeferStream(),
      useCompression({ minBytes: config.compressionMinBytes }),
      // Last: SSE subscribers of the same events join one execution of what the plugins above settled on.
      sharedSubscriptions.plugin,
      // After every request parser has registered (as yoga places its own), so it limits the chosen one.
      useRequestBodyLimit(config.maxBodyBytes),
    ],
    context: ({ request, connectionParams, req }) => {
      if (!upstream) throw new GraphQLError('The upstream is not configured yet.', { extensions: { code: 'UPSTREAM_UNAVAILABLE' } });
      const source: CredentialSource = connectionParams
        ? connectionParamsSource(connectionParams)
        : (name) => request.headers.get(name) ?? undefined;
      const context = createContext({
        credentials: readCredentials(source),
        upstream,
        maxBatchSize: config.maxBatchSize,
        jobs,
        mutationWaitMs: config.mutationWaitMs,
        cursors,
        requestId: request.headers.get('x-request-id') ?? undefined,
        // Over HTTP it aborts when the client hangs up. WebSocket operations get a request of their
        // own (onSubscribe below), whose signal never aborts.
        signal: request.signal,
        clientAddress: clientAddressOf(req?.socket.remoteAddress, req?.headers['x-forwarded-for']),
      });
      return withBatchObserver(context, metrics);
    },
  });

  const server = createServer(serverTimeoutOptions(config), (req, res) => {
    // One id per request: the caller's X-Request-ID or a new one, echoed back, sent upstream
    // (the context reads it from the request) and on the log lines written for it (`log`).
    const requestId = requestIdOf(req);
    req.headers['x-request-id'] = requestId;
    res.setHeader('x-request-id', requestId);
    drain.track(req, res);
    const log = logger.child({ reqId: requestId });
    cutStalledBody(req, res, config.bodyIdleTimeoutMs, () => log.info({ path: req.url }, 'request body stalled: connection cut'));
    routeHttp(req, res, log).catch((error: unknown) => {
      log.error({ err: error, path: req.url }, 'request failed');
      if (!res.headersSent) sendJson(res, isRedisUnavailableError(error) ? 503 : 500, { error: isRedisUnavailableError(error) ? error.code : 'INTERNAL' });
      else res.destroy();
    });
  });
  const drain = createHttpDrain(server, logger);

  async function routeHttp(req: IncomingMessage, res: ServerResponse, log: Logger): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz') return sendJson(res, 200, { status: 'ok' });
    if (path === '/readyz') {
      if (drain.draining) return sendJson(res, 503, { status: 'draining' });
      const [reachable, redis] = await Promise.all([upstream ? upstream.ping() : false, backend.redisReachable()]);
      const ready = reachable && redis !== false;
      return sendJson(res, ready ? 200 : 503, {
        status: ready ? 'ready' : 'unavailable',
        upstream: reachable,
        ...(redis === undefined ? {} : { redis }),
        // Shown only while a breaker is not closed: the upstream is failing and calls fail fast.
        ...breakerState(upstream),
      });
    }
    if (path === '/metrics') {
      const text = await metrics.render();
      res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text);
      return;
    }
    if (path?.startsWith(WEBHOOK_PATH)) {
      const [id = '', secret = ''] = path.slice(WEBHOOK_PATH.length).split('/');
      try {
        await jobs.handleWebhook(req, res, id, secret, log);
      } catch (error) {
        // A store outage answers 503: the upstream delivers again later.
        if (!isRedisUnavailableError(error) || res.headersSent) throw error;
        log.warn({ job: id, err: error }, 'webhook not recorded: redis is unavailable');
        sendJson(res, 503, { error: error.code });
      } finally {
        const accepted = res.statusCode >= 200 && res.statusCode < 300;
        metrics.webhookDeliveries.inc({ result: accepted ? 'accepted' : 'rejected', status: String(res.statusCode) });
      }
      return;
    }
    if (path === '/') {
      res.writeHead(302, { location: GRAPHQL_PATH }).end();
      return;
    }
    await yoga.requestListener(req, res);
  }

  // A message is read whole before graphql-ws sees it: as large as an HTTP body may be (ws allows 100 MiB).
  const wsServer = new WebSocketServer({ server, path: GRAPHQL_PATH, maxPayload: config.maxBodyBytes });
  serveGraphqlWs(wsServer, {
    maxBufferedBytes: config.wsMaxBufferedBytes,
    logger,
    server: {
      // Queries and mutations wait for admission as over HTTP (subscriptions, as over SSE, do not).
      execute: async (args) => {
        const { execute, closed } = args.rootValue as Enveloped;
        let release: () => void;
        try {
          release = await admission.control.acquire(closed);
        } catch (error) {
          if (!(error instanceof OverloadedError)) return { errors: [new GraphQLError('The connection closed.')] };
          metrics.operationsShed.inc();
          return { errors: [overloadedError(error)] };
        }
        try {
          return await execute(args);
        } finally {
          release();
        }
      },
      subscribe: (args) => sharedSubscriptions.subscribe(args, (leader) => (leader.rootValue as Enveloped).subscribe(leader)),
      onSubscribe: async (ctx, id, payload) => {
        const { schema: enveloped, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
          connectionParams: ctx.connectionParams,
          req: ctx.extra.request,
          // A POST, as graphql-ws operations are to yoga's plugins: a GET would refuse mutations (405).
          request: new Request(`http://localhost${GRAPHQL_PATH}`, { method: 'POST' }),
          params: payload,
        });
        let document: ReturnType<typeof parse>;
        try {
          document = parse(payload.query);
        } catch (error) {
          // A syntax error or a token limit: an error message for this operation, not a closed socket.
          if (error instanceof GraphQLError) return [error];
          throw error;
        }
        const errors = validate(enveloped, document);
        if (errors.length > 0) return errors;
        const contextValue = await contextFactory();
        if (getOperationAST(document, payload.operationName)?.operation === 'subscription') {
          const refused = subscriptionLimits.take(ctx.extra, id, contextValue);
          if (refused !== null) return [refused];
        }
        const args: ExecutionArgs = {
          schema: enveloped,
          document,
          operationName: payload.operationName ?? null,
          variableValues: payload.variables ?? null,
          contextValue,
          rootValue: { execute, subscribe, writer: graphqlWsWriter(ctx.extra.send, id), closed: ctx.extra.closed } satisfies Enveloped,
        };
        return args;
      },
      onComplete: (ctx, id) => subscriptionLimits.release(ctx.extra, id),
    },
  });

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
        upstream = buildClient(config, simulatorUrl, metrics, logger);
        const { session, token, tenantId } = simulator.credentials;
        graphiqlHeaders = { Authorization: `OAuth ${session}`, 'X-Resources-Authorization': `Bearer ${token}`, 'X-Tenant-ID': tenantId };
        logger.info({ simulator: simulatorUrl }, 'started the embedded simulator as the upstream');
      }
      await backend.start(jobs);
      await cursors.start();
      // ...and on every replica, whose caches may hold the records the job changed. Followed
      // once the backend is connected, so no job finished elsewhere slips past a fresh replica.
      stopFollowingJobs = followFinishedJobs(backend.pubsub, forgetWrittenRecords, logger);
      await listen(server, config.port, config.host);
      const address = server.address() as AddressInfo;
      const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
      url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
      logger.info({ url: `${url}${GRAPHQL_PATH}` }, 'gateway listening');
      return url;
    },
    async stop() {
      // Stop accepting and let in-flight requests finish while WebSocket clients are told to go
      // elsewhere (1001 Going Away); SSE streams are ended the same way.
      const drained = drain.drain(config.shutdownTimeoutMs);
      for (const client of wsServer.clients) client.close(1001, 'server shutting down');
      await new Promise<void>((resolve) => wsServer.close(() => resolve()));
      await drained;
      admission.close();
      stopFollowingJobs();
      cursors.close();
      await jobs.close();
      await backend.close();
      if (!options.upstream) await upstream?.close();
      await simulator?.stop();
    },
  };
}

interface Enveloped {
  execute: (args: ExecutionArgs) => OperationResult;
  subscribe: (args: ExecutionArgs) => OperationResult;
  /** Writes a shared execution's events straight to this operation's connection. */
  writer: DirectWriter;
  /** Aborts when the operation's connection closes. */
  closed: AbortSignal;
}

function buildClient(config: GatewayConfig, upstreamUrl: string, metrics: GatewayMetrics, logger: Logger): UpstreamClient {
  return createUpstreamClient({
    onRequest: metrics.observeUpstream,
    upstreamUrl,
    resourcesUrl: config.resourcesUrl ?? new URL(upstreamUrl).origin,
    timezone: config.upstreamTimezone,
    breakerThreshold: config.upstreamBreakerThreshold,
    breakerOpenMs: config.upstreamBreakerOpenMs,
    maxQueued: config.upstreamMaxQueued,
    onBreakerStateChange: (state, origin) =>
      state === 'open' ? logger.warn({ origin }, 'upstream circuit breaker opened: calls fail fast') : logger.info({ origin, state }, 'upstream circuit breaker state'),
    timeoutMs: config.upstreamTimeoutMs,
    connections: config.upstreamConnections,
    credentialGate: {
      rejectedTtlMs: config.rejectedCredentialTtlMs,
      maxRemembered: config.rememberedCredentials,
      unverifiedCallsPerAddress: config.unverifiedCallsPerAddress,
      unverifiedCallsPerMinute: config.unverifiedCallsPerMinute,
    },
  });
}

/**
 * Errors meant for clients pass through: GraphQL errors raised on purpose (yoga's own rule), and
 * upstream failures, which become `extensions.code` + `extensions.upstream`. Anything else is
 * masked as INTERNAL_SERVER_ERROR.
 */
function maskUnexpectedError(error: unknown, message: string, isDev?: boolean): Error {
  const original = deepestOriginal(error);
  const mapped = upstreamToGraphQLError(original) ?? redisToGraphQLError(original);
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

/**
 * `{breaker: 'open'}` (or `'half-open'`) while any upstream breaker is not closed; empty when all
 * are. Which origin fails is not said: `/readyz` answers anyone, and the upstream's address is
 * not theirs to learn.
 */
function breakerState(upstream: UpstreamClient | undefined): { breaker?: string } {
  const states = Object.values(upstream?.health().breakers ?? {}).map((breaker) => breaker.state);
  if (states.includes('open')) return { breaker: 'open' };
  return states.includes('half-open') ? { breaker: 'half-open' } : {};
}

/**
 * The answer headers besides the CORS-safelisted ones that browser code may read: the request id
 * (to quote in a bug report), the ETag (to revalidate with If-None-Match) and Retry-After (of a
 * 429 RATE_LIMITED or a 503 OVERLOADED).
 */
const CORS_EXPOSED_HEADERS: readonly string[] = ['X-Request-ID', 'ETag', 'Retry-After'];

/** CORS_ORIGINS: none means same origin only (no CORS headers); `*` any origin. */
function corsOptions(
  origins: readonly string[],
): false | { origin: string | string[]; credentials: boolean; maxAge: number; exposedHeaders: string[] } {
  if (origins.length === 0) return false;
  // Credentials travel in headers, never cookies: no need to let browsers send cookies along.
  return { origin: origins.includes('*') ? '*' : [...origins], credentials: false, maxAge: 600, exposedHeaders: [...CORS_EXPOSED_HEADERS] };
}

/** A Redis outage, for the client: `REDIS_UNAVAILABLE`, retry later. */
function redisToGraphQLError(error: unknown): GraphQLError | null {
  return isRedisUnavailableError(error) ? new GraphQLError(error.message, { extensions: { code: error.code } }) : null;
}

/**
 * Listens, or rejects with the listen error (EADDRINUSE, ...) for the caller to report. The
 * WebSocket server re-emits the server's errors, and graphql-ws answers any with a stack trace
 * on the console: while listening, the server's own error listeners are set aside.
 */
async function listen(server: Server, port: number, host: string): Promise<void> {
  const errorListeners = server.rawListeners('error') as ((error: Error) => void)[];
  server.removeAllListeners('error');
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } finally {
    for (const listener of errorListeners) server.on('error', listener);
  }
}

function withTrailingSlash(base: string): string {
  return base.endsWith('/') ? base : `${base}/`;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}
