/**
 * `useUnexpectedErrorLogging`: logs every error the masking hides from the client (a bug, not a
 * GraphQL error raised on purpose nor an upstream failure) with the request id, so the
 * `INTERNAL_SERVER_ERROR` a client reports can be found in the logs. The client never sees it.
 */
import { GraphQLError } from 'graphql';
import { useErrorHandler, type Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { isUpstreamRequestError } from '../upstream/errors.js';

export interface UnexpectedErrorLoggingOptions {
  /** Where the errors go (level `error`). */
  logger: Logger;
}

export function useUnexpectedErrorLogging(options: UnexpectedErrorLoggingOptions): Plugin {
  return useErrorHandler(({ errors, context, phase }) => {
    // The client hung up: its reads were cancelled on purpose and nobody reads the answer.
    if (signalOf(context)?.aborted) {
      options.logger.debug({ reqId: requestIdOf(context), phase, errors: errors.length }, 'operation abandoned by its client');
      return;
    }
    for (const error of errors) {
      const original = deepestOriginal(error);
      if (original instanceof GraphQLError || isUpstreamRequestError(original)) continue;
      const path = error instanceof GraphQLError ? error.path : undefined;
      // `reqId`, the key every other request-scoped log line uses.
      options.logger.error(
        { err: original instanceof Error ? original : error, reqId: requestIdOf(context), phase, path },
        'unexpected error (masked for the client)',
      );
    }
  });
}

/** The request id of the GraphQL context (envelop hands execution-phase errors the execution args instead). */
function requestIdOf(context: unknown): string | undefined {
  const holder = context as { requestId?: unknown; contextValue?: { requestId?: unknown } } | null | undefined;
  const requestId = holder?.requestId ?? holder?.contextValue?.requestId;
  return typeof requestId === 'string' ? requestId : undefined;
}

/** The request's abort signal, from the GraphQL context or the execution args holding it. */
function signalOf(context: unknown): { aborted: boolean } | undefined {
  const holder = context as { signal?: { aborted?: unknown }; contextValue?: { signal?: { aborted?: unknown } } } | null | undefined;
  const signal = holder?.signal ?? holder?.contextValue?.signal;
  // Duck-typed: the server adapter may hand out its own AbortSignal implementation.
  return typeof signal?.aborted === 'boolean' ? (signal as { aborted: boolean }) : undefined;
}

/** The error at the bottom of a chain of `originalError`s (resolvers' errors arrive wrapped). */
function deepestOriginal(error: unknown): unknown {
  let current = error;
  while (typeof current === 'object' && current !== null && 'originalError' in current && current.originalError) {
    current = current.originalError;
  }
  return current;
}
