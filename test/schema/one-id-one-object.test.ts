/**
 * One id, one object: every object the API returns under a Node `id`, on every path a read reaches
 * it by, carries the same values as `node(id:)` of that id, field by field. A normalized client
 * cache merges objects by id, so a partial copy (a candidate record's nulls) would overwrite the
 * values shown elsewhere. The selections are generated from the served schema, so a new field or
 * a new relation is covered without touching this test.
 */
import {
  buildClientSchema,
  getIntrospectionQuery,
  getNamedType,
  isEnumType,
  isLeafType,
  isNonNullType,
  isObjectType,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
  type IntrospectionQuery,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';

/** Whether a type implements Node (has a global `id`). */
function isNode(type: GraphQLObjectType): boolean {
  return type.getInterfaces().some((iface) => iface.name === 'Node');
}

function noRequiredArgs(field: GraphQLField<unknown, unknown>): boolean {
  return field.args.every((arg) => !isNonNullType(arg.type) || arg.defaultValue !== undefined);
}

/** The leaf fields of a type (scalars and enums) a client may select without arguments. */
function leaves(type: GraphQLObjectType): string[] {
  return Object.values(type.getFields())
    .filter((field) => noRequiredArgs(field) && (isLeafType(getNamedType(field.type)) || isEnumType(getNamedType(field.type))))
    .map((field) => field.name);
}

/** What an object of a Node type is compared on: its type, its id and every leaf field. */
function leafSelection(type: GraphQLObjectType): string {
  return `__typename ${leaves(type).join(' ')}`;
}

/**
 * The selection of `type`: its leaves when it is a Node, and every relation reaching a Node (a
 * single one, a list, a connection's `nodes`, or an object that holds Nodes), `depth` relations deep.
 */
function selectionOf(type: GraphQLObjectType, depth: number, path: ReadonlySet<string> = new Set()): string {
  const own = isNode(type) ? leafSelection(type) : '__typename';
  // A type already on the path (an error's `cause`) would recurse forever.
  if (depth === 0 || path.has(type.name)) return own;
  const inner = new Set([...path, type.name]);
  const parts: string[] = [own];
  for (const field of Object.values(type.getFields())) {
    if (!noRequiredArgs(field)) continue;
    const named = getNamedType(field.type);
    if (!isObjectType(named)) continue;
    if (named.name.endsWith('Connection')) {
      const item = getNamedType(named.getFields().nodes!.type);
      if (isObjectType(item)) parts.push(`${field.name} { nodes { ${selectionOf(item, depth - 1, inner)} } }`);
    } else if (named.name !== 'PageInfo') {
      parts.push(`${field.name} { ${selectionOf(named, isNode(named) ? depth - 1 : depth, inner)} }`);
    }
  }
  return parts.join(' ');
}

/** Every object with `__typename` and `id` in an answer, with where it was found. */
function collect(value: unknown, path: string, out: { id: string; path: string; object: Record<string, unknown> }[]): void {
  if (Array.isArray(value)) {
    value.forEach((item, index) => collect(item, `${path}.${index}`, out));
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const object = value as Record<string, unknown>;
  if (typeof object.id === 'string' && typeof object.__typename === 'string') out.push({ id: object.id, path, object });
  for (const [key, inner] of Object.entries(object)) collect(inner, `${path}.${key}`, out);
}

describe('one id, one object', () => {
  let harness: Harness;
  let schema: GraphQLSchema;

  beforeAll(async () => {
    harness = await startHarness();
    const introspection = await harness.gql<IntrospectionQuery>(getIntrospectionQuery());
    schema = buildClientSchema(introspection.data!);
  });

  afterAll(async () => {
    await harness.close();
  });

  it('every Node on every path a read reaches it by equals node(id:) of its id, field by field', { timeout: 120_000 }, async () => {
    const query = schema.getQueryType()!;
    const found: { id: string; path: string; object: Record<string, unknown> }[] = [];
    const types = new Set<string>();
    for (const field of Object.values(query.getFields())) {
      const named = getNamedType(field.type);
      if (!noRequiredArgs(field) || !isObjectType(named) || !named.name.endsWith('Connection')) continue;
      const item = getNamedType(named.getFields().nodes!.type) as GraphQLObjectType;
      const response = await harness.gql(`{ ${field.name}(first: 5) { nodes { ${selectionOf(item, 2)} } } }`);
      expect(response.errors, field.name).toBeUndefined();
      collect(response.data, field.name, found);
    }
    const byId = new Map<string, { path: string; object: Record<string, unknown> }[]>();
    for (const entry of found) byId.set(entry.id, [...(byId.get(entry.id) ?? []), entry]);
    const mismatches: string[] = [];
    for (const [id, seen] of byId) {
      const typeName = String(seen[0]!.object.__typename);
      const response = await harness.gql<{ node: Record<string, unknown> | null }>(
        `query One($id: ID!) { node(id: $id) { ... on ${typeName} { ${leafSelection(schema.getType(typeName) as GraphQLObjectType)} } } }`,
        { id },
      );
      const canonical = response.data?.node;
      if (!canonical) {
        mismatches.push(`${seen[0]!.path}: node(id:) answered no ${String(seen[0]!.object.__typename)}`);
        continue;
      }
      types.add(String(canonical.__typename));
      for (const { path, object } of seen) {
        for (const [key, value] of Object.entries(canonical)) {
          if (!(key in object)) continue; // a nested copy selected fewer fields (a type's leaves are selected wherever it is a Node)
          if (JSON.stringify(object[key]) !== JSON.stringify(value)) mismatches.push(`${path}.${key}: ${JSON.stringify(object[key])}, node(id:) ${JSON.stringify(value)}`);
        }
      }
    }
    // The path that used to carry partial volumes is among those compared.
    expect(found.some((entry) => entry.path.includes('.attachableDataVolumes.'))).toBe(true);
    expect(mismatches).toEqual([]);
    // The walk reached the Node types a read can reach (so a schema change that hides them fails here).
    expect([...types].sort()).toEqual(expect.arrayContaining(['Host', 'VmInstance', 'Volume', 'VmNic', 'VolumeSnapshotGroup']));
  });
});
