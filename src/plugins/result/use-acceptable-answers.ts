/**
 * `useAcceptableAnswers`: every answer of the GraphQL endpoint is a GraphQL response with a code.
 * Yoga answered an empty 406 when no answer it could give matched the request's `Accept`: an
 * `Accept` naming no type it writes (after running the operation), or a streamed result (a
 * subscription, a `@live` query, `@defer`/`@stream`) asked for as a single JSON document.
 *
 * An `Accept` the gateway can answer none of is refused before the request is parsed, 406
 * `NOT_ACCEPTABLE`, so nothing runs for an answer nobody will read. A streamed result asked for as
 * JSON is stopped at once (its execution and upstream reads end) and answered 406
 * `NOT_ACCEPTABLE` saying which transports stream. Both are JSON, whatever was asked: a client
 * that accepts nothing else still gets the reason.
 */
import { GraphQLError } from 'graphql';
import { isAsyncIterable, processRegularResult, type Plugin } from 'graphql-yoga';

/** The media types the endpoint answers in; a client's `Accept` must name one, or a wildcard over one. */
const ANSWER_TYPES: readonly string[] = ['application/graphql-response+json', 'application/json', 'text/event-stream', 'multipart/mixed'];

/** The Content-Type of the refusals, which a client is sent whatever it accepts. */
const REFUSAL_TYPE = 'application/json';

export function useAcceptableAnswers(): Plugin {
  return {
    onRequestParse({ request }) {
      if (!acceptsAnAnswer(request.headers.get('accept'))) {
        throw new GraphQLError(`The Accept header names no type this endpoint answers in: accept one of ${ANSWER_TYPES.join(', ')}.`, {
          extensions: { code: 'NOT_ACCEPTABLE', http: { status: 406 } },
        });
      }
    },
    onResultProcess({ result, resultProcessor, setResultProcessor }) {
      if (resultProcessor !== undefined) return;
      if (isAsyncIterable(result)) {
        // Nobody will read the stream: its execution ends here rather than when it would next yield.
        void (result as Partial<AsyncIterator<unknown>>).return?.();
        const refusal = new GraphQLError(
          'This operation streams its results (a subscription, a @live query, @defer or @stream), which one JSON document cannot carry: accept text/event-stream or multipart/mixed, or send it over graphql-ws.',
          { extensions: { code: 'NOT_ACCEPTABLE', http: { status: 406 } } },
        );
        setResultProcessor((_result, fetchAPI) => processRegularResult({ errors: [refusal] }, fetchAPI, REFUSAL_TYPE), REFUSAL_TYPE);
        return;
      }
      // A request error whose answer matched no Accept: its own status and code, as JSON.
      setResultProcessor(processRegularResult, REFUSAL_TYPE);
    },
  };
}

/**
 * Whether `accept` (absent: anything) names a type of `ANSWER_TYPES` or a wildcard over one, read
 * as yoga reads it: a type with a charset other than UTF-8 names nothing.
 */
function acceptsAnAnswer(accept: string | null): boolean {
  if (accept === null || accept.trim() === '') return true;
  return accept
    .replace(/\s/g, '')
    .toLowerCase()
    .split(',')
    .some((range) => {
      const [mediaType = '', ...params] = range.split(';');
      const charset = params.find((param) => param.startsWith('charset='));
      if (charset !== undefined && charset !== 'charset=utf-8') return false;
      const [type, subtype] = mediaType.split('/');
      return ANSWER_TYPES.some((answer) => {
        const [answerType, answerSubtype] = answer.split('/');
        return (type === '*' || type === answerType) && (subtype === '*' || subtype === answerSubtype);
      });
    });
}
