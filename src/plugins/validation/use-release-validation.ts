/**
 * `useReleaseValidation(options)`: with `UPSTREAM_VERSION` set, a query asking for a field,
 * argument or input field the served release does not have fails with `NOT_IN_UPSTREAM_RELEASE`,
 * naming the element and the release that brought it (read from the full schema by
 * `schema/releases.ts`), instead of graphql-js' bare "Cannot query field".
 */
import { getNamedType, GraphQLError, isInputObjectType, type ASTNode, type GraphQLSchema, type ValidationRule } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { releasesOf, type Coordinate } from '../../schema/releases.js';
import { existsIn, type Release } from '../../upstream/releases.js';

/** What `useReleaseValidation` needs: the full schema's releases and the release served. */
export interface ReleaseValidationOptions {
  /** The schema before `schemaForRelease`: it knows the releases of what the served one left out. */
  readonly fullSchema: GraphQLSchema;
  /** The release served (`UPSTREAM_VERSION`). */
  readonly upstreamVersion: string;
}

/** The validation error of an element the served release does not have. */
function notInRelease(what: string, coordinate: Coordinate, since: Release, release: string, node: ASTNode): GraphQLError {
  const because =
    since !== null && !existsIn(since, release)
      ? `it came with upstream release ${since}, and this gateway serves release ${release} (UPSTREAM_VERSION)`
      : `what it returns is not in upstream release ${release}, which this gateway serves (UPSTREAM_VERSION)`;
  return new GraphQLError(`${what} is not available: ${because}.`, {
    nodes: [node],
    extensions: { code: 'NOT_IN_UPSTREAM_RELEASE', coordinate, since, upstreamVersion: release },
  });
}

/**
 * A validation rule that, for a field, argument or input field the served schema lacks and the
 * full schema has, reports the release that brought it; the standard rules' "Cannot query
 * field" for the same node is dropped by `useReleaseValidation`.
 */
function releaseRule(options: ReleaseValidationOptions, of: ReadonlyMap<Coordinate, Release>, reported: Set<ASTNode>): ValidationRule {
  const full = options.fullSchema;
  return (context) => ({
    Field(node) {
      const parent = context.getParentType();
      if (!parent || !('getFields' in parent) || parent.getFields()[node.name.value] !== undefined) return;
      const coordinate = `${parent.name}.${node.name.value}`;
      const since = of.get(coordinate);
      if (since === undefined) return;
      reported.add(node);
      context.reportError(notInRelease(`Field "${coordinate}"`, coordinate, since, options.upstreamVersion, node));
    },
    Argument(node) {
      const field = context.getFieldDef();
      const parent = context.getParentType();
      if (!field || !parent || field.args.some((arg) => arg.name === node.name.value)) return;
      const coordinate = `${parent.name}.${field.name}(${node.name.value}:)`;
      const since = of.get(coordinate);
      if (since === undefined) return;
      reported.add(node);
      context.reportError(notInRelease(`Argument "${node.name.value}" of "${parent.name}.${field.name}"`, coordinate, since, options.upstreamVersion, node));
    },
    ObjectField(node) {
      const parent = getNamedType(context.getParentInputType() ?? undefined);
      if (!parent || !isInputObjectType(parent) || parent.getFields()[node.name.value] !== undefined) return;
      if (!isInputObjectType(full.getType(parent.name))) return;
      const coordinate = `${parent.name}.${node.name.value}`;
      const since = of.get(coordinate);
      if (since === undefined) return;
      reported.add(node);
      context.reportError(notInRelease(`Input field "${coordinate}"`, coordinate, since, options.upstreamVersion, node));
    },
  });
}

/**
 * Names the upstream release behind a validation failure: a query asking for an element the
 * served release does not have fails with `NOT_IN_UPSTREAM_RELEASE`, naming the element and the
 * release that brought it, instead of graphql-js' bare "Cannot query field".
 */
export function useReleaseValidation(options: ReleaseValidationOptions): Plugin {
  // Once: the rule runs on every validation the cache misses.
  const { of } = releasesOf(options.fullSchema);
  return {
    onValidate({ addValidationRule }) {
      const reported = new Set<ASTNode>();
      addValidationRule(releaseRule(options, of, reported));
      return ({ result, setResult }) => {
        if (reported.size === 0) return;
        setResult(result.filter((error: GraphQLError) => error.extensions.code === 'NOT_IN_UPSTREAM_RELEASE' || !error.nodes?.some((node: ASTNode) => reported.has(node))));
      };
    },
  };
}
