/**
 * createApp(config, deps): the composition root. Builds the gateway's parts from the config, each
 * once, and wires them: the upstream client, the job backend and manager, the cursor keeper, the
 * response cache, yoga with its plugins (the HTTP routes among them), graphql-ws through yoga, and
 * the node:http server that carries both. `start()` connects and listens; `stop()` undoes it in
 * reverse. The upstream must be known when the app is composed: `index.ts` starts the embedded
 * simulator first when `UPSTREAM_URL` is unset (`demo-upstream.ts`).
 */
import type { Server } from 'node:http';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import { createClientAddressResolver } from './server/client-address.js';
import { strictRecordReads, type GatewayConfig } from './config/index.js';
import { callerOfRequest, createContext, webSocketCaller, type GatewayContext } from './context.js';
import { createCursorKeeper } from './cursors/keeper.js';
import type { DemoUpstream } from './server/demo-upstream.js';
import { pickExampleValues } from './graphiql/example-values.js';
import { createGraphiQLOptions, demoHeaders } from './graphiql/options.js';
import { renderGatewayGraphiQL } from './graphiql/render.js';
import { graphqlWsOverYoga, writerOf, type ServerContext } from './subscriptions/graphql-ws-yoga.js';
import { createJobBackend } from './jobs/backend.js';
import { followFinishedJobs } from './jobs/events.js';
import { createJobManager } from './jobs/manager.js';
import { releaseDispatchedBatchesOnClear } from './observability/loader-batches.js';
import type { JobRecord } from './jobs/store.js';
import { createLogger, withSecretsRedacted } from './observability/logging.js';
import { maskUnexpectedError } from './errors/mask.js';
import { createMetrics, instrumentJobStore, withBatchObserver, type GatewayMetrics } from './observability/metrics.js';
import { createUnrecognizedValues, withUnrecognizedValueObserver } from './observability/unrecognized-values.js';
import { createNodeServer } from './server/node-server.js';
import { createAdmission } from './admission/admission-control.js';
import { createParseCaches } from './execution/parse-cache.js';
import { useDocs } from './plugins/routes/use-docs.js';
import { useHealth } from './plugins/routes/use-health.js';
import { createOperationCoalescing } from './execution/operation-coalescing.js';
import { useJobWebhook } from './jobs/use-job-webhook.js';
import { createOperationMetrics } from './observability/operation-metrics.js';
import { useMetricsRoute } from './observability/use-metrics-route.js';
import { createQueryCost } from './cost/query-cost.js';
import { createReadiness } from './observability/readiness.js';
import { useReadiness } from './observability/use-readiness.js';
import { createDependencyWatch } from './observability/dependencies.js';
import { createMetricsServer } from './server/metrics-server.js';
import { createWriteInvalidation } from './response-cache/invalidation.js';
import { createResponseCacheStore } from './response-cache/store.js';
import { endpointPlugins } from './plugins/index.js';
import { useRootRedirect } from './plugins/routes/use-root-redirect.js';
import { createSubscriptionLimits } from './subscriptions/subscription-limits.js';
import { createTrustedDocuments, type TrustedDocuments } from './trusted-documents/trusted-documents.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './schema/kit/connections.js';
import { buildSchema, schema } from './schema/index.js';
import { servedSchema } from './schema/served.js';
import { declaredTouches, touchedBy, type TouchedRecords } from './schema/kit/mutation-kit.js';
import { schemaCollections } from './live/collections.js';
import type { LiveInvalidation } from './live/invalidation.js';
import { createLiveQueries } from './live/live-queries.js';
import { createChangeFeed, type ChangeFeed } from './live/change-feed.js';
import { createFeedMetrics } from './live/feed-metrics.js';
import { createRedisFeedReplicas, replicaTimingsOf } from './live/feed-replicas.js';
import { createSharedSubscriptions } from './subscriptions/shared-subscriptions.js';
import { createOperationTracing } from './tracing/operation-tracing.js';
import { createTracing } from './tracing/provider.js';
import { createUpstreamClient, UPSTREAM_FIXED_OPTIONS } from './upstream/client.js';
import type { UpstreamClient } from './upstream/types.js';

