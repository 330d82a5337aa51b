/**
 * The schema an upstream release offers (`UPSTREAM_VERSION`): every field, argument, input field
 * and enum value of the built schema has the release that brought it, read from the declarations
 * that say it once (`upstream/records.ts`, `upstream/operations/`, see `upstream/releases.ts`) or
 * given by the schema module that spells an element of its own. `schemaForRelease` leaves out what
 * is newer than the release, then the types that became empty or unreachable, with
 * `@graphql-tools/utils`' `mapSchema` and `pruneSchema`; any schema built from the builder can go
 * through it. `releasesOf` also tells the validation of queries (`useReleaseValidation`, with the
 * other validation hooks in src/plugins/) the release that brought a field the served one lacks.
 *
 * Where an element's release comes from, first match:
 * - its own `extensions.since` (exposed record fields, list queries, mutations, hand-written fields);
 * - an input field of a mutation's input: its parameter's (`paramRelease`);
 * - an enum value of a record field's closed set: that field's (`fieldRelease`);
 * - `id` of a type with a `uuid`: the `uuid`'s (the global id is made of it);
 * - a hand-written field that declares the record fields it reads (`reads`) on a record-backed
 *   type: the newest of theirs;
 * - the `since` of its type's extensions (a payload, a filter, the gateway's own types: `null`);
 * - an argument: its field's.
 * An element none of these give is a mistake: `releasesOf` lists it and a test fails.
 */
import {
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  type GraphQLField,
  type GraphQLInterfaceType,
  type GraphQLObjectType,
  type GraphQLNamedType,
  type GraphQLSchema,
} from 'graphql';
import { MapperKind, mapSchema, pruneSchema } from '@graphql-tools/utils';
import { fieldRelease, type AnyRecordDefinition } from '../upstream/define-record.js';
import { paramRelease, type ParamSpecs } from '../upstream/operations/define.js';
import { RECORDS } from '../upstream/records.js';
import { existsIn, newerOf, type Release } from '../upstream/releases.js';

/** The operation a mutation input's fields are the parameters of. */
interface ParameterSource {
  readonly since: Release;
  readonly params: ParamSpecs;
}

declare module 'graphql' {
  interface GraphQLFieldExtensions<_TSource, _TContext, _TArgs> {
    /** The release that brought the field. */
    since?: Release;
  }
  interface GraphQLArgumentExtensions {
    since?: Release;
  }
  interface GraphQLInputFieldExtensions {
    since?: Release;
  }
  interface GraphQLEnumValueExtensions {
    since?: Release;
  }
  interface GraphQLObjectTypeExtensions<_TSource, _TContext> {
    /** The release of each field of the type that says none. */
    since?: Release;
  }
  interface GraphQLInterfaceTypeExtensions {
    since?: Release;
  }
  interface GraphQLInputObjectTypeExtensions {
    since?: Release;
    /** A mutation's input: each field is as old as the parameter of its name. */
    upstreamOperation?: ParameterSource;
  }
  interface GraphQLEnumTypeExtensions {
    since?: Release;
  }
}

/** What an element's coordinate is keyed by: `Host.nqn`, `Query.host(uuid:)`, `HostFilter.zoneUuid`, `HwMonitorStatus.NORMAL`. */
export type Coordinate = string;

export interface SchemaReleases {
  /** The release of every element a rule gives one. */
  readonly of: ReadonlyMap<Coordinate, Release>;
  /** The elements no rule gives a release: each a mistake in the module that declares it. */
  readonly unknown: readonly Coordinate[];
}

/** The record a record-backed type's hand-written fields read (`backedBy`, `recordType`). */
function recordOf(type: GraphQLNamedType): AnyRecordDefinition | undefined {
  const record = (type.extensions as { record?: AnyRecordDefinition }).record;
  if (record !== undefined) return record;
  const name = (type.extensions as { recordName?: string }).recordName;
  return name !== undefined && Object.hasOwn(RECORDS, name) ? RECORDS[name as keyof typeof RECORDS] : undefined;
}

