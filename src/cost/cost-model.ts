/**
 * The cost of an operation, in records: what the gateway may have to fetch and return for it.
 * The same formula gives the **requested** cost (before execution, from the document: `first`,
 * or the default page, for each connection) and the **actual** cost (after execution, from the
 * records really returned), so the two compare and the difference can be refunded.
 *
 * - a scalar or enum field costs 0 (`__typename` too);
 * - an object field costs 1 plus its selection;
 * - a connection's `edges` and `nodes` count `first` items (the default page when omitted);
 * - any other list counts the length of its `ids` argument when it has one (`nodes(ids:)`), or of
 *   its `representations` (a subgraph's `_entities`), else `listSize` items;
 * - a field that may cause upstream calls of its own (`schema/kit/upstream-calls.ts`: a relation the
 *   spec gives no batch form, per parent; `node`/`nodes`, per id) adds `upstreamCallCost` points
 *   per call, scalar or not;
 * - introspection (`__schema`, `__type`) costs what it returns: each object 1, each list of the
 *   introspection types the schema's own average length (`__Schema.types` as many as the schema
 *   has types, `__Type.fields` the fields per type, ...);
 * - fragments count as if their fields were selected directly (an upper bound for unions).
 *
 * Nested connections multiply: `first: 100` three levels deep requests about a million records.
 */
import {
  getNamedType,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  getNullableType,
  isAbstractType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isLeafType,
  isListType,
  isObjectType,
  Kind,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import { UPSTREAM_CALLS_EXTENSION, type UpstreamCallsHint } from '../schema/kit/upstream-calls.js';

export interface CostModel {
  /** Items assumed for a connection's page when `first` is omitted. */
  defaultPageSize: number;
  /** `first` above this counts as this (the field rejects it anyway). */
  maxPageSize: number;
  /** Items assumed for a plain list (a list embedded in a record). */
  listSize: number;
  /** Points per upstream call a field may cause of its own (see `UpstreamCallsHint`). */
  upstreamCallCost: number;
}

export interface CostInput {
  schema: GraphQLSchema;
  operation: OperationDefinitionNode;
  fragments: Readonly<Record<string, FragmentDefinitionNode>>;
  /** Coerced variable values. */
  variables: Readonly<Record<string, unknown>>;
}

/** A field selected under one response key, with the selection sets merged across its occurrences. */
interface MergedField {
  node: FieldNode;
  selections: SelectionSetNode[];
}

/** The requested cost of an operation, computed from its document before execution. */
export function requestedCost(input: CostInput, model: CostModel): number {
  const root = rootType(input.schema, input.operation);
  if (root === undefined) return 0;
  // Without variables the document alone decides the cost: worked out once per operation.
  const plan = input.operation.variableDefinitions?.length ? null : planOf(input);
  const known = plan?.requested.get(model);
  if (known !== undefined) return known;
  const cost = selectionCost(input, model, root, [input.operation.selectionSet], null);
  plan?.requested.set(model, cost);
  return cost;
}

/**
 * The actual cost of an operation, from the data it returned (and the upstream calls its fields
 * may have made: every field that resolved counts its calls, whatever it answered).
 */
export function actualCost(input: CostInput, data: unknown, model: Pick<CostModel, 'upstreamCallCost'>): number {
  const root = rootType(input.schema, input.operation);
  if (!root || !isRecord(data)) return 0;
  const plan = planOf(input);
  return dataCost(input, plan.fields, root, plan.root, data, model.upstreamCallCost);
}

/**
 * A selected field that returns records or causes upstream calls of its own: its response key,
 * its field, the type it returns (null for a leaf) and its calls per resolution.
 */
interface RecordField {
  key: string;
  field: MergedField;
  named: GraphQLNamedType | null;
  calls: number;
}

/**
 * The record-returning fields of each merged selection on each type, worked out once per
 * operation rather than once per record (variables, and so `@skip`/`@include`, are fixed within
 * one): the walk over the data then skips every scalar without looking at it. Child selections
 * come from the cached entries themselves, so their array identity is stable across the records
 * of a list.
 */
type FieldCache = Map<readonly SelectionSetNode[], Map<GraphQLNamedType, RecordField[]>>;

/** What is worked out once per operation: its record fields, and its requested cost when it has no variables. */
interface CostPlan {
  /** The operation's own selection set, as the stable first key of `fields`. */
  root: readonly SelectionSetNode[];
  fields: FieldCache;
  requested: WeakMap<CostModel, number>;
}

/**
 * Plans by schema and operation, so a document the parser cache hands out again is not walked
 * again (a third of the cost's time per dashboard, profiled). Only operations whose
 * `@skip`/`@include` use no variable share a plan: the record fields depend on those conditions.
 */
const plans = new WeakMap<GraphQLSchema, WeakMap<OperationDefinitionNode, CostPlan | null>>();

function planOf(input: CostInput): CostPlan {
  let bySchema = plans.get(input.schema);
  if (bySchema === undefined) {
    bySchema = new WeakMap();
    plans.set(input.schema, bySchema);
  }
  let plan = bySchema.get(input.operation);
  if (plan === undefined) {
    // null: this operation's plan depends on its variables, and is made for each execution.
    plan = conditionsUseVariables(input) ? null : freshPlan(input);
    bySchema.set(input.operation, plan);
  }
  return plan ?? freshPlan(input);
}

function freshPlan(input: CostInput): CostPlan {
  return { root: [input.operation.selectionSet], fields: new Map(), requested: new WeakMap() };
}

/** Whether a `@skip`/`@include` in the operation or its fragments takes its condition from a variable. */
function conditionsUseVariables(input: CostInput): boolean {
  if (!input.operation.variableDefinitions?.length) return false;
  const seen = new Set<string>();
  const visit = (set: SelectionSetNode): boolean =>
    set.selections.some((selection) => {
      if (selection.directives?.some((directive) => directive.arguments?.some((arg) => arg.value.kind === Kind.VARIABLE))) return true;
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const name = selection.name.value;
        const fragment = input.fragments[name];
        if (fragment === undefined || seen.has(name)) return false;
        seen.add(name);
        return visit(fragment.selectionSet);
      }
      return selection.selectionSet !== undefined && visit(selection.selectionSet);
    });
  return visit(input.operation.selectionSet);
}

