/**
 * The gateway's Prometheus metrics (`GET /metrics`): one registry per app, so two apps in one
 * process (tests) never share counters. The yoga side lives in `use-operation-metrics.ts`; the
 * upstream client, the job store, the webhook receiver and the DataLoader batches report here.
 */
import { performance } from 'node:perf_hooks';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { JobStore } from '../jobs/store.js';
import type { DependencyStates } from './dependencies.js';
import type { UpstreamRequestEvent } from '../upstream/client.js';
import type { UpstreamHealth } from '../upstream/types.js';

export interface GatewayMetrics {
  readonly registry: Registry;
  /** GraphQL operations executed (queries, mutations) or started (subscriptions). */
  readonly operations: Counter<'operation_type' | 'operation_name' | 'root_field' | 'result'>;
  /** Time to execute a query or mutation. */
  readonly operationDuration: Histogram<'operation_type' | 'operation_name' | 'root_field'>;
  readonly upstreamRequests: Counter<'operation' | 'method' | 'status'>;
  readonly upstreamDuration: Histogram<'operation' | 'status'>;
  /** Upstream GETs that joined an identical one in flight instead of making their own request (`SHARE_UPSTREAM_GETS`). */
  readonly upstreamRequestsShared: Counter<'operation'>;
  readonly loaderBatchSize: Histogram<'loader'>;
  readonly openSubscriptions: Gauge;
  /** Subscription executions running: WebSocket subscribers of the same events share one. */
  readonly subscriptionExecutions: Gauge;
  readonly jobs: Counter<'status'>;
  /** Jobs this replica follows and has not seen finish, by id: when each was created (epoch ms). Kept by `instrumentJobStore`, read by the in-flight gauges. */
  readonly jobsInFlight: Map<string, number>;
  readonly webhookDeliveries: Counter<'result' | 'status'>;
  /** Operations refused with 503 OVERLOADED. */
  readonly operationsShed: Counter;
  /** Queries that could share an execution, by whether they started one or joined one in flight. */
  readonly coalescedQueries: Counter<'execution'>;
  /** Live queries (`@live`) open on this replica. */
  readonly liveQueriesOpen: Gauge;
  /** Runs of live queries after their first answer, by what invalidated them (`job`, `feed`). */
  readonly liveReexecutions: Counter<'cause'>;
  /** Invalidations folded into a live query's run already due (throttle and bursts). */
  readonly liveInvalidationsCoalesced: Counter;
  /** Operations of the trusted-document manifest in force (TRUSTED_DOCUMENTS). */
  readonly trustedDocuments: Gauge;
  /** Manifest reloads, `loaded` or `refused` (the one in force kept). */
  readonly trustedDocumentReloads: Counter<'result'>;
  /** Errors in the GraphQL answers sent over HTTP, by `extensions.code`. */
  readonly graphqlErrors: Counter<'code'>;
  /** Operations refused by the cost limits before they ran, by code (`MAX_COST_EXCEEDED`, `RATE_LIMITED`). */
  readonly costRefused: Counter<'code'>;
  /** Response-cache lookups of cacheable queries: `hit` (answered from the cache) or `miss` (executed). */
  readonly responseCacheLookups: Counter<'result'>;
  /** Entries the Redis outbox dropped at `REDIS_OUTBOX_MAX_BYTES`, by kind (`job`, `live_change`). */
  readonly redisOutboxDropped: Counter<'kind'>;
  /** Values the upstream sent from outside an enum's set, answered as its fallback (`unrecognized-values.ts`). */
  readonly upstreamUnrecognizedValues: Counter<'enum' | 'value'>;
  /** Reads the admission control's limit, running and waiting operations at every scrape. */
  observeAdmission(snapshot: () => { limit: number; active: number; queued: number }): void;
  /** The upstream client's `onRequest` hook. */
  observeUpstream(event: UpstreamRequestEvent): void;
  /** Reads the upstream origins' circuit breakers at every scrape (`UpstreamClient.health`). */
  observeUpstreamHealth(health: () => Pick<UpstreamHealth, 'breakers'>): void;
  /** Reads whether every Redis connection is up at every scrape (`RedisConnection.isReady`); called only with `REDIS_URL`. */
  observeRedis(isReady: () => boolean): void;
  /** Reads what waits in the Redis outbox at every scrape (`RedisOutbox`); called only with `REDIS_URL`. */
  observeRedisOutbox(outbox: { entries(): number; bytes(): number }): void;
  /** Reads whether the replica is ready at every scrape (its own state: started, not draining). */
  observeReadiness(isReady: () => boolean): void;
  /** Reads each dependency's state at every scrape (`DependencyWatch.states`: no upstream or Redis call). */
  observeDependencies(states: () => DependencyStates): void;
  /** Prometheus text exposition of every metric. */
  render(): Promise<string>;
}

