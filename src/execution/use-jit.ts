/**
 * Compiles each operation once with graphql-jit and runs the compiled function instead of
 * graphql-js's interpreter: the dashboard's ~3,000 fields cost noticeably less CPU (see
 * docs/performance/overview.md). An operation runs on graphql-jit only where graphql-jit answers exactly as
 * graphql-js (the differential test, `test/execution/jit-differential.test.ts`, holds it to that);
 * these run on graphql-js:
 *
 * - subscriptions: graphql-jit hands a subscription field's `subscribe` resolver the operation's
 *   variables in place of the field's arguments, so `jobCompleted(id: "…")` saw no `id`;
 * - operations with `@defer`/`@stream`, which graphql-jit does not implement;
 * - operations with several root fields, one of them non-null: when that one fails, graphql-js
 *   answers `data: null` at once with the errors raised so far, graphql-jit once every root
 *   field has settled, with their errors too;
 * - a selection set repeating a field where one occurrence is under a variable's
 *   `@include`/`@skip`: graphql-js places the field where its first included occurrence is,
 *   graphql-jit where its first occurrence is;
 * - a request that leaves unset or null a variable written inside a list or input-object literal
 *   (`filter: { name: $name }`): graphql-jit sets the field to null where graphql-js leaves it out
 *   or gives it its default, and takes null where graphql-js refuses it (a non-null field or item);
 * - a request that sets to null a variable of `@include(if:)`/`@skip(if:)` (graphql-js refuses it,
 *   graphql-jit reads it as false);
 * - a document graphql-jit cannot compile.
 *
 * graphql-jit also ignores the default value of a non-null variable (`$n: Int! = 2` left unset
 * answered "was not provided"): every variable the request leaves unset is handed to it with its
 * default, as the client could have sent it. A document is compiled per operation name (a
 * document holding several operations ran the first one compiled for every request), and
 * rewritten so its fields come out in the document's order (`inCollectionOrder`). Errors get the
 * source positions yoga needs to give them `locations`, and come first, as graphql-js has them.
 */
import {
  BREAK,
  getOperationAST,
  GraphQLError,
  isNonNullType,
  Kind,
  valueFromASTUntyped,
  visit,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';

/** How graphql-jit runs one operation of a document. */
interface JitPlan {
  readonly compiled: CompiledQuery;
  /** Variables with a default value: name and default, as JSON a client would send. */
  readonly defaults: readonly (readonly [string, unknown])[];
  /** Variables written inside a list or input-object literal: they must be set, and not null, for graphql-jit to run it. */
  readonly inLiterals: readonly string[];
  /** Variables of `@include(if:)`/`@skip(if:)`: they must not be null for graphql-jit to run it. */
  readonly inConditions: readonly string[];
}

type Variables = Readonly<Record<string, unknown>>;

export function useJit(): Plugin {
  const plans = new WeakMap<DocumentNode, Map<string, JitPlan | GraphqlJsReason>>();

  function planOf(args: ExecutionArgs): JitPlan | GraphqlJsReason {
    const name = args.operationName ?? '';
    let byOperation = plans.get(args.document);
    if (!byOperation) {
      byOperation = new Map();
      plans.set(args.document, byOperation);
    }
    let plan = byOperation.get(name);
    if (plan === undefined) {
      plan = compilePlan(args.schema, args.document, args.operationName ?? null);
      byOperation.set(name, plan);
    }
    return plan;
  }

  return {
    onExecute({ executeFn, setExecuteFn }) {
      // Decided on the arguments execution receives: the response cache hands on a document of
      // its own (with `__typename` and ids added).
      setExecuteFn((args) => {
        const plan = planOf(args);
        const variables = typeof plan === 'string' ? null : jitVariables(plan, args.variableValues ?? {});
        if (typeof plan === 'string' || !variables) return executeFn(args);
        const result = plan.compiled.query(args.rootValue, args.contextValue, variables) as ExecutionResult | Promise<ExecutionResult>;
        return isPromise(result) ? result.then((settled) => locatedInSource(settled, args.document)) : locatedInSource(result, args.document);
      });
    },
  };
}

/** Why an operation runs on graphql-js rather than graphql-jit. */
export type GraphqlJsReason =
  | 'subscription'
  | 'incremental delivery'
  | 'several root fields, one non-null'
  | 'a repeated field under a variable condition'
  | 'not compiled'
  | 'unset or null variable inside a literal'
  | 'null condition';

/**
 * Why an operation with these variables runs on graphql-js, or null when graphql-jit runs it (for
 * tests and measurements; execution decides by the same rules).
 */
export function graphqlJsReason(schema: GraphQLSchema, document: DocumentNode, operationName: string | null, variables: Variables): GraphqlJsReason | null {
  const plan = compilePlan(schema, document, operationName);
  if (typeof plan === 'string') return plan;
  if (jitVariables(plan, variables) !== null) return null;
  return plan.inConditions.some((name) => variables[name] === null) ? 'null condition' : 'unset or null variable inside a literal';
}

/**
 * The result with graphql-jit's errors made graphql-js's: they carry line and column but not the
 * source position yoga rebuilds every error from, so they reached the client without `locations`.
 */
function locatedInSource(result: ExecutionResult, document: DocumentNode): ExecutionResult {
  const source = document.loc?.source;
  if (!result.errors?.length || !source) return result;
  const lineStarts = [0];
  for (let at = source.body.indexOf('\n'); at !== -1; at = source.body.indexOf('\n', at + 1)) lineStarts.push(at + 1);
  const { errors: jitErrors, data, ...rest } = result;
  const errors = jitErrors.map((error) => {
    if (error.nodes || !error.locations?.length) return error;
    const positions = error.locations.map(({ line, column }) => (lineStarts[line - 1] ?? 0) + column - 1);
    return new GraphQLError(error.message, { source, positions, path: error.path ?? null, originalError: error.originalError ?? null, extensions: error.extensions });
  });
  // graphql-js's order: errors first.
  return { errors, data, ...rest };
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as Promise<T> | undefined)?.then === 'function';
}

