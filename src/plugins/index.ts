/**
 * The ordered list of yoga plugins an endpoint runs, and why each stands where it does. Yoga calls
 * a hook of every plugin in this order (`onRequest`, `onParams`, `onValidate`, `onExecute`, ...),
 * and a plugin that wraps the executor wraps whatever the plugins before it put in place, so the
 * order is part of the behaviour.
 *
 * This folder holds that list and the stateless hooks, grouped by the stage they serve, as
 * graphql-yoga groups its own: `request/` (what a request may be), `result/` (how an answer is
 * sent), `routes/` (the gateway's own pages) and `validation/` (what an operation may ask). A
 * feature that keeps state has a folder of its own, its logic beside its `use-*.ts` hook: cost,
 * admission, execution (graphql-jit, record demand, coalescing), the response cache, subscriptions,
 * live queries, trusted documents, observability, tracing and jobs. Their state is built once by
 * `app.ts` and handed over here. Only this list and `app.ts` import a hook (a lint rule holds it);
 * no hook imports another (what one marks and another reads goes through
 * `execution/execution-kind.ts`).
 */
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { useDisableIntrospection } from '@graphql-yoga/plugin-disable-introspection';
import type { GraphQLSchema } from 'graphql';
import type { Plugin, YogaServerOptions } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { Admission } from '../admission/admission-control.js';
import { useAdmission } from '../admission/use-admission.js';
import type { GatewayConfig } from '../config/index.js';
import type { GatewayContext } from '../context.js';
import type { QueryCost } from '../cost/query-cost.js';
import { useQueryCost } from '../cost/use-query-cost.js';
import type { OperationCoalescing } from '../execution/operation-coalescing.js';
import { useJit } from '../execution/use-jit.js';
import { useOperationCoalescing } from '../execution/use-operation-coalescing.js';
import { useRecordDemand } from '../execution/use-record-demand.js';
import { useReleaseLoadedRecords } from '../execution/use-release-loaded-records.js';
import type { SchemaCollections } from '../live/collections.js';
import type { LiveQueries } from '../live/live-queries.js';
import { useLiveQuery } from '../live/use-live-query.js';
import type { OperationMetrics } from '../observability/operation-metrics.js';
import { useOperationMetrics } from '../observability/use-operation-metrics.js';
import { useUnexpectedErrorLogging } from '../observability/use-unexpected-error-logging.js';
import type { ResponseCacheStore } from '../response-cache/store.js';
import { useResponseCache } from '../response-cache/use-response-cache.js';
import type { ServerContext } from '../subscriptions/graphql-ws-yoga.js';
import type { SharedSubscriptions } from '../subscriptions/shared-subscriptions.js';
import type { SubscriptionLimits } from '../subscriptions/subscription-limits.js';
import { useSharedSubscriptions } from '../subscriptions/use-shared-subscriptions.js';
import { useSubscriptionLimits } from '../subscriptions/use-subscription-limits.js';
import type { OperationTracing } from '../tracing/operation-tracing.js';
import { useOperationTracing } from '../tracing/use-operation-tracing.js';
import type { TrustedDocuments } from '../trusted-documents/trusted-documents.js';
import { usePersistedQueries } from '../trusted-documents/use-persisted-queries.js';
import { useTrustedDocuments } from '../trusted-documents/use-trusted-documents.js';
import { useCloseAfterRefusedBody } from './request/use-close-after-refused-body.js';
import { useCsrfPrevention } from './request/use-csrf-prevention.js';
import { useRequestBodyLimit } from './request/use-request-body-limit.js';
import { useRequestValidation } from './request/use-request-validation.js';
import { useVariableCoercion } from './request/use-variable-coercion.js';
import { useVaryOrigin } from './request/use-vary-origin.js';
import { useAcceptableAnswers } from './result/use-acceptable-answers.js';
import { useCompression } from './result/use-compression.js';
import { useMultipartSubscriptions } from './result/use-multipart-subscriptions.js';
import { useShortErrorMessages } from './result/use-short-error-messages.js';
import { useSseSingleConnection } from './result/use-sse-single-connection.js';
import { useMutationLimit } from './validation/use-mutation-limit.js';
import { useOperationLimits } from './validation/use-operation-limits.js';
import { useReleaseValidation } from './validation/use-release-validation.js';

