/**
 * The caller's own text, quoted back in an error message, kept short. graphql-js quotes a refused
 * value or an unknown name whole (`Cannot query field "xxx…" on type "Query".`), so a 500 KB name
 * was sent back in full, and again by every cache and log that kept the message.
 */
import { GraphQLError } from 'graphql';

/** Longest quoted text kept in an error message sent to a client, in characters. */
export const MAX_QUOTED_CHARS = 120;

/** Longest error message sent to a client, in characters, once its quotes are shortened. */
const MAX_MESSAGE_CHARS = 2_000;

/**
 * JSON-style string literals in `message` longer than `max` characters, cut to their first `max`.
 * Every literal is matched, the short ones too, so each quote pairs with its own.
 */
export function shortenQuotes(message: string, max: number = MAX_QUOTED_CHARS): string {
  return message.replace(/"((?:[^"\\]|\\.)*)"/g, (literal, body: string) => (body.length > max ? `"${body.slice(0, max)}…"` : literal));
}

/** `error` with its message's quotes shortened (and the message cut at `MAX_MESSAGE_CHARS`); the same error when nothing was cut. */
export function withShortQuotes(error: GraphQLError): GraphQLError {
  if (error.message.length <= MAX_QUOTED_CHARS) return error;
  const short = shortenQuotes(error.message);
  const message = short.length <= MAX_MESSAGE_CHARS ? short : `${short.slice(0, MAX_MESSAGE_CHARS)}…`;
  if (message === error.message) return error;
  return new GraphQLError(message, {
    nodes: error.nodes ?? null,
    source: error.source ?? null,
    positions: error.positions ?? null,
    path: error.path ?? null,
    originalError: error.originalError ?? null,
    extensions: error.extensions,
  });
}
