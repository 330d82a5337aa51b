/**
 * `useRecordDemand()`: each query's context carries what its upstream reads decode of each record
 * (`record-demand.ts`), worked out once per document and kept while the document is.
 */
import { getOperationAST, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { setRecordDemand, type GatewayContext } from '../context.js';
import type { RecordDemand } from '../upstream/demand.js';
import { recordDemandOf } from './record-demand.js';

export function useRecordDemand(): Plugin<GatewayContext> {
  const demands = new WeakMap<DocumentNode, RecordDemand>();
  return {
    onExecute({ args }) {
      if (getOperationAST(args.document, args.operationName)?.operation !== 'query') return;
      let demand = demands.get(args.document);
      if (demand === undefined) {
        demand = recordDemandOf(args.schema, args.document);
        demands.set(args.document, demand);
      }
      setRecordDemand(args.contextValue, demand);
    },
  };
}
