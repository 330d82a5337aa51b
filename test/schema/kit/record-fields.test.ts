/**
 * A record field's meaning is said once, where the record is defined (`upstream/records.ts`): the
 * GraphQL fields exposed from it show the definition's description and the type its kind says
 * (`exposeRecordFields`, `schema/kit/record-fields.ts`). A described field that no type exposes,
 * or an exposed field the definition does not describe, is a list that drifted.
 */
import SchemaBuilder from '@pothos/core';
import { getNamedType, isEnumType, isObjectType, type GraphQLField } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { GatewaySchemaTypes } from '../../../src/builder.js';
import { exposedAs, exposeRecordFields } from '../../../src/schema/kit/record-fields.js';
import { schema } from '../../../src/schema/index.js';
import type { FieldSpec } from '../../../src/upstream/define-record.js';
import { RECORDS, type SnapshotGroupDeletionResultRecord } from '../../../src/upstream/records.js';
import { shownUnder } from '../../support/expected.js';

type RecordName = keyof typeof RECORDS;

/** The GraphQL types that show an upstream record, by the record each shows. */
const TYPES_OF_RECORDS: Readonly<Record<string, RecordName>> = {
  VmInstance: 'vmInstance',
  VmNic: 'vmNic',
  UsedIp: 'usedIp',
  VmCdRom: 'vmCdRom',
  Volume: 'volume',
  Host: 'host',
  HostNetworkBonding: 'hostBonding',
  HostNic: 'hostNic',
  HbaDevice: 'hbaDevice',
  FiberChannelLun: 'fiberChannelLun',
  ScsiLunHostRef: 'scsiLunHostRef',
  ScsiLunVmInstanceRef: 'scsiLunVmInstanceRef',
  VolumeSnapshotGroup: 'volumeSnapshotGroup',
  VolumeSnapshotRef: 'volumeSnapshotRef',
  CbtTask: 'cbtTask',
  SnsApplicationPlatform: 'snsApplicationPlatform',
  SnsApplicationEndpoint: 'snsApplicationEndpoint',
  SnsSmsReceiver: 'snsSmsReceiver',
  SnsEmailAddress: 'snsEmailAddress',
  PrimaryStorageCapacity: 'primaryStorageCapacity',
};

function specOf(record: RecordName, key: string): FieldSpec<unknown> | undefined {
  const fields = RECORDS[record].fields as Readonly<Record<string, FieldSpec<unknown>>>;
  return Object.hasOwn(fields, key) ? fields[key] : undefined;
}

/**
 * The record field a GraphQL field is a plain exposure of, if any: Pothos marks those; a closed
 * set's enum field reads its one record field (`exposeRecordEnums`).
 */
function exposedField(field: GraphQLField<unknown, unknown>): string | undefined {
  const { pothosExposedField, recordFields } = field.extensions as { pothosExposedField?: unknown; recordFields?: readonly unknown[] };
  if (typeof pothosExposedField === 'string') return pothosExposedField;
  return isEnumType(getNamedType(field.type)) && recordFields?.length === 1 && typeof recordFields[0] === 'string' ? recordFields[0] : undefined;
}

/** The SDL spelling of what a field of `kind` is exposed as (`Uuid!`, `[String!]!`). */
function sdlTypeOf(spec: FieldSpec<unknown>): string | undefined {
  const as = exposedAs(spec.kind);
  if (as === undefined) return undefined;
  const named = typeof as.type === 'string' ? as.type : `[${as.type[0]}!]`;
  return as.nullable ? named : `${named}!`;
}

describe('record fields in the schema', () => {
  const exposures = Object.entries(TYPES_OF_RECORDS).flatMap(([typeName, record]) => {
    const type = schema.getType(typeName);
    if (!isObjectType(type)) throw new Error(`${typeName} is not an object type of the schema`);
    return Object.values(type.getFields()).flatMap((field) => {
      const key = exposedField(field);
      return key === undefined ? [] : [{ typeName, record, key, field }];
    });
  });

  it('every field exposed from a record has the description and the type its definition gives', () => {
    expect(exposures.length).toBeGreaterThan(200);
    for (const { typeName, record, key, field } of exposures) {
      const spec = specOf(record, key);
      const where = `${typeName}.${field.name} (${record}.${key})`;
      expect(spec, where).toBeDefined();
      // The definition's words, but for a "Since x." its type already says (`since-once.ts`).
      expect({ where, description: field.description }).toEqual({ where, description: shownUnder(spec?.description, schema.getType(typeName)?.description) });
      if (spec?.kind === 'normalized') expect(isEnumType(getNamedType(field.type)), where).toBe(true);
      else expect({ where, type: String(field.type) }).toEqual({ where, type: sdlTypeOf(spec!) });
    }
  });

  it('every described record field is exposed by some type, under its own name', () => {
    const exposed = new Set(exposures.filter(({ key, field }) => field.name === key).map(({ record, key }) => `${record}.${key}`));
    // A field shown converted (an HBA's `speed` text as a number in Mbit/s) reads its one record
    // field under its own name; its text is exposed beside it (`speedRaw`).
    for (const [typeName, record] of Object.entries(TYPES_OF_RECORDS)) {
      const type = schema.getType(typeName);
      if (!isObjectType(type)) continue;
      for (const field of Object.values(type.getFields())) {
        const reads = (field.extensions as { recordFields?: readonly unknown[] }).recordFields;
        if (reads?.length === 1 && reads[0] === field.name) exposed.add(`${record}.${field.name}`);
      }
    }
    const described = [...new Set(Object.values(TYPES_OF_RECORDS))].flatMap((record) =>
      RECORDS[record].keys.filter((key: string) => specOf(record, key)?.description !== undefined).map((key: string) => `${record}.${key}`),
    );
    expect(described.filter((field) => !exposed.has(field))).toEqual([]);
  });

  it('refuses to expose a record field its definition does not describe', () => {
    const builder = new SchemaBuilder<GatewaySchemaTypes>({});
    const ResultRef = builder.objectRef<SnapshotGroupDeletionResultRecord>('Result');
    // `snapshotUuid` is exposed by hand where it is shown (the deletion result's type): its definition carries no description.
    ResultRef.implement({ fields: (t) => ({ ...exposeRecordFields(t, 'snapshotGroupDeletionResult', 'snapshotUuid') }) });
    builder.queryType({ fields: (t) => ({ result: t.field({ type: ResultRef, nullable: true, resolve: () => null }) }) });
    expect(() => builder.toSchema()).toThrow('snapshotGroupDeletionResult.snapshotUuid has no description');
  });
});
