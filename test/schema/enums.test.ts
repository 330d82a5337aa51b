/**
 * A record field's closed set is said once, in its definition (`upstream/records.ts`): the GraphQL
 * enum that shows the field takes its values from it (`recordEnum`, `schema/kit/enums.ts`), so a
 * value added to the decoder's set and not to the enum (or the reverse) is caught here.
 */
import { getNamedType, isEnumType, isObjectType, type GraphQLEnumType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { constantCase, type ClosedSetSource } from '../../src/schema/kit/enums.js';
import { schema } from '../../src/schema/index.js';
import type { AnyRecordDefinition, FieldSpec } from '../../src/upstream/define-record.js';
import { RECORDS } from '../../src/upstream/records.js';

function closedSetOf(record: string, field: string): readonly string[] | undefined {
  const definition: AnyRecordDefinition | undefined = (RECORDS as Readonly<Record<string, AnyRecordDefinition>>)[record];
  const spec = definition?.fields[field] as FieldSpec<unknown> | undefined;
  return spec?.values === undefined ? undefined : [...spec.values].sort();
}

// The schema is printed sorted, so the sets are compared sorted too.
const wireValues = (type: GraphQLEnumType) => type.getValues().map((value) => value.value as string).sort();

const enums = Object.values(schema.getTypeMap()).filter((type): type is GraphQLEnumType => isEnumType(type) && !type.name.startsWith('__'));

describe('closed sets and their GraphQL enums', () => {
  it('an enum built from a record field has exactly the values of the field\'s closed set', () => {
    const fromRecords = enums.filter((type) => (type.extensions as { closedSet?: ClosedSetSource }).closedSet !== undefined);
    expect(fromRecords.map((type) => type.name).sort()).toEqual([
      'BondingType',
      'CbtTaskStatus',
      'CpuArchitecture',
      'HwMonitorStatus',
      'InterfaceType',
      'NicDriverType',
      'SnsEndpointType',
      'VmInstanceType',
      'VmPlatform',
      'VolumeType',
    ]);
    for (const type of fromRecords) {
      const { record, field } = (type.extensions as { closedSet: ClosedSetSource }).closedSet;
      expect({ enum: type.name, values: wireValues(type) }).toEqual({ enum: type.name, values: closedSetOf(record, field) });
    }
  });

  it('every record field exposed as an enum is shown by an enum of its own closed set', () => {
    let checked = 0;
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type)) continue;
      const record = (type.extensions as { record?: AnyRecordDefinition }).record;
      for (const field of Object.values(type.getFields())) {
        const named = getNamedType(field.type);
        const reads = (field.extensions as { recordFields?: readonly unknown[] }).recordFields;
        const key = reads?.length === 1 ? reads[0] : undefined;
        if (record === undefined || !isEnumType(named) || typeof key !== 'string') continue;
        const where = `${type.name}.${field.name}`;
        expect({ where, values: wireValues(named) }).toEqual({ where, values: closedSetOf(record.name, key) });
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(10);
  });

  it('enum value names are the wire values in CONSTANT_CASE', () => {
    expect(['InstantStart', 'noMaster', 'e1000', 'SMS', 'Email', 'asc'].map(constantCase)).toEqual(['INSTANT_START', 'NO_MASTER', 'E1000', 'SMS', 'EMAIL', 'ASC']);
    for (const type of enums.filter((each) => !each.name.endsWith('OrderField'))) {
      for (const value of type.getValues()) expect(`${type.name}.${value.name}`).toBe(`${type.name}.${constantCase(value.value as string)}`);
    }
  });
});