function readRelease(record: AnyRecordDefinition | undefined, fields: readonly string[] | undefined): Release | undefined {
  if (record === undefined || fields === undefined || fields.length === 0) return undefined;
  let newest: Release = null;
  for (const field of fields) {
    const since = fieldRelease(record, field);
    if (since === undefined) return undefined;
    newest = newerOf(newest, since);
  }
  return newest;
}

function outputFieldRelease(type: GraphQLObjectType | GraphQLInterfaceType, field: GraphQLField<unknown, unknown>): Release | undefined {
  if (field.extensions.since !== undefined) return field.extensions.since;
  const fields = type.getFields();
  if (field.name === 'id' && fields.uuid !== undefined && field !== fields.uuid) return outputFieldRelease(type, fields.uuid);
  const reads = readRelease(recordOf(type), (field.extensions as { recordFields?: readonly string[] }).recordFields);
  if (reads !== undefined) return reads;
  return (type.extensions as { since?: Release }).since;
}

/** The release of every field, argument, input field and enum value of `schema`. */
export function releasesOf(schema: GraphQLSchema): SchemaReleases {
  const of = new Map<Coordinate, Release>();
  const unknown: Coordinate[] = [];
  const note = (coordinate: Coordinate, since: Release | undefined): void => {
    if (since === undefined) unknown.push(coordinate);
    else of.set(coordinate, since);
  };
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        const since = outputFieldRelease(type, field);
        note(`${type.name}.${field.name}`, since);
        for (const arg of field.args) note(`${type.name}.${field.name}(${arg.name}:)`, arg.extensions.since !== undefined ? arg.extensions.since : since);
      }
    } else if (isInputObjectType(type)) {
      const operation = type.extensions.upstreamOperation;
      for (const field of Object.values(type.getFields())) {
        let since = field.extensions.since;
        if (since === undefined && operation !== undefined) since = paramRelease(operation, operation.params[field.name]);
        if (since === undefined) since = type.extensions.since;
        note(`${type.name}.${field.name}`, since);
      }
    } else if (isEnumType(type)) {
      const closedSet = (type.extensions as { closedSet?: { record: string; field: string } }).closedSet;
      const fromRecord = closedSet === undefined ? undefined : fieldRelease(RECORDS[closedSet.record as keyof typeof RECORDS], closedSet.field);
      for (const value of type.getValues()) {
        note(`${type.name}.${value.name}`, value.extensions.since !== undefined ? value.extensions.since : (fromRecord ?? type.extensions.since));
      }
    }
  }
  return { of, unknown };
}

/**
 * `schema` as upstream `release` offers it: every field, argument, input field and enum value
 * newer than the release left out, then every type that became empty (an object without fields,
 * an enum without values) or unreachable, and every field of such a type. Resolvers, extensions
 * and descriptions are kept. The newest release gives `schema` itself.
 */
export function schemaForRelease(schema: GraphQLSchema, release: string): GraphQLSchema {
  const { of } = releasesOf(schema);
  const kept = (coordinate: Coordinate): boolean => existsIn(of.get(coordinate) ?? null, release);
  const filtered = mapSchema(schema, {
    [MapperKind.COMPOSITE_FIELD]: (config, fieldName, typeName) => {
      if (!kept(`${typeName}.${fieldName}`)) return null;
      const args = Object.fromEntries(Object.entries(config.args ?? {}).filter(([arg]) => kept(`${typeName}.${fieldName}(${arg}:)`)));
      return { ...config, args };
    },
    [MapperKind.INPUT_OBJECT_FIELD]: (config, fieldName, typeName) => (kept(`${typeName}.${fieldName}`) ? config : null),
    [MapperKind.ENUM_VALUE]: (config, typeName, _schema, externalValue) => (kept(`${typeName}.${externalValue}`) ? config : null),
  });
  const withoutEmptyEnums = mapSchema(filtered, {
    [MapperKind.ENUM_TYPE]: (type) => (type.getValues().length === 0 ? null : type),
  });
  return pruneSchema(withoutEmptyEnums);
}
