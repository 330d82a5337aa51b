/**
 * The schema as a Federation v2 subgraph (`@pothos/plugin-federation`): which records are
 * entities and how a router's representation of one is loaded, and the subgraph schema built from
 * the standalone one.
 *
 * An entity is keyed by its `uuid` (what the service and every other system name it by) and by
 * its global `id` (for a subgraph that kept what `id` answered). A representation is loaded through
 * the type's per-request DataLoader, the one its relations use, so `_entities` for 50 VMs and their
 * hosts costs the upstream reads a page of 50 VMs with their hosts costs.
 *
 * `node` and `nodes` stay out of the subgraph: a router cannot tell which subgraph an opaque id
 * belongs to, and another subgraph's `Query.node` would clash with ours. `interface Node` and
 * every record's `id` stay (an interface merges with another subgraph's `Node` of the same shape).
 */
import { printSubgraphSchema } from '@apollo/subgraph';
import type { ObjectRef, SchemaTypes } from '@pothos/core';
import { decodeGlobalID } from '@pothos/plugin-relay';
import type DataLoader from 'dataloader';
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import {
  GraphQLEnumType,
  GraphQLError,
  GraphQLInputObjectType,
  GraphQLInterfaceType,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLUnionType,
  type GraphQLFieldConfig,
  type InterfaceTypeDefinitionNode,
  type ObjectTypeDefinitionNode,
} from 'graphql';
import { builder } from '../../builder.js';
import type { GatewayContext } from '../../context.js';
import { schemaForRelease } from '../releases.js';
import { normalizeUuid } from './uuid.js';

const UUID = /^[0-9a-f]{32}$/;

/** Most representations one `_entities` call takes; more is `BAD_USER_INPUT`, refused before any upstream call. */
export const MAX_ENTITY_REPRESENTATIONS = 1000;

/** The Federation spec the subgraph links (Federation v2.6: what Apollo Router and Hive Gateway both compose). */
export const FEDERATION_LINK = 'https://specs.apollo.dev/federation/v2.6';

/** Query fields of the standalone schema the subgraph leaves out (see the module comment). */
const STANDALONE_ONLY_QUERY_FIELDS: readonly string[] = ['node', 'nodes'];

/** A representation as a router sends it: `__typename` and the fields of one `@key`. */
interface Representation {
  readonly uuid?: unknown;
  readonly id?: unknown;
}

type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer Types extends SchemaTypes> ? Types : never;

/** A record type whose objects a per-request DataLoader loads by uuid (`builder.loadableNode`). */
interface LoadableByUuid<Shape> {
  getDataloader(context: object): DataLoader<string, Shape, string>;
}

/**
 * Makes `ref`'s type an entity: `@key(fields: "uuid")` and `@key(fields: "id")`, a representation
 * loaded by its type's DataLoader. A malformed key fails its own slot with `BAD_USER_INPUT`,
 * before any upstream call.
 */
export function entityByUuid(ref: ObjectRef<BuilderTypes, unknown> & LoadableByUuid<unknown>, typeName: string): void {
  builder.asEntity(ref, {
    key: [builder.selection<{ uuid: string }>('uuid'), builder.selection<{ id: string }>('id')],
    // Async, so that a bad representation rejects its own slot instead of the whole `_entities`.
    resolveReference: async (representation: Representation, context) =>
      ref.getDataloader(context as GatewayContext).load(uuidOf(representation, typeName)),
  });
}

function uuidOf(representation: Representation, typeName: string): string {
  if (representation.uuid !== undefined) {
    const uuid = normalizeUuid(representation.uuid);
    if (uuid !== null) return uuid;
    throw badRepresentation(typeName, '`uuid` is not a uuid (32 hex digits, or the hyphenated 8-4-4-4-12 form).');
  }
  if (typeof representation.id !== 'string') throw badRepresentation(typeName, 'it has neither `uuid` nor `id`.');
  let decoded: { typename: string; id: string };
  try {
    decoded = decodeGlobalID(representation.id);
  } catch {
    throw badRepresentation(typeName, '`id` is not a global id of this API.');
  }
  if (decoded.typename !== typeName || !UUID.test(decoded.id)) throw badRepresentation(typeName, `\`id\` names no ${typeName}.`);
  return decoded.id;
}

function badRepresentation(typeName: string, reason: string): GraphQLError {
  return new GraphQLError(`A representation of ${typeName} names none: ${reason}`, {
    extensions: { code: 'BAD_USER_INPUT', argument: 'representations', type: typeName },
  });
}

/**
 * The subgraph schema: the standalone schema with `_service`, `_entities` and the federation
 * directives, without `node`/`nodes`, and with `_entities` bounded to
 * `MAX_ENTITY_REPRESENTATIONS`. With `release` (`UPSTREAM_VERSION`), only what that upstream
 * release offers, as the standalone schema (`schemaForRelease`), so a router plans no field the
 * upstream lacks. `_service { sdl }` prints this schema itself.
 */