export interface EndpointPluginParts {
  config: GatewayConfig;
  logger: Logger;
  /** The endpoint's path (`/graphql`, or the subgraph's). */
  path: string;
  /** The gateway's own HTTP routes for this endpoint (health, metrics, webhook, docs, ...). */
  routes: readonly Plugin[];
  /** The full schema of the endpoint, whatever `UPSTREAM_VERSION` serves of it. */
  fullSchema: GraphQLSchema;
  admission: Admission;
  trusted: TrustedDocuments | undefined;
  operationTracing: OperationTracing | undefined;
  operationMetrics: OperationMetrics;
  coalescing: OperationCoalescing | undefined;
  live: LiveQueries;
  liveCollections: SchemaCollections;
  queryCost: QueryCost;
  subscriptionLimits: SubscriptionLimits;
  responseCache: ResponseCacheStore;
  onResponseCacheLookup: (hit: boolean) => void;
  sharedSubscriptions: SharedSubscriptions;
}

/** What yoga takes as an endpoint's plugins. */
type EndpointPlugins = NonNullable<YogaServerOptions<ServerContext, GatewayContext>['plugins']>;

/** The plugins of one endpoint, in the order they must run. */
export function endpointPlugins(parts: EndpointPluginParts): EndpointPlugins {
  const { config, trusted, operationTracing, coalescing, queryCost } = parts;
  const cost = useQueryCost(queryCost);
  return [
    // The gateway's own routes first: they answer before admission, parsing or any limit.
    ...parts.routes,
    // First of the GraphQL ones: an operation waiting for its turn has not even had its body read.
    useAdmission(parts.admission.control),
    // Before the parameters are checked: a request naming a trusted document by id has no query
    // until it is resolved here, and any other document is refused before anything reads it.
    ...(trusted ? [useTrustedDocuments(trusted)] : []),
    // Before any plugin reads the parameters: a malformed request is a 400, not their TypeError.
    useRequestValidation(),
    // Before the limits and the cost: a refused operation is traced too.
    ...(operationTracing ? [useOperationTracing(operationTracing)] : []),
    ...(config.corsOrigins.length > 0 ? [useVaryOrigin()] : []),
    // graphql-sse's single connection mode; its distinct connections mode is yoga's own SSE.
    useSseSingleConnection({ endpoint: parts.path, maxBodyBytes: config.maxBodyBytes }),
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
      maxIntrospectionSchemas: config.maxIntrospectionSchemas,
      blockFieldSuggestions: !config.graphiql,
    }),
    useMutationLimit(config.maxMutations),
    ...(config.upstreamVersion === undefined ? [] : [useReleaseValidation({ fullSchema: parts.fullSchema, upstreamVersion: config.upstreamVersion })]),
    useUnexpectedErrorLogging({ logger: parts.logger }),
    useOperationMetrics(parts.operationMetrics),
    // Before the response cache, which wraps whatever executor is in place when it runs.
    ...(config.graphqlJit ? [useJit()] : []),
    useReleaseLoadedRecords(),
    ...(config.decodeSelectedFields ? [useRecordDemand()] : []),
    // Before the response cache: a hash-only request must have its query text by the time the
    // cache computes its key. Not with trusted documents: nothing registers, the manifest decides.
    ...(trusted ? [] : [usePersistedQueries()]),
    // Before the response cache and the cost: an operation whose variables do not coerce is
    // answered BAD_USER_INPUT before either looks at it.
    useVariableCoercion(),
    // After graphql-jit and before the cost gate: each caller is admitted, charged and reported on
    // its own, only the execution is shared (by callers the response cache did not answer).
    ...(coalescing ? [useOperationCoalescing(coalescing)] : []),
    // Between coalescing and the cost gate: each run of a live query is charged, and may share an
    // execution in flight of its own credential woken by the same change (see use-live-query.ts).
    useLiveQuery({
      live: parts.live,
      collections: parts.liveCollections,
      runCharged: queryCost.runCharged,
      admit: (signal) => parts.admission.control.acquire(signal),
    }),
    // Around the response cache: an answer served from the cache is neither charged nor refused,
    // and the cost of the execution that filled it is not kept with it.
    cost.gate,
    useSubscriptionLimits(parts.subscriptionLimits),
    useResponseCache({ cache: parts.responseCache, responseCacheTtlMs: config.responseCacheTtlMs, onLookup: parts.onResponseCacheLookup }),
    cost.report,
    useDeferStream(),
    // Apollo Client's HttpLink sends subscriptions as multipart HTTP, which yoga refuses (406).
    useMultipartSubscriptions(),
    useCompression({ compressionMinBytes: config.compressionMinBytes }),
    // Last: SSE subscribers of the same events join one execution of what the plugins above settled on.
    useSharedSubscriptions(parts.sharedSubscriptions),
    // Before the answer is written, whichever plugin writes it: no error sends the caller's megabyte back.
    useShortErrorMessages(),
    // After every plugin that picks how a result is answered: it answers what none of them took.
    useAcceptableAnswers(),
    // After every request parser has registered (as yoga places its own), so it limits the chosen one.
    useRequestBodyLimit(config.maxBodyBytes),
  ];
}
