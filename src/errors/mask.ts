/** Which errors reach clients as they are, and which are masked (yoga's `maskedErrors.maskError`). */
import { GraphQLError } from 'graphql';
import { maskError } from 'graphql-yoga';
import { isRedisUnavailableError } from '../redis/connection.js';
import { upstreamToGraphQLError } from '../schema/kit/errors.js';

/**
 * Errors meant for clients pass through: GraphQL errors raised on purpose (yoga's own rule), and
 * upstream failures, which become `extensions.code` + `extensions.upstream`. Anything else is
 * masked as INTERNAL_SERVER_ERROR.
 */
export function maskUnexpectedError(error: unknown, message: string, isDev?: boolean): Error {
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

/** A Redis outage, for the client: `REDIS_UNAVAILABLE`, retry later. */
function redisToGraphQLError(error: unknown): GraphQLError | null {
  return isRedisUnavailableError(error) ? new GraphQLError(error.message, { extensions: { code: error.code } }) : null;
}

/** The error at the bottom of a chain of `originalError`s (resolvers' errors arrive wrapped). */
export function deepestOriginal(error: unknown): unknown {
  let current = error;
  while (typeof current === 'object' && current !== null && 'originalError' in current && current.originalError) {
    current = current.originalError;
  }
  return current;
}
