/**
 * Which upstream collections (record names of `src/upstream/records.ts`) a GraphQL type stands
 * for, so that a live query knows what it reads and a finished job what it changed:
 * - a type backed by a record (`backedBy`) stands for it;
 * - a type named as a record (`CbtTask` for `cbtTask`) stands for it;
 * - a connection (a type with `pageInfo`) stands for what its nodes stand for: a page that selects
 *   only `totalCount` still reads the collection.
 */
import { getNamedType, isAbstractType, isObjectType, type DocumentNode, type GraphQLNamedType, type GraphQLObjectType, type GraphQLSchema } from 'graphql';
import { recordBehind } from '../schema/kit/record-fields.js';
import { selectedFieldTypes } from '../schema/kit/selected-types.js';
import type { TouchedRecords } from '../schema/kit/mutation-kit.js';
import { RECORDS } from '../upstream/records.js';
import type { LiveChange, LiveCollection } from './invalidation.js';

/** The collections of the types of one schema, worked out once. */
export interface SchemaCollections {
  /** The collections `document` reads (kept while the document is). */
  readBy(document: DocumentNode): readonly LiveCollection[];
  /** What a finished write touched (`touchedBy`), as changes of collections. */
  changesOf(touched: TouchedRecords): LiveChange[];
}

export function schemaCollections(schema: GraphQLSchema): SchemaCollections {
  const byType = collectionsByType(schema);
  const byDocument = new WeakMap<DocumentNode, readonly LiveCollection[]>();
  return {
    readBy(document) {
      let collections = byDocument.get(document);
      if (!collections) {
        collections = readCollections(schema, document, byType);
        byDocument.set(document, collections);
      }
      return collections;
    },
    changesOf(touched) {
      const changes = new Map<LiveCollection, Set<string> | 'all'>();
      for (const type of touched.types) {
        for (const collection of byType.get(type) ?? []) {
          const known = changes.get(collection);
          if (known === 'all') continue;
          const uuids = known ?? new Set<string>();
          for (const uuid of touched.uuids) uuids.add(uuid);
          changes.set(collection, uuids);
        }
      }
      for (const type of touched.everyRecordOf) for (const collection of byType.get(type) ?? []) changes.set(collection, 'all');
      return [...changes].map(([collection, uuids]) => (uuids === 'all' ? { collection } : { collection, uuids: [...uuids] }));
    },
  };
}

function collectionOfType(type: GraphQLObjectType): LiveCollection | undefined {
  const backed = recordBehind(type.extensions);
  if (backed !== undefined) return backed;
  const named = type.name.charAt(0).toLowerCase() + type.name.slice(1);
  return Object.hasOwn(RECORDS, named) ? named : undefined;
}

/** Each object type's collections: its own, or its nodes' for a connection. */
function collectionsByType(schema: GraphQLSchema): Map<string, readonly LiveCollection[]> {
  const byType = new Map<string, readonly LiveCollection[]>();
  const objects = Object.values(schema.getTypeMap()).filter((type): type is GraphQLObjectType => isObjectType(type) && !type.name.startsWith('__'));
  for (const type of objects) {
    const own = collectionOfType(type);
    if (own !== undefined) byType.set(type.name, [own]);
  }
  for (const type of objects) {
    const fields = type.getFields();
    const edges = fields.edges ? getNamedType(fields.edges.type) : undefined;
    const node = fields.nodes ?? (edges && isObjectType(edges) ? edges.getFields().node : undefined);
    if (!fields.pageInfo || !node) continue;
    const found = new Set<LiveCollection>();
    for (const concrete of concreteTypes(schema, getNamedType(node.type))) for (const collection of byType.get(concrete.name) ?? []) found.add(collection);
    if (found.size > 0) byType.set(type.name, [...found]);
  }
  return byType;
}

function readCollections(schema: GraphQLSchema, document: DocumentNode, byType: Map<string, readonly LiveCollection[]>): readonly LiveCollection[] {
  const found = new Set<LiveCollection>();
  for (const type of selectedFieldTypes(schema, document)) {
    for (const concrete of concreteTypes(schema, type)) for (const collection of byType.get(concrete.name) ?? []) found.add(collection);
  }
  return [...found].sort();
}

function concreteTypes(schema: GraphQLSchema, type: GraphQLNamedType): readonly GraphQLObjectType[] {
  if (isObjectType(type)) return [type];
  if (isAbstractType(type)) return schema.getPossibleTypes(type);
  return [];
}