export interface App {
  readonly yoga: YogaServerInstance<ServerContext, GatewayContext>;
  readonly server: Server;
  /** The gateway's base URL once started, e.g. `http://127.0.0.1:4000`. */
  readonly url: string;
  /** The metrics port's base URL once started, with `METRICS_PORT`; undefined without it (`/metrics` is on `url`). */
  readonly metricsUrl: string | undefined;
  /** The open `@live` queries: what the upstream change feed invalidates and follows the interest of. */
  readonly live: LiveInvalidation;
  start(): Promise<string>;
  stop(): Promise<void>;
  /**
   * Reads the TRUSTED_DOCUMENTS manifest again (index.ts calls it on SIGHUP): true when the new one
   * is in force; false when it cannot be used (logged, the one in force kept) or no manifest is set.
   */
  reloadTrustedDocuments(): boolean;
}

export interface AppDeps {
  /** @default a pino logger at `config.logLevel` (secrets are redacted from either) */
  logger?: Logger;
  /**
   * The embedded simulator started as the upstream (`startDemoUpstream`) when `config.upstreamUrl`
   * is unset: its URL is the upstream's, its credentials fill GraphiQL's headers. The app does not
   * stop it: whoever started it does, after the app.
   */
  demo?: Pick<DemoUpstream, 'url' | 'credentials'>;
}

const GRAPHQL_PATH = '/graphql';
/** The documentation pages (`useDocs`), served with GraphiQL: `docs/` beside `src/` (or `dist/`). */
const DOCS_PATH = '/docs/';
const DOCS_ROOT = new URL('../docs/', import.meta.url);
/** The page GraphiQL's "guide" link opens. */
const GRAPHIQL_GUIDE = `${DOCS_PATH}getting-started/graphiql.md`;
/** Where the schema is served as a Federation v2 subgraph (`_service`, `_entities`). */
export const SUBGRAPH_PATH = '/subgraph';

function isSubgraphRequest(url: string | undefined): boolean {
  return url !== undefined && url.startsWith(SUBGRAPH_PATH) && (url.length === SUBGRAPH_PATH.length || url[SUBGRAPH_PATH.length] === '?');
}

const builtSubgraphSchemas = new Map<string | undefined, GraphQLSchema>();
/** The subgraph of an upstream release (undefined: the newest), built on first use and kept, as the standalone schema is. */
function subgraphSchema(release: string | undefined): GraphQLSchema {
  let built = builtSubgraphSchemas.get(release);
  if (built === undefined) builtSubgraphSchemas.set(release, (built = buildSchema({ subgraph: true, release })));
  return built;
}