export interface MetricsOptions {
  /** Also export Node's process metrics (CPU, memory, event loop lag, GC). @default true */
  processMetrics?: boolean;
}

/**
 * The error codes of answers that failed for a server-side reason, not the caller's: the
 * availability SLO of deploy/prometheus/alerts.yml counts these (a test holds its list equal).
 */
export const SERVER_ERROR_CODES = ['INTERNAL_SERVER_ERROR', 'OVERLOADED', 'REDIS_UNAVAILABLE', 'UPSTREAM_PROTOCOL_ERROR', 'UPSTREAM_TIMEOUT', 'UPSTREAM_UNAVAILABLE'] as const;

const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function createMetrics(options: MetricsOptions = {}): GatewayMetrics {
  const registry = new Registry();
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const counter = <L extends string = never>(name: string, help: string, labelNames: readonly L[] = []) => new Counter<L>({ name, help, labelNames, registers });
  const gauge = (name: string, help: string) => new Gauge({ name, help, registers });
  const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]) => new Histogram<L>({ name, help, labelNames, buckets, registers });
  /** A gauge read at every scrape. */
  const collected = (name: string, help: string, read: () => number): void => {
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read());
      },
    });
  };

  const operations = counter('gateway_graphql_operations_total', 'GraphQL operations executed (subscriptions: started), by type, name (one listed in METRICS_OPERATION_NAMES, else other; anonymous without a name), root field (the schema field selected at the root; multiple when several) and result (error when the result carried errors, else success).', ['operation_type', 'operation_name', 'root_field', 'result']);
  const operationDuration = histogram('gateway_graphql_operation_duration_seconds', 'Time to execute a GraphQL query or mutation.', ['operation_type', 'operation_name', 'root_field'], SECONDS_BUCKETS);
  const upstreamRequests = counter('gateway_upstream_requests_total', 'Requests to the upstream service by spec operation, method and HTTP status ("none" when no answer came).', ['operation', 'method', 'status']);
  const upstreamRequestsShared = counter('gateway_upstream_requests_shared_total', 'Upstream GETs that joined an identical one in flight (same credential, URL and query) instead of making their own request: upstream calls saved, by spec operation.', ['operation']);
  const upstreamDuration = histogram('gateway_upstream_request_duration_seconds', 'Latency of upstream requests (retries included) by spec operation and HTTP status.', ['operation', 'status'], SECONDS_BUCKETS);
  const loaderBatchSize = histogram('gateway_dataloader_batch_size', 'Keys per DataLoader batch, by the record type loaded.', ['loader'], [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]);

  let utilizationSince = performance.eventLoopUtilization();
  collected('gateway_event_loop_utilization', 'Share of the time since the last scrape the event loop ran code (0 to 1): the admission limit shrinks while it is at ADMISSION_TARGET_UTILIZATION or more.', () => {
    const now = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(now, utilizationSince);
    utilizationSince = now;
    return utilization;
  });

  const openSubscriptions = gauge('gateway_subscriptions_open', 'GraphQL subscriptions open on this replica (graphql-ws and SSE).');
  const subscriptionExecutions = gauge('gateway_subscription_executions', 'Shared subscription executions running on this replica: WebSocket subscribers of the same events (same document, variables and credentials) share one.');
  const liveQueriesOpen = gauge('gateway_live_queries_open', 'Live queries (@live) open on this replica (graphql-ws, SSE and multipart).');
  const liveReexecutions = counter('gateway_live_reexecutions_total', 'Runs of live queries after their first answer, by what invalidated them: job (a finished write), feed (the upstream change feed).', ['cause']);
  const liveInvalidationsCoalesced = counter('gateway_live_invalidations_coalesced_total', 'Invalidations of a live query folded into a run already due (LIVE_MIN_INTERVAL_MS and bursts): runs saved.');
  const jobs = counter('gateway_jobs_total', 'Asynchronous jobs by status reached on this replica: RUNNING when started, SUCCEEDED or FAILED when finished here.', ['status']);
  const webhookDeliveries = counter('gateway_webhook_deliveries_total', 'Webhook deliveries received, accepted or rejected, by HTTP status answered.', ['result', 'status']);
  const operationsShed = counter('gateway_operations_shed_total', 'GraphQL operations refused with OVERLOADED (503 over HTTP) because too many were already waiting; a live query\'s run refused so counts too (it is tried again a second later).');
  const coalescedQueries = counter('gateway_coalesced_queries_total', 'Queries that could share an execution (COALESCE_QUERIES), by whether they started one or joined an identical one in flight (each joined: an execution and its upstream calls saved).', ['execution']);
  const trustedDocuments = gauge('gateway_trusted_documents', 'Operations of the trusted-document manifest in force (TRUSTED_DOCUMENTS); only they run.');
  const trustedDocumentReloads = counter('gateway_trusted_document_reloads_total', 'Trusted-document manifest reloads (SIGHUP), by result: loaded, or refused (the manifest in force kept; the log says why).', ['result']);
  const graphqlErrors = counter('gateway_graphql_errors_total', 'Errors in the GraphQL answers sent over HTTP (not the events of subscription streams, not graphql-ws), by extensions.code (other: a code that is not an UPPER_SNAKE_CASE word; none: no code).', ['code']);
  const costRefused = counter('gateway_cost_refused_total', 'Operations refused before running by the cost limits, by code: MAX_COST_EXCEEDED (above MAX_COST) or RATE_LIMITED (the credential\'s COST_BUDGET is spent).', ['code']);
  const responseCacheLookups = counter('gateway_response_cache_lookups_total', 'Queries the response cache could answer (a credential sent, not @live), by result: hit (answered from the cache) or miss (executed).', ['result']);
  const redisOutboxDropped = counter('gateway_redis_outbox_dropped_total', 'Finished jobs (kind job) and change-feed changes (kind live_change) dropped because REDIS_OUTBOX_MAX_BYTES already waited for Redis: their subscribers and other replicas\' live queries miss them (job(id) still answers a job).', ['kind']);
  const upstreamUnrecognizedValues = counter('gateway_upstream_unrecognized_values_total', 'Values the upstream sent from outside an enum\'s set (a newer upstream release\'s), answered to clients as the enum\'s fallback (OTHER or UNKNOWN) with the text in <field>Raw, by GraphQL enum and value; past 20 values of one enum, the others count under value="(others)".', ['enum', 'value']);
  // Both kinds from the start, so an alert on their increase sees the first drop.
  for (const kind of ['job', 'live_change']) redisOutboxDropped.inc({ kind }, 0);
  // The server-side codes from the start too: the availability SLO's rate sees the first failure
  // of each, where a series born at 1 would hide it.
  for (const code of SERVER_ERROR_CODES) graphqlErrors.inc({ code }, 0);

  const jobsInFlight = new Map<string, number>();
  collected('gateway_jobs_in_flight', 'Asynchronous jobs this replica follows that have not finished yet: started here, or claimed from a replica that stopped.', () => jobsInFlight.size);
  collected('gateway_jobs_oldest_in_flight_seconds', 'Age of the oldest job this replica follows that has not finished (0 when none): past the polling deadline (30 min) the gateway fails a job itself, so an older one is stuck.', () => {
    let oldest = Infinity;
    for (const createdAt of jobsInFlight.values()) oldest = Math.min(oldest, createdAt);
    return oldest === Infinity ? 0 : Math.max(0, (Date.now() - oldest) / 1000);
  });

  return {
    registry,
    jobsInFlight,
    operations,
    operationDuration,
    upstreamRequests,
    upstreamDuration,
    upstreamRequestsShared,
    loaderBatchSize,
    openSubscriptions,
    liveQueriesOpen,
    liveReexecutions,
    liveInvalidationsCoalesced,
    subscriptionExecutions,
    jobs,
    webhookDeliveries,
    operationsShed,
    coalescedQueries,
    trustedDocuments,
    trustedDocumentReloads,
    graphqlErrors,
    costRefused,
    responseCacheLookups,
    redisOutboxDropped,
    upstreamUnrecognizedValues,
    observeAdmission(snapshot) {
      const gauges = [
        ['gateway_admission_limit', 'Operations admitted to run at once: adapted to the event loop utilization, up to MAX_CONCURRENT_OPERATIONS.', 'limit'],
        ['gateway_operations_running', 'GraphQL operations over HTTP running now (SSE subscriptions not counted).', 'active'],
        ['gateway_operations_waiting', 'GraphQL operations over HTTP waiting for admission.', 'queued'],
      ] as const;
      for (const [name, help, key] of gauges) collected(name, help, () => snapshot()[key]);
    },
    observeUpstream(event) {
      const status = event.status === null ? 'none' : String(event.status);
      upstreamRequests.inc({ operation: event.operation, method: event.method, status });
      upstreamDuration.observe({ operation: event.operation, status }, event.durationMs / 1000);
    },
    observeUpstreamHealth(health) {
      new Gauge({
        name: 'gateway_upstream_circuit_breakers',
        help: 'Upstream origins (at most two: UPSTREAM_URL\'s and RESOURCES_URL\'s) whose circuit breaker is in each state: closed (calls go through), open (calls fail at once, UPSTREAM_UNAVAILABLE), half-open (one probe call decides).',
        labelNames: ['state'] as const,
        registers,
        collect() {
          const counts: Record<BreakerState, number> = { closed: 0, 'half-open': 0, open: 0 };
          for (const breaker of Object.values(health().breakers)) counts[breaker.state] += 1;
          for (const [state, count] of Object.entries(counts)) this.set({ state }, count);
        },
      });
    },
    observeRedis(isReady) {
      collected('gateway_redis_connected', 'Whether every Redis connection of this replica (commands, subscriber, stream reader) is up: 1, or 0 while any is reconnecting (Redis-backed operations then fail with REDIS_UNAVAILABLE).', () => (isReady() ? 1 : 0));
    },
    observeRedisOutbox(outbox) {
      collected('gateway_redis_outbox_entries', 'Finished jobs and change-feed changes this replica keeps in memory until Redis takes them (0 while Redis takes every append at once); they are appended, in order, as soon as it does.', () => outbox.entries());
      collected('gateway_redis_outbox_bytes', 'Bytes of the entries the Redis outbox keeps (gateway_redis_outbox_entries); past REDIS_OUTBOX_MAX_BYTES new ones are dropped (gateway_redis_outbox_dropped_total).', () => outbox.bytes());
    },
    observeReadiness(isReady) {
      collected('gateway_ready', 'Whether the replica is ready (1) or not (0), as /readyz answers: started and not shutting down, whatever the upstream and Redis (gateway_dependency_up).', () => (isReady() ? 1 : 0));
    },
    observeDependencies(states) {
      new Gauge({
        name: 'gateway_dependency_up',
        help: 'Whether a dependency answers this replica (1) or not (0): the upstream (its last ping, sent again when over 5 s old, and no circuit breaker open or half-open) and, with REDIS_URL, Redis (every connection up; a Redis that stops answering loses its command connection). Not part of readiness.',
        labelNames: ['dependency'] as const,
        registers,
        collect() {
          for (const [dependency, up] of Object.entries(states())) this.set({ dependency }, up ? 1 : 0);
        },
      });
    },
    render: () => registry.metrics(),
  };
}

