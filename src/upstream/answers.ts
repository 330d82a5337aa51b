/**
 * What an upstream answer means: its status, headers and body text read as a result, a job's
 * polling address or state, or the typed error (`errors.ts`) it stands for. Pure functions of the
 * answer: no HTTP, no clock, so every status class is tested without a server
 * (`test/upstream/answers.test.ts`).
 *
 * The service's rule is "when `error` is null the operation succeeded; when not null it failed,
 * whatever the status"; ID.1001 and ID.1002 are about the caller, every other ErrorCode is
 * business. A status without an ErrorCode says what failed at the REST layer.
 */
import { DecodeError, RecordDecoder, asObject } from './decode.js';
import {
  UpstreamAuthenticationError,
  UpstreamBadRequestError,
  UpstreamBusinessError,
  UpstreamForbiddenError,
  UpstreamNotFoundError,
  UpstreamProtocolError,
  UpstreamUnavailableError,
  type UpstreamRequestError,
} from './errors.js';
import type { ErrorCodeRecord, Uuid } from './records.js';
import type { AsyncAccepted, JobPoll } from './types.js';

/** One HTTP answer of the upstream, its body read whole as text. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Upstream text quoted in an error message is cut to this length: enough to diagnose, no dump. */
const MAX_QUOTED_CHARS = 200;

// Errors do not know which decoder decoded them, and ErrorCode has no timestamps: any zone will do.
const errorDecoder = new RecordDecoder('UTC');

/**
 * The result `decode` reads from a successful answer, or the typed error the answer stands for:
 * a record the decoder refuses is an `UPSTREAM_PROTOCOL_ERROR`.
 */
export function readResult<T>(operation: string, answer: RawAnswer, decode: (body: Record<string, unknown>) => T): T {
  const body = readSuccess(operation, answer);
  try {
    return decode(body);
  } catch (error) {
    throw error instanceof DecodeError ? protocolError(operation, error, answer.status) : error;
  }
}

/** The JSON object of a 2xx answer whose `error` is null (`{}` for an empty body), or the error the answer stands for. */
export function readSuccess(operation: string, answer: RawAnswer): Record<string, unknown> {
  const parsed = parseJson(answer.text);
  if (!isSuccess(answer.status)) throw errorOfAnswer(operation, answer, parsed);
  const errorCode = errorCodeOf(parsed);
  if (errorCode !== null) throw errorOfCode(operation, answer.status, errorCode);
  if (answer.text.trim() === '') return {};
  if (parsed === undefined) throw protocolError(operation, new DecodeError('body', `expected JSON, got ${JSON.stringify(quote(answer.text))}`), answer.status);
  return objectOf(operation, parsed, answer.status);
}

/**
 * The answer to a write: 202 with its polling address (the body's `location`, else the `Location`
 * header), or 200 with the result of a write the service finished at once.
 */
export function readAccepted(operation: string, jobUuid: Uuid, answer: RawAnswer): AsyncAccepted {
  if (answer.status !== 202) {
    const result = readSuccess(operation, answer);
    return { location: null, jobUuid, apiTimeout: null, result };
  }
  const parsed = answer.text.trim() === '' ? {} : parseJson(answer.text);
  if (parsed === undefined) throw protocolError(operation, new DecodeError('body', 'a 202 answer must be JSON'), 202);
  const body = objectOf(operation, parsed, 202);
  const location = typeof body.location === 'string' ? body.location : headerValue(answer.headers, 'location');
  if (location === undefined || location === '') throw protocolError(operation, new DecodeError('body.location', 'a 202 answer carries no polling address'), 202);
  const apiTimeout = typeof body.apiTimeout === 'number' ? body.apiTimeout : null;
  return { location, jobUuid, apiTimeout };
}

/** One poll of a job: 202 running, 200 succeeded, an ErrorCode (503 or 2xx) failed; anything else the error it stands for. */
export function readJobPoll(answer: RawAnswer): JobPoll {
  const operation = 'PollJob';
  if (answer.status === 202) return { status: 'running' };
  const parsed = parseJson(answer.text);
  const errorCode = errorCodeOf(parsed);
  if (errorCode !== null && (answer.status === 503 || isSuccess(answer.status))) {
    return { status: 'failed', body: objectOf(operation, parsed, answer.status), error: errorCode };
  }
  if (answer.status === 200) {
    if (answer.text.trim() === '') return { status: 'succeeded', body: {} };
    if (parsed === undefined) throw protocolError(operation, new DecodeError('body', 'a finished job must answer JSON'), 200);
    return { status: 'succeeded', body: objectOf(operation, parsed, 200) };
  }
  throw errorOfAnswer(operation, answer, parsed);
}

