/**
 * Field extensions with which a field says how many upstream calls it may cause beyond the
 * batched loads every field shares, so that the query cost (`cost/query-cost.ts`) charges for
 * them: a relation the spec gives no batch form costs one call per parent record, `node(id:)` and
 * `nodes(ids:)` one call per id (an id of a record embedded in another, e.g. a host NIC, is read
 * through its parent's own call).
 */

/** How many upstream calls a field may cause each time it resolves. */
export interface UpstreamCallsHint {
  /** Calls per parent record (per resolution of the field). */
  readonly perParent?: number;
  /** One call per value of this argument (a list argument counts its length). */
  readonly perValueOf?: string;
}

/** The extension key the query cost reads. */
export const UPSTREAM_CALLS_EXTENSION = 'upstreamCalls';

/** `callsPerParent()`: one upstream call per parent record (a read the spec gives no batch form). */
export function callsPerParent(calls = 1): { [UPSTREAM_CALLS_EXTENSION]: UpstreamCallsHint } {
  return { [UPSTREAM_CALLS_EXTENSION]: { perParent: calls } };
}

/** `callsPerValueOf('ids')`: one upstream call per id the argument carries. */
export function callsPerValueOf(argument: string): { [UPSTREAM_CALLS_EXTENSION]: UpstreamCallsHint } {
  return { [UPSTREAM_CALLS_EXTENSION]: { perValueOf: argument } };
}