/** The plan of an operation graphql-jit can run, or why it runs on graphql-js. */
function compilePlan(schema: GraphQLSchema, document: DocumentNode, operationName: string | null): JitPlan | GraphqlJsReason {
  const operation = getOperationAST(document, operationName);
  if (!operation) return 'not compiled';
  if (operation.operation === 'subscription') return 'subscription';
  if (usesIncrementalDelivery(document)) return 'incremental delivery';
  if (mayEndEarly(schema, document, operation)) return 'several root fields, one non-null';
  if (hasConditionalRepeats(document, operation)) return 'a repeated field under a variable condition';
  const compiled = compileQuery(schema, inCollectionOrder(document), operationName ?? undefined);
  if (!isCompiledQuery(compiled)) return 'not compiled';
  const defaults = (operation.variableDefinitions ?? []).flatMap((definition) =>
    definition.defaultValue ? [[definition.variable.name.value, valueFromASTUntyped(definition.defaultValue)] as const] : [],
  );
  const { inLiterals, inConditions } = variableUses(document);
  return { compiled, defaults, inLiterals, inConditions };
}

/**
 * Whether graphql-js may answer before every root field has settled: when a non-null root field
 * fails, it answers `data: null` at once with the errors raised so far, where graphql-jit waits for
 * the other root fields and reports their errors too.
 */
function mayEndEarly(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): boolean {
  const root = schema.getRootType(operation.operation);
  if (!root) return false;
  const fields = rootFields(document, operation.selectionSet, new Set());
  return fields.length > 1 && fields.some((name) => isNonNullType(root.getFields()[name]?.type));
}