function rootType(schema: GraphQLSchema, operation: OperationDefinitionNode): GraphQLNamedType | undefined {
  return schema.getRootType(operation.operation) ?? undefined;
}

/** A connection type: an object type with `edges` and `pageInfo` fields. */
function isConnection(type: GraphQLNamedType): boolean {
  if (!isObjectType(type)) return false;
  const fields = type.getFields();
  return 'edges' in fields && 'pageInfo' in fields;
}

function selectionCost(
  input: CostInput,
  model: CostModel,
  parent: GraphQLNamedType,
  selectionSets: readonly SelectionSetNode[],
  pageSize: number | null,
): number {
  let total = 0;
  for (const field of collectFields(input, selectionSets).values()) {
    const definition = fieldDefinition(input.schema, parent, field.node.name.value);
    if (definition === undefined) continue;
    const hint = callsHint(definition);
    const named = getNamedType(definition.type);
    if (isLeafType(named) && hint === undefined) continue;
    const args = argumentValues(field.node, input.variables);
    total += upstreamCalls(hint, args) * model.upstreamCallCost;
    if (isLeafType(named)) continue;
    const items = isListType(getNullableType(definition.type))
      ? pageSize !== null && (field.node.name.value === 'edges' || field.node.name.value === 'nodes')
        ? pageSize
        : isIntrospectionType(parent)
          ? introspectionListSize(input.schema, parent.name, field.node.name.value)
          : listLength(args, model)
      : 1;
    const childPage = isConnection(named) ? pageSizeOf(args, model) : null;
    total += items * (1 + selectionCost(input, model, named, field.selections, childPage));
  }
  return total;
}

function dataCost(
  input: CostInput,
  cache: FieldCache,
  parent: GraphQLNamedType,
  selectionSets: readonly SelectionSetNode[],
  data: Record<string, unknown>,
  callCost: number,
): number {
  let total = 0;
  for (const { key, field, named, calls } of recordFields(input, cache, parent, selectionSets)) {
    if (!(key in data)) continue;
    total += calls * callCost;
    if (named !== null) total += recordsCost(input, cache, named, field, data[key], callCost);
  }
  return total;
}

