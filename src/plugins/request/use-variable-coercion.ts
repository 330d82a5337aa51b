/**
 * useVariableCoercion: an operation whose variables do not coerce (a wrong type, a malformed
 * `Uuid` or `DateTime`, a required input field left out) is answered `BAD_USER_INPUT` before any
 * other execution hook runs: no cost is computed or charged for it, no upstream request is made,
 * and the response cache never sees it (its wrapped executor would otherwise go uncalled, which it
 * reports on the console). Each error names the value as a form names its field
 * (`extensions.field`, `extensions.reason`: `errors/input-fields.ts`), and so does a validation
 * error that blames a literal argument value.
 * graphql-js quotes the refused value in its message, a string whole: text quoted in a message is
 * cut to its first 40 characters, so a 1 MB variable is not sent back, once or twice over.
 *
 * Text that is not well-formed Unicode (a lone surrogate, which JSON's `\ud800` escape can carry)
 * is refused here too, `BAD_USER_INPUT` naming the variable and where in it: no such text can be
 * percent-encoded into an upstream path or query, nor means anything in a body, and it threw
 * `URIError` from the upstream request's builder, an internal error. This is the one place it is
 * checked: every caller's string that reaches the upstream comes in a variable, since the
 * GraphQL parser refuses a lone surrogate in a literal.
 */
import { getOperationAST, GraphQLError, type ExecutionArgs, type ExecutionResult, type VariableDefinitionNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { coerceVariables, locateLiteralErrors } from '../../errors/input-fields.js';
import { shortenQuotes } from '../../errors/quotes.js';

/** Longest piece of a refused variable's text quoted back. */
const MAX_VARIABLE_QUOTE_CHARS = 40;

export function useVariableCoercion(): Plugin {
  return {
    onValidate({ params }) {
      return ({ valid, result, setResult }) => {
        if (valid) return;
        setResult(locateLiteralErrors(params.schema, params.documentAST, result));
      };
    },
    onExecute({ args, setResultAndStopExecution }) {
      const refused = coercionErrors(args);
      if (refused) setResultAndStopExecution(refused);
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const refused = coercionErrors(args);
      if (refused) setResultAndStopExecution(refused);
    },
  };
}

/** The errors of variables that do not coerce, as `BAD_USER_INPUT`; null when they do. */
function coercionErrors(args: ExecutionArgs): ExecutionResult | null {
  const operation = getOperationAST(args.document, args.operationName ?? undefined);
  // No variables to coerce, or no such operation (execution itself says so).
  if (!operation?.variableDefinitions?.length) return null;
  const malformed = malformedTextErrors(operation.variableDefinitions, args.variableValues);
  if (malformed.length > 0) return { errors: malformed };
  const { errors } = coerceVariables(args.schema, args.document, operation, args.variableValues ?? {});
  if (errors === null) return null;
  return {
    errors: errors.map(
      (error) =>
        new GraphQLError(shortenQuotes(error.message, MAX_VARIABLE_QUOTE_CHARS), {
          nodes: error.nodes ?? null,
          originalError: error.originalError ?? null,
          extensions: error.extensions,
        }),
    ),
  };
}

/** `BAD_USER_INPUT` for each variable holding text that is not well-formed Unicode, at the first such place in it. */
function malformedTextErrors(definitions: readonly VariableDefinitionNode[], values: ExecutionArgs['variableValues']): GraphQLError[] {
  if (values === null || values === undefined) return [];
  const errors: GraphQLError[] = [];
  for (const definition of definitions) {
    const name = definition.variable.name.value;
    const at = malformedTextPath(values[name], []);
    if (at === null) continue;
    const where = at.length === 0 ? '' : ` at ${at.map((key) => (typeof key === 'number' ? `[${key}]` : `.${key.length > 40 ? `${key.slice(0, 40)}…` : key}`)).join('')}`;
    errors.push(
      new GraphQLError(`Variable "$${name}"${where} holds text that is not valid Unicode (a lone surrogate); it cannot be sent upstream.`, {
        nodes: definition,
        extensions: { code: 'BAD_USER_INPUT', variable: name, path: at },
      }),
    );
  }
  return errors;
}

/** Where in `value` (a key or a string) text is not well-formed; null when all of it is. Depth is bounded by the request's validation. */
function malformedTextPath(value: unknown, path: (string | number)[]): (string | number)[] | null {
  if (typeof value === 'string') return value.isWellFormed() ? null : path;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const found = malformedTextPath(value[index], [...path, index]);
      if (found) return found;
    }
    return null;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      // A key that cannot be encoded is pointed at by a well-formed stand-in.
      if (!key.isWellFormed()) return [...path, key.toWellFormed()];
      const found = malformedTextPath(item, [...path, key]);
      if (found) return found;
    }
  }
  return null;
}
