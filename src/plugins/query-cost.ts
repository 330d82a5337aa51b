/**
 * The cost of an operation, in records: what the gateway may have to fetch and return for it.
 * The same formula gives the **requested** cost (before execution, from the document: `first`,
 * or the default page, for each connection) and the **actual** cost (after execution, from the
 * records really returned), so the two compare and the difference can be refunded.
 *
 * - a scalar or enum field costs 0; introspection fields (`__schema`, `__type`, `__typename`) too;
 * - an object field costs 1 plus its selection;
 * - a connection's `edges` and `nodes` count `first` items (the default page when omitted);
 * - any other list counts the length of its `ids` argument when it has one (`nodes(ids:)`),
 *   else `listSize` items;
 * - fragments count as if their fields were selected directly (an upper bound for unions).
 *
 * Nested connections multiply: `first: 100` three levels deep requests about a million records.
 */
import {
  getNamedType,
  getNullableType,
  isAbstractType,
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

export interface CostModel {
  /** Items assumed for a connection's page when `first` is omitted. */
  defaultPageSize: number;
  /** `first` above this counts as this (the field rejects it anyway). */
  maxPageSize: number;
  /** Items assumed for a plain list (a list embedded in a record). */
  listSize: number;
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

/** The actual cost of an operation, from the data it returned. */
export function actualCost(input: CostInput, data: unknown): number {
  const root = rootType(input.schema, input.operation);
  if (!root || !isRecord(data)) return 0;
  const plan = planOf(input);
  return dataCost(input, plan.fields, root, plan.root, data);
}

/** A selected field that returns records: its response key, its field and the type it returns. */
interface RecordField {
  key: string;
  field: MergedField;
  named: GraphQLNamedType;
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
    const named = getNamedType(definition.type);
    if (isLeafType(named)) continue;
    const args = argumentValues(field.node, input.variables);
    const items = isListType(getNullableType(definition.type))
      ? pageSize !== null && (field.node.name.value === 'edges' || field.node.name.value === 'nodes')
        ? pageSize
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
): number {
  let total = 0;
  for (const { key, field, named } of recordFields(input, cache, parent, selectionSets)) {
    total += recordsCost(input, cache, named, field, data[key]);
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
      if (!isLeafType(named)) fields.push({ key, field, named });
    }
    byType.set(parent, fields);
  }
  return fields;
}

/** Cost of the record(s) a field returned, walking nested lists without copying them. */
function recordsCost(input: CostInput, cache: FieldCache, named: GraphQLNamedType, field: MergedField, value: unknown): number {
  if (Array.isArray(value)) {
    let total = 0;
    for (const item of value) total += recordsCost(input, cache, named, field, item);
    return total;
  }
  if (!isRecord(value)) return 0;
  // An abstract field's records are costed against the fields their own type declares.
  return 1 + dataCost(input, cache, concreteType(input.schema, named, value), field.selections, value);
}

function concreteType(schema: GraphQLSchema, named: GraphQLNamedType, record: Record<string, unknown>): GraphQLNamedType {
  const typename = record.__typename;
  return typeof typename === 'string' ? (schema.getType(typename) ?? named) : named;
}

function fieldDefinition(schema: GraphQLSchema, parent: GraphQLNamedType, name: string): GraphQLField<unknown, unknown> | undefined {
  if (name.startsWith('__')) return undefined;
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

function pageSizeOf(args: Record<string, unknown>, model: CostModel): number {
  const first = args.first;
  if (typeof first !== 'number' || !Number.isFinite(first)) return model.defaultPageSize;
  return Math.min(Math.max(0, Math.floor(first)), model.maxPageSize);
}

function listLength(args: Record<string, unknown>, model: CostModel): number {
  const ids = args.ids;
  return Array.isArray(ids) ? ids.length : model.listSize;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
