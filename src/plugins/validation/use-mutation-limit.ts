/**
 * `useMutationLimit(max)`: at most `max` mutations (root fields) in one operation. Each mutation
 * is an upstream write and a job the gateway keeps, and aliases let one small request repeat a
 * mutation with the same large variable: 30 aliased mutations sharing a 900 KB `userTags` kept
 * 27 MB per request (issue 19). Counted during validation, as written (fragments included,
 * `@skip` ignored), so an operation over the limit is refused with `BAD_USER_INPUT` before any
 * upstream call, wherever yoga's validation runs (HTTP, and the graphql-ws bridge's `validate`).
 */
import { GraphQLError, Kind, type SelectionSetNode, type ValidationContext, type ValidationRule } from 'graphql';
import type { Plugin } from 'graphql-yoga';

export function useMutationLimit(max: number): Plugin {
  const rule = mutationLimitRule(max);
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(rule);
    },
  };
}

export function mutationLimitRule(max: number): ValidationRule {
  return (context: ValidationContext) => ({
    OperationDefinition(operation) {
      if (operation.operation !== 'mutation') return;
      const found = countRootFields(operation.selectionSet, context, new Set());
      if (found <= max) return;
      context.reportError(
        new GraphQLError(`An operation may hold at most ${max} mutations; this one holds ${found}. Send them in separate requests.`, {
          nodes: [operation],
          extensions: { code: 'BAD_USER_INPUT', limit: max, found, http: { status: 400 } },
        }),
      );
    },
  });
}

function countRootFields(selectionSet: SelectionSetNode, context: ValidationContext, visited: Set<string>): number {
  let count = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (!selection.name.value.startsWith('__')) count += 1;
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      count += countRootFields(selection.selectionSet, context, visited);
    } else if (!visited.has(selection.name.value)) {
      // A fragment spread twice runs its fields once (they merge); a cycle is another rule's error.
      visited.add(selection.name.value);
      const fragment = context.getFragment(selection.name.value);
      if (fragment) count += countRootFields(fragment.selectionSet, context, visited);
    }
  }
  return count;
}
