/**
 * A write's input is said once, in the catalogue: each parameter declared with its facts (wire
 * kind, required, the spec's words) becomes its mutation's input field without the schema
 * restating it, and a declaration that contradicts its own path template does not load.
 */
import { getNamedType, isInputObjectType, isNonNullType, isListType, type GraphQLInputField, type GraphQLInputObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../../src/schema/index.js';
import { shownUnder } from '../../support/expected.js';
import { OPERATIONS, bodyParam, defineOperation, isDeclaredParam, type ParamDeclaration, type WireKind } from '../../../src/upstream/operations/index.js';

const SCALAR_OF: Record<WireKind, string> = {
  uuid: 'Uuid',
  text: 'String',
  int: 'Int',
  long: 'Long',
  bool: 'Boolean',
  uuids: 'Uuid',
  texts: 'String',
  json: 'JSON',
};

/** The input fields of the mutation that sends `operation`, found by the description the kit gives its input. */
function inputFieldsOf(operation: string): Record<string, GraphQLInputField> {
  return inputTypeOf(operation).getFields();
}

function inputTypeOf(operation: string): GraphQLInputObjectType {
  const mutation = Object.values(schema.getMutationType()!.getFields()).find((field) => {
    const input = getNamedType(field.args.find((arg) => arg.name === 'input')?.type);
    return isInputObjectType(input) && input.description?.includes(`(${operation}).`);
  });
  if (!mutation) throw new Error(`no mutation sends ${operation}`);
  const input = getNamedType(mutation.args[0]!.type);
  if (!isInputObjectType(input)) throw new Error(`${mutation.name} has no input object`);
  return input;
}

describe('mutation inputs from the catalogue', () => {
  const writes = OPERATIONS.filter((operation) => operation.method !== 'GET');
  const declared = writes.flatMap((operation) =>
    Object.entries(operation.params).flatMap(([name, spec]) => (isDeclaredParam(spec) ? [{ operation: operation.name, name, spec }] : [])),
  );

  it('describes most write parameters in the catalogue, not in the schema', () => {
    expect(declared.length).toBeGreaterThanOrEqual(60);
  });

  it.each(declared.map(({ operation, name, spec }) => [`${operation}.${name}`, operation, name, spec] as const))(
    '%s is its mutation\'s input field with the declared kind, requiredness, description and deprecation',
    (_label, operation, name, spec: ParamDeclaration) => {
      const field = inputFieldsOf(operation)[name];
      expect(field, `${operation} has no input field ${name}`).toBeDefined();
      expect(isNonNullType(field!.type)).toBe(spec.required);
      const inner = isNonNullType(field!.type) ? field!.type.ofType : field!.type;
      expect(isListType(inner)).toBe(spec.kind === 'uuids' || spec.kind === 'texts');
      expect(getNamedType(field!.type).name).toBe(SCALAR_OF[spec.kind]);
      expect(field!.description).toBe(shownUnder(spec.doc, inputTypeOf(operation).description));
      expect(field!.deprecationReason ?? undefined).toBe(spec.deprecated);
    },
  );

  it('every parameter of every write is an input field of its mutation', () => {
    for (const operation of writes) {
      const fields = inputFieldsOf(operation.name);
      const pathNames = operation.pathParts.flatMap((part) => ('param' in part ? [part.param] : []));
      for (const name of [...pathNames, ...Object.keys(operation.params)]) expect(fields, `${operation.name}.${name}`).toHaveProperty(name);
    }
  });

  it('refuses a declaration that sends a path parameter in the body', () => {
    expect(() =>
      defineOperation('DeleteThing', 'DELETE things/{uuid}', { since: null, params: { uuid: bodyParam('uuid', 'The thing.') }, decode: () => ({}) }),
    ).toThrow(/uuid is declared in body/);
  });
});
