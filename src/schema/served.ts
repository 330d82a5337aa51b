/**
 * The schema as a client sees it at `/graphql`: the built schema cut to the upstream release
 * (`schemaForRelease`), with the directives the endpoint serves beside the schema's own. The app
 * serves exactly this, and `npm run schema` prints it, so the committed SDL files are what
 * introspection answers and an IDE or codegen validating against a file accepts what the gateway
 * runs (`@defer`, `@stream`, `@live`).
 */
import { GraphQLDeferDirective, GraphQLStreamDirective } from '@graphql-tools/utils';
import { GraphQLSchema } from 'graphql';
import { schema } from './index.js';
import { schemaForRelease } from './releases.js';

/**
 * The older upstream releases the repository publishes an SDL of (`schema/releases/<release>.graphql`),
 * besides the newest (`schema/schema.graphql`). Each is a release in which fields arrived that a
 * client may depend on; a deployment at a release between two of them serves a superset of the
 * older one's SDL. Publishing another is adding it here and running `npm run schema`.
 */
export const PUBLISHED_RELEASES: readonly string[] = ['3.5.0', '4.7.0', '4.10.0', '4.10.10', '5.0.0'];

/**
 * The directives the endpoint serves that the builder does not declare: the ones
 * `@graphql-yoga/plugin-defer-stream` adds to a schema that lacks them. Declared here, the plugin
 * finds them and adds nothing, so the printed SDL and the served schema cannot drift.
 */
const ENDPOINT_DIRECTIVES = [GraphQLDeferDirective, GraphQLStreamDirective];

/**
 * The standalone schema `/graphql` serves for upstream `release` (`UPSTREAM_VERSION`; unset: the
 * newest release, the whole schema), with the endpoint's directives.
 */
export function servedSchema(release?: string): GraphQLSchema {
  const cut = release === undefined ? schema : schemaForRelease(schema, release);
  const missing = ENDPOINT_DIRECTIVES.filter((directive) => cut.getDirective(directive.name) === undefined);
  const served = new GraphQLSchema({ ...cut.toConfig(), directives: [...cut.getDirectives(), ...missing] });
  // As the plugin does: the config copies only string keys of what other plugins read from here.
  served.extensions = cut.extensions;
  return served;
}
