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
 */
import { getOperationAST, GraphQLError, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { coerceVariables, locateLiteralErrors } from '../../errors/input-fields.js';

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
  const { errors } = coerceVariables(args.schema, args.document, operation, args.variableValues ?? {});
  if (errors === null) return null;
  return {
    errors: errors.map(
      (error) =>
        new GraphQLError(shortenQuotes(error.message), {
          nodes: error.nodes ?? null,
          originalError: error.originalError ?? null,
          extensions: error.extensions,
        }),
    ),
  };
}

/**
 * JSON string literals in `message` longer than 40 characters, cut to their first 40. Every
 * literal is matched, the short ones too, so each quote pairs with its own.
 */
function shortenQuotes(message: string): string {
  return message.replace(/"((?:[^"\\]|\\.)*)"/g, (literal, body: string) => (body.length > 40 ? `"${body.slice(0, 40)}…"` : literal));
}
