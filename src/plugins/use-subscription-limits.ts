/**
 * `createSubscriptionLimits`: caps the subscriptions open at once, per graphql-ws socket and per
 * credential (the digest its cost budget keys on) over all its sockets and SSE streams on this
 * replica. Each subscription holds a pub/sub listener and its state for as long as the client
 * likes: 20,000 `jobEvents` subscriptions on one socket once took 239 MiB. The one past a cap is
 * refused with `TOO_MANY_SUBSCRIPTIONS` for that operation alone; the socket (or the client's other
 * streams) and its other subscriptions go on.
 *
 * graphql-ws subscriptions take their place in the WebSocket bridge (`take`, `release`); SSE
 * subscriptions through `plugin`, which frees the place when the stream ends.
 */
import { GraphQLError } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { GatewayContext } from '../context.js';
import { isSharedExecution } from '../shared-subscriptions.js';

export interface SubscriptionLimitsOptions {
  /** Subscriptions open at once on one graphql-ws socket. */
  perSocket: number;
  /** Subscriptions open at once under one credential, over all its sockets and SSE streams on this replica. */
  perCredential: number;
  /** The caller's credential as the limit counts it: the key of its cost budget (`QueryCost.budgetKeyOf`). */
  credentialKeyOf: (context: GatewayContext) => string;
}

/** A graphql-ws socket, as far as the limits need it: the signal that aborts when it closes. */
export interface LimitedSocket {
  readonly closed: AbortSignal;
}

export interface SubscriptionLimits {
  /**
   * Takes a place for subscription `id` on a graphql-ws socket under the caller's credential: null
   * when it may run, or the error that refuses it. `release`, or the socket's closing, frees it.
   */
  take(socket: LimitedSocket, id: string, context: GatewayContext): GraphQLError | null;
  /** Frees subscription `id`'s place on the socket (nothing when it holds none). */
  release(socket: LimitedSocket, id: string): void;
  /** Caps subscriptions over SSE per credential. */
  readonly plugin: Plugin;
}

export function createSubscriptionLimits(options: SubscriptionLimitsOptions): SubscriptionLimits {
  const perCredential = new Map<string, number>();
  /** Each socket's open subscriptions: id to credential. */
  const sockets = new WeakMap<LimitedSocket, Map<string, string>>();

  /** Counts one more subscription for `credential`: null, or the refusal. */
  function takeForCredential(credential: string): GraphQLError | null {
    const count = perCredential.get(credential) ?? 0;
    if (count >= options.perCredential) {
      return tooMany(`Your credential already has ${count} subscriptions open, the most allowed; complete one first.`, 'credential', options.perCredential);
    }
    perCredential.set(credential, count + 1);
    return null;
  }

  function releaseForCredential(credential: string): void {
    const count = (perCredential.get(credential) ?? 1) - 1;
    if (count > 0) perCredential.set(credential, count);
    else perCredential.delete(credential);
  }

  function release(socket: LimitedSocket, id: string): void {
    const open = sockets.get(socket);
    const credential = open?.get(id);
    if (credential === undefined) return;
    open!.delete(id);
    releaseForCredential(credential);
  }

  function openOn(socket: LimitedSocket): Map<string, string> {
    let open = sockets.get(socket);
    if (open === undefined) {
      const created = new Map<string, string>();
      sockets.set(socket, created);
      socket.closed.addEventListener('abort', () => {
        for (const id of [...created.keys()]) release(socket, id);
      });
      open = created;
    }
    return open;
  }

  const plugin: Plugin = {
    onSubscribe({ args, setResultAndStopExecution }) {
      const context = args.contextValue as unknown as GatewayContext & { request?: Request };
      // graphql-ws subscriptions were counted by the bridge; a shared execution is not a subscriber.
      if (isSharedExecution(context) || !context.request?.headers.get('accept')?.includes('text/event-stream')) return undefined;
      const credential = options.credentialKeyOf(context);
      const refused = takeForCredential(credential);
      if (refused !== null) {
        setResultAndStopExecution({ errors: [refused] });
        return undefined;
      }
      let held = true;
      const free = (): void => {
        if (held) releaseForCredential(credential);
        held = false;
      };
      return {
        onSubscribeResult({ result }) {
          if (!isAsyncIterable(result)) return free();
          return { onEnd: free };
        },
        onSubscribeError: free,
      };
    },
  };

  return {
    take(socket, id, context) {
      // Closed while its operation was being prepared: graphql-ws drops the operation, and a place
      // taken now would never be given back.
      if (socket.closed.aborted) return null;
      const open = openOn(socket);
      if (open.size >= options.perSocket) {
        return tooMany(`This connection already has ${open.size} subscriptions open, the most allowed; complete one first.`, 'socket', options.perSocket);
      }
      const credential = options.credentialKeyOf(context);
      const refused = takeForCredential(credential);
      if (refused !== null) return refused;
      open.set(id, credential);
      return null;
    },
    release,
    plugin,
  };
}

function tooMany(message: string, per: 'socket' | 'credential', limit: number): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'TOO_MANY_SUBSCRIPTIONS', per, limit } });
}
