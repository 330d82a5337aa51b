/**
 * Every error code the gateway sends, in one table: what a client branches on (`extensions.code`
 * of a GraphQL error, the `error` of a route's JSON body, the `code` of a failed job's error), the
 * HTTP status it comes with, and what it means. `npm run docs` writes
 * `docs/reference/error-codes.md` from it, and `test/errors/codes.test.ts` fails when `src/` sends
 * a code this table lacks, or when the table lists one nothing sends.
 *
 * The modules that send a code still spell it where they raise it (they are being restructured
 * apart from this table); what a payload's `userErrors[].code` can say is the `UserErrorCode`
 * enum (`upstream/error-codes.ts`, described in `schema/kit/user-errors.ts`), not listed here.
 */

/** Where a client meets a code. */
export type ErrorCodeWhere =
  /** The whole request is refused before anything runs: `errors` and no `data`, with an HTTP status. */
  | 'request'
  /** One field failed: null with this error in `errors`, the rest of the answer still comes (HTTP 200). */
  | 'field'
  /** One subscription or live query is refused or ended; the connection and its other operations go on. */
  | 'stream'
  /** The `code` of a failed job's upstream-style error (`userErrors[].upstream`, the deprecated `error`). */
  | 'job'
  /** The `{"error": <code>}` body of a route that is not GraphQL (`/readyz`, `/metrics`, the job webhook). */
  | 'route';

export interface ErrorCodeEntry {
  readonly code: string;
  /**
   * The HTTP status of the answer, for `Accept: application/graphql-response+json` (with
   * `application/json`, GraphQL errors of a request that reached execution answer 200). Absent
   * where no HTTP answer carries the code (a WebSocket message, an event of a stream).
   */
  readonly httpStatus?: number;
  readonly where: ErrorCodeWhere;
  /** When it is sent and what the client does about it (Markdown, one paragraph). */
  readonly meaning: string;
  /** The library that sends it, for a code no module of `src/` spells. */
  readonly sentBy?: 'graphql-yoga';
}

/** The APQ miss, shared by automatic persisted queries and trusted documents (Apollo's clients know it). */
export const PERSISTED_QUERY_NOT_FOUND = 'PERSISTED_QUERY_NOT_FOUND';

