/**
 * Record demand: a query's upstream reads decode only the record fields the query can reach
 * (`upstream/demand.ts`), so a dashboard of 50 VMs does not build, check and keep alive every
 * field of its ~500 records.
 *
 * What an operation needs is worked out once per document (kept while the document is), from the
 * fields it selects on the GraphQL types backed by those records:
 * - a field exposed from the record (`exposeRecordFields`, or `t.expose('name')`) needs that record field;
 * - a field that declares what it reads (`extensions: reads<R>(...)`, `schema/kit/record-fields.ts`)
 *   needs those;
 * - `id` and `__typename` need only the uuid, which is always decoded;
 * - a field may also name fields of other record types it reads (`alsoReads`: a loader's keys);
 * - any other field needs the whole record: a resolver that says nothing is never starved.
 * The GraphQL types backed by records say so (`backedBy`, `schema/kit/record-fields.ts`), and the
 * definitions name the lists that embed them (`EMBEDDED_LISTS`).
 * Reaching an embedded type needs its list on the parent too (a VM's `vmNics` for a NIC, even
 * one loaded by id). Every operation of the document and every fragment counts, and `@skip`/
 * `@include` are ignored: too much is decoded rather than too little.
 *
 * Only queries are narrowed (`use-record-demand.ts` hands each query's demand to its context):
 * mutations and subscriptions decode whole records, so no write's logic ever reads a field its
 * selection left out.
 */
import {
  isAbstractType,
  isObjectType,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type GraphQLField,
  type GraphQLSchema,
} from 'graphql';
import { recordBehind } from '../schema/kit/record-fields.js';
import { demandOf, EMBEDDED_LISTS, type DemandedRecord, type RecordDemand } from '../upstream/demand.js';

/** What `document` needs decoded of each record type. */
export function recordDemandOf(schema: GraphQLSchema, document: DocumentNode): RecordDemand {
  const wanted: Partial<Record<DemandedRecord, Set<string> | 'all'>> = {};
  const need = (record: DemandedRecord, fields: readonly string[] | 'all'): void => {
    const known = wanted[record];
    if (known === 'all') return;
    if (fields === 'all') {
      wanted[record] = 'all';
      return;
    }
    const set = known ?? new Set<string>();
    for (const field of fields) set.add(field);
    wanted[record] = set;
  };
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        const parent = typeInfo.getParentType();
        if (parent === null) return;
        const types = isAbstractType(parent) ? schema.getPossibleTypes(parent) : isObjectType(parent) ? [parent] : [];
        for (const type of types) {
          const field = type.getFields()[node.name.value];
          const record = recordBehind(type.extensions);
          if (record !== undefined) need(record, recordFieldsRead(field, node.name.value));
          const others = (field?.extensions as { otherRecordFields?: Partial<Record<DemandedRecord, readonly string[]>> } | undefined)?.otherRecordFields;
          if (others !== undefined) for (const [other, fields] of Object.entries(others)) need(other as DemandedRecord, fields);
        }
      },
    }),
  );
  for (const { child, parent, list } of EMBEDDED_LISTS) if (wanted[child] !== undefined) need(parent, [list]);
  return demandOf(wanted);
}

/** The record fields a GraphQL field's resolver reads: none beyond the references, some, or all. */
function recordFieldsRead(field: GraphQLField<unknown, unknown> | undefined, name: string): readonly string[] | 'all' {
  if (name === 'id' || name.startsWith('__')) return [];
  const extensions = field?.extensions as { pothosExposedField?: unknown; recordFields?: unknown } | undefined;
  if (typeof extensions?.pothosExposedField === 'string') return [extensions.pothosExposedField];
  if (Array.isArray(extensions?.recordFields)) return extensions.recordFields as string[];
  return 'all';
}
