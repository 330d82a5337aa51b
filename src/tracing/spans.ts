/**
 * The spans the gateway makes, passed explicitly from parent to child (a `SpanScope` on the
 * request context, the upstream session and each call's options), never through a context
 * manager: Node's AsyncLocalStorage turns on promise hooks for the whole process, a tenth of the
 * gateway's throughput (`docs/performance/tuning.md`), and with tracing off nothing here runs at all,
 * since there is no scope to pass. Only `@opentelemetry/api` and the W3C propagator of
 * `@opentelemetry/core`: the upstream layer uses these helpers and stays free of GraphQL.
 */
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  defaultTextMapGetter,
  defaultTextMapSetter,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator, parseTraceParent } from '@opentelemetry/core';

/**
 * Where new spans of a piece of work go: under `span`, made by `tracer`. `upstreamRequests`
 * counts the upstream requests made directly under it (the upstream client adds one per HTTP
 * exchange it makes, a read shared with another caller's counting where it was made).
 */
export interface SpanScope {
  readonly tracer: Tracer;
  /** The parent of the spans started under this scope (the operation's scope moves it to its execute span while that runs). */
  span: Span;
  upstreamRequests: number;
}

const propagator = new W3CTraceContextPropagator();

/** A scope for `span`, made by `tracer`. */
export function scopeOf(tracer: Tracer, span: Span): SpanScope {
  return { tracer, span, upstreamRequests: 0 };
}

/** Starts a span under `parent`'s span (of `kind`, internal by default). */
export function startChildSpan(parent: SpanScope, name: string, attributes?: Attributes, kind: SpanKind = SpanKind.INTERNAL): Span {
  return parent.tracer.startSpan(name, { kind, attributes }, trace.setSpan(ROOT_CONTEXT, parent.span));
}

/** Starts a span under a parent from elsewhere (`contextFromTraceparent`), or a root span, with links to other traces. */
export function startSpan(tracer: Tracer, name: string, options: { parent?: Context | undefined; attributes?: Attributes; links?: Link[]; kind?: SpanKind }): Span {
  return tracer.startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes, links: options.links }, options.parent ?? ROOT_CONTEXT);
}

/**
 * Runs `work` in a child span of `parent` (nothing but `work` when there is no parent: tracing
 * off), ending it when `work` settles, with an error status when it throws. `onEnd` may set
 * attributes known only at the end (`scope.upstreamRequests`).
 */
export async function inChildSpan<T>(
  parent: SpanScope | undefined,
  name: string,
  attributes: Attributes,
  work: (scope: SpanScope | undefined) => Promise<T>,
  onEnd?: (span: Span, scope: SpanScope) => void,
): Promise<T> {
  if (parent === undefined) return work(undefined);
  const scope = scopeOf(parent.tracer, startChildSpan(parent, name, attributes));
  try {
    return await work(scope);
  } catch (error) {
    recordFailure(scope.span, error);
    throw error;
  } finally {
    onEnd?.(scope.span, scope);
    scope.span.end();
  }
}

/** Marks `span` failed with `error` (its `code` as `error.type`, as the upstream and GraphQL errors carry one). */
export function recordFailure(span: Span, error: unknown): void {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown; extensions?: { code?: unknown } }).code ?? (error as { extensions?: { code?: unknown } }).extensions?.code : undefined;
  span.setAttribute('error.type', typeof code === 'string' ? code : error instanceof Error ? error.name : 'Error');
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/** Adds `traceparent` (and `tracestate`, when the trace has one) naming `span` to `headers`. */
export function injectTraceHeaders(span: Span, headers: Record<string, string>): void {
  propagator.inject(trace.setSpan(ROOT_CONTEXT, span), headers, defaultTextMapSetter);
}

/** `span`'s W3C `traceparent` text, to keep with a job so that another replica can link to it. */
export function traceparentOf(span: Span): string | undefined {
  const headers: Record<string, string> = {};
  injectTraceHeaders(span, headers);
  return headers.traceparent;
}

/**
 * The context of a W3C `traceparent` (and `tracestate`) sent by a caller, as the parent of the
 * spans made for it; undefined when there is none or it is malformed (ignored, as the
 * specification asks: the work gets a trace of its own).
 */
export function contextFromTraceparent(traceparent: string | undefined, tracestate?: string | undefined): Context | undefined {
  if (traceparent === undefined || traceparent.length > 256) return undefined;
  const carrier: Record<string, string> = { traceparent };
  if (tracestate !== undefined && tracestate.length <= 512) carrier.tracestate = tracestate;
  const context = propagator.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter);
  const parent = trace.getSpanContext(context);
  return parent !== undefined && trace.isSpanContextValid(parent) ? context : undefined;
}

/** A link to the span a stored `traceparent` names (a job's mutation), or none when it is absent or malformed. */
export function linkTo(traceparent: string | undefined, attributes?: Attributes): Link[] {
  if (traceparent === undefined) return [];
  const context: SpanContext | null = parseTraceParent(traceparent);
  return context !== null && trace.isSpanContextValid(context) ? [{ context, attributes }] : [];
}

/** `trace_id` and `span_id` for a log line written under `span` (none without a span). */
export function traceFields(span: Span | undefined): { trace_id?: string; span_id?: string } {
  if (span === undefined) return {};
  const context = span.spanContext();
  return trace.isSpanContextValid(context) ? { trace_id: context.traceId, span_id: context.spanId } : {};
}

export { SpanKind };