export const ERROR_CODES: readonly ErrorCodeEntry[] = [
  {
    code: 'BAD_REQUEST',
    httpStatus: 400,
    where: 'request',
    meaning:
      'The request is malformed: a body that is not JSON or not an object, a batch, a malformed `Content-Length`; `query` missing or not a string, `operationName` not a string, `variables` or `extensions` not an object (in a GET: not JSON) or nested more than 32 levels deep, a GET parameter given twice, a persisted-query hash that is not 64 hex digits or not the SHA-256 of the text sent with it. Over graphql-ws the operation gets it and the socket stays open. With `TRUSTED_DOCUMENTS`: no id, an id that is not a string of 1 to 256 characters, two different ids. A request target that is not a path (absolute form `http://host/graphql`, `*`, authority form), a `Host` header that makes no URL, a head node:http cannot parse, a multipart body whose `operations` or `map` is not JSON.',
  },
  {
    code: 'BAD_REQUEST',
    httpStatus: 405,
    where: 'request',
    meaning: 'A mutation sent with GET (send it with POST), or a method `/graphql` does not serve (`DELETE`, ...).',
    sentBy: 'graphql-yoga',
  },
  {
    code: 'BAD_REQUEST',
    httpStatus: 409,
    where: 'request',
    meaning: 'An operation posted to a single-connection SSE stream before the stream was opened.',
  },
  {
    code: 'BAD_REQUEST',
    httpStatus: 411,
    where: 'request',
    meaning: 'An operation posted to a single-connection SSE stream without `Content-Length`.',
  },
  {
    code: 'BAD_REQUEST',
    httpStatus: 431,
    where: 'request',
    meaning: 'The request headers are over 16 KB (node:http\'s bound); the connection is closed.',
  },
  {
    code: 'NOT_ACCEPTABLE',
    httpStatus: 406,
    where: 'request',
    meaning:
      'The `Accept` header names no type the endpoint answers in (`application/graphql-response+json`, `application/json`, `text/event-stream`, `multipart/mixed`), and nothing ran; or the operation streams its results (a subscription, `@live`, `@defer`/`@stream`) and was asked for as one JSON document: accept `text/event-stream` or `multipart/mixed`, or use graphql-ws. A single-connection SSE reservation (`PUT`) without `Accept: text/plain`. Always answered as JSON.',
  },
  {
    code: 'UNAUTHENTICATED',
    httpStatus: 401,
    where: 'request',
    meaning:
      'A credential (`Authorization`, `X-Resources-Authorization` or `X-Tenant-ID`, as a header or in graphql-ws `connectionParams`) is longer than 8,192 characters: no session or token is, so the request is refused before anything reads it (`extensions.credential`, `limit`; the value is never quoted or logged). Over graphql-ws each operation gets it and the socket stays open.',
  },
  {
    code: 'UNSUPPORTED_MEDIA_TYPE',
    httpStatus: 415,
    where: 'request',
    meaning: 'A POST body of a type the gateway does not read: send `application/json`.',
  },
  {
    code: 'REQUEST_ENTITY_TOO_LARGE',
    httpStatus: 413,
    where: 'request',
    meaning: 'The body is over `MAX_BODY_BYTES` (also when sent chunked, or posted to a single-connection SSE stream); the connection is closed.',
  },
  {
    code: 'CSRF_PREVENTED',
    httpStatus: 403,
    where: 'request',
    meaning:
      'A GET, or a POST of a form or plain text, without one of `X-GraphQL-Yoga-CSRF`, `Authorization`, `X-Resources-Authorization` or `X-Tenant-ID`: a request a browser could send cross-site without a preflight.',
  },
  {
    code: 'GRAPHQL_PARSE_FAILED',
    httpStatus: 400,
    where: 'request',
    meaning: 'The document is not GraphQL. (200 with `Accept: application/json`.)',
    sentBy: 'graphql-yoga',
  },
  {
    code: 'OPERATION_RESOLUTION_FAILURE',
    httpStatus: 400,
    where: 'request',
    meaning: '`operationName` names no operation of the document, or is missing while the document holds several.',
    sentBy: 'graphql-yoga',
  },
  {
    code: 'MAX_TOKENS_EXCEEDED',
    httpStatus: 400,
    where: 'request',
    meaning: 'The document has more than `MAX_TOKENS` lexical tokens (`extensions.limit`).',
  },
  {
    code: 'MAX_TOKEN_LENGTH_EXCEEDED',
    httpStatus: 400,
    where: 'request',
    meaning:
      'A name in the document is over 256 characters, or a string literal over 16,384 (`extensions.kind`: `name` or `string`, `limit`, `found`). Send long values as variables.',
  },
  {
    code: 'MAX_DEPTH_EXCEEDED',
    httpStatus: 400,
    where: 'request',
    meaning: 'Fields nest deeper than `MAX_DEPTH` (`extensions.limit`, `found`).',
  },
  {
    code: 'MAX_ALIASES_EXCEEDED',
    httpStatus: 400,
    where: 'request',
    meaning: 'More than `MAX_ALIASES` aliases in one operation (`extensions.limit`, `found`).',
  },
  {
    code: 'MAX_DIRECTIVES_EXCEEDED',
    httpStatus: 400,
    where: 'request',
    meaning: 'More than `MAX_DIRECTIVES` directives in one operation (`extensions.limit`, `found`).',
  },
  {
    code: 'GRAPHQL_VALIDATION_FAILED',
    httpStatus: 400,
    where: 'request',
    meaning:
      'The operation does not validate against the schema (an unknown field, a literal of the wrong type, a missing argument, introspection while `GRAPHIQL=false`), or it selects `__schema` more than `MAX_INTROSPECTION_SCHEMAS` times (`extensions.limit`, `found`). When a literal argument value is at fault, `extensions.field` is the path to it and `extensions.reason` why, as for `BAD_USER_INPUT`. (200 with `Accept: application/json`.)',
  },
  {
    code: 'NOT_IN_UPSTREAM_RELEASE',
    httpStatus: 400,
    where: 'request',
    meaning:
      'The operation names a field, argument or input field that the upstream release the gateway serves (`UPSTREAM_VERSION`) does not have: `extensions.coordinate` (`Host.nqn`), `since` (the release that brought it) and `upstreamVersion`.',
  },
  {
    code: 'BAD_USER_INPUT',
    httpStatus: 200,
    where: 'field',
    meaning:
      'A value the field refuses before any upstream call: a variable of the wrong type, a malformed scalar (`Uuid`, `DateTime`, ...), `first` outside 0..100, a global id this API did not issue (in its own slot of `nodes`), more than 100 ids in `nodes`, a malformed `_entities` representation or more than 1,000 of them (`extensions.argument`, `max`), an enum\'s fallback (`OTHER`, `UNKNOWN`) given as a filter value (`extensions.argument`, `field`). A variable or literal that does not coerce carries `extensions.field`, the path to the value in the shape of `UserError.field` (`["input", "volumeUuids", "1"]`, starting with the argument the variable is given to, whatever the variable is called), and `extensions.reason`: `REQUIRED` (missing or null), `UNKNOWN_FIELD` (an input field the type lacks) or `INVALID_VALUE`; such a variable fails the whole request before anything runs. Text in a variable that is not well-formed Unicode (a lone surrogate such as the JSON escape `\\ud800`), which cannot be sent upstream: `extensions.variable` and `path` point at it, and no upstream request is made.',
  },
  {
    code: 'BAD_USER_INPUT',
    httpStatus: 400,
    where: 'request',
    meaning: 'More than `MAX_MUTATIONS` mutations in one operation, aliases and fragments included (`extensions.limit`, `found`).',
  },
  {
    code: 'INVALID_CURSOR',
    httpStatus: 200,
    where: 'field',
    meaning:
      '`after` is malformed or altered, or was issued to another credential, for another connection or for other filter or order arguments: start again from the first page, without `after`. No upstream request is made.',
  },
  {
    code: 'CURSOR_EXPIRED',
    httpStatus: 200,
    where: 'field',
    meaning:
      '`after` can no longer be honoured: it was issued longer than `CURSOR_TTL_MS` ago, or the walk cannot resume exactly from the position it names (its record has gone from among records sharing its sort key to the second; or it is a cursor issued before 2.0 whose upstream cursor is gone). An upstream cursor that expired alone does not cause it: the walk resumes from the position. Start again from the first page, without `after`.',
  },
  {
    code: 'INVALID_CURSOR',
    where: 'stream',
    meaning: '`jobEvents(after:)` was given a string that is not a `Job.eventCursor`: subscribe without `after`, and list `jobs` to catch up.',
  },
  {
    code: 'CURSOR_EXPIRED',
    where: 'stream',
    meaning:
      '`jobEvents(after:)` names an event that is no longer kept (more than `REDIS_STREAM_MAX_LEN` jobs finished since), or one given before Redis lost its data (without Redis: before the gateway restarted): list `jobs` to catch up, then subscribe without `after`.',
  },
  {
    code: 'MAX_COST_EXCEEDED',
    httpStatus: 400,
    where: 'request',
    meaning: 'The operation\'s requested cost is over `MAX_COST` (`extensions.cost.requestedQueryCost`, `maximumQueryCost`).',
  },
  {
    code: 'RATE_LIMITED',
    httpStatus: 429,
    where: 'request',
    meaning:
      'The credential\'s cost budget (one over every replica with `REDIS_URL`) holds less than the operation\'s requested cost: retry after `extensions.retryAfter` seconds (also the `Retry-After` header); `extensions.cost.throttleStatus` shows the budget. A live query\'s run refused so is its last answer.',
  },
  {
    code: 'RATE_LIMITED',
    httpStatus: 200,
    where: 'field',
    meaning:
      'The client address spent its `UNVERIFIED_CALLS_PER_ADDRESS` upstream calls under credentials the upstream has not accepted yet: retry after `extensions.retryAfter` seconds.',
  },
  {
    code: 'UNAUTHENTICATED',
    httpStatus: 200,
    where: 'field',
    meaning:
      'The field needs a credential that was not sent (`extensions.credential` names the header; no upstream call), the upstream rejected it (`extensions.upstream`: `ID.1001`), or rejected it less than `REJECTED_CREDENTIAL_TTL_MS` ago (no upstream request, no `extensions.upstream`).',
  },
  {
    code: 'FORBIDDEN',
    httpStatus: 200,
    where: 'field',
    meaning: 'The upstream refused the caller (`ID.1002`, a tenant mismatch), or the job asked for was started with another credential.',
  },
  {
    code: 'NOT_FOUND',
    httpStatus: 200,
    where: 'field',
    meaning: 'No record (or job) with that id, or none your credential can see.',
  },
  {
    code: 'UPSTREAM_ERROR',
    httpStatus: 200,
    where: 'field',
    meaning:
      'The upstream answered an ErrorCode (`extensions.upstream`, with its cause chain). For a write the failure is data instead: the payload\'s `userErrors`.',
  },
  {
    code: 'UPSTREAM_BAD_REQUEST',
    httpStatus: 200,
    where: 'field',
    meaning: 'The upstream refused the request as malformed (400).',
  },
  {
    code: 'UPSTREAM_NOT_FOUND',
    httpStatus: 200,
    where: 'field',
    meaning: 'The upstream answered 404.',
  },
  {
    code: 'UPSTREAM_UNAVAILABLE',
    httpStatus: 200,
    where: 'field',
    meaning:
      'The upstream is unreachable or answered 5xx without an ErrorCode (after retries, for reads), its circuit breaker is open, or `UPSTREAM_MAX_QUEUED` calls already wait.',
  },
  {
    code: 'UPSTREAM_TIMEOUT',
    httpStatus: 200,
    where: 'field',
    meaning: 'No answer within `UPSTREAM_TIMEOUT_MS`, every attempt included.',
  },
  {
    code: 'UPSTREAM_PROTOCOL_ERROR',
    httpStatus: 200,
    where: 'field',
    meaning:
      'The upstream answered something unreadable: a selected field of the wrong type, a record without a valid uuid. A record of a page, of `nodes(ids:)` or of an embedded list is null alone, with this error at its own index; the other records answer.',
  },
  {
    code: PERSISTED_QUERY_NOT_FOUND,
    httpStatus: 200,
    where: 'request',
    meaning: 'A persisted-query hash the gateway does not know yet (`Cache-Control: no-store`): send the query text with it once (automatic persisted queries).',
  },
  {
    code: PERSISTED_QUERY_NOT_FOUND,
    httpStatus: 404,
    where: 'request',
    meaning: 'With `TRUSTED_DOCUMENTS`: an id the manifest does not hold (`Cache-Control: no-store`; a reload of the manifest may add it).',
  },
  {
    code: 'PERSISTED_QUERY_NOT_SUPPORTED',
    httpStatus: 400,
    where: 'request',
    meaning: 'A persisted query of a version other than 1 (`extensions.persistedQuery.version`).',
  },
  {
    code: 'PERSISTED_QUERY_ONLY',
    httpStatus: 400,
    where: 'request',
    meaning:
      'With `TRUSTED_DOCUMENTS`: a document sent as text (alone or beside an id), refused before it is parsed; with `GRAPHIQL=true` a text runs only if it selects introspection fields alone.',
  },
  {
    code: 'REDIS_UNAVAILABLE',
    httpStatus: 200,
    where: 'field',
    meaning:
      'With `REDIS_URL`, Redis is unreachable: mutations, `job(id)` and cursors whose key is not agreed yet fail; subscriptions, open or new, end with it once Redis stays away longer than `REDIS_RESUME_GRACE_MS` or returns without the results published meanwhile. Retry later (subscribe again); reads that need no Redis keep working.',
  },
  {
    code: 'REDIS_UNAVAILABLE',
    httpStatus: 503,
    where: 'route',
    meaning: 'A route that needs Redis (`/readyz`, `/metrics`, the job webhook) could not reach it.',
  },
  {
    code: 'INTERNAL',
    httpStatus: 500,
    where: 'route',
    meaning: 'A route that is not GraphQL failed unexpectedly; the log line carries the path.',
  },
  {
    code: 'OVERLOADED',
    httpStatus: 503,
    where: 'request',
    meaning:
      'More than `MAX_QUEUED_OPERATIONS` operations already wait for admission, or 10,000 single-connection SSE reservations wait to be opened: retry after `extensions.retryAfter` seconds (also the `Retry-After` header). Over graphql-ws the operation gets it; a live query whose first run is refused gets it and completes.',
  },
  {
    code: 'SUBSCRIBER_TOO_SLOW',
    where: 'stream',
    meaning:
      'An SSE subscriber of a shared execution (`jobEvents`) fell more than 1,000 events behind: its subscription ends with this error, the others go on; subscribe again. (A graphql-ws client that stops reading has its socket closed with code 4008 instead.)',
  },
  {
    code: 'TOO_MANY_SUBSCRIPTIONS',
    where: 'stream',
    meaning:
      'The socket already has `WS_MAX_SUBSCRIPTIONS_PER_SOCKET` subscriptions open (`extensions.per: "socket"`), the credential `MAX_SUBSCRIPTIONS_PER_CREDENTIAL` over WebSocket and SSE, on every replica together with `REDIS_URL` (`"credential"`), or the client address `UNVERIFIED_SUBSCRIPTIONS_PER_ADDRESS` under credentials the upstream has not accepted (`"address"`); `extensions.limit` is the cap. Only that subscription is refused.',
  },
  {
    code: 'TOO_MANY_LIVE_QUERIES',
    where: 'stream',
    meaning:
      'The socket already has `LIVE_MAX_PER_SOCKET` live queries open (`extensions.per: "socket"`), or the credential `LIVE_MAX_PER_CREDENTIAL`, on every replica together with `REDIS_URL` (`"credential"`); `extensions.limit` is the cap. Only that live query is refused: it gets this one answer and completes.',
  },
  {
    code: 'INTERNAL_SERVER_ERROR',
    httpStatus: 200,
    where: 'field',
    meaning: 'A bug: the error is masked ("Unexpected error.") and logged with the request id (`X-Request-ID`).',
    sentBy: 'graphql-yoga',
  },
  {
    code: 'GATEWAY.JOB_LOST',
    where: 'job',
    meaning:
      'The job\'s result could not be obtained: the upstream no longer knew the job, or gave no result before the polling deadline (30 minutes, its `apiTimeout`). The write may or may not have happened: read the record again. Its `userErrors[].code` is `RESULT_LOST`.',
  },
];
