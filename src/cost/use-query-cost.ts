/**
 * `useQueryCost(queryCost)`: the query cost (`query-cost.ts`) on yoga's pipeline, as two plugins
 * that stand apart in the plugin list. `gate` admits and charges each operation before it runs;
 * `report` refunds what it did not use and answers `extensions.cost`.
 */
import type { Plugin } from 'graphql-yoga';
import type { GatewayContext } from '../context.js';
import { isLiveExecution, isSharedExecution } from '../execution/execution-kind.js';
import { isCharge, type CostCharge, type QueryCost } from './query-cost.js';

export interface QueryCostPlugins {
  /**
   * Admits and charges operations. Goes before the response cache: it wraps the executor the
   * cache wraps in turn, so an answer served from the cache never reaches it (nothing charged),
   * and a refusal is what that executor answers (the cache sees it run, and does not keep it).
   */
  gate: Plugin<GatewayContext>;
  /**
   * Refunds what an operation did not use and reports `extensions.cost`. Goes after the response
   * cache, so the cost of the execution that filled the cache is not kept with the answer.
   */
  report: Plugin<GatewayContext>;
}

export function useQueryCost(queryCost: QueryCost): QueryCostPlugins {
  /** Operations charged and not yet reported, by their context (one operation per context). */
  const charged = new WeakMap<object, CostCharge>();

  const gate: Plugin<GatewayContext> = {
    onExecute({ executeFn, setExecuteFn }) {
      setExecuteFn(async (args) => {
        if (isLiveExecution(args.contextValue)) return executeFn(args);
        const admitted = await queryCost.admit(args);
        if (admitted === null) return executeFn(args);
        if (!isCharge(admitted)) return admitted;
        charged.set(args.contextValue as object, admitted);
        return executeFn(args);
      });
    },
    async onSubscribe({ args, setResultAndStopExecution }) {
      // A subscription pays its requested cost once, when it starts.
      if (isSharedExecution(args.contextValue)) return;
      const refused = await queryCost.admitSubscriber(args);
      if (refused !== null) setResultAndStopExecution(refused);
    },
  };

  const report: Plugin<GatewayContext> = {
    onExecute({ args }) {
      return {
        async onExecuteDone({ result, setResult }) {
          const admitted = charged.get(args.contextValue as object);
          if (admitted === undefined) return;
          charged.delete(args.contextValue as object);
          // Incremental delivery (@defer/@stream) reports no cost: its parts arrive after this hook.
          if (Symbol.asyncIterator in result) return;
          setResult({ ...result, extensions: { ...result.extensions, cost: await queryCost.settle(admitted, result.data) } });
        },
      };
    },
  };
  return { gate, report };
}
