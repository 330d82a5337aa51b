/**
 * Where in the input a refused value sits, as data: the `extensions.field` and `extensions.reason`
 * of a request error whose value a form can point at. `field` has the shape of
 * `UserError.field` (`["input", "volumeUuids", "1"]`): it starts with the argument the value was
 * given to, then the input fields and list indexes inside it. So the same code marks a form's
 * field whether the gateway refused the value before running anything or the upstream refused
 * the write (`userErrors[].field`).
 *
 * A variable's errors take the path of the place the document uses the variable (`$in` given as
 * `input:` answers `["input", ...]`, `input: { uuid: $id }` answers `["input", "uuid"]`), then
 * graphql-js's own path inside the variable's value (`coerceInputValue`'s `onError`). A literal's
 * errors take the path of the value node that validation blamed. No message is read.
 */
import {
  coerceInputValue,
  getNamedType,
  GraphQLError,
  isInputObjectType,
  isInputType,
  isListType,
  isNonNullType,
  isRequiredInputField,
  Kind,
  typeFromAST,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type ASTNode,
  type DocumentNode,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLSchema,
  type ObjectFieldNode,
  type OperationDefinitionNode,
  type ValueNode,
} from 'graphql';
import { inspect } from 'graphql/jsutils/inspect.js';

/** Why a value was refused: `extensions.reason` beside `extensions.code: BAD_USER_INPUT`. */
export type InputErrorReason =
  /** A required value is missing or null (a variable not sent, a required input field left out). */
  | 'REQUIRED'
  /** An input field the input type does not define. */
  | 'UNKNOWN_FIELD'
  /** A value of the wrong type or form (a malformed `Uuid`, a string where a number goes, an unknown enum value). */
  | 'INVALID_VALUE';

/** What a refused value's error carries beside its message. */
export interface InputErrorLocation {
  /** The path to the value, as `UserError.field` spells one. */
  readonly field: readonly string[];
  readonly reason: InputErrorReason;
}

/** A value node (or input field) inside an argument: its path, and its input type where known. */
interface Placed {
  readonly path: readonly string[];
  readonly type: GraphQLInputType | null;
}

/**
 * Every value node of every field or directive argument of `document`, with its path from the
 * argument; a variable's node is among them, so a variable's place is the path of its first use.
 */
function placeArgumentValues(schema: GraphQLSchema, document: DocumentNode): Map<ASTNode, Placed> {
  const places = new Map<ASTNode, Placed>();
  const typeInfo = new TypeInfo(schema);
  const placeValue = (node: ValueNode, path: readonly string[], type: GraphQLInputType | null): void => {
    if (!places.has(node)) places.set(node, { path, type });
    const inner = type !== null && isNonNullType(type) ? type.ofType : type;
    if (node.kind === Kind.LIST) {
      const item = inner !== null && isListType(inner) ? (inner.ofType as GraphQLInputType) : null;
      node.values.forEach((value, index) => placeValue(value, [...path, String(index)], item));
    } else if (node.kind === Kind.OBJECT) {
      const fields = inner !== null && isInputObjectType(inner) ? inner.getFields() : {};
      for (const field of node.fields) placeField(field, path, fields[field.name.value]?.type ?? null);
    }
  };
  const placeField = (field: ObjectFieldNode, parent: readonly string[], type: GraphQLInputType | null): void => {
    const path = [...parent, field.name.value];
    places.set(field, { path, type });
    placeValue(field.value, path, type);
  };
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Argument(node) {
        placeValue(node.value, [node.name.value], typeInfo.getArgument()?.type ?? null);
      },
    }),
  );
  return places;
}

/** The path of the first use of each variable of `document`. */
function variableUses(places: ReadonlyMap<ASTNode, Placed>): Map<string, readonly string[]> {
  const uses = new Map<string, readonly string[]>();
  for (const [node, { path }] of places) {
    if (node.kind === Kind.VARIABLE && !uses.has(node.name.value)) uses.set(node.name.value, path);
  }
  return uses;
}

/**
 * The required input fields of `type` that `given` lacks, then the fields it gives that `type`
 * does not define: the order in which graphql-js reports them for one object, in coercion and in
 * validation alike.
 */
function objectFaults(type: GraphQLInputObjectType, given: readonly string[]): { name: string; reason: InputErrorReason }[] {
  const fields = type.getFields();
  const present = new Set(given);
  return [
    ...Object.values(fields)
      .filter((field) => isRequiredInputField(field) && !present.has(field.name))
      .map((field) => ({ name: field.name, reason: 'REQUIRED' as const })),
    ...given.filter((name) => fields[name] === undefined).map((name) => ({ name, reason: 'UNKNOWN_FIELD' as const })),
  ];
}

/** The input type at `path` inside a value of `type`. */
function typeAt(type: GraphQLInputType, path: readonly (string | number)[]): GraphQLInputType | null {
  let current: GraphQLInputType | null = type;
  for (const key of path) {
    if (current === null) return null;
    const inner: GraphQLInputType = isNonNullType(current) ? current.ofType : current;
    if (typeof key === 'number') current = isListType(inner) ? (inner.ofType as GraphQLInputType) : null;
    else current = isInputObjectType(inner) ? (inner.getFields()[key]?.type ?? null) : null;
  }
  return current;
}

/** The result of coercing an operation's variables. */
export type VariableCoercion = { readonly errors: null } | { readonly errors: readonly GraphQLError[] };

