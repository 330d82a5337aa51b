/**
 * What a document reads, by type: the named type of every field it selects, found by graphql-js'
 * `TypeInfo` walk. The response cache keeps the connections among them; live queries map them to
 * the upstream collections they read.
 */
import { getNamedType, TypeInfo, visit, visitWithTypeInfo, type DocumentNode, type GraphQLNamedType, type GraphQLSchema } from 'graphql';

export function selectedFieldTypes(schema: GraphQLSchema, document: DocumentNode): ReadonlySet<GraphQLNamedType> {
  const found = new Set<GraphQLNamedType>();
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field() {
        const type = typeInfo.getType();
        if (type) found.add(getNamedType(type));
      },
    }),
  );
  return found;
}
