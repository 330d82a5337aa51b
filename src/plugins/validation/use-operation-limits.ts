/**
 * `useOperationLimits`: the shape limits of GraphQL Armor (depth, aliases, tokens, directives),
 * each rejection carrying a stable `extensions.code` (`MAX_DEPTH_EXCEEDED`,
 * `MAX_ALIASES_EXCEEDED`, `MAX_TOKENS_EXCEEDED`, `MAX_DIRECTIVES_EXCEEDED`) plus `limit` and,
 * where Armor tells it, `found`. Tokens are counted while parsing, the rest during validation:
 * an operation over a limit never executes, so it makes no upstream request.
 *
 * `__schema` is capped at `maxIntrospectionSchemas` per operation, answered
 * `GRAPHQL_VALIDATION_FAILED`: one `__schema` answer is hundreds of KB built from a 100-byte
 * selection, so 22 aliases of it in a 4 KB request answered 9.8 MiB (the alias limit allows 30).
 * `__type` lookups are not counted: several in one operation are how schema browsers and codegen
 * plugins work, each answers one type, and the cost limit (`query-cost.ts` prices introspection by
 * what it returns) and the alias limit bound them.
 *
 * Names (of fields, aliases, arguments, variables, fragments, types) are at most `maxNameChars`
 * long and string literals at most `maxStringChars` (`MAX_TOKEN_LENGTH_EXCEEDED`, with `kind`,
 * `limit` and `found`), checked as a document is parsed (a cached one passed already): the token
 * limit counts a 1 MB name as one token, and graphql-js quotes an unknown name whole in its error.
 * A value that long belongs in a variable.
 *
 * With `blockFieldSuggestions` the "Did you mean ...?" hints of validation errors are removed, so
 * a schema without introspection does not leak through its error messages.
 */
