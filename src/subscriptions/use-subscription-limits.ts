/**
 * `useSubscriptionLimits(limits)`: the subscription caps (`subscription-limits.ts`) for
 * subscriptions over SSE and multipart HTTP, whose place is freed when the stream ends. graphql-ws
 * subscriptions were counted by the WebSocket bridge already, and a shared execution is not a
 * subscriber: neither takes a place here.
 */
import { GraphQLError } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { GatewayContext } from '../context.js';
import { acceptsSubscriptionStream, isSharedExecution } from '../execution/execution-kind.js';
import type { SubscriptionLimits } from './subscription-limits.js';

export function useSubscriptionLimits(limits: Pick<SubscriptionLimits, 'takeStream'>): Plugin {
  return {
    async onSubscribe({ args, setResultAndStopExecution }) {
      const context = args.contextValue as unknown as GatewayContext & { request?: Request };
      if (isSharedExecution(context) || !acceptsSubscriptionStream(context.request?.headers.get('accept') ?? null)) return undefined;
      const free = await limits.takeStream(context);
      if (free instanceof GraphQLError) {
        setResultAndStopExecution({ errors: [free] });
        return undefined;
      }
      return {
        onSubscribeResult({ result }) {
          if (!isAsyncIterable(result)) return free();
          return { onEnd: free };
        },
        onSubscribeError: free,
      };
    },
  };
}
