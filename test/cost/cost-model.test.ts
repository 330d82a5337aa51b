/**
 * The cost arithmetic alone, over a small schema and no server: what a document is charged before
 * it runs (requested) and what its answer is charged after (actual), rule by rule.
 */
import { buildSchema, getOperationAST, Kind, parse, type FragmentDefinitionNode, type GraphQLObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { actualCost, requestedCost, type CostModel } from '../../src/cost/cost-model.js';
import { callsPerParent, callsPerValueOf } from '../../src/schema/kit/upstream-calls.js';

const schema = buildSchema(/* GraphQL */ `
  interface Node { id: ID! }
  type PageInfo { hasNextPage: Boolean! endCursor: String }
  type Nic implements Node { id: ID! mac: String }
  type Vm implements Node {
    id: ID!
    name: String
    nics: [Nic!]!
    host: Host
    volumes(first: Int): VolumeConnection!
  }
  type Volume implements Node { id: ID! size: Int }
  type VolumeEdge { cursor: String! node: Volume! }
  type VolumeConnection { edges: [VolumeEdge!]! nodes: [Volume!]! pageInfo: PageInfo! totalCount: Int! }
  type VmEdge { cursor: String! node: Vm! }
  type VmConnection { edges: [VmEdge!]! nodes: [Vm!]! pageInfo: PageInfo! totalCount: Int! }
  type Host implements Node { id: ID! name: String uptime: Int }
  union Found = Vm | Host
  type Query {
    vms(first: Int): VmConnection!
    node(id: ID!): Node
    nodes(ids: [ID!]!): [Node]!
    search: [Found!]!
    version: String
  }
`);

// Two fields the way the schema kit marks them: a relation fetched per parent, and a lookup per id.
const vm = schema.getType('Vm') as GraphQLObjectType;
Object.assign(vm.getFields().host!, { extensions: callsPerParent() });
const query = schema.getQueryType()!;
Object.assign(query.getFields().nodes!, { extensions: callsPerValueOf('ids') });

const model: CostModel = { defaultPageSize: 10, maxPageSize: 50, listSize: 4, upstreamCallCost: 5 };

function input(document: string, variables: Record<string, unknown> = {}) {
  const parsed = parse(document);
  const fragments = Object.fromEntries(
    parsed.definitions.filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION).map((fragment) => [fragment.name.value, fragment]),
  );
  return { schema, operation: getOperationAST(parsed)!, fragments, variables };
}

const requested = (document: string, variables?: Record<string, unknown>): number => requestedCost(input(document, variables), model);

