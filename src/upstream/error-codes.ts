/**
 * What an upstream ErrorCode means to a caller, read the way the service writes them (its codes
 * and their wording: docs/upstream/assumptions.md#credentials-and-errors):
 *
 * - `classifyErrorCode`: the gateway's stable category of a failure (the `UserErrorCode` the
 *   schema shows), from the ErrorCode's `code` and, for the generic codes, its wording.
 * - `parameterNamedBy`: the parameter of the request a failure points at, where its text names
 *   one (`parameter [nqn]`, `field[nqn]`, `nqn[...] is not ...`) or names the value the caller
 *   sent in one (a uuid).
 *
 * Pure functions of the ErrorCode and the request: no GraphQL, no I/O.
 */
import type { ErrorCodeRecord } from './records.js';

/** The gateway's own, stable categories of a failed write, in the order the schema documents them. */
export const FAILURE_CATEGORIES = [
  'VALIDATION',
  'NOT_FOUND',
  'CONFLICT',
  'INVALID_STATE',
  'PERMISSION_DENIED',
  'UNAUTHENTICATED',
  'TIMEOUT',
  'OPERATION_FAILED',
  'UPSTREAM_INTERNAL',
  'RESULT_LOST',
  'OTHER',
] as const;

export type FailureCategory = (typeof FAILURE_CATEGORIES)[number];

/** Codes whose meaning the service fixes. */
const BY_CODE: Readonly<Record<string, FailureCategory>> = {
  'SYS.1000': 'UPSTREAM_INTERNAL',
  'SYS.1001': 'TIMEOUT',
  'SYS.1003': 'NOT_FOUND',
  'SYS.1006': 'OPERATION_FAILED',
  'SYS.1007': 'VALIDATION',
  'ID.1001': 'UNAUTHENTICATED',
  'ID.1002': 'PERMISSION_DENIED',
  'HOST.1010': 'INVALID_STATE',
  'VM.1010': 'INVALID_STATE',
  // The gateway's own: a job whose result could not be obtained (`jobs/manager.ts`).
  'GATEWAY.JOB_LOST': 'RESULT_LOST',
};

/**
 * The service reports a duplicate as an invalid argument or a failed operation whose text says
 * the thing exists already ("already belongs to", "is already in use", "Duplicate job uuid").
 */
const CONFLICT_WORDING = /\balready\b|\bduplicate\b/i;

/**
 * The stable category of an upstream failure. A generic failure (`SYS.1006` operation failed, or
 * a code the gateway does not know) takes the category of the first cause beneath it that has a
 * more telling one: a bond whose IP cannot be set because its host is disconnected fails
 * `SYS.1006` with `HOST.1010` beneath, which a caller acts on as `INVALID_STATE`.
 */
export function classifyErrorCode(error: ErrorCodeRecord): FailureCategory {
  const own = ownCategory(error);
  if ((own === 'OPERATION_FAILED' || own === 'OTHER') && error.cause !== null) {
    const beneath = classifyErrorCode(error.cause);
    if (beneath !== 'OTHER' && beneath !== 'OPERATION_FAILED') return beneath;
  }
  return own;
}

function ownCategory(error: ErrorCodeRecord): FailureCategory {
  const text = `${error.description ?? ''} ${error.details ?? ''}`;
  const known = BY_CODE[error.code];
  if ((known === 'VALIDATION' || known === 'OPERATION_FAILED') && CONFLICT_WORDING.test(text)) return 'CONFLICT';
  if (known !== undefined) return known;
  return CONFLICT_WORDING.test(text) ? 'CONFLICT' : 'OTHER';
}

/** A path into the request's parameters: a name, then an index when the value is one of a list's. */
export type ParameterPath = readonly [string] | readonly [string, number];

/**
 * The parameter a failure points at, or null when its text names none:
 * 1. a name the service brackets: `parameter [nqn]`, `field[nqn]`, `nqn[<value>]`, or a text that
 *    starts with the name (`name must not be empty`, `volumeMigrationAOs: ...`);
 * 2. else the value of one: a uuid the text names (`vm[uuid:<uuid>]`) that the caller sent in a
 *    parameter, or in an item of a list parameter (`[name, index]`).
 * The ErrorCode's causes are read too, the reported error first. `params` are the parameters sent
 * (or those of them kept); `names` every parameter the operation takes.
 */
export function parameterNamedBy(error: ErrorCodeRecord, params: Readonly<Record<string, unknown>>, names: readonly string[]): ParameterPath | null {
  const known = new Set(names);
  for (let level: ErrorCodeRecord | null = error; level !== null; level = level.cause) {
    for (const text of [level.details, level.description]) {
      if (!text) continue;
      const named = nameIn(text, known);
      if (named !== null) return [named];
      const valued = valueIn(text, params);
      if (valued !== null) return valued;
    }
  }
  return null;
}

const BRACKETED_NAME = /\b(?:parameter|field)\s*\[([A-Za-z][A-Za-z0-9]*)\]/g;
const NAME_WITH_VALUE = /\b([A-Za-z][A-Za-z0-9]*)\[(?!uuid:)/g;
const LEADING_NAME = /^([A-Za-z][A-Za-z0-9]*)(?::|\s+(?:must|is|are|needs|holds|cannot|should)\b)/;

function nameIn(text: string, known: ReadonlySet<string>): string | null {
  for (const pattern of [BRACKETED_NAME, NAME_WITH_VALUE]) {
    for (const match of text.matchAll(pattern)) if (known.has(match[1]!)) return match[1]!;
  }
  const leading = LEADING_NAME.exec(text);
  return leading !== null && known.has(leading[1]!) ? leading[1]! : null;
}

const UUID_IN_TEXT = /[0-9a-f]{32}/g;

function valueIn(text: string, params: Readonly<Record<string, unknown>>): ParameterPath | null {
  for (const [uuid] of text.matchAll(UUID_IN_TEXT)) {
    for (const [name, value] of Object.entries(params)) {
      if (value === uuid) return [name];
      if (Array.isArray(value)) {
        const index = value.indexOf(uuid);
        if (index >= 0) return [name, index];
      }
    }
  }
  return null;
}
