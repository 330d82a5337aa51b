/**
 * Read your writes: what a finished write makes stale in the response cache, found from what the
 * mutation declares it touches and from the schema's connection types.
 */
import { getNamedType, isInterfaceType, isObjectType, isUnionType, type GraphQLNamedType, type GraphQLSchema } from 'graphql';
import type { Cache } from '@graphql-yoga/plugin-response-cache';

/** What a finished write touched, as the mutation kit declares it (`touchedBy`). */
export interface WrittenRecords {
  /** Record types it created, changed or removed. */
  types: readonly string[];
  /** Uuids of the records it changed or removed (or created). */
  uuids: readonly string[];
  /** Types of which any record may have changed. */
  everyRecordOf: readonly string[];
}

/** The types a mutation declares it touches (`WriteTouches` of the mutation kit). */
export interface DeclaredTouches {
  types: readonly string[];
  everyRecordOf?: readonly string[] | undefined;
}

/** Every mutation's declared touches, by mutation name (checked against the schema). */
export type DeclaredWrites = ReadonlyMap<string, DeclaredTouches>;

/**
 * Read your writes: drops every cached answer a finished write made stale. That is each answer
 * holding a record it changed or removed (`__typename` + `uuid`, the id the cache collects),
 * each answer holding a list (connection) of a type it touched, whose members, order or
 * `totalCount` may have changed, and each answer holding any record of a type it may change
 * wholesale. Throws at once when a declaration names a type the schema lacks, or leaves out a
 * record type its payload returns.
 */
export function createWriteInvalidation(cache: Cache, schema: GraphQLSchema, declared: DeclaredWrites): (written: WrittenRecords) => void {
  const connections = connectionTypesByNode(schema);
  for (const [mutation, touches] of declared) checkDeclaration(schema, mutation, touches);
  return (written) => {
    const entities: { typename: string; id?: string }[] = [];
    for (const typename of written.types) {
      // Uuids are unique across types: each matches only under its own type.
      for (const id of written.uuids) entities.push({ typename, id });
      for (const connection of connections.get(typename) ?? []) entities.push({ typename: connection });
    }
    for (const typename of written.everyRecordOf) entities.push({ typename });
    if (entities.length > 0) void cache.invalidate(entities);
  };
}

function checkDeclaration(schema: GraphQLSchema, mutation: string, touches: DeclaredTouches): void {
  for (const name of [...touches.types, ...(touches.everyRecordOf ?? [])]) {
    const type = schema.getType(name);
    if (!isObjectType(type)) throw new Error(`mutation ${mutation} touches ${name}, which is no object type of the schema`);
    if (touches.types.includes(name) && !('uuid' in type.getFields())) throw new Error(`mutation ${mutation} touches ${name}, which has no uuid`);
  }
  const missing = payloadRecordTypes(schema, mutation).filter((name) => !touches.types.includes(name));
  if (missing.length > 0) throw new Error(`mutation ${mutation} returns ${missing.join(', ')} but does not declare touching them`);
}

/** The record types (with a `uuid`) anywhere in a mutation's payload, other than its job. */
function payloadRecordTypes(schema: GraphQLSchema, mutationName: string): string[] {
  const field = schema.getMutationType()?.getFields()[mutationName];
  if (!field) return [];
  const found = new Set<string>();
  const seen = new Set<string>();
  const visit = (type: GraphQLNamedType): void => {
    if (seen.has(type.name)) return;
    seen.add(type.name);
    for (const concrete of concreteTypes(schema, type)) {
      const fields = concrete.getFields();
      if ('uuid' in fields) {
        found.add(concrete.name);
        continue;
      }
      for (const [name, child] of Object.entries(fields)) if (name !== 'job') visit(getNamedType(child.type));
    }
  };
  visit(getNamedType(field.type));
  return [...found];
}

/** Each record type's connection types: the object types whose `nodes` (or edges' `node`) are of it. */
function connectionTypesByNode(schema: GraphQLSchema): Map<string, string[]> {
  const byNode = new Map<string, string[]>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    const fields = type.getFields();
    const edges = fields.edges ? getNamedType(fields.edges.type) : undefined;
    const nodeField = fields.nodes ?? (edges && isObjectType(edges) ? edges.getFields().node : undefined);
    if (!fields.pageInfo || !nodeField) continue;
    for (const node of concreteTypes(schema, getNamedType(nodeField.type))) {
      byNode.set(node.name, [...(byNode.get(node.name) ?? []), type.name]);
    }
  }
  return byNode;
}

function concreteTypes(schema: GraphQLSchema, type: GraphQLNamedType) {
  if (isObjectType(type)) return [type];
  if (isUnionType(type) || isInterfaceType(type)) return schema.getPossibleTypes(type);
  return [];
}
