/**
 * `createOperationTracing(tracer)`: one span per GraphQL operation, whatever carried it (HTTP,
 * SSE, graphql-ws), with its parse, validate and execute (or subscribe) under it, started and
 * ended by the hook on yoga's pipeline (`use-operation-tracing.ts`). A W3C
 * `traceparent` the caller sent makes the operation's span its child: the request's header, or
 * over WebSocket the operation's `extensions.traceparent` or the connection's
 * `connectionParams.traceparent`.
 *
 * The operation's `SpanScope` goes to the request context's upstream session (`scopeOf`, called
 * by the context factory), so the loader batches and upstream calls of the execution land under
 * it, passed explicitly: no context manager (see `src/tracing/spans.ts`). While the execution
 * runs, the scope points at its execute span, so they land under that.
 *
 * Why not `@envelop/opentelemetry` or `@graphql-hive/plugin-opentelemetry`: the first is written
 * against the 1.x SDK and traces execution and resolvers only, its parent taken from the active
 * context; the second is Hive Gateway's runtime, whose spans follow the active context through
 * the AsyncLocalStorage context manager it installs (`docs/performance/tuning.md`: a tenth of the
 * throughput). Neither could hand the operation's span to the gateway's loaders and upstream
 * client, which is what ties a slow dashboard to the upstream call that made it slow.
 */
import type { Span, Tracer } from '@opentelemetry/api';
import { getOperationAST, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { isAsyncIterable } from 'graphql-yoga';
import { SpanKind, contextFromTraceparent, recordFailure, startChildSpan, startSpan, type SpanScope } from './spans.js';

/** The first context of a GraphQL operation (what yoga, or `graphql-ws-yoga.ts`, starts it with). */
export interface OperationStart {
  request: Request;
  params?: { extensions?: Record<string, unknown> | undefined } | undefined;
  connectionParams?: Readonly<Record<string, unknown>> | undefined;
}

/** The scope of one operation: its own span, where its children go now, whether it ended. */
export interface OperationScope extends SpanScope {
  readonly operation: Span;
  ended: boolean;
}

/** Ends an execution's span once its result (or, for a stream, its last part) is in. */
export type ExecutionEnd = (done: { result: ExecutionResult | AsyncIterable<ExecutionResult> }) => { onEnd: () => void } | undefined;

export interface OperationTracing {
  /** The operation's scope, made by its first GraphQL step (parse, or the context factory). */
  scopeOf(start: OperationStart): OperationScope;
  /** The scope of the operation of `request`, if one was made. */
  scopeOfRequest(request: Request | undefined): OperationScope | undefined;
  /** Ends the operation's span (once), failed with `error` when there is one. */
  endOperation(scope: OperationScope, error?: unknown): void;
  /** Names the operation's span after its operation (`query Dashboard`), once its document is known. */
  nameOperation(scope: OperationScope, document: DocumentNode, operationName: string | null | undefined): void;
  /**
   * Runs the execution (or subscription) in a span `name` of its own, ending the operation with
   * it: what ends it, or undefined when the operation is not traced or ended already.
   */
  traceExecution(scope: OperationScope | undefined, name: string): ExecutionEnd | undefined;
  /**
   * Ends the span of an operation refused before it ran where no plugin hook follows (graphql-ws:
   * admission, subscription limits), named after its operation and failed with `error`.
   */
  refused(operation: Pick<ExecutionArgs, 'document' | 'operationName' | 'contextValue'>, error: unknown): void;
}

export function createOperationTracing(tracer: Tracer): OperationTracing {
  // By request: each HTTP request and each graphql-ws operation has its own (yoga's batching is off).
  const scopes = new WeakMap<Request, OperationScope>();

  function scopeOf(start: OperationStart): OperationScope {
    let scope = scopes.get(start.request);
    if (scope === undefined) {
      const span = startSpan(tracer, 'GraphQL Operation', {
        parent: contextFromTraceparent(...callerTrace(start)),
        kind: SpanKind.SERVER,
        attributes: { 'graphql.transport': transportOf(start) },
      });
      scope = { tracer, span, operation: span, upstreamRequests: 0, ended: false };
      scopes.set(start.request, scope);
    }
    return scope;
  }

  function endOperation(scope: OperationScope, error?: unknown): void {
    if (scope.ended) return;
    scope.ended = true;
    if (error !== undefined) recordFailure(scope.operation, error);
    scope.operation.end();
  }

  function nameOperation(scope: OperationScope, document: DocumentNode, operationName: string | null | undefined): void {
    const operation = getOperationAST(document, operationName);
    if (!operation) return;
    const name = operation.name?.value;
    scope.operation.updateName(name === undefined ? operation.operation : `${operation.operation} ${name}`);
    scope.operation.setAttribute('graphql.operation.type', operation.operation);
    if (name !== undefined) scope.operation.setAttribute('graphql.operation.name', name);
  }

  function traceExecution(scope: OperationScope | undefined, name: string): ExecutionEnd | undefined {
    if (scope === undefined || scope.ended) return undefined;
    const span = startChildSpan(scope, name);
    scope.span = span;
    const end = (result?: ExecutionResult): void => {
      if (result?.errors !== undefined && result.errors.length > 0) span.setAttribute('graphql.errors', result.errors.length);
      span.end();
      scope.span = scope.operation;
      endOperation(scope);
    };
    return ({ result }: { result: ExecutionResult | AsyncIterable<ExecutionResult> }) => {
      // A subscription, `@defer` or `@stream`: over when its last part is.
      if (isAsyncIterable(result)) return { onEnd: () => end() };
      end(result);
      return undefined;
    };
  }

  const scopeOfRequest = (request: Request | undefined): OperationScope | undefined => (request === undefined ? undefined : scopes.get(request));

  function refused(operation: Pick<ExecutionArgs, 'document' | 'operationName' | 'contextValue'>, error: unknown): void {
    const scope = scopeOfRequest((operation.contextValue as Partial<OperationStart>).request);
    if (scope === undefined) return;
    nameOperation(scope, operation.document, operation.operationName);
    endOperation(scope, error);
  }

  return { scopeOf, scopeOfRequest, endOperation, nameOperation, traceExecution, refused };
}

/** The caller's `traceparent` and `tracestate`: the request's headers, else the operation's extensions, else the connection's parameters. */
function callerTrace(start: OperationStart): [string | undefined, string | undefined] {
  const header = start.request.headers.get('traceparent');
  if (header !== null) return [header, start.request.headers.get('tracestate') ?? undefined];
  for (const source of [start.params?.extensions, start.connectionParams]) {
    const traceparent = source?.traceparent;
    if (typeof traceparent === 'string') return [traceparent, typeof source?.tracestate === 'string' ? source.tracestate : undefined];
  }
  return [undefined, undefined];
}

function transportOf(start: OperationStart): string {
  // graphql-ws-yoga.ts passes the key, even for a connection without parameters.
  if ('connectionParams' in start) return 'graphql-ws';
  return start.request.headers.get('accept')?.includes('text/event-stream') ? 'sse' : 'http';
}
