/**
 * "Since x." said once where it tells something. Every declaration ends its description with the
 * release that brought it (`upstream/releases.ts`, `describeSince`), which on the page of a type
 * whose fields all came with it repeats one fact dozens of times (444 times in the schema before
 * this pass). A description keeps its "Since x." only where it differs from its parent's: a type
 * says it once (its description ends "Since x."); a field, input field, argument or enum value
 * says it only when it is newer than its type (or field). A type that says no release leaves its
 * fields as they are. The releases themselves (`extensions.since`, read by `schema/releases.ts`)
 * are untouched.
 */
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import { isEnumType, isInputObjectType, isInterfaceType, isObjectType, type GraphQLSchema } from 'graphql';

const TRAILING_SINCE = / Since ([\d.]+)\.$/;

/** The release a description ends with, if any. */
function sinceIn(description: string | null | undefined): string | undefined {
  return description ? TRAILING_SINCE.exec(description)?.[1] : undefined;
}


/** `description` without a trailing "Since `parent`." (unchanged when it names another release). */
function withoutParentSince(description: string | null | undefined, parent: string | undefined): string | null | undefined {
  if (parent === undefined || sinceIn(description) !== parent) return description;
  return description!.replace(TRAILING_SINCE, '');
}

/** The schema with each "Since x." said once (see the module comment). */
export function sayEachReleaseOnce(schema: GraphQLSchema): GraphQLSchema {
  const typeRelease = (name: string): string | undefined => {
    const type = schema.getType(name);
    return isObjectType(type) || isInterfaceType(type) || isInputObjectType(type) || isEnumType(type) ? sinceIn(type.description) : undefined;
  };
  const field = <C extends { description?: string | null | undefined; args?: Record<string, { description?: string | null | undefined }> }>(config: C, typeName: string): C => {
    const parent = typeRelease(typeName);
    const description = withoutParentSince(config.description, parent);
    // An argument is as old as its field unless it says otherwise.
    const fieldRelease = sinceIn(config.description) ?? parent;
    const args =
      config.args === undefined
        ? undefined
        : Object.fromEntries(Object.entries(config.args).map(([name, arg]) => [name, { ...arg, description: withoutParentSince(arg.description, fieldRelease) }]));
    return { ...config, description, ...(args === undefined ? {} : { args }) };
  };
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (config, _name, typeName) => field(config, typeName),
    [MapperKind.INTERFACE_FIELD]: (config, _name, typeName) => field(config, typeName),
    [MapperKind.INPUT_OBJECT_FIELD]: (config, _name, typeName) => field(config, typeName),
    [MapperKind.ENUM_VALUE]: (config, typeName) => ({ ...config, description: withoutParentSince(config.description, typeRelease(typeName)) }),
  });
}