function recordFields(input: CostInput, cache: FieldCache, parent: GraphQLNamedType, selectionSets: readonly SelectionSetNode[]): RecordField[] {
  let byType = cache.get(selectionSets);
  if (byType === undefined) {
    byType = new Map();
    cache.set(selectionSets, byType);
  }
  let fields = byType.get(parent);
  if (fields === undefined) {
    fields = [];
    for (const [key, field] of collectFields(input, selectionSets)) {
      const definition = fieldDefinition(input.schema, parent, field.node.name.value);
      if (definition === undefined) continue;
      const named = getNamedType(definition.type);
      const hint = callsHint(definition);
      const calls = hint === undefined ? 0 : upstreamCalls(hint, argumentValues(field.node, input.variables));
      if (!isLeafType(named) || calls > 0) fields.push({ key, field, named: isLeafType(named) ? null : named, calls });
    }
    byType.set(parent, fields);
  }
  return fields;
}

/** Cost of the record(s) a field returned, walking nested lists without copying them. */
function recordsCost(input: CostInput, cache: FieldCache, named: GraphQLNamedType, field: MergedField, value: unknown, callCost: number): number {
  if (Array.isArray(value)) {
    let total = 0;
    for (const item of value) total += recordsCost(input, cache, named, field, item, callCost);
    return total;
  }
  if (!isRecord(value)) return 0;
  // An abstract field's records are costed against the fields their own type declares.
  return 1 + dataCost(input, cache, concreteType(input.schema, named, value), field.selections, value, callCost);
}

function concreteType(schema: GraphQLSchema, named: GraphQLNamedType, record: Record<string, unknown>): GraphQLNamedType {
  const typename = record.__typename;
  return typeof typename === 'string' ? (schema.getType(typename) ?? named) : named;
}

function fieldDefinition(schema: GraphQLSchema, parent: GraphQLNamedType, name: string): GraphQLField<unknown, unknown> | undefined {
  if (name.startsWith('__')) {
    // The introspection roots (answered by graphql-js itself, so absent from the Query type's fields).
    if (parent !== schema.getQueryType()) return undefined;
    if (name === '__schema') return SchemaMetaFieldDef;
    if (name === '__type') return TypeMetaFieldDef;
    return undefined;
  }
  if (isObjectType(parent)) return parent.getFields()[name];
  if (!isAbstractType(parent)) return undefined;
  const own = isInterfaceType(parent) ? parent.getFields()[name] : undefined;
  if (own !== undefined) return own;
  // A field of an inline fragment on a member type: whichever member declares it.
  for (const member of schema.getPossibleTypes(parent)) {
    const field = member.getFields()[name];
    if (field !== undefined) return field;
  }
  return undefined;
}

/** Fields by response key, fragments flattened, `@skip`/`@include` with literal or variable conditions honoured. */
function collectFields(input: CostInput, selectionSets: readonly SelectionSetNode[], into = new Map<string, MergedField>(), seen = new Set<string>()): Map<string, MergedField> {
  for (const set of selectionSets) {
    for (const selection of set.selections) {
      if (!included(selection.directives, input.variables)) continue;
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        const merged = into.get(key);
        if (merged === undefined) into.set(key, { node: selection, selections: selection.selectionSet ? [selection.selectionSet] : [] });
        else if (selection.selectionSet) merged.selections.push(selection.selectionSet);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        collectFields(input, [selection.selectionSet], into, seen);
      } else {
        const name = selection.name.value;
        const fragment = input.fragments[name];
        // A spread already expanded on this level adds nothing (and cycles end here).
        if (fragment === undefined || seen.has(name)) continue;
        seen.add(name);
        collectFields(input, [fragment.selectionSet], into, seen);
      }
    }
  }
  return into;
}

function included(directives: FieldNode['directives'], variables: Readonly<Record<string, unknown>>): boolean {
  for (const directive of directives ?? []) {
    const name = directive.name.value;
    if (name !== 'skip' && name !== 'include') continue;
    const argument = directive.arguments?.find((arg) => arg.name.value === 'if');
    const value = argument === undefined ? undefined : literal(argument.value, variables);
    if (name === 'skip' && value === true) return false;
    if (name === 'include' && value === false) return false;
  }
  return true;
}

function argumentValues(node: FieldNode, variables: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const argument of node.arguments ?? []) out[argument.name.value] = literal(argument.value, variables);
  return out;
}

