/**
 * Record demand: which fields of the large record types a read has to decode.
 *
 * A page of 50 VMs carries about 500 records (the VMs and their NICs, used IPs, volumes and
 * CD-ROMs; then their hosts, HBA ports and snapshot groups), most of their fields unselected by
 * any given query. Decoding every field made them all, kept every string they point at alive while
 * the operation waited on the upstream, and cost the gateway about a seventh of its CPU per
 * dashboard (`docs/performance/tuning.md`). A read made for a query can therefore say which fields it
 * needs; the others are left null (lists empty) without being read or checked.
 *
 * What is always decoded whatever the demand: what a definition marks so (`records.ts`: a uuid, a
 * snapshot reference's `volumeSnapshotUuid`, an embedded record's VM taken from its parent). A
 * demand only ever narrows the record types of `DEMANDED_RECORDS`; every other record is decoded
 * whole. The field lists are the definitions' own.
 */
import type { AnyRecordDefinition, FieldSpec, RecordOf } from './define-record.js';
import { DEMANDED_RECORDS } from './records.js';

/** Whether each field of a record type is decoded. */
export type FieldMask<R> = { readonly [K in keyof R]-?: boolean };

export type DemandedRecord = keyof typeof DEMANDED_RECORDS;

export type RecordDemand = { readonly [K in DemandedRecord]: FieldMask<RecordOf<(typeof DEMANDED_RECORDS)[K]>> };

const DEMANDED = Object.keys(DEMANDED_RECORDS) as DemandedRecord[];

/** Every field of every type: what reads outside a query (writes, events) decode. */
export const FULL_DEMAND: RecordDemand = buildDemand(() => true);

/**
 * A demand from the fields wanted per type (of a type absent from `wanted`, only the uuid). Masks
 * have their type's one shape (the definition's field order), so decoders read them monomorphically.
 */
export function demandOf(wanted: Partial<Record<DemandedRecord, ReadonlySet<string> | 'all'>>): RecordDemand {
  return buildDemand((type, field) => {
    const fields = wanted[type];
    return fields === 'all' || field === 'uuid' || (fields !== undefined && fields.has(field));
  });
}

function buildDemand(want: (type: DemandedRecord, field: string) => boolean): RecordDemand {
  const demand: Record<string, Record<string, boolean>> = {};
  for (const type of DEMANDED) {
    const mask: Record<string, boolean> = {};
    for (const field of DEMANDED_RECORDS[type].keys) mask[field] = want(type, field);
    demand[type] = mask;
  }
  return demand as unknown as RecordDemand;
}

/** An embedded record type, and the list of its parent that holds it. */
export interface EmbeddedList {
  readonly child: DemandedRecord;
  readonly parent: DemandedRecord;
  readonly list: string;
}

/**
 * Every list of a demanded record that embeds another demanded record, from the definitions;
 * innermost first (a used IP reaches its NIC before the NIC reaches its VM), so one pass over it
 * carries a demand up to the outermost record.
 */
export const EMBEDDED_LISTS: readonly EmbeddedList[] = embeddedListsOf();

function embeddedListsOf(): EmbeddedList[] {
  const lists: EmbeddedList[] = [];
  for (const parent of DEMANDED) {
    const definition: AnyRecordDefinition = DEMANDED_RECORDS[parent];
    for (const key of definition.keys) {
      const child = (definition.fields[key] as FieldSpec<unknown>).record?.name;
      if (child !== undefined && Object.hasOwn(DEMANDED_RECORDS, child)) lists.push({ child: child as DemandedRecord, parent, list: key });
    }
  }
  /** How many levels of demanded records a type embeds. */
  const depth = (type: DemandedRecord): number => Math.max(0, ...lists.filter((l) => l.parent === type).map((l) => depth(l.child) + 1));
  return lists.sort((a, b) => depth(a.child) - depth(b.child));
}
