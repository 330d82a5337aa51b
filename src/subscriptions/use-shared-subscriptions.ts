/**
 * `useSharedSubscriptions(shared)`: SSE subscribers of the same events join one execution
 * (`shared-subscriptions.ts`). Last in the plugin list, so the execution it starts runs the
 * subscribe function the other plugins settled on, and each subscriber has been admitted and
 * counted by its own pipeline already.
 */
import type { Plugin } from 'graphql-yoga';
import type { SharedSubscriptions } from './shared-subscriptions.js';

export function useSharedSubscriptions(shared: Pick<SharedSubscriptions, 'joiningSubscribe'>): Plugin {
  return {
    onSubscribe({ args, subscribeFn, setSubscribeFn }) {
      const joining = shared.joiningSubscribe(args, subscribeFn);
      if (joining !== null) setSubscribeFn(joining);
    },
  };
}
