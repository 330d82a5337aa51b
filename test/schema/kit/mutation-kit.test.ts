/**
 * What a mutation touches and which payloads `Job.payload` may return live with the schema the
 * app built (its mutation fields' extensions, its `MutationPayload` union), not in module state.
 */
import { GraphQLObjectType, GraphQLSchema, GraphQLString, getNamedType, isInputObjectType, isUnionType } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../src/jobs/store.js';
import { schema } from '../../../src/schema/index.js';
import { declaredTouches, touchedBy } from '../../../src/schema/kit/mutation-kit.js';

const VM = '0123456789abcdef0123456789abcdef';

function finishedJob(operation: string): JobRecord {
  return {
    id: 'f'.repeat(32),
    operation,
    owner: 'owner',
    secret: 'secret',
    location: null,
    status: 'SUCCEEDED',
    createdAt: 0,
    finishedAt: 1,
    input: { uuid: VM },
    outcome: { success: true, body: {} },
  };
}

describe('the mutation kit keeps its declarations on the schema', () => {
  it('every mutation field carries what its write touches', () => {
    const mutations = Object.keys(schema.getMutationType()!.getFields());
    expect([...declaredTouches(schema).keys()].sort()).toEqual(mutations.sort());
    expect(mutations).toHaveLength(22);
  });

  it('a finished job is matched to its mutation in the schema it is asked about', () => {
    expect(touchedBy(finishedJob('destroyVmInstance'), schema)).toEqual({ types: ['VmInstance'], uuids: [VM], everyRecordOf: [] });
    const other = new GraphQLSchema({
      query: new GraphQLObjectType({ name: 'Query', fields: { ok: { type: GraphQLString } } }),
      mutation: new GraphQLObjectType({ name: 'Mutation', fields: { destroyVmInstance: { type: GraphQLString } } }),
    });
    expect(touchedBy(finishedJob('destroyVmInstance'), other)).toBeNull();
  });

  it('MutationPayload has one member per mutation, its payload', () => {
    const union = schema.getType('MutationPayload');
    if (!isUnionType(union)) throw new Error('MutationPayload is no union');
    const payloads = Object.values(schema.getMutationType()!.getFields()).map((field) => String(field.type).replace(/!$/, ''));
    expect(union.getTypes().map((type) => type.name).sort()).toEqual(payloads.sort());
  });

  it('a delete naming its record by uuid forgets that record, and its deleteMode is the DeleteMode enum the kit describes', () => {
    for (const [mutation, type] of [['deleteCbtTask', 'CbtTask'], ['deleteDirectory', 'Directory']] as const) {
      expect(touchedBy(finishedJob(mutation), schema)).toEqual({ types: [type], uuids: [VM], everyRecordOf: [] });
      const input = getNamedType(schema.getMutationType()!.getFields()[mutation]!.args.find((arg) => arg.name === 'input')!.type);
      if (!isInputObjectType(input)) throw new Error(`${mutation} has no input object`);
      const deleteMode = input.getFields().deleteMode!;
      expect(String(deleteMode.type)).toBe('DeleteMode');
      expect(deleteMode.description).toMatch(/^How strictly to delete; the upstream default is `PERMISSIVE`\./);
      const payload = getNamedType(schema.getMutationType()!.getFields()[mutation]!.type) as GraphQLObjectType;
      expect(Object.keys(payload.getFields())).toEqual(expect.arrayContaining([`deleted${type}Uuid`, `deleted${type}Id`]));
    }
  });
});