export function createApp(config: GatewayConfig, deps: AppDeps = {}): App {
  const upstreamUrl = config.upstreamUrl ?? deps.demo?.url;
  if (upstreamUrl === undefined) throw new Error('createApp needs an upstream: set UPSTREAM_URL, or start the embedded simulator first (startDemoUpstream)');
  const logger = withSecretsRedacted(deps.logger ?? createLogger(config.logLevel));
  // So that clearing a request's loaders drops the records their last batches resolved too.
  if (!releaseDispatchedBatchesOnClear()) logger.warn('this DataLoader release is not one loader-batches.ts supports: loaders keep their last batch');
  const metrics = createMetrics();
  const unrecognizedValues = createUnrecognizedValues({ counter: metrics.upstreamUnrecognizedValues, logger });
  // OTEL_*: undefined unless an exporter or endpoint is set; then spans are passed explicitly.
  const tracing = createTracing(config);
  const operationTracing = tracing && createOperationTracing(tracing.tracer);
  const upstream = createUpstream(config, upstreamUrl, metrics, logger);
  // Aborted when stop() begins: /readyz answers draining from then on.
  const stopping = new AbortController();

  const operationMetrics = createOperationMetrics({ metrics, metricsOperationNames: config.metricsOperationNames });
  const resolveClientAddress = createClientAddressResolver(config.trustedProxies);
  const admission = createAdmission({
    maxConcurrentOperations: config.maxConcurrentOperations,
    maxQueuedOperations: config.maxQueuedOperations,
    admissionTargetUtilization: config.admissionTargetUtilization,
    onShed: () => metrics.operationsShed.inc(),
  });
  metrics.observeAdmission(() => admission.control.snapshot());
  // REDIS_URL: job store and pub/sub in Redis, so any replica takes any webhook and serves any subscriber.
  const backend = createJobBackend({
    redisUrl: config.redisUrl,
    jobTtlMs: config.jobTtlMs,
    jobLeaseMs: config.jobLeaseMs,
    redisResumeGraceMs: config.redisResumeGraceMs,
    redisCommandTimeoutMs: config.redisCommandTimeoutMs,
    redisStreamMaxLen: config.redisStreamMaxLen,
    redisOutboxMaxBytes: config.redisOutboxMaxBytes,
    onOutboxDropped: (kind) => metrics.redisOutboxDropped.inc({ kind }),
    logger,
  });
  // With Redis, budgets and the caps per credential count over every replica, not each on its own.
  const fleet = backend.redis && { connection: backend.redis, jobLeaseMs: config.jobLeaseMs, logger };
  const queryCost = createQueryCost({
    maxCost: config.maxCost,
    costBudget: config.costBudget,
    costBudgetRefill: config.costBudgetRefill,
    upstreamCallCost: config.upstreamCallCost,
    defaultPageSize: DEFAULT_PAGE_SIZE,
    maxPageSize: MAX_PAGE_SIZE,
    onRefused: (code) => metrics.costRefused.inc({ code }),
    fleet,
  });
  // Subscribers of the same events share one execution (see shared-subscriptions.ts).
  const sharedSubscriptions = createSharedSubscriptions({
    admit: queryCost.admitSubscriber,
    onSubscriber: operationMetrics.countSubscriber,
    onExecutions: (running) => metrics.subscriptionExecutions.set(running),
    writerOf,
  });
  const subscriptionLimits = createSubscriptionLimits({
    wsMaxSubscriptionsPerSocket: config.wsMaxSubscriptionsPerSocket,
    maxSubscriptionsPerCredential: config.maxSubscriptionsPerCredential,
    credentialKeyOf: queryCost.budgetKeyOf,
    unverifiedSubscriptionsPerAddress: config.unverifiedSubscriptionsPerAddress,
    isVerified: ({ upstream, caller }) => upstream.hasAccepted(caller.resource, caller.cursor),
    fleet,
  });

  // TRUSTED_DOCUMENTS: a manifest that cannot be used stops the gateway here, naming the operation at fault.
  const trusted = config.trustedDocuments === undefined ? undefined : createTrusted(config, config.trustedDocuments, metrics, logger);

  // Each endpoint (`/graphql`, `/subgraph`) answers from its own cache and coalesces only its own
  // queries: one document text may mean two things on the two schemas (an introspection query).
  // `full` is the endpoint's schema before UPSTREAM_VERSION leaves anything out: writes declare
  // what they touch there, and the release validation names what the served one lacks from it.
  const endpointState = (full: GraphQLSchema) => {
    const responseCache = createResponseCacheStore({ responseCacheMaxEntries: config.responseCacheMaxEntries });
    const invalidateWrite = createWriteInvalidation(responseCache, full, declaredTouches(full));
    // Identical queries in flight share one execution, but not across a write of their credential.
    const coalescing = config.coalesceQueries
      ? createOperationCoalescing({ onQuery: (joined) => metrics.coalescedQueries.inc({ execution: joined ? 'joined' : 'started' }) })
      : undefined;
    /** A write of `owner`'s credential finished, having touched `touched` (null: no write of the kit). */
    const writeFinished = (owner: string, touched: TouchedRecords | null): void => {
      coalescing?.writeFinished(owner);
      if (touched) invalidateWrite(touched);
    };
    return { schema: full, responseCache, coalescing, writeFinished };
  };
  const standalone = endpointState(schema);
  const federated = endpointState(subgraphSchema(undefined));
  // `@live` queries: what invalidates them (finished jobs here, the change feed) goes through `live`.
  const live = createLiveQueries({
    liveMaxPerSocket: config.liveMaxPerSocket,
    liveMaxPerCredential: config.liveMaxPerCredential,
    liveMinIntervalMs: config.liveMinIntervalMs,
    fleet,
    onOpen: (open) => metrics.liveQueriesOpen.set(open),
    onReexecution: (cause) => metrics.liveReexecutions.inc({ cause }),
    onCoalesced: () => metrics.liveInvalidationsCoalesced.inc(),
    // The change feed saw a change: identical upstream reads already in flight may predate it, so
    // the runs it wakes start their own (a finished job closed them already, in forgetWrittenRecords).
    onInvalidate: (_scope, cause) => {
      if (cause === 'feed') upstream.closeReadsInFlight();
    },
  });
  const liveCollections = schemaCollections(schema);
  const feedMetrics = createFeedMetrics(metrics.registry);
  let feed: ChangeFeed | undefined;
  const forgetWrittenRecords = (job: JobRecord): void => {
    // Reads already under way may have been answered before the write: later ones start afresh.
    upstream.closeReadsInFlight();
    // Read once: both endpoints' schemas carry the same mutations' declarations of what they touch.
    const touched = touchedBy(job, schema);
    standalone.writeFinished(job.owner, touched);
    federated.writeFinished(job.owner, touched);
    if (!touched) return;
    // Last: the live queries' runs find the in-flight reads closed and no coalesced execution to join.
    for (const change of liveCollections.changesOf(touched)) live.invalidateOwner(job.owner, change, 'job');
  };

  const jobs = createJobManager({
    store: instrumentJobStore(backend.store, metrics),
    pubsub: backend.pubsub,
    events: backend.events,
    upstream,
    publicUrl: () => config.publicUrl ?? http.url,
    jobLocation: (id) => upstream.jobLocation(id),
    logger,
    jobPollAfterMs: config.jobPollAfterMs,
    // At once on the replica that finished the job, or that hands it to a waiting mutation,
    // before anyone waiting for it reads again...
    onFinished: forgetWrittenRecords,
    tracer: tracing?.tracer,
    storeOutage: backend.untilRedisAnswers && { untilAnswers: backend.untilRedisAnswers, redisResumeGraceMs: config.redisResumeGraceMs },
  });
  // With Redis, the replicas share the cursors' key and the upstream cursors they stand for.
  const cursors = createCursorKeeper({
    cursorSecret: config.cursorSecret,
    cursorTtlMs: config.cursorTtlMs,
    cursorStoreMaxBytes: config.cursorStoreMaxBytes,
    redis: backend.redis,
    logger,
  });

  // GraphiQL's example tabs name records of the demo, asked of the gateway itself with its credentials.
  const demoCredentials = deps.demo?.credentials;
  const graphiqlOptions = config.graphiql
    ? createGraphiQLOptions({
        demoCredentials,
        guideUrl: GRAPHIQL_GUIDE,
        pickValues:
          demoCredentials &&
          (() =>
            pickExampleValues({
              fetch: async (url, init): Promise<Response> => yoga.fetch(url, init),
              endpoint: `http://gateway${GRAPHQL_PATH}`,
              headers: demoHeaders(demoCredentials),
            })),
        onPickFailed: (err) => logger.warn({ err }, 'GraphiQL\'s example tabs could not pick demo records: they open with placeholders'),
      })
    : undefined;

  // UPSTREAM_VERSION: the schema that release offers, as `npm run schema` prints it; the full one
  // still names what it left out.
  const standaloneSchema = servedSchema(config.upstreamVersion);
  /** Yoga serving `served` at `path`, with every GraphQL plugin (and `routes` first). */
  const createEndpoint = (served: GraphQLSchema, state: ReturnType<typeof endpointState>, path: string, routes: Plugin[]) =>
    createYoga<ServerContext, GatewayContext>({
      schema: served,
      graphqlEndpoint: path,
      landingPage: false,
      graphiql: graphiqlOptions ?? false,
      renderGraphiQL: renderGatewayGraphiQL,
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
      // Bounded by size, not count: yoga's kept 1,024 documents of up to a body's size each.
      parserAndValidationCache: createParseCaches(),
      // Enforced by useRequestBodyLimit below, which spares a body with a Content-Length yoga's stream.
      maxRequestBodySize: false,
      cors: corsOptions(config.corsOrigins),
      // Every hook, in the order `endpointPlugins` (src/plugins/index.ts) gives and explains.
      plugins: endpointPlugins({
        config,
        logger,
        path,
        routes,
        fullSchema: state.schema,
        admission,
        trusted,
        operationTracing,
        operationMetrics,
        coalescing: state.coalescing,
        live,
        liveCollections,
        queryCost,
        subscriptionLimits,
        responseCache: state.responseCache,
        onResponseCacheLookup: (hit) => metrics.responseCacheLookups.inc({ result: hit ? 'hit' : 'miss' }),
        sharedSubscriptions,
      }),
      context: (initial) => {
        const { request, connectionParams, req } = initial;
        // A WebSocket operation's `req` is the socket's upgrade request (graphql-ws-yoga.ts).
        const caller = req?.headers.upgrade?.toLowerCase() === 'websocket' ? webSocketCaller(connectionParams, req.headers) : callerOfRequest(request);
        const forwardedFor = req?.headers['x-forwarded-for'];
        const context = createContext({
          caller,
          upstream,
          maxBatchSize: config.maxBatchSize,
          jobs,
          mutationWaitMs: config.mutationWaitMs,
          cursors,
          requestId: request.headers.get('x-request-id') ?? undefined,
          // Over HTTP it aborts when the client hangs up. WebSocket operations get a request of their
          // own (graphql-ws-yoga.ts), whose signal never aborts.
          signal: request.signal,
          clientAddress: resolveClientAddress(req?.socket.remoteAddress, Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor),
          trace: operationTracing?.scopeOf(initial),
        });
        return withUnrecognizedValueObserver(withBatchObserver(context, metrics), unrecognizedValues);
      },
    });

  metrics.observeUpstreamHealth(() => upstream.health());
  const redis = backend.redis;
  if (redis) metrics.observeRedis(() => redis.isReady());
  if (backend.streams) metrics.observeRedisOutbox(backend.streams.outbox);
  // Ready is this replica's own state; the upstream and Redis are reported apart (use-readiness.ts).
  const readiness = createReadiness(stopping.signal);
  metrics.observeReadiness(() => readiness.status() === 'ready');
  const dependencies = createDependencyWatch({ upstream, redis, logger });
  metrics.observeDependencies(() => dependencies.states());
  const probes = [useHealth({ dependencies }), useReadiness({ readiness })];
  const metricsRoute = useMetricsRoute({ registry: metrics.registry, logger });
  // METRICS_PORT: /metrics only there, so that nothing routed to the public port publishes it.
  const metricsServer = config.metricsPort === undefined ? undefined : createMetricsServer({ routes: [metricsRoute, ...probes], schema: standaloneSchema });
  let metricsUrl: string | undefined;
  const yoga = createEndpoint(standaloneSchema, standalone, GRAPHQL_PATH, [
    ...probes,
    ...(metricsServer ? [] : [metricsRoute]),
    useJobWebhook({ jobs, logger, onAnswer: (status) => countWebhookDelivery(metrics, status) }),
    useRootRedirect(GRAPHQL_PATH),
    ...(config.graphiql ? [useDocs({ root: DOCS_ROOT, prefix: DOCS_PATH })] : []),
  ]);
  // The same schema as a Federation v2 subgraph, for a router (docs/features/federation.md).
  const subgraph = createEndpoint(subgraphSchema(config.upstreamVersion), federated, SUBGRAPH_PATH, []);

  const http = createNodeServer({
    handler: (req, res) => (isSubgraphRequest(req.url) ? subgraph : yoga).requestListener(req, res),
    timeouts: config,
    websocket: {
      path: GRAPHQL_PATH,
      // A message is read whole before graphql-ws sees it: as large as an HTTP body may be.
      maxBodyBytes: config.maxBodyBytes,
      wsMaxBufferedBytes: config.wsMaxBufferedBytes,
      server: graphqlWsOverYoga({
        yoga,
        graphqlEndpoint: GRAPHQL_PATH,
        admission: admission.control,
        onRefused: operationTracing?.refused,
        sharedSubscriptions,
        subscriptionLimits,
        resolvePayload: trusted?.resolveSubscribePayload,
      }),
    },
    logger,
  });
  // Aborted once the server has drained: the jobs finished elsewhere are no longer followed.
  const drained = new AbortController();

  return {
    yoga,
    server: http.server,
    live,
    get url() {
      return http.url;
    },
    get metricsUrl() {
      return metricsUrl;
    },
    async start() {
      await backend.start(jobs);
      await cursors.start();
      // ...and on every replica, whose caches may hold the records the job changed. Followed
      // once the backend is connected, so no job finished elsewhere slips past a fresh replica.
      followFinishedJobs(backend.pubsub, forgetWrittenRecords, logger, drained.signal);
      // The upstream change feed: polls what open live queries read, under their callers' credentials.
      if (config.livePollMs > 0) {
        feed = createChangeFeed({
          invalidation: live,
          upstream,
          livePollMs: config.livePollMs,
          upstreamTimezone: config.upstreamTimezone,
          logger,
          metrics: feedMetrics,
          tracer: tracing?.tracer,
          replicas:
            backend.redis && backend.streams
              ? createRedisFeedReplicas({ connection: backend.redis, ...backend.streams, ...replicaTimingsOf(config.livePollMs), logger })
              : undefined,
        });
      }
      dependencies.start();
      const url = await http.listen(config.port, config.host);
      if (metricsServer && config.metricsPort !== undefined) {
        metricsUrl = await metricsServer.listen(config.metricsPort, config.host);
        logger.info({ url: `${metricsUrl}/metrics` }, 'metrics and probes listening on their own port');
      }
      readiness.markStarted();
      logger.info({ url: `${url}${GRAPHQL_PATH}` }, 'gateway listening');
      return url;
    },
    async stop() {
      stopping.abort();
      // In-flight requests finish; WebSocket clients and SSE streams are told to go elsewhere.
      await http.close(config.shutdownTimeoutMs);
      await feed?.stop();
      // Before Redis is closed: the places of the streams just ended are given back there.
      await Promise.all([subscriptionLimits.close(), live.close()]);
      admission.close();
      drained.abort();
      cursors.close();
      await jobs.close();
      await backend.close();
      dependencies.stop();
      await upstream.close();
      // Last but the probes: the spans of everything above are exported before the process goes,
      // within TRACES_FLUSH_TIMEOUT_MS (docs/operations/health.md#how-the-grace-period-is-spent).
      if (tracing && !(await tracing.close())) logger.warn({ tracesFlushTimeoutMs: config.tracesFlushTimeoutMs }, 'the last spans were not exported in time; exiting without them');
      await metricsServer?.close();
    },
    reloadTrustedDocuments() {
      return trusted?.reload() ?? false;
    },
  };
}