/** The root fields an operation selects, through its fragments, whatever their directives. */
function rootFields(document: DocumentNode, selectionSet: SelectionSetNode, visited: Set<string>): string[] {
  return selectionSet.selections.flatMap((selection) => {
    if (selection.kind === Kind.FIELD) return selection.name.value === '__typename' ? [] : [selection.name.value];
    if (selection.kind === Kind.INLINE_FRAGMENT) return rootFields(document, selection.selectionSet, visited);
    const name = selection.name.value;
    if (visited.has(name)) return [];
    visited.add(name);
    const fragment = document.definitions.find(
      (definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION && definition.name.value === name,
    );
    return fragment ? rootFields(document, fragment.selectionSet, visited) : [];
  });
}

/**
 * The document rewritten so graphql-jit answers its fields in graphql-js's order (the document's):
 * graphql-jit collects a selection set's own fields first, then its fragments last to first, so
 * `{ ...Parts name }` answered `name` before the fragment's fields. Here each run of fields after
 * the first fragment is wrapped in a fragment without a type condition, and the fragments are
 * listed last to first. Every node is a copy: graphql-jit writes its own properties on the field
 * nodes it compiles, which must not reach the document yoga keeps for the next request.
 */
function inCollectionOrder(document: DocumentNode): DocumentNode {
  return {
    ...document,
    definitions: document.definitions.map((definition) =>
      definition.kind === Kind.OPERATION_DEFINITION || definition.kind === Kind.FRAGMENT_DEFINITION
        ? { ...definition, selectionSet: reorderedSelectionSet(definition.selectionSet) }
        : definition,
    ),
  };
}

function reorderedSelectionSet(selectionSet: SelectionSetNode): SelectionSetNode {
  const selections = selectionSet.selections.filter((selection) => condition(selection) !== 'never').map(copiedSelection);
  const firstFragment = selections.findIndex((selection) => selection.kind !== Kind.FIELD);
  if (firstFragment === -1) return { ...selectionSet, selections };
  const items: SelectionNode[] = [];
  let fields: FieldNode[] = [];
  const wrapFields = (): void => {
    if (fields.length === 0) return;
    items.push({ kind: Kind.INLINE_FRAGMENT, selectionSet: { kind: Kind.SELECTION_SET, selections: fields } });
    fields = [];
  };
  for (const selection of selections.slice(firstFragment)) {
    if (selection.kind === Kind.FIELD) {
      fields.push(selection);
      continue;
    }
    wrapFields();
    items.push(selection);
  }
  wrapFields();
  return { ...selectionSet, selections: [...selections.slice(0, firstFragment), ...items.reverse()] };
}

function copiedSelection(selection: SelectionNode): SelectionNode {
  if (selection.kind === Kind.FRAGMENT_SPREAD) return { ...selection };
  if (selection.kind === Kind.INLINE_FRAGMENT) return { ...selection, selectionSet: reorderedSelectionSet(selection.selectionSet) };
  return selection.selectionSet ? { ...selection, selectionSet: reorderedSelectionSet(selection.selectionSet) } : { ...selection };
}

/**
 * Whether a response key is selected more than once in one selection set with an occurrence
 * under a variable's `@include`/`@skip`: graphql-js places the key where its first included
 * occurrence is, graphql-jit where its first occurrence is, included or not.
 */
function hasConditionalRepeats(document: DocumentNode, operation: OperationDefinitionNode): boolean {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const check = (selectionSets: readonly SelectionSetNode[]): boolean => {
    const byKey = new Map<string, { conditional: boolean; fields: FieldNode[] }>();
    const visited = new Set<string>();
    const collect = (selectionSet: SelectionSetNode, underCondition: boolean): void => {
      for (const selection of selectionSet.selections) {
        const included = condition(selection);
        if (included === 'never') continue;
        const conditional = underCondition || included === 'variable';
        if (selection.kind === Kind.FIELD) {
          const key = selection.alias?.value ?? selection.name.value;
          const entry = byKey.get(key) ?? { conditional: false, fields: [] };
          entry.conditional ||= conditional;
          entry.fields.push(selection);
          byKey.set(key, entry);
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          collect(selection.selectionSet, conditional);
        } else if (!visited.has(selection.name.value)) {
          visited.add(selection.name.value);
          const fragment = fragments.get(selection.name.value);
          if (fragment) collect(fragment.selectionSet, conditional);
        }
      }
    };
    for (const selectionSet of selectionSets) collect(selectionSet, false);
    for (const { conditional, fields } of byKey.values()) {
      if (conditional && fields.length > 1) return true;
      const below = fields.flatMap((field) => (field.selectionSet ? [field.selectionSet] : []));
      if (below.length > 0 && check(below)) return true;
    }
    return false;
  };
  return check([operation.selectionSet]);
}

/** Whether a selection is always included, never (a literal `@skip(if: true)`), or as a variable says. */
function condition(selection: SelectionNode): 'always' | 'never' | 'variable' {
  let result: 'always' | 'never' | 'variable' = 'always';
  for (const directive of selection.directives ?? []) {
    const name = directive.name.value;
    if (name !== 'include' && name !== 'skip') continue;
    const value = directive.arguments?.find((argument) => argument.name.value === 'if')?.value;
    if (value?.kind === Kind.BOOLEAN) {
      if (value.value === (name === 'skip')) return 'never';
    } else {
      result = 'variable';
    }
  }
  return result;
}

/** The variables to hand graphql-jit (unset ones with their defaults), or null when it must not run. */
function jitVariables(plan: JitPlan, sent: Variables): Variables | null {
  let variables = sent;
  for (const [name, value] of plan.defaults) {
    if (Object.hasOwn(sent, name)) continue;
    if (variables === sent) variables = { ...sent };
    (variables as Record<string, unknown>)[name] = value;
  }
  if (plan.inLiterals.some((name) => variables[name] === undefined || variables[name] === null)) return null;
  if (plan.inConditions.some((name) => variables[name] === null)) return null;
  return variables;
}

/** Variables used inside list and input-object literals, and as `@include`/`@skip` conditions, anywhere in the document. */
function variableUses(document: DocumentNode): { inLiterals: string[]; inConditions: string[] } {
  const inLiterals = new Set<string>();
  const inConditions = new Set<string>();
  let literalDepth = 0;
  const literal = { enter: () => void literalDepth++, leave: () => void literalDepth-- };
  visit(document, {
    [Kind.OBJECT]: literal,
    [Kind.LIST]: literal,
    [Kind.VARIABLE](node) {
      if (literalDepth > 0) inLiterals.add(node.name.value);
    },
    [Kind.DIRECTIVE](node) {
      if (node.name.value !== 'include' && node.name.value !== 'skip') return;
      for (const argument of node.arguments ?? []) if (argument.value.kind === Kind.VARIABLE) inConditions.add(argument.value.name.value);
    },
  });
  return { inLiterals: [...inLiterals], inConditions: [...inConditions] };
}

function usesIncrementalDelivery(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    [Kind.DIRECTIVE](node) {
      if (node.name.value === 'defer' || node.name.value === 'stream') {
        found = true;
        return BREAK;
      }
      return undefined;
    },
  });
  return found;
}
