/**
 * `createSubscriptionLimits`: caps the subscriptions open at once, per graphql-ws socket and per
 * credential (the digest its cost budget keys on) over all its sockets and SSE streams on this
 * replica. Each subscription holds a pub/sub listener and its state for as long as the client
 * likes: 20,000 `jobEvents` subscriptions on one socket once took 239 MiB. The one past a cap is
 * refused with `TOO_MANY_SUBSCRIPTIONS` for that operation alone; the socket (or the client's other
 * streams) and its other subscriptions go on.
 *
 * A subscription asks nothing of the upstream, so a cap per credential alone would give every
 * invented credential 500 more: sockets opened with a fresh made-up session each held as many
 * subscriptions as the client liked. Subscriptions under credentials the upstream has not accepted
 * (`isVerified`) are also capped per client address, over all of them.
 *
 * graphql-ws subscriptions take their place in the WebSocket bridge (`take`, `release`); SSE and
 * multipart HTTP subscriptions through `plugin`, which frees the place when the stream ends.
 */
import { GraphQLError } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { GatewayContext } from '../../context.js';
import { acceptsSubscriptionStream, isSharedExecution } from '../../execution/execution-kind.js';

export interface SubscriptionLimitsOptions {
  /** Subscriptions open at once on one graphql-ws socket (`WS_MAX_SUBSCRIPTIONS_PER_SOCKET`). */
  wsMaxSubscriptionsPerSocket: number;
  /** Subscriptions open at once under one credential, over all its sockets and SSE streams on this replica (`MAX_SUBSCRIPTIONS_PER_CREDENTIAL`). */
  maxSubscriptionsPerCredential: number;
  /** The caller's credential as the limit counts it: the key of its cost budget (`QueryCost.budgetKeyOf`). */
  credentialKeyOf: (context: GatewayContext) => string;
  /** Subscriptions open at once from one client address under credentials not verified; 0: no such cap (`UNVERIFIED_SUBSCRIPTIONS_PER_ADDRESS`). */
  unverifiedSubscriptionsPerAddress: number;
  /** Whether the upstream has accepted the caller's credential (`UpstreamClient.hasAccepted`). */
  isVerified: (context: GatewayContext) => boolean;
}

/** What one open subscription holds a place in: its credential's count, and its address's when unverified. */
interface Place {
  readonly credential: string;
  readonly address: string | undefined;
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
  const perUnverifiedAddress = new Map<string, number>();
  /** Each socket's open subscriptions and their places. */
  const sockets = new WeakMap<LimitedSocket, Map<string, Place>>();

  /** Takes a place for one more subscription of the caller: the place, or the refusal. */
  function takePlace(context: GatewayContext): Place | GraphQLError {
    const credential = options.credentialKeyOf(context);
    const credentialCount = perCredential.get(credential) ?? 0;
    if (credentialCount >= options.maxSubscriptionsPerCredential) {
      return tooMany(`Your credential already has ${credentialCount} subscriptions open, the most allowed; complete one first.`, 'credential', options.maxSubscriptionsPerCredential);
    }
    const address = options.unverifiedSubscriptionsPerAddress > 0 && context.clientAddress !== undefined && !options.isVerified(context) ? context.clientAddress : undefined;
    if (address !== undefined) {
      const addressCount = perUnverifiedAddress.get(address) ?? 0;
      if (addressCount >= options.unverifiedSubscriptionsPerAddress) {
        return tooMany(
          `Your address already has ${addressCount} subscriptions open under credentials the upstream has not accepted, the most allowed; complete one, or make a query with your credential first.`,
          'address',
          options.unverifiedSubscriptionsPerAddress,
        );
      }
      perUnverifiedAddress.set(address, addressCount + 1);
    }
    perCredential.set(credential, credentialCount + 1);
    return { credential, address };
  }

  function releasePlace(place: Place): void {
    decrement(perCredential, place.credential);
    if (place.address !== undefined) decrement(perUnverifiedAddress, place.address);
  }

  function release(socket: LimitedSocket, id: string): void {
    const open = sockets.get(socket);
    const place = open?.get(id);
    if (place === undefined) return;
    open!.delete(id);
    releasePlace(place);
  }

  function openOn(socket: LimitedSocket): Map<string, Place> {
    let open = sockets.get(socket);
    if (open === undefined) {
      const created = new Map<string, Place>();
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
      if (isSharedExecution(context) || !acceptsSubscriptionStream(context.request?.headers.get('accept') ?? null)) return undefined;
      const place = takePlace(context);
      if (place instanceof GraphQLError) {
        setResultAndStopExecution({ errors: [place] });
        return undefined;
      }
      let held = true;
      const free = (): void => {
        if (held) releasePlace(place);
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
      if (open.size >= options.wsMaxSubscriptionsPerSocket) {
        return tooMany(`This connection already has ${open.size} subscriptions open, the most allowed; complete one first.`, 'socket', options.wsMaxSubscriptionsPerSocket);
      }
      const place = takePlace(context);
      if (place instanceof GraphQLError) return place;
      open.set(id, place);
      return null;
    },
    release,
    plugin,
  };
}

function decrement(counts: Map<string, number>, key: string): void {
  const count = (counts.get(key) ?? 1) - 1;
  if (count > 0) counts.set(key, count);
  else counts.delete(key);
}

function tooMany(message: string, per: 'socket' | 'credential' | 'address', limit: number): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'TOO_MANY_SUBSCRIPTIONS', per, limit } });
}