function createTrusted(config: GatewayConfig, path: string, metrics: GatewayMetrics, logger: Logger): TrustedDocuments {
  const trusted = createTrustedDocuments({
    path,
    schema,
    logger,
    // GraphiQL loads the schema with a text introspection query: it runs when GRAPHIQL is on.
    graphiql: config.graphiql,
    onLoaded: (operations) => metrics.trustedDocuments.set(operations),
    onReload: (loaded) => metrics.trustedDocumentReloads.inc({ result: loaded ? 'loaded' : 'refused' }),
  });
  logger.info({ path, operations: trusted.manifest.size }, 'trusted documents only: the manifest\'s operations run, nothing else');
  return trusted;
}

function createUpstream(config: GatewayConfig, upstreamUrl: string, metrics: GatewayMetrics, logger: Logger): UpstreamClient {
  return createUpstreamClient({
    ...UPSTREAM_FIXED_OPTIONS,
    upstreamUrl,
    cursorUrl: config.cursorUrl,
    upstreamTimezone: config.upstreamTimezone,
    upstreamTimeoutMs: config.upstreamTimeoutMs,
    upstreamConnections: config.upstreamConnections,
    upstreamMaxQueued: config.upstreamMaxQueued,
    upstreamBreakerThreshold: config.upstreamBreakerThreshold,
    upstreamBreakerOpenMs: config.upstreamBreakerOpenMs,
    shareUpstreamGets: config.shareUpstreamGets,
    rejectedCredentialTtlMs: config.rejectedCredentialTtlMs,
    rememberedCredentials: config.rememberedCredentials,
    unverifiedCallsPerAddress: config.unverifiedCallsPerAddress,
    unverifiedCallsPerMinute: config.unverifiedCallsPerMinute,
    strictRecordReads,
    onRequest: metrics.observeUpstream,
    onSharedRead: (operation) => metrics.upstreamRequestsShared.inc({ operation }),
    onBreakerStateChange: (state, origin) =>
      state === 'open' ? logger.warn({ origin }, 'upstream circuit breaker opened: calls fail fast') : logger.info({ origin, state }, 'upstream circuit breaker state'),
  });
}

/** A webhook delivery, by the status it was answered: 2xx accepted, anything else rejected. */
function countWebhookDelivery(metrics: GatewayMetrics, status: number): void {
  metrics.webhookDeliveries.inc({ result: status >= 200 && status < 300 ? 'accepted' : 'rejected', status: String(status) });
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

