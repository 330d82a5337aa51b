/**
 * `useUnexpectedErrorLogging`: logs every error the masking hides from the client (a bug, not a
 * GraphQL error raised on purpose nor an upstream failure) with the request id, so the
 * `INTERNAL_SERVER_ERROR` a client reports can be found in the logs. The client never sees it.
 */
import { GraphQLError } from 'graphql';
import { useErrorHandler, type Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { deepestOriginal } from '../errors/mask.js';
import { traceFields, type SpanScope } from '../tracing/spans.js';
import { isUpstreamRequestError } from '../upstream/errors.js';

export interface UnexpectedErrorLoggingOptions {
  /** Where the errors go (level `error`). */
  logger: Logger;
}

export function useUnexpectedErrorLogging(options: UnexpectedErrorLoggingOptions): Plugin {
  return useErrorHandler(({ errors, context, phase }) => {
    // The client hung up: its reads were cancelled on purpose and nobody reads the answer.
    if (clientHungUp(context)) {
      options.logger.debug({ reqId: requestIdOf(context), ...traceOf(context), phase, errors: errors.length }, 'operation abandoned by its client');
      return;
    }
    for (const error of errors) {
      const original = deepestOriginal(error);
      if (original instanceof GraphQLError || isUpstreamRequestError(original)) continue;
      const path = error instanceof GraphQLError ? error.path : undefined;
      // `reqId`, the key every other request-scoped log line uses.
      options.logger.error(
        { err: original instanceof Error ? original : error, reqId: requestIdOf(context), ...traceOf(context), phase, path },
        'unexpected error (masked for the client)',
      );
    }
  });
}

/**
 * The gateway's fields of the GraphQL context (envelop hands execution-phase errors the execution
 * args instead, which hold it as `contextValue`).
 */
function requestContextOf(context: unknown): RequestFields | undefined {
  const holder = context as { contextValue?: object } | null | undefined;
  return (holder?.contextValue ?? holder ?? undefined) as RequestFields | undefined;
}

interface RequestFields {
  requestId?: unknown;
  signal?: { aborted?: unknown };
  session?: { trace?: SpanScope | undefined };
}

/** `trace_id` and `span_id` of the operation's span, when it is traced: where the line's trace is. */
function traceOf(context: unknown): ReturnType<typeof traceFields> {
  const scope = requestContextOf(context)?.session?.trace;
  return scope === undefined ? {} : traceFields((scope as { operation?: SpanScope['span'] }).operation ?? scope.span);
}

function requestIdOf(context: unknown): string | undefined {
  const requestId = requestContextOf(context)?.requestId;
  return typeof requestId === 'string' ? requestId : undefined;
}

/** Whether the request's client hung up (duck-typed: the server adapter may hand out its own AbortSignal). */
function clientHungUp(context: unknown): boolean {
  return requestContextOf(context)?.signal?.aborted === true;
}
