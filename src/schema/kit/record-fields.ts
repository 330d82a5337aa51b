/**
 * Field extensions with which a resolver says which record fields it reads, so a query decodes
 * only those (`useRecordDemand`, `upstream/demand.ts`). Exposed fields (`t.expose('name')`) need
 * none; a resolver of a record-backed type that declares nothing makes its query decode the whole
 * record. A record's `uuid` is always decoded.
 */
import type { AnyRecordDefinition } from '../../upstream/define-record.js';
import type { DemandedRecord, RecordDemand } from '../../upstream/demand.js';
import { DEMANDED_RECORDS } from '../../upstream/records.js';

/** The extension a record-backed object type carries (`backedBy`). */
export interface RecordTypeExtensions {
  readonly record: AnyRecordDefinition;
}

/**
 * `extensions: backedBy('vmInstance')`: the type's objects are records of that definition, so a
 * query selecting its fields decodes only those (`useRecordDemand`). `extensions` keeps the type's
 * other extensions.
 */
export function backedBy(record: DemandedRecord, extensions?: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  const backed: RecordTypeExtensions = { record: DEMANDED_RECORDS[record] };
  return { ...extensions, ...backed };
}

/** The demanded record type a GraphQL type's extensions say it is backed by, if any. */
export function recordBehind(extensions: Readonly<Record<string, unknown>> | null | undefined): DemandedRecord | undefined {
  const name = (extensions as Partial<RecordTypeExtensions> | null | undefined)?.record?.name;
  return name !== undefined && Object.hasOwn(DEMANDED_RECORDS, name) ? (name as DemandedRecord) : undefined;
}

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

/** The fields of `R` that hold a uuid (or null). */
type UuidFields<R> = { [K in keyof R & string]: R[K] extends string | null ? K : never }[keyof R & string];

/**
 * `t.field({ ...follows<VolumeRecord>('vmInstanceUuid'), type: VmInstanceRef, description })`: a
 * field that follows a uuid its record holds to the node it names, loaded by that node's
 * per-request loader (batched with every other); null when the record holds none, or when the
 * node cannot be read (with an error). It reads that one field of its record.
 */
export function follows<R>(field: UuidFields<R>) {
  return { nullable: true as const, extensions: reads<R>(field), resolve: (record: R) => record[field] as string | null };
}
