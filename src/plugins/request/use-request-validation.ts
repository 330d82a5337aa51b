/**
 * `useRequestValidation`: a request that is not a well-formed GraphQL-over-HTTP request is
 * answered 400 `BAD_REQUEST` before any other plugin reads its parameters.
 *
 * Yoga checks the parameters' types only after every user plugin's `onParams`, so a `query` that
 * is an array or an object, or a numeric `operationName`, first reached the plugins that key on
 * them (the response cache, persisted queries) and failed there as a TypeError: a 500. Here the
 * same checks run first, and the few yoga leaves out are added: `operationName` must be text, a
 * missing `query` is a 400 under any `Accept` (yoga answers it 200 to `application/json`), a GET
 * parameter given twice is ambiguous, and a GET's `variables`/`extensions` that are not JSON are a
 * 400 (yoga let the SyntaxError through as a 500). An invalid JSON body is quoted back at most
 * `maxQuotedChars` characters (yoga quoted the whole body, however large). A POST body of a type no
 * parser reads is a 415 `UNSUPPORTED_MEDIA_TYPE` that says which types are read (yoga's is empty).
 *
 * `variables` and `extensions` nested deeper than `maxJsonDepth` are a 400 too. `JSON.parse`
 * takes any depth, but what reads them afterwards recurses (the response cache's and coalescing's
 * keys are `JSON.stringify`, graphql-js coerces input values recursively): a 400 KB body of nested
 * brackets overflowed the stack there, a 500. No input type of the schema nests near the limit.
 */
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { refuseOverlongCredentials } from '../../context.js';
import { MAX_JSON_DEPTH, OBJECT_PARAMS, tooDeeplyNested } from '../../utils/json-depth.js';

export interface RequestValidationOptions {
  /** Longest piece of the client's own text quoted back in an error message. @default MAX_QUOTED_CHARS */
  maxQuotedChars?: number;
  /** Deepest nesting of objects and lists accepted in `variables` and `extensions`. @default MAX_JSON_DEPTH */
  maxJsonDepth?: number;
}

/** Longest piece of the client's own text quoted back in an error message. */
const MAX_QUOTED_CHARS = 120;

/** The parameters of the GraphQL-over-HTTP spec and what each may hold. */
const TEXT_PARAMS = ['query', 'operationName'] as const;
const GET_PARAMS = [...TEXT_PARAMS, ...OBJECT_PARAMS];

export function useRequestValidation(options: RequestValidationOptions = {}): Plugin {
  const maxQuotedChars = options.maxQuotedChars ?? MAX_QUOTED_CHARS;
  const maxJsonDepth = options.maxJsonDepth ?? MAX_JSON_DEPTH;
  return {
    onRequestParse({ request, url, requestParser, setRequestParser }) {
      // Before any plugin keys anything on the caller: an over-long credential goes no further.
      refuseOverlongCredentials((name) => request.headers.get(name) ?? undefined);
      if (request.method === 'GET') rejectRepeatedParams(url.searchParams);
      if (requestParser === undefined) {
        // Yoga's own parsers are in place by now: none takes this body (yoga answers an empty 415).
        if (request.method === 'POST') throw unsupportedMediaType(request.headers.get('content-type'));
        return;
      }
      setRequestParser(async (parsed) => {
        try {
          return await requestParser(parsed);
        } catch (error) {
          throw readableParseError(error, parsed, maxQuotedChars);
        }
      });
    },
    onParams({ params }) {
      // A batch (an array) is refused by yoga's own batching limit, before any plugin sees it.
      if (typeof params !== 'object' || params === null || Array.isArray(params)) return;
      const record = params as unknown as Record<string, unknown>;
      for (const name of TEXT_PARAMS) {
        const value = record[name];
        if (value !== undefined && value !== null && typeof value !== 'string') throw badRequest(`"${name}" must be a string, got ${kindOf(value)}.`);
      }
      for (const name of OBJECT_PARAMS) {
        const value = record[name];
        if (value !== undefined && value !== null && kindOf(value) !== 'object') throw badRequest(`"${name}" must be a JSON object, got ${kindOf(value)}.`);
      }
      const tooDeep = tooDeeplyNested(record, maxJsonDepth);
      if (tooDeep !== null) throw badRequest(tooDeep);
      const hasQuery = typeof record.query === 'string' && record.query !== '';
      // A hash-only persisted query has no text yet: usePersistedQueries supplies it.
      const persisted = (record.extensions as Record<string, unknown> | null | undefined)?.persistedQuery;
      if (!hasQuery && (persisted === undefined || persisted === null)) throw badRequest('Must provide a "query" string.');
    },
  };
}

function badRequest(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } });
}

function unsupportedMediaType(contentType: string | null): GraphQLError {
  return new GraphQLError(
    `A POST body of type ${contentType === null ? '(none)' : JSON.stringify(cap(contentType, 60))} cannot be read: send application/json (or application/graphql, multipart/form-data, application/x-www-form-urlencoded).`,
    { extensions: { code: 'UNSUPPORTED_MEDIA_TYPE', http: { status: 415 } } },
  );
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

function rejectRepeatedParams(searchParams: URLSearchParams): void {
  for (const name of GET_PARAMS) {
    if (searchParams.getAll(name).length > 1) throw badRequest(`The "${name}" parameter is given more than once.`);
  }
}

/** A parser's failure as a 400 that quotes little of the client's text. */
function readableParseError(error: unknown, request: Request, maxQuotedChars: number): unknown {
  if (error instanceof GraphQLError) {
    // Yoga's multipart parser refuses an `operations` or `map` field that is not JSON without a
    // code or status (answered 200): the caller's malformed request, as any other body.
    if (error.extensions.code === undefined) return badRequest(cap(error.message, maxQuotedChars));
    const original = error.extensions.originalError as { name?: unknown; message?: unknown } | undefined;
    if (typeof original?.message !== 'string' || original.message.length <= maxQuotedChars) return error;
    return new GraphQLError(error.message, {
      extensions: { ...error.extensions, originalError: { name: original.name, message: cap(original.message, maxQuotedChars) } },
    });
  }
  // Yoga's GET and form parsers JSON.parse `variables` and `extensions` and let a SyntaxError out.
  if (error instanceof SyntaxError) {
    const name = notJsonParam(request);
    const which = name === undefined ? 'The "variables" or "extensions" parameter' : `The "${name}" parameter`;
    return badRequest(`${which} is not valid JSON: ${cap(error.message, maxQuotedChars)}`);
  }
  return error;
}

function notJsonParam(request: Request): string | undefined {
  const searchParams = new URL(request.url, 'http://localhost').searchParams;
  return OBJECT_PARAMS.find((name) => {
    const text = searchParams.get(name);
    if (!text) return false;
    try {
      JSON.parse(text);
      return false;
    } catch {
      return true;
    }
  });
}

function cap(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}
