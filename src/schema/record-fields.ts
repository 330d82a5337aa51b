/**
 * Field extensions with which a resolver says which record fields it reads, so a query decodes
 * only those (`useRecordDemand`, `upstream/demand.ts`). Exposed fields (`t.expose('name')`) need
 * none; a resolver of a record-backed type that declares nothing makes its query decode the whole
 * record. A record's `uuid` is always decoded.
 */
import type { DemandedRecord, RecordDemand } from '../upstream/demand.js';

/** `reads<R>(...fields)`: the fields of its own record (`R`, the parent's) a resolver reads. */
export function reads<R>(...fields: Array<keyof R & string>): { recordFields: readonly string[] } {
  return { recordFields: fields };
}

/**
 * `alsoReads(type, ...fields)`: fields of another record type a resolver reads, e.g. the VMs a
 * loader groups by `hostUuid`. Spread next to `reads`.
 */
export function alsoReads<T extends DemandedRecord>(
  type: T,
  ...fields: Array<keyof RecordDemand[T] & string>
): { otherRecordFields: Partial<Record<DemandedRecord, readonly string[]>> } {
  return { otherRecordFields: { [type]: fields } };
}
