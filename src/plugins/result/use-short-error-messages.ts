/**
 * `useShortErrorMessages`: the caller's text quoted in an error message is cut to
 * `MAX_QUOTED_CHARS` (`errors/quotes.ts`) in every single answer (request errors, validation
 * errors and field errors alike), so no error sends back the megabyte name or literal it refuses.
 * Streamed results are left as they are: their errors come from execution, already masked.
 */
import type { ExecutionResult } from 'graphql';
import { GraphQLError } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { MAX_QUOTED_CHARS, withShortQuotes } from '../../errors/quotes.js';

export function useShortErrorMessages(): Plugin {
  return {
    onResultProcess({ result, setResult }) {
      if (isAsyncIterable(result)) return;
      if (Array.isArray(result)) setResult(result.map(shortened));
      else setResult(shortened(result));
    },
  };
}

function shortened(result: ExecutionResult): ExecutionResult {
  if (!result.errors?.some((error) => error.message.length > MAX_QUOTED_CHARS)) return result;
  return { ...result, errors: result.errors.map((error) => (error instanceof GraphQLError ? withShortQuotes(error) : error)) };
}
