/**
 * Compiles each operation once with graphql-jit (`@envelop/graphql-jit`) and runs the compiled
 * function instead of graphql-js's interpreter: the dashboard's ~3,000 fields cost noticeably
 * less CPU (see README, Performance). graphql-jit does not implement `@defer`/`@stream`, so an
 * operation using them runs on graphql-js as before.
 */
import { useGraphQlJit, type JITCache } from '@envelop/graphql-jit';
import { Kind, visit, BREAK, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';

export interface JitOptions {
  /** Compiled operations kept (least recently used dropped). @default 1000 */
  max?: number;
}

export function useJit(options: JitOptions = {}): Plugin {
  const max = options.max ?? 1_000;
  const compiled = new Map<string, Parameters<JITCache['set']>[1]>();
  const incremental = new WeakMap<DocumentNode, boolean>();
  return useGraphQlJit(
    {},
    {
      enableIf: ({ document }) => {
        let uses = incremental.get(document);
        if (uses === undefined) {
          uses = usesIncrementalDelivery(document);
          incremental.set(document, uses);
        }
        return !uses;
      },
      cache: {
        get: (key) => compiled.get(key),
        set: (key, value) => {
          compiled.delete(key);
          compiled.set(key, value);
          if (compiled.size > max) compiled.delete(compiled.keys().next().value as string);
        },
      },
    },
  ) as Plugin;
}

function usesIncrementalDelivery(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    [Kind.DIRECTIVE](node) {
      if (node.name.value === 'defer' || node.name.value === 'stream') {
        found = true;
        return BREAK;
      }
      return undefined;
    },
  });
  return found;
}
