/**
 * Reading a write operation's parameters the way the real service's REST layer does: from
 * `params` (POST), from the action object (PUT), or from the body and the query string (DELETE).
 *
 * Two kinds of failure, as upstream: a parameter of the wrong JSON type is a REST-layer
 * rejection (`SimBadRequest`, 400 plain text, before any job); a missing required parameter, a
 * value outside its allowed set or a malformed uuid is an invalid argument (`SimError` SYS.1007,
 * the job fails).
 */
import { SimBadRequest, SimError, errorCode } from '../errors.js';

/** A parameter's wire type. `uuid`/`uuidList` are strings whose format is checked as a value. */
export type ParameterType =
  | 'string'
  | 'uuid'
  | 'boolean'
  | 'integer'
  | 'stringList'
  | 'uuidList'
  | 'objectList'
  | 'list'
  | 'map';

export interface ParameterSpec {
  type: ParameterType;
  required?: boolean;
  /** The allowed values of a closed set (checked case-sensitively, as upstream). */
  values?: readonly string[];
}

export type ParameterSpecs = Readonly<Record<string, ParameterSpec>>;

/** Where an operation's parameters travel. */
export type ParameterSource = { kind: 'params' } | { kind: 'action'; key: string } | { kind: 'delete' };

const UUID_PATTERN = /^[0-9a-f]{32}$/;
const NON_PARAMETER_KEYS = new Set(['params', 'systemTags', 'userTags']);

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_PATTERN.test(value);
}

/** The SYS.1007 failure every validation reports. */
export function invalidArgument(details: string): SimError {
  return new SimError(errorCode('SYS.1007', 'One or more API argument is invalid', details));
}

/**
 * Reads and type-checks the parameters of one request. Throws `SimBadRequest` when the body's
 * shape or a parameter's JSON type is wrong.
 */
export function readParameters(
  source: ParameterSource,
  specs: ParameterSpecs,
  body: Record<string, unknown>,
  query: URLSearchParams,
): Record<string, unknown> {
  checkTags(body);
  const raw = rawParameters(source, body, query);
  const values: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(specs)) {
    const found = raw.get(name);
    if (found === undefined || found.value === null || found.value === undefined) continue;
    values[name] = found.fromQuery ? fromQueryText(name, spec, String(found.value)) : checkType(name, spec, found.value);
  }
  return values;
}

/** A parameter as found; query-string values are text whatever their declared type. */
interface RawParameter {
  value: unknown;
  fromQuery: boolean;
}

function rawParameters(source: ParameterSource, body: Record<string, unknown>, query: URLSearchParams): Map<string, RawParameter> {
  const found = new Map<string, RawParameter>();
  const take = (entries: Record<string, unknown>) => {
    for (const [name, value] of Object.entries(entries)) found.set(name, { value, fromQuery: false });
  };
  switch (source.kind) {
    case 'params':
      take(objectAt(body, 'params') ?? {});
      break;
    case 'action': {
      const action = body[source.key];
      if (action !== null && action !== undefined && !isPlainObject(action)) {
        throw new SimBadRequest(`"${source.key}" must be a JSON object`);
      }
      take(action ?? {});
      break;
    }
    case 'delete':
      // DELETE parameters arrive in the query string (as most clients send them), at the top
      // of the body, or inside `params`; a later place overrides an earlier one.
      for (const name of new Set(query.keys())) found.set(name, { value: query.getAll(name).join(','), fromQuery: true });
      take(Object.fromEntries(Object.entries(body).filter(([name]) => !NON_PARAMETER_KEYS.has(name))));
      take(objectAt(body, 'params') ?? {});
      break;
  }
  return found;
}

function objectAt(body: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) throw new SimBadRequest(`"${key}" must be a JSON object`);
  return value;
}

function checkTags(body: Record<string, unknown>): void {
  for (const key of ['systemTags', 'userTags']) {
    const tags = body[key];
    if (tags === undefined || tags === null) continue;
    if (!Array.isArray(tags) || !tags.every((tag) => typeof tag === 'string')) {
      throw new SimBadRequest(`"${key}" must be a list of strings`);
    }
  }
}

function checkType(name: string, spec: ParameterSpec, value: unknown): unknown {
  const ok = (() => {
    switch (spec.type) {
      case 'string':
      case 'uuid':
        return typeof value === 'string';
      case 'boolean':
        return typeof value === 'boolean';
      case 'integer':
        return typeof value === 'number' && Number.isSafeInteger(value);
      case 'stringList':
      case 'uuidList':
        return Array.isArray(value) && value.every((item) => typeof item === 'string');
      case 'objectList':
        return Array.isArray(value) && value.every(isPlainObject);
      case 'list':
        return Array.isArray(value);
      case 'map':
        return isPlainObject(value);
    }
  })();
  if (!ok) throw new SimBadRequest(`parameter "${name}" must be ${describeType(spec.type)}`);
  return value;
}

function fromQueryText(name: string, spec: ParameterSpec, text: string): unknown {
  switch (spec.type) {
    case 'string':
    case 'uuid':
      return text;
    case 'boolean':
      if (text === 'true' || text === 'false') return text === 'true';
      break;
    case 'integer':
      if (/^-?\d+$/.test(text) && Number.isSafeInteger(Number(text))) return Number(text);
      break;
    case 'stringList':
    case 'uuidList':
      return text === '' ? [] : text.split(',');
    default:
      break;
  }
  throw new SimBadRequest(`query parameter "${name}" must be ${describeType(spec.type)}`);
}

function describeType(type: ParameterType): string {
  switch (type) {
    case 'string':
    case 'uuid':
      return 'a string';
    case 'boolean':
      return 'a boolean';
    case 'integer':
      return 'an integer';
    case 'stringList':
    case 'uuidList':
      return 'a list of strings';
    case 'objectList':
      return 'a list of objects';
    case 'list':
      return 'a list';
    case 'map':
      return 'an object';
  }
}

/** Checks required parameters, closed value sets and uuid formats; throws SYS.1007. */
export function validateParameters(specs: ParameterSpecs, values: Record<string, unknown>): void {
  for (const [name, spec] of Object.entries(specs)) {
    const value = values[name];
    if (value === undefined) {
      if (spec.required === true) throw invalidArgument(`missing required parameter [${name}]`);
      continue;
    }
    if (spec.required === true && typeof value === 'string' && value.trim() === '') {
      throw invalidArgument(`parameter [${name}] must not be empty`);
    }
    if (spec.values !== undefined && !spec.values.includes(value as string)) {
      throw invalidArgument(`parameter [${name}] must be one of ${spec.values.join(', ')}, not "${String(value)}"`);
    }
    if (spec.type === 'uuid' && !isUuid(value)) {
      throw invalidArgument(`parameter [${name}] is not a uuid (32 lowercase hexadecimal characters): "${String(value)}"`);
    }
    if (spec.type === 'uuidList') {
      const bad = (value as string[]).find((item) => !isUuid(item));
      if (bad !== undefined) throw invalidArgument(`parameter [${name}] holds a value that is not a uuid: "${bad}"`);
    }
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