/**
 * Coerces the variables of `operation` as graphql-js does (the same rules and messages) and
 * answers the errors, each `BAD_USER_INPUT` (or the code the scalar gave) with `field` and
 * `reason`; `errors: null` when every variable coerces.
 */
export function coerceVariables(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, values: Readonly<Record<string, unknown>>): VariableCoercion {
  const errors: GraphQLError[] = [];
  let uses: Map<string, readonly string[]> | undefined;
  const useOf = (name: string): readonly string[] => (uses ??= variableUses(placeArgumentValues(schema, document))).get(name) ?? [name];
  const refuse = (message: string, node: ASTNode, location: InputErrorLocation, original?: GraphQLError): void => {
    const code = typeof original?.extensions.code === 'string' ? original.extensions.code : 'BAD_USER_INPUT';
    errors.push(
      new GraphQLError(message, {
        nodes: node,
        originalError: original ?? null,
        extensions: { ...original?.extensions, code, field: location.field, reason: location.reason },
      }),
    );
  };
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const inputType = typeFromAST(schema, definition.type);
    // Not an input type: validation refused the document before this runs.
    if (!isInputType(inputType)) continue;
    if (!Object.hasOwn(values, name)) {
      if (definition.defaultValue === undefined && isNonNullType(inputType)) {
        refuse(`Variable "$${name}" of required type "${inspect(inputType)}" was not provided.`, definition, { field: useOf(name), reason: 'REQUIRED' });
      }
      continue;
    }
    const value = values[name];
    if (value === null && isNonNullType(inputType)) {
      refuse(`Variable "$${name}" of non-null type "${inspect(inputType)}" must not be null.`, definition, { field: useOf(name), reason: 'REQUIRED' });
      continue;
    }
    // The object-level faults graphql-js reported so far, per path, to name the field of the next one.
    const reportedAt = new Map<string, number>();
    coerceInputValue(value, inputType, (path, invalid, error) => {
      const at = [...useOf(name), ...path.map(String)];
      let location: InputErrorLocation = { field: at, reason: invalid === null || invalid === undefined ? 'REQUIRED' : 'INVALID_VALUE' };
      const objectType = typeAt(inputType, path);
      const namedType = objectType === null ? null : getNamedType(objectType);
      if (isInputObjectType(namedType) && typeof invalid === 'object' && invalid !== null && !Array.isArray(invalid)) {
        const key = path.join('.');
        const index = reportedAt.get(key) ?? 0;
        reportedAt.set(key, index + 1);
        const fault = objectFaults(namedType, Object.keys(invalid))[index];
        if (fault !== undefined) location = { field: [...at, fault.name], reason: fault.reason };
      }
      const where = path.length > 0 ? ` at "${name}${path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${key}`)).join('')}"` : '';
      refuse(`Variable "$${name}" got invalid value ${inspect(invalid)}${where}; ${error.message}`, definition, location, error);
    });
  }
  return errors.length === 0 ? { errors: null } : { errors };
}

/** The codes of validation errors that judge a value, not the operation's shape or release. */
const VALUE_ERROR_CODES: ReadonlySet<unknown> = new Set([undefined, 'GRAPHQL_VALIDATION_FAILED', 'BAD_USER_INPUT']);

/**
 * Validation `errors` of `document` with `field` and `reason` added to each that blames a literal
 * value of an argument (its first node is that value, or an input field of it); the others as
 * they are. The code stays what validation gave.
 */
export function locateLiteralErrors(schema: GraphQLSchema, document: DocumentNode, errors: readonly unknown[]): unknown[] {
  let places: Map<ASTNode, Placed> | undefined;
  const reportedAt = new Map<ASTNode, number>();
  return errors.map((error) => {
    if (!(error instanceof GraphQLError) || !VALUE_ERROR_CODES.has(error.extensions.code)) return error;
    const node = error.nodes?.[0];
    if (node === undefined) return error;
    const placed = (places ??= placeArgumentValues(schema, document)).get(node);
    if (placed === undefined) return error;
    const location = literalLocation(node, placed, reportedAt);
    return new GraphQLError(error.message, {
      nodes: error.nodes ?? null,
      source: error.source ?? null,
      positions: error.positions ?? null,
      originalError: error.originalError ?? null,
      extensions: { ...error.extensions, field: location.field, reason: location.reason },
    });
  });
}

function literalLocation(node: ASTNode, placed: Placed, reportedAt: Map<ASTNode, number>): InputErrorLocation {
  if (node.kind === Kind.OBJECT_FIELD) {
    const parentDefines = placed.type !== null;
    return { field: placed.path, reason: parentDefines ? 'INVALID_VALUE' : 'UNKNOWN_FIELD' };
  }
  if (node.kind === Kind.NULL) return { field: placed.path, reason: 'REQUIRED' };
  const named = placed.type === null ? null : getNamedType(placed.type);
  if (node.kind === Kind.OBJECT && isInputObjectType(named)) {
    // Validation blames the object for each required field it lacks, in the type's field order.
    const index = reportedAt.get(node) ?? 0;
    reportedAt.set(node, index + 1);
    const missing = objectFaults(named, node.fields.map((field) => field.name.value)).filter((fault) => fault.reason === 'REQUIRED')[index];
    if (missing !== undefined) return { field: [...placed.path, missing.name], reason: 'REQUIRED' };
  }
  return { field: placed.path, reason: 'INVALID_VALUE' };
}