import { blockFieldSuggestionsPlugin } from '@escape.tech/graphql-armor-block-field-suggestions';
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesPlugin } from '@escape.tech/graphql-armor-max-directives';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import {
  GraphQLError,
  Kind,
  visit,
  type ASTVisitor,
  type DocumentNode,
  type NameNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type StringValueNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';

export interface OperationLimitsOptions {
  /** Deepest field nesting (introspection's `__schema` excepted) (`MAX_DEPTH`). */
  maxDepth: number;
  /** Aliases in one operation, fragments included (`MAX_ALIASES`). */
  maxAliases: number;
  /** Lexical tokens in one document (names, punctuation, values) (`MAX_TOKENS`). */
  maxTokens: number;
  /** Directives in one operation (`MAX_DIRECTIVES`). */
  maxDirectives: number;
  /** `__schema` fields in one operation, fragments included (`MAX_INTROSPECTION_SCHEMAS`). */
  maxIntrospectionSchemas: number;
  /** Longest name a document may carry, in characters. @default MAX_NAME_CHARS */
  maxNameChars?: number | undefined;
  /** Longest string literal (block strings too) a document may carry, in characters. @default MAX_STRING_CHARS */
  maxStringChars?: number | undefined;
  /** Remove "Did you mean ...?" suggestions from validation errors (turn on with introspection off). @default false */
  blockFieldSuggestions?: boolean | undefined;
}

/** Longest name in a document: far above any schema's or client's (GraphQL names are identifiers). */
export const MAX_NAME_CHARS = 256;

/** Longest string literal in a document: larger values are sent as variables, which are not parsed as GraphQL. */
export const MAX_STRING_CHARS = 16 * 1024;

type Limit = 'depth' | 'aliases' | 'tokens' | 'directives';

const CODES: Readonly<Record<Limit, string>> = {
  depth: 'MAX_DEPTH_EXCEEDED',
  aliases: 'MAX_ALIASES_EXCEEDED',
  tokens: 'MAX_TOKENS_EXCEEDED',
  directives: 'MAX_DIRECTIVES_EXCEEDED',
};

export function useOperationLimits(options: OperationLimitsOptions): Plugin {
  const limits: Readonly<Record<Limit, number>> = {
    depth: options.maxDepth,
    aliases: options.maxAliases,
    tokens: options.maxTokens,
    directives: options.maxDirectives,
  };
  const plugins: Plugin[] = [
    maxTokensPlugin({ n: limits.tokens, propagateOnRejection: false, onReject: [reject('tokens', limits.tokens)] }),
    maxDepthPlugin({ n: limits.depth, propagateOnRejection: false, onReject: [reject('depth', limits.depth)] }),
    maxAliasesPlugin({ n: limits.aliases, propagateOnRejection: false, onReject: [reject('aliases', limits.aliases)] }),
    maxDirectivesPlugin({ n: limits.directives, propagateOnRejection: false, onReject: [reject('directives', limits.directives)] }),
  ];
  // After Armor's token counter: it wraps the parser Armor put in place, so both apply.
  plugins.push(tokenLengthLimit(options.maxNameChars ?? MAX_NAME_CHARS, options.maxStringChars ?? MAX_STRING_CHARS));
  if (options.blockFieldSuggestions) plugins.push(blockFieldSuggestionsPlugin());
  const introspectionRule = maxSchemaIntrospectionsRule(options.maxIntrospectionSchemas);
  return {
    onPluginInit({ addPlugin }) {
      for (const plugin of plugins) addPlugin(plugin);
    },
    onValidate({ addValidationRule }) {
      addValidationRule(introspectionRule);
    },
  };
}

/**
 * Refuses a parsed document holding a name longer than `maxName` or a string literal longer than
 * `maxString`. It wraps the parser, so only documents parsed afresh are walked: yoga's parse cache
 * answers the others before any parser runs, and a refused document is never cached as parsed.
 */
function tokenLengthLimit(maxName: number, maxString: number): Plugin {
  const check = (document: DocumentNode): DocumentNode => {
    // No token is longer than its document.
    const length = document.loc?.source.body.length;
    if (length !== undefined && length <= Math.min(maxName, maxString)) return document;
    visit(document, {
      Name(node) {
        if (node.value.length > maxName) throw tokenTooLong('name', node, maxName);
      },
      StringValue(node) {
        if (node.value.length > maxString) throw tokenTooLong('string', node, maxString);
      },
    });
    return document;
  };
  return {
    onParse({ parseFn, setParseFn }) {
      setParseFn((source, options) => check(parseFn(source, options)));
    },
  };
}

function tokenTooLong(kind: 'name' | 'string', node: NameNode | StringValueNode, limit: number): GraphQLError {
  const found = node.value.length;
  const what = kind === 'name' ? 'A name' : 'A string literal';
  const advice = kind === 'name' ? '' : ' Send long values as variables.';
  return new GraphQLError(`${what} in this document is ${found} characters long; at most ${limit} are allowed.${advice}`, {
    nodes: [node],
    extensions: { code: 'MAX_TOKEN_LENGTH_EXCEEDED', kind, limit, found, http: { status: 400 } },
  });
}

/** Refuses an operation that selects `__schema` more than `max` times (the root selection set, fragments followed). */
function maxSchemaIntrospectionsRule(max: number): ValidationRule {
  return (context): ASTVisitor => ({
    OperationDefinition(operation: OperationDefinitionNode) {
      const found = countSchemaIntrospections(context, operation.selectionSet, new Set());
      if (found <= max) return;
      context.reportError(
        new GraphQLError(
          `This operation selects __schema ${found} times; at most ${max} may be selected in one operation. Send one schema introspection at a time (\`__type\` lookups are not limited this way).`,
          { nodes: [operation], extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: max, found, http: { status: 400 } } },
        ),
      );
    },
  });
}

/**
 * The `__schema` fields of a root selection set. A fragment spread again in the same selection
 * merges with the first and is counted once (`seen`); introspection fields exist only on the query
 * root, so nothing deeper is looked at.
 */
function countSchemaIntrospections(context: ValidationContext, selectionSet: SelectionSetNode, seen: Set<string>): number {
  let count = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (selection.name.value === '__schema') count += 1;
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      count += countSchemaIntrospections(context, selection.selectionSet, seen);
    } else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const fragment = context.getFragment(selection.name.value);
      if (fragment) count += countSchemaIntrospections(context, fragment.selectionSet, seen);
    }
  }
  return count;
}

/**
 * Armor's rejection, re-issued with a code. During validation it is reported on the context; at
 * parse time (tokens: no context) it is thrown, which ends parsing.
 */
function reject(limit: Limit, max: number): (context: ValidationContext | null, error: GraphQLError) => void {
  return (context, armorError) => {
    const message = armorError.message.replace(/^Syntax Error: /, '');
    const found = /found (\d+)/.exec(message)?.[1];
    const error = new GraphQLError(message, {
      extensions: { code: CODES[limit], limit: max, ...(found === undefined ? {} : { found: Number(found) }), http: { status: 400 } },
    });
    if (context === null) throw error;
    context.reportError(error);
  };
}