/** The value of an argument as far as the cost needs it (numbers, lists, booleans). */
function literal(node: ValueNode, variables: Readonly<Record<string, unknown>>): unknown {
  switch (node.kind) {
    case Kind.VARIABLE:
      return variables[node.name.value];
    case Kind.INT:
    case Kind.FLOAT:
      return Number(node.value);
    case Kind.BOOLEAN:
      return node.value;
    case Kind.LIST:
      return node.values.map((value) => literal(value, variables));
    case Kind.NULL:
      return null;
    default:
      return undefined;
  }
}

function callsHint(definition: GraphQLField<unknown, unknown>): UpstreamCallsHint | undefined {
  return (definition.extensions as { [UPSTREAM_CALLS_EXTENSION]?: UpstreamCallsHint } | undefined)?.[UPSTREAM_CALLS_EXTENSION];
}

/** The upstream calls one resolution of a field may cause, by its hint and its arguments. */
function upstreamCalls(hint: UpstreamCallsHint | undefined, args: Record<string, unknown>): number {
  if (hint === undefined) return 0;
  let calls = hint.perParent ?? 0;
  if (hint.perValueOf !== undefined) {
    const value = args[hint.perValueOf];
    calls += Array.isArray(value) ? value.length : value === undefined || value === null ? 0 : 1;
  }
  return calls;
}

function isIntrospectionType(type: GraphQLNamedType): boolean {
  return type.name.startsWith('__');
}

/** Average lengths of the introspection types' lists in one schema: what a selection of them returns, on the whole. */
type IntrospectionSizes = ReadonlyMap<string, number>;

const introspectionSizes = new WeakMap<GraphQLSchema, IntrospectionSizes>();

function introspectionListSize(schema: GraphQLSchema, parent: string, field: string): number {
  let sizes = introspectionSizes.get(schema);
  if (sizes === undefined) {
    sizes = measureIntrospection(schema);
    introspectionSizes.set(schema, sizes);
  }
  return sizes.get(`${parent}.${field}`) ?? 1;
}

function measureIntrospection(schema: GraphQLSchema): IntrospectionSizes {
  const types = Object.values(schema.getTypeMap());
  const directives = schema.getDirectives();
  let fields = 0;
  let fieldArgs = 0;
  let interfaces = 0;
  let possibleTypes = 0;
  let enumValues = 0;
  let inputFields = 0;
  for (const type of types) {
    if (isObjectType(type) || isInterfaceType(type)) {
      const own = Object.values(type.getFields());
      fields += own.length;
      for (const field of own) fieldArgs += field.args.length;
      interfaces += type.getInterfaces().length;
    }
    if (isAbstractType(type)) possibleTypes += schema.getPossibleTypes(type).length;
    if (isEnumType(type)) enumValues += type.getValues().length;
    if (isInputObjectType(type)) inputFields += Object.keys(type.getFields()).length;
  }
  const average = (total: number, count: number): number => (count === 0 ? 0 : Math.ceil(total / count));
  return new Map([
    ['__Schema.types', types.length],
    ['__Schema.directives', directives.length],
    ['__Type.fields', average(fields, types.length)],
    ['__Type.interfaces', average(interfaces, types.length)],
    ['__Type.possibleTypes', average(possibleTypes, types.length)],
    ['__Type.enumValues', average(enumValues, types.length)],
    ['__Type.inputFields', average(inputFields, types.length)],
    ['__Field.args', average(fieldArgs, fields)],
    ['__Directive.args', average(directives.reduce((sum, directive) => sum + directive.args.length, 0), directives.length)],
  ]);
}

function pageSizeOf(args: Record<string, unknown>, model: CostModel): number {
  const first = args.first;
  if (typeof first !== 'number' || !Number.isFinite(first)) return model.defaultPageSize;
  return Math.min(Math.max(0, Math.floor(first)), model.maxPageSize);
}

/** A plain list's items: as many as the ids (`nodes(ids:)`) or entity representations (a subgraph's `_entities`) asked for, else `listSize`. */
function listLength(args: Record<string, unknown>, model: CostModel): number {
  const asked = args.ids ?? args.representations;
  return Array.isArray(asked) ? asked.length : model.listSize;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
