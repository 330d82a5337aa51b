/**
 * A record field's closed set is said once, in its definition (`upstream/records.ts`): the GraphQL
 * enum that shows the field takes its values from it (`recordEnum`, `schema/kit/enums.ts`), so a
 * value added to the decoder's set and not to the enum (or the reverse) is caught here.
 */
import { getNamedType, isEnumType, isObjectType, type GraphQLEnumType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { constantCase, FALLBACK_VALUE, type ClosedSetSource, type RecordEnumExtensions } from '../../../src/schema/kit/enums.js';
import { schema } from '../../../src/schema/index.js';
import type { AnyRecordDefinition, FieldSpec } from '../../../src/upstream/define-record.js';
import { RECORDS } from '../../../src/upstream/records.js';

function closedSetOf(record: string, field: string): readonly string[] | undefined {
  const definition: AnyRecordDefinition | undefined = (RECORDS as Readonly<Record<string, AnyRecordDefinition>>)[record];
  const spec = definition?.fields[field] as FieldSpec<unknown> | undefined;
  return spec?.values === undefined ? undefined : [...spec.values].sort();
}

// The schema is printed sorted, so the sets are compared sorted too; a record enum's fallback is no wire value.
const wireValues = (type: GraphQLEnumType) =>
  type
    .getValues()
    .map((value) => value.value as string)
    .filter((value) => value !== FALLBACK_VALUE)
    .sort();

const enums = Object.values(schema.getTypeMap()).filter((type): type is GraphQLEnumType => isEnumType(type) && !type.name.startsWith('__'));

describe('closed sets and their GraphQL enums', () => {
  it('an enum built from a record field has exactly the values of the field\'s closed set', () => {
    const fromRecords = enums.filter((type) => (type.extensions as { closedSet?: ClosedSetSource }).closedSet !== undefined);
    expect(fromRecords.map((type) => type.name).sort()).toEqual([
      'BondingMode',
      'BondingType',
      'CbtTaskStatus',
      'CpuArchitecture',
      'DirectoryType',
      'FiberChannelLunType',
      'HbaPortState',
      'HbaType',
      'HostNetworkBondingType',
      'HostStatus',
      'HwMonitorStatus',
      'HypervisorType',
      'InterfaceType',
      'IpmiPowerStatus',
      'MiiStatus',
      'NicDriverType',
      'ResourceState',
      'SnsEndpointType',
      'VmAllocatorStrategy',
      'VmInstanceType',
      'VmNicState',
      'VmNicType',
      'VmPlatform',
      'VmState',
      'VolumeFormat',
      'VolumeStatus',
      'VolumeType',
      'XmitHashPolicy',
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
    expect(checked).toBeGreaterThanOrEqual(30);
  });

  it('every record enum has one fallback, OTHER unless the set has a value of that name, and each enum field a <field>Raw text beside it', () => {
    for (const type of enums) {
      const fallback = (type.extensions as Partial<RecordEnumExtensions>).fallback;
      if (fallback === undefined) continue;
      const fallbacks = type.getValues().filter((value) => value.value === FALLBACK_VALUE);
      expect({ enum: type.name, fallbacks: fallbacks.map((value) => value.name) }).toEqual({ enum: type.name, fallbacks: [fallback] });
      const own = type.getValues().filter((value) => value.value !== FALLBACK_VALUE).map((value) => value.name);
      expect(fallback).toBe(own.includes('OTHER') ? 'UNKNOWN' : 'OTHER');
    }
    let paired = 0;
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) || type.name.startsWith('__')) continue;
      for (const field of Object.values(type.getFields())) {
        const named = getNamedType(field.type);
        if (!isEnumType(named) || (named.extensions as Partial<RecordEnumExtensions>).fallback === undefined) continue;
        expect(`${type.name}.${field.name}Raw: ${String(type.getFields()[`${field.name}Raw`]?.type)}`).toBe(`${type.name}.${field.name}Raw: String`);
        paired += 1;
      }
    }
    expect(paired).toBeGreaterThanOrEqual(40);
  });

  it('enum value names are the wire values (sort keys: the record fields) in CONSTANT_CASE, where the wire value makes a GraphQL name', () => {
    expect(['InstantStart', 'noMaster', 'e1000', 'SMS', 'Email', 'asc', 'balance-rr', 'layer2+3', 'vlan+srcmac'].map(constantCase)).toEqual([
      'INSTANT_START', 'NO_MASTER', 'E1000', 'SMS', 'EMAIL', 'ASC', 'BALANCE_RR', 'LAYER2_3', 'VLAN_SRCMAC',
    ]);
    for (const type of enums) {
      for (const value of type.getValues()) {
        expect(value.name).toMatch(/^[A-Z][A-Z0-9_]*$/);
        const derived = constantCase(value.value as string);
        // A fallback, a value whose wire spelling makes no GraphQL name (`802.3ad`) or a poor one
        // (`Chassis Power is on` is `ON`), and `vminstance` (two words run together) are named by hand.
        const byHand = ['vminstance', 'Chassis Power is on', 'Chassis Power is off'];
        if (value.value === FALLBACK_VALUE || !/^[A-Z][A-Z0-9_]*$/.test(derived) || byHand.includes(value.value as string)) continue;
        expect(`${type.name}.${value.name}`).toBe(`${type.name}.${derived}`);
      }
    }
  });
});
