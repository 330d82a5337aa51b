/**
 * `useOperationMetrics(operationMetrics)`: hears each operation on yoga's pipeline and reports it
 * to the operation metrics (`operation-metrics.ts`): queries and mutations timed until their last
 * increment, subscriptions counted as they start and end, and the errors of every answer sent.
 */
import type { ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { isSharedExecution } from '../execution/execution-kind.js';
import type { OperationMetrics } from './operation-metrics.js';

export function useOperationMetrics(operationMetrics: OperationMetrics): Plugin {
  return {
    onExecute({ args }) {
      const done = operationMetrics.startOperation(args);
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
      // A shared execution is not counted itself: its subscribers are, one by one.
      if (isSharedExecution(args.contextValue)) return undefined;
      return {
        onSubscribeResult({ result }) {
          const accepted = isAsyncIterable(result);
          const closed = operationMetrics.countSubscriber(args, accepted);
          return accepted ? { onEnd: closed } : undefined;
        },
        onSubscribeError() {
          operationMetrics.countFailedSubscription(args);
        },
      };
    },
    // Every answer sent over HTTP passes here, refused ones too (parse, validation, limits, cost);
    // a stream's events (SSE, multipart) do not.
    onResultProcess({ result }) {
      for (const answer of Array.isArray(result) ? result : [result]) {
        if (isAsyncIterable(answer)) continue;
        operationMetrics.countErrors(answer as ExecutionResult);
      }
    },
  };
}
