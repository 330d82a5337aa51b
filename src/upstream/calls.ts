/**
 * One upstream call from start to end, around `exchange`: the credential gate lets it through,
 * its origin's breaker admits it, the request goes with the caller's request id and trace
 * context, and what the outcome says goes back to the gate, the breaker, the call's span and the
 * `onRequest` hook. Answers are read by the caller's `handle` (`answers.ts`).
 */
import type { Span } from '@opentelemetry/api';
import type { Dispatcher } from 'undici';
import { SpanKind, injectTraceHeaders, recordFailure, startChildSpan } from '../tracing/spans.js';
import type { Target } from './addressing.js';
import { protocolError, type RawAnswer } from './answers.js';
import type { BreakerTicket, CircuitBreakers } from './breaker.js';
import type { CredentialGate, GatePass } from './credential-gate.js';
import { DecodeError } from './decode.js';
import { UpstreamRequestError, UpstreamUnavailableError } from './errors.js';
import { exchange } from './exchange.js';
import type { HttpMethod } from './operations/index.js';
import { redact, mayQuote, secretOf } from './redact.js';
import type { CallOptions } from './types.js';
import { breakerReportOf, credentialVerdictOf, mayHaveReachedUpstream } from './verdicts.js';

/** What the `onRequest` hook hears about each upstream call (once per call, after any retries). */
export interface UpstreamRequestEvent {
  /** The spec operation name, e.g. `QueryFiberChannelLun`, `CursorQuery`, `PollJob`, `Ping`. */
  operation: string;
  method: string;
  /** HTTP status of the last answer; null when none came (connection error, timeout). */
  status: number | null;
  durationMs: number;
  /** The `UpstreamErrorCode` of the failure, when the call failed. */
  error?: string;
}

/** One request to send. */
export interface UpstreamCall {
  operation: string;
  method: HttpMethod;
  target: Target;
  headers: Record<string, string>;
  body?: string | undefined;
  /** false: never retried (writes, pings). */
  retryable: boolean;
  /** Who the upstream takes the call for (`credentials.ts`); undefined for calls that need no credential. */
  identity?: string | undefined;
  /** The call's own deadline, shorter than the client's. */
  deadlineMs?: number | undefined;
}

export interface CallsOptions {
  dispatcher: Dispatcher;
  maxResponseBytes: number;
  breakers: CircuitBreakers;
  credentialGate: CredentialGate;
  onRequest: ((event: UpstreamRequestEvent) => void) | undefined;
  /** Whether the client is closed: its calls fail at once. */
  isClosed(): boolean;
}

export interface Calls {
  /** Sends one request; resolves with any HTTP answer, rejects only when none came. With a `span`, its `traceparent` goes upstream and each retry is counted on it. */
  send(call: UpstreamCall, callOptions: CallOptions | undefined, span?: Span): Promise<RawAnswer>;
  /** Runs one call through the gate and the breaker, and lets `handle` read its answer. */
  run<T>(call: UpstreamCall, callOptions: CallOptions | undefined, handle: (answer: RawAnswer) => T): Promise<T>;
}

