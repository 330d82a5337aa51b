/**
 * `useOperationTracing(tracing)`: the operation tracing (`operation-tracing.ts`) on yoga's
 * pipeline: parse and validate each get a span under the operation's, the execution (or
 * subscription) one that the upstream calls land under, and the operation's span ends with its
 * execution, its failure, or its answer when nothing executed.
 */
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { OperationStart, OperationTracing } from './operation-tracing.js';
import { recordFailure, startChildSpan } from './spans.js';

export function useOperationTracing(tracing: OperationTracing): Plugin {
  return {
    onParse({ context }) {
      const scope = tracing.scopeOf(context as unknown as OperationStart);
      const span = startChildSpan(scope, 'graphql.parse');
      return ({ result }) => {
        if (result instanceof Error) {
          recordFailure(span, result);
          tracing.endOperation(scope, result);
        }
        span.end();
      };
    },
    onValidate({ context }) {
      const scope = tracing.scopeOf(context as unknown as OperationStart);
      const span = startChildSpan(scope, 'graphql.validate');
      return ({ result }) => {
        if (result.length > 0) {
          span.setAttribute('graphql.errors', result.length);
          recordFailure(span, result[0]);
          span.end();
          tracing.endOperation(scope, result[0]);
          return;
        }
        span.end();
      };
    },
    onExecute({ args }) {
      const scope = tracing.scopeOfRequest((args.contextValue as Partial<OperationStart>).request);
      if (scope !== undefined) tracing.nameOperation(scope, args.document, args.operationName);
      const done = tracing.traceExecution(scope, 'graphql.execute');
      return done === undefined ? undefined : { onExecuteDone: done };
    },
    onSubscribe({ args }) {
      const scope = tracing.scopeOfRequest((args.contextValue as Partial<OperationStart>).request);
      if (scope !== undefined) tracing.nameOperation(scope, args.document, args.operationName);
      const done = tracing.traceExecution(scope, 'graphql.subscribe');
      return done === undefined ? undefined : { onSubscribeResult: done };
    },
    // An operation answered without an execution (refused by a limit or the cost gate, a cached
    // answer): over when its answer is.
    onResultProcess({ request, result }) {
      const scope = tracing.scopeOfRequest(request);
      if (scope !== undefined && !isAsyncIterable(result)) tracing.endOperation(scope);
    },
  };
}