describe('the requested cost', () => {
  it('charges nothing for scalars and one per object', () => {
    expect(requested('{ version }')).toBe(0);
    expect(requested('{ node(id: "1") { id } }')).toBe(1);
  });

  it('counts a connection object once and `first` items under its nodes or edges', () => {
    // vms: 1; nodes: 3 items of 1 each.
    expect(requested('{ vms(first: 3) { totalCount nodes { id name } } }')).toBe(1 + 3);
    // edges: 3 items, each an edge (1) holding a node (1).
    expect(requested('{ vms(first: 3) { edges { cursor node { id } } } }')).toBe(1 + 3 * (1 + 1));
  });

  it('takes the default page without `first`, and caps `first` at the largest page', () => {
    expect(requested('{ vms { nodes { id } } }')).toBe(1 + model.defaultPageSize);
    expect(requested('{ vms(first: 10000) { nodes { id } } }')).toBe(1 + model.maxPageSize);
    expect(requested('{ vms(first: -5) { nodes { id } } }')).toBe(1);
  });

  it('reads `first` from a variable', () => {
    expect(requested('query ($n: Int) { vms(first: $n) { nodes { id } } }', { n: 7 })).toBe(1 + 7);
  });

  it('multiplies nested connections', () => {
    // 1 + 20 VMs × (1 + the volumes connection: 1 + 30 volumes)
    expect(requested('{ vms(first: 20) { nodes { volumes(first: 30) { nodes { size } } } } }')).toBe(1 + 20 * (1 + (1 + 30)));
  });

  it('counts a plain list as `listSize` items, and `nodes(ids:)` as its ids with their calls', () => {
    expect(requested('{ vms(first: 2) { nodes { nics { mac } } } }')).toBe(1 + 2 * (1 + model.listSize));
    // Three ids: three records, and three lookups of upstreamCallCost each.
    expect(requested('{ nodes(ids: ["a", "b", "c"]) { id } }')).toBe(3 + 3 * model.upstreamCallCost);
  });

  it('adds the calls a relation makes per parent, even when only a scalar of it is selected', () => {
    // Each VM: 1 + its host (1, and one upstream call).
    expect(requested('{ vms(first: 4) { nodes { host { name } } } }')).toBe(1 + 4 * (1 + 1 + model.upstreamCallCost));
  });

  it('counts fragments as if their fields were selected directly, once per response key', () => {
    const direct = requested('{ vms(first: 5) { nodes { id host { name } } } }');
    expect(requested('{ vms(first: 5) { nodes { ...V ...V } } } fragment V on Vm { id host { name } }')).toBe(direct);
    expect(requested('{ vms(first: 5) { nodes { ... on Vm { id host { name } } } } }')).toBe(direct);
    // Two aliases are two fields.
    expect(requested('{ a: vms(first: 5) { nodes { id } } b: vms(first: 5) { nodes { id } } }')).toBe(2 * (1 + 5));
  });

  it('leaves out what @skip and @include leave out, literal or variable', () => {
    expect(requested('{ vms(first: 5) @skip(if: true) { nodes { id } } version }')).toBe(0);
    expect(requested('query ($on: Boolean!) { vms(first: 5) @include(if: $on) { nodes { id } } }', { on: false })).toBe(0);
    expect(requested('query ($on: Boolean!) { vms(first: 5) @include(if: $on) { nodes { id } } }', { on: true })).toBe(1 + 5);
  });

  it('charges a union list for the fields of every member selected', () => {
    // search: listSize items, each 1 + a host relation call when a VM's host is selected.
    expect(requested('{ search { ... on Vm { host { id } } ... on Host { name } } }')).toBe(model.listSize * (1 + 1 + model.upstreamCallCost));
  });

  it('charges introspection by what it returns: every type of the schema for __schema.types', () => {
    const types = Object.keys(schema.getTypeMap()).length;
    expect(requested('{ __schema { types { name } } }')).toBe(1 + types);
  });
});

describe('the actual cost', () => {
  const actual = (document: string, data: unknown, variables?: Record<string, unknown>): number => actualCost(input(document, variables), data, model);

  it('counts the records really returned, not the page asked for', () => {
    const document = '{ vms(first: 50) { totalCount nodes { id name } } }';
    expect(actual(document, { vms: { totalCount: 2, nodes: [{ id: '1', name: 'a' }, { id: '2', name: 'b' }] } })).toBe(1 + 2);
    expect(actual(document, { vms: { totalCount: 0, nodes: [] } })).toBe(1);
    expect(requested(document)).toBe(1 + 50);
  });

  it('charges a null record nothing but still the calls of a field that resolved', () => {
    const document = '{ vms(first: 2) { nodes { host { name } } } }';
    // Two VMs: one with a host, one without (the relation was still asked upstream).
    const data = { vms: { nodes: [{ host: { name: 'h' } }, { host: null }] } };
    expect(actual(document, data)).toBe(1 + 2 * (1 + model.upstreamCallCost) + 1);
  });

  it('costs each record of an abstract list against its own type', () => {
    const document = '{ search { __typename ... on Vm { nics { mac } } ... on Host { name } } }';
    const data = { search: [{ __typename: 'Vm', nics: [{ mac: 'x' }, { mac: 'y' }, { mac: 'z' }] }, { __typename: 'Host', name: 'h' }] };
    expect(actual(document, data)).toBe(1 + 3 + 1);
  });

  it('is zero for no data', () => {
    expect(actual('{ vms(first: 3) { nodes { id } } }', null)).toBe(0);
  });

  it('never exceeds the requested cost for an answer within the page', () => {
    const document = 'query ($n: Int) { vms(first: $n) { edges { node { id host { name } volumes(first: 2) { nodes { size } } } } } }';
    const vmRecord = { node: { id: '1', host: { name: 'h' }, volumes: { nodes: [{ size: 1 }, { size: 2 }] } } };
    const data = { vms: { edges: [vmRecord, vmRecord, vmRecord] } };
    expect(actual(document, data, { n: 3 })).toBeLessThanOrEqual(requested(document, { n: 3 }));
    expect(actual(document, data, { n: 3 })).toBe(requested(document, { n: 3 }));
  });
});
