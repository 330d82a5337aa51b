/**
 * `createOperationMetrics`: counts GraphQL operations and times queries and mutations, and keeps
 * the gauge of open subscriptions, over HTTP, SSE and graphql-ws alike (the WebSocket path runs
 * through the same envelop). A shared execution (`shared-subscriptions.ts`) is not counted itself: its
 * subscribers are, one by one, through `countSubscriber`.
 */
import { getOperationAST, type DocumentNode, type ExecutionArgs } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { GatewayMetrics } from '../metrics.js';
import { isSharedExecution } from '../shared-subscriptions.js';

export interface UseMetricsOptions {
  /** Where to record. */
  metrics: GatewayMetrics;
  /**
   * Most distinct `operation_name` label values; names past it (and names that are not plain
   * identifiers) count as `other`, so clients cannot grow the label set without bound.
   * @default 200
   */
  maxOperationNames?: number;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

export interface OperationMetrics {
  plugin: Plugin;
  /** Counts a subscriber of a shared execution started (or refused); the function it answers counts it closed. */
  countSubscriber(args: ExecutionArgs, accepted: boolean): () => void;
}

export function createOperationMetrics(options: UseMetricsOptions): OperationMetrics {
  const { metrics } = options;
  const maxNames = options.maxOperationNames ?? 200;
  const knownNames = new Set<string>();

  function labelsOf(document: DocumentNode, operationName: string | null | undefined): { operation_type: string; operation_name: string } {
    const operation = getOperationAST(document, operationName);
    const name = operation?.name?.value;
    let label = 'anonymous';
    if (name !== undefined) {
      if (NAME.test(name) && (knownNames.has(name) || knownNames.size < maxNames)) {
        knownNames.add(name);
        label = name;
      } else {
        label = 'other';
      }
    }
    return { operation_type: operation?.operation ?? 'unknown', operation_name: label };
  }

  function countSubscriber(args: ExecutionArgs, accepted: boolean): () => void {
    const labels = labelsOf(args.document, args.operationName);
    metrics.operations.inc({ ...labels, result: accepted ? 'success' : 'error' });
    if (!accepted) return () => undefined;
    metrics.openSubscriptions.inc();
    let open = true;
    return () => {
      if (open) metrics.openSubscriptions.dec();
      open = false;
    };
  }

  const plugin: Plugin = {
    onExecute({ args }) {
      const labels = labelsOf(args.document, args.operationName);
      const end = metrics.operationDuration.startTimer(labels);
      const done = (failed: boolean): void => {
        end();
        metrics.operations.inc({ ...labels, result: failed ? 'error' : 'success' });
      };
      return {
        onExecuteDone({ result }) {
          if (!isAsyncIterable(result)) return done((result.errors?.length ?? 0) > 0);
          // @defer/@stream: the operation lasts until its last increment.
          let failed = false;
          return {
            onNext({ result: increment }) {
              if ((increment.errors?.length ?? 0) > 0) failed = true;
            },
            onEnd: () => done(failed),
          };
        },
      };
    },
    onSubscribe({ args }) {
      if (isSharedExecution(args.contextValue)) return undefined;
      return {
        onSubscribeResult({ result }) {
          const accepted = isAsyncIterable(result);
          const closed = countSubscriber(args, accepted);
          return accepted ? { onEnd: closed } : undefined;
        },
        onSubscribeError() {
          metrics.operations.inc({ ...labelsOf(args.document, args.operationName), result: 'error' });
        },
      };
    },
  };
  return { plugin, countSubscriber };
}