export function createCalls(options: CallsOptions): Calls {
  const { dispatcher, maxResponseBytes, breakers, credentialGate, onRequest } = options;

  function send(call: UpstreamCall, callOptions: CallOptions | undefined, span?: Span): Promise<RawAnswer> {
    const { operation } = call;
    if (options.isClosed()) return Promise.reject(new UpstreamUnavailableError(`${operation}: the upstream client is closed`, { operation }));
    const headers: Record<string, string> = { accept: 'application/json', ...call.headers };
    if (callOptions?.requestId) headers['x-request-id'] = callOptions.requestId;
    if (span !== undefined) injectTraceHeaders(span, headers);
    const request = {
      origin: call.target.origin,
      path: call.target.path,
      method: call.method,
      headers,
      body: call.body ?? null,
      idempotent: call.retryable,
      signal: callOptions?.signal,
      deadlineMs: call.deadlineMs,
      onRetry: span === undefined ? undefined : (attempt: number) => span.setAttribute('upstream.retries', attempt),
    };
    return exchange(dispatcher, request, { operation, maxResponseBytes });
  }

  async function run<T>(call: UpstreamCall, callOptions: CallOptions | undefined, handle: (answer: RawAnswer) => T): Promise<T> {
    const started = performance.now();
    let status: number | null = null;
    let ticket: BreakerTicket | undefined;
    let pass: GatePass | undefined;
    const span = callOptions?.trace === undefined ? undefined : startCallSpan(call, callOptions.trace);
    try {
      if (call.identity !== undefined) pass = await credentialGate.enter(call.identity, callOptions?.clientAddress, call.operation, callOptions?.signal);
      ticket = admit(call, span);
      if (callOptions?.trace !== undefined) callOptions.trace.upstreamRequests += 1;
      const answer = withoutCredentials(await send(call, callOptions, span), call.headers.authorization);
      status = answer.status;
      span?.setAttribute('http.response.status_code', status);
      const result = handle(answer);
      ticket.success();
      pass?.settle('accepted', true);
      report(call, status, started);
      span?.end();
      return result;
    } catch (caught) {
      const error = caught instanceof DecodeError ? protocolError(call.operation, caught, status ?? undefined) : caught;
      if (span !== undefined) {
        recordFailure(span, error);
        span.end();
      }
      if (ticket !== undefined) ticket[breakerReportOf(error, callOptions?.signal?.aborted === true)]();
      pass?.settle(credentialVerdictOf(status, error, call.headers.authorization), ticket !== undefined && mayHaveReachedUpstream(error));
      report(call, status, started, error);
      throw error;
    }
  }

  /** Lets the call through its origin's breaker, or fails it at once while the upstream is away. */
  function admit(call: UpstreamCall, span?: Span): BreakerTicket {
    const breaker = breakers.for(call.target.origin);
    // The state the call met: an open breaker explains a call that failed without being sent.
    span?.setAttribute('upstream.breaker.state', breaker.snapshot().state);
    const admission = breaker.admit();
    if (admission.admitted) return admission.ticket;
    const seconds = Math.max(1, Math.ceil(admission.retryAfterMs / 1000));
    throw new UpstreamUnavailableError(
      `${call.operation}: the upstream is failing; the gateway stops calling it for a while (circuit breaker open, next try in about ${seconds} s)`,
      { operation: call.operation },
    );
  }

  function report(call: UpstreamCall, status: number | null, started: number, error?: unknown): void {
    if (onRequest === undefined) return;
    const event: UpstreamRequestEvent = { operation: call.operation, method: call.method, status, durationMs: performance.now() - started };
    if (error !== undefined) event.error = error instanceof UpstreamRequestError ? error.code : 'ABORTED';
    try {
      onRequest(event);
    } catch {
      // Metrics must never fail a call.
    }
  }

  return { send, run };
}

/** The span of one upstream call, under `parent`: the spec's operation name, its method and origin. */
function startCallSpan(call: UpstreamCall, parent: NonNullable<CallOptions['trace']>): Span {
  return startChildSpan(
    parent,
    `upstream ${call.operation}`,
    { 'upstream.operation': call.operation, 'http.request.method': call.method, 'server.address': call.target.origin, 'upstream.retries': 0 },
    SpanKind.CLIENT,
  );
}

/**
 * The answer with the credential it was sent scrubbed from its text, so no error, payload, job or
 * log line built from it can show it. A success is scanned for the credential as sent (a cheap
 * `includes` on the hot path); a failure, which is where the service quotes it, for every spelling.
 */
function withoutCredentials(answer: RawAnswer, authorization: string | undefined): RawAnswer {
  const secret = secretOf(authorization);
  const secrets = secret === undefined ? [] : [secret];
  const success = answer.status >= 200 && answer.status < 300;
  if (success && !mayQuote(answer.text, secrets)) return answer;
  const text = redact(answer.text, secrets);
  return text === answer.text ? answer : { ...answer, text };
}