export function buildSubgraphSchema(release?: string): GraphQLSchema {
  const built = builder.toSubGraphSchema({ linkUrl: FEDERATION_LINK, federationDirectives: ['@key', '@shareable'], sortSchema: true });
  const query = built.getQueryType();
  if (!query) throw new Error('the schema has no Query type');
  const fields: Record<string, GraphQLFieldConfig<unknown, unknown>> = {};
  for (const [name, field] of Object.entries(query.toConfig().fields)) {
    if (STANDALONE_ONLY_QUERY_FIELDS.includes(name)) continue;
    fields[name] = name === '_entities' ? bounded(field) : name === '_service' ? { ...field, resolve: () => ({ sdl: sdl() }) } : field;
  }
  // No astNode: the subgraph printer prints a type from its astNode when it has one, which still lists `node`.
  const subgraphQuery = new GraphQLObjectType({ ...query.toConfig(), fields, astNode: undefined });
  const config = built.toConfig();
  const subgraph = new GraphQLSchema({
    ...config,
    query: subgraphQuery,
    types: config.types.map((type) => (type === query ? subgraphQuery : type)),
  });
  const served = release === undefined ? subgraph : withTrimmedAstNodes(schemaForRelease(subgraph, release));
  let printed: string | undefined;
  const sdl = (): string => (printed ??= printSubgraphSchema(served));
  return served;
}

/**
 * The subgraph printer prints each type from its AST node when it has one (that is where its
 * `@key`s and `@shareable` are), and a filtered schema keeps the AST nodes of the full one: each
 * node is cut down to the fields, arguments, enum values, union members and interfaces its type
 * still has.
 */
function withTrimmedAstNodes(schema: GraphQLSchema): GraphQLSchema {
  const names = <N extends { readonly name: { readonly value: string } }>(nodes: readonly N[] | undefined, kept: (name: string) => boolean) =>
    nodes?.filter((node) => kept(node.name.value));
  const trimFields = <T extends ObjectTypeDefinitionNode | InterfaceTypeDefinitionNode>(node: T | null | undefined, type: GraphQLObjectType | GraphQLInterfaceType): T | undefined => {
    if (!node) return undefined;
    const fields = type.getFields();
    const interfaces = new Set(type.getInterfaces().map((implemented) => implemented.name));
    return {
      ...node,
      interfaces: names(node.interfaces, (name) => interfaces.has(name)),
      fields: node.fields
        ?.filter((field) => fields[field.name.value] !== undefined)
        .map((field) => ({ ...field, arguments: names(field.arguments, (arg) => fields[field.name.value]!.args.some((kept) => kept.name === arg)) })),
    };
  };
  return mapSchema(schema, {
    [MapperKind.OBJECT_TYPE]: (type) => new GraphQLObjectType({ ...type.toConfig(), astNode: trimFields(type.astNode, type) }),
    [MapperKind.INTERFACE_TYPE]: (type) => new GraphQLInterfaceType({ ...type.toConfig(), astNode: trimFields(type.astNode, type) }),
    [MapperKind.INPUT_OBJECT_TYPE]: (type) => {
      const node = type.astNode;
      return new GraphQLInputObjectType({ ...type.toConfig(), astNode: node && { ...node, fields: names(node.fields, (name) => type.getFields()[name] !== undefined) } });
    },
    [MapperKind.ENUM_TYPE]: (type) => {
      const node = type.astNode;
      return new GraphQLEnumType({ ...type.toConfig(), astNode: node && { ...node, values: names(node.values, (name) => type.getValue(name) !== undefined) } });
    },
    [MapperKind.UNION_TYPE]: (type) => {
      const node = type.astNode;
      const members = new Set(type.getTypes().map((member) => member.name));
      return new GraphQLUnionType({ ...type.toConfig(), astNode: node && { ...node, types: names(node.types, (name) => members.has(name)) } });
    },
  });
}

function bounded(field: GraphQLFieldConfig<unknown, unknown>): GraphQLFieldConfig<unknown, unknown> {
  const resolve = field.resolve;
  if (!resolve) throw new Error('_entities has no resolver');
  return {
    ...field,
    description: `Entities of this subgraph by their representations (at most ${MAX_ENTITY_REPRESENTATIONS}), for a router: each loaded as the records of a page are.`,
    resolve: (source, args: { representations?: unknown }, context, info) => {
      const count = Array.isArray(args.representations) ? args.representations.length : 0;
      if (count > MAX_ENTITY_REPRESENTATIONS) {
        throw new GraphQLError(`\`_entities\` takes at most ${MAX_ENTITY_REPRESENTATIONS} representations, got ${count}.`, {
          extensions: { code: 'BAD_USER_INPUT', argument: 'representations', max: MAX_ENTITY_REPRESENTATIONS },
        });
      }
      return resolve(source, args, context, info);
    },
  };
}