type BreakerState = UpstreamHealth['breakers'][string]['state'];

/**
 * Counts jobs as they start and finish (a finish counts once: `finish` returns the job only the
 * first time), and keeps the jobs in flight this replica follows: those it created or claimed,
 * until it finishes them or reads them finished (by another replica, which took the webhook).
 */
export function instrumentJobStore(store: JobStore, metrics: GatewayMetrics): JobStore {
  const inFlight = metrics.jobsInFlight;
  return {
    ...store,
    async create(job) {
      await store.create(job);
      metrics.jobs.inc({ status: job.status });
      if (job.status === 'RUNNING') inFlight.set(job.id, job.createdAt);
    },
    async get(id) {
      const job = await store.get(id);
      if (job?.status !== 'RUNNING') inFlight.delete(id);
      return job;
    },
    async finish(id, outcome) {
      const finished = await store.finish(id, outcome);
      // Null: unknown or finished already; either way no longer in flight here.
      inFlight.delete(id);
      if (finished) metrics.jobs.inc({ status: finished.status });
      return finished;
    },
    async claimOrphaned() {
      const claimed = await store.claimOrphaned();
      for (const job of claimed) inFlight.set(job.id, job.createdAt);
      return claimed;
    },
    async discard(id) {
      await store.discard(id);
      inFlight.delete(id);
    },
  };
}

const BATCH_OBSERVER = Symbol('gateway.batchObserver');

type BatchObserver = (loader: string, size: number) => void;

/** Hangs the batch-size observer on a request context (see `observeBatch`). */
export function withBatchObserver<C extends object>(context: C, metrics: GatewayMetrics): C {
  const observer: BatchObserver = (loader, size) => metrics.loaderBatchSize.observe({ loader }, size);
  return Object.assign(context, { [BATCH_OBSERVER]: observer });
}

/** Records the size of one DataLoader batch, when the context carries an observer. */
export function observeBatch(context: object, loader: string, size: number): void {
  const observer = (context as { [BATCH_OBSERVER]?: BatchObserver })[BATCH_OBSERVER];
  observer?.(loader, size);
}