/** The error an unsuccessful answer stands for: its ErrorCode's, else its status's. */
export function errorOfAnswer(operation: string, answer: RawAnswer, parsed: unknown = parseJson(answer.text)): UpstreamRequestError {
  const { status } = answer;
  const errorCode = errorCodeOf(parsed);
  if (errorCode !== null) return errorOfCode(operation, status, errorCode);
  const text = parsed === undefined ? quote(answer.text) : '';
  const said = text === '' ? '' : `: ${text}`;
  const details = { operation, status };
  if (status === 401) return new UpstreamAuthenticationError(`${operation}: the upstream rejected the credential (401)${said}`, details);
  if (status === 403) return new UpstreamForbiddenError(`${operation}: the upstream refused the caller (403)${said}`, details);
  if (status === 404) return new UpstreamNotFoundError(`${operation}: not found upstream (404)${said}`, details);
  if (status === 405) return new UpstreamProtocolError(`${operation}: the upstream does not allow this method (405)`, details);
  if (status >= 400 && status < 500) return new UpstreamBadRequestError(`${operation}: the upstream rejected the request (${status})${said}`, details);
  if (status >= 500) return new UpstreamUnavailableError(`${operation}: the upstream is unavailable (${status})${said}`, details);
  return new UpstreamProtocolError(`${operation}: unexpected upstream status ${status}`, details);
}

/** The error for an ErrorCode: ID.1001 and ID.1002 are about the caller, the rest business. */
export function errorOfCode(operation: string, status: number, errorCode: ErrorCodeRecord): UpstreamRequestError {
  const details = { operation, status, errorCode };
  const summary = `${operation}: ${errorCode.code}: ${errorCode.description ?? errorCode.details ?? 'upstream error'}`;
  if (errorCode.code === 'ID.1001') return new UpstreamAuthenticationError(summary, details);
  if (errorCode.code === 'ID.1002') return new UpstreamForbiddenError(summary, details);
  return new UpstreamBusinessError(errorCode, { operation, status });
}

/** The ErrorCode of `{"error": {...}}` with its cause chain, or null when the body carries none. */
export function errorCodeOf(body: unknown): ErrorCodeRecord | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const error = (body as Record<string, unknown>).error;
  if (typeof error !== 'object' || error === null || typeof (error as { code?: unknown }).code !== 'string') return null;
  try {
    return errorDecoder.errorCode(error, 'error');
  } catch {
    // An ErrorCode with a malformed member is still an ErrorCode: keep what can be read.
    const raw = error as Record<string, unknown>;
    return { code: String(raw.code), description: null, details: null, elaboration: null, opaque: null, cause: null };
  }
}

/** Does the body read as `{"error": {...}}`, the service's business or validation error answer? */
export function carriesErrorCode(body: Buffer | string): boolean {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  const parsed = parseJson(text);
  const error = (parsed as { error?: unknown } | undefined)?.error;
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string';
}

/** A record the decoder refused, as the caller sees it. */
export function protocolError(operation: string, error: DecodeError, status?: number): UpstreamProtocolError {
  return new UpstreamProtocolError(`${operation}: unexpected answer: ${error.message}`, { operation, status, cause: error });
}

function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

/** The parsed body when it is a JSON object or list, undefined otherwise (plain text, malformed JSON). */
function parseJson(text: string): unknown {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function objectOf(operation: string, parsed: unknown, status: number): Record<string, unknown> {
  try {
    return asObject(parsed, 'body');
  } catch (error) {
    throw error instanceof DecodeError ? protocolError(operation, error, status) : error;
  }
}

function headerValue(headers: RawAnswer['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function quote(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_QUOTED_CHARS ? `${flat.slice(0, MAX_QUOTED_CHARS)}…` : flat;
}
