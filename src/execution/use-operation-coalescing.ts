/**
 * `useOperationCoalescing(coalescing)`: runs each query through the coalescing
 * (`operation-coalescing.ts`), so identical queries in flight share one execution. Goes after
 * `useJit` and before the cost gate, so the shared execution runs the compiled function and each
 * caller is still charged on its own.
 */
import type { Plugin } from 'graphql-yoga';
import type { GatewayContext } from '../context.js';
import type { OperationCoalescing } from './operation-coalescing.js';

export function useOperationCoalescing(coalescing: OperationCoalescing): Plugin<GatewayContext> {
  return {
    onExecute({ executeFn, setExecuteFn }) {
      setExecuteFn((args) => coalescing.execute(args, executeFn));
    },
  };
}
