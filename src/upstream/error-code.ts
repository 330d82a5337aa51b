/**
 * The spec's ErrorCode structure, the one record decoded by hand: its `cause` chain nests, and a
 * chain deeper than `MAX_CAUSE_DEPTH` is refused. A failed answer carries one (`answers.ts`), and
 * so does a record that reports a failure of its own (a snapshot group deletion's item,
 * `records.ts`).
 */
import { asObject, DecodeError, requiredStr, str } from './wire.js';

/** The spec's ErrorCode structure, with its `cause` chain. */
export interface ErrorCodeRecord {
  code: string;
  description: string | null;
  details: string | null;
  elaboration: string | null;
  opaque: Record<string, unknown> | null;
  cause: ErrorCodeRecord | null;
  /** The real service may add these two; both optional. */
  location?: string | null;
  cost?: string | null;
}

/** ErrorCode causes nest; a chain deeper than this is not an error report but a loop or an attack. */
const MAX_CAUSE_DEPTH = 32;

/** Reads an ErrorCode; `path` names it in a `DecodeError`. */
export function decodeErrorCode(value: unknown, path = 'error'): ErrorCodeRecord {
  return decodeCauseChain(value, path, 0);
}

function decodeCauseChain(value: unknown, path: string, depth: number): ErrorCodeRecord {
  const o = asObject(value, path);
  if (depth > MAX_CAUSE_DEPTH) throw new DecodeError(path, 'ErrorCode cause chain is too deep');
  const opaque = o.opaque;
  const cause = o.cause;
  const record: ErrorCodeRecord = {
    code: requiredStr(o.code, 'code', path),
    description: str(o.description, 'description', path),
    details: str(o.details, 'details', path),
    elaboration: str(o.elaboration, 'elaboration', path),
    opaque: opaque === undefined || opaque === null ? null : asObject(opaque, `${path}.opaque`),
    cause: cause === undefined || cause === null ? null : decodeCauseChain(cause, `${path}.cause`, depth + 1),
  };
  if (o.location !== undefined) record.location = str(o.location, 'location', path);
  if (o.cost !== undefined) record.cost = str(o.cost, 'cost', path);
  return record;
}
