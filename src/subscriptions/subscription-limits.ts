/**
 * `createSubscriptionLimits`: caps the subscriptions open at once, per graphql-ws socket and per
 * credential (the digest its cost budget keys on) over all its sockets and SSE streams: on every
 * replica together with Redis (`fleet`, see `credential-places.ts`), on this one without. Each
 * subscription holds a pub/sub listener and its state for as long as the client likes: 20,000
 * `jobEvents` subscriptions on one socket once took 239 MiB. The one past a cap is refused with
 * `TOO_MANY_SUBSCRIPTIONS` for that operation alone; the socket (or the client's other streams)
 * and its other subscriptions go on.
 *
 * A subscription asks nothing of the upstream, so a cap per credential alone would give every
 * invented credential 500 more: sockets opened with a fresh made-up session each held as many
 * subscriptions as the client liked. Subscriptions under credentials the upstream has not accepted
 * (`isVerified`) are also capped per client address, over all of them, on this replica.
 *
 * graphql-ws subscriptions take their place in the WebSocket bridge (`take`, `release`); SSE and
 * multipart HTTP subscriptions through `takeStream`, which their hook (`use-subscription-limits.ts`)
 * calls and frees when the stream ends.
 */
import { GraphQLError } from 'graphql';
import type { GatewayContext } from '../context.js';
import { createCredentialPlaces, type FleetOptions } from '../execution/credential-places.js';
import { addCount, countOf } from '../utils/counts.js';

export interface SubscriptionLimitsOptions {
  /** Subscriptions open at once on one graphql-ws socket (`WS_MAX_SUBSCRIPTIONS_PER_SOCKET`). */
  wsMaxSubscriptionsPerSocket: number;
  /** Subscriptions open at once under one credential, over all its sockets and SSE streams (`MAX_SUBSCRIPTIONS_PER_CREDENTIAL`). */
  maxSubscriptionsPerCredential: number;
  /** With Redis: the credential's subscriptions on every replica count. Unset: this replica's. */
  fleet?: FleetOptions | undefined;
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

/** A subscription whose place is being taken (Redis answers): it counts against its socket's cap already. */
const TAKING = Symbol('taking');

/** A graphql-ws socket, as far as the limits need it: the signal that aborts when it closes. */
export interface LimitedSocket {
  readonly closed: AbortSignal;
}

export interface SubscriptionLimits {
  /**
   * Takes a place for subscription `id` on a graphql-ws socket under the caller's credential: null
   * when it may run, or the error that refuses it. `release`, or the socket's closing, frees it.
   */
  take(socket: LimitedSocket, id: string, context: GatewayContext): Promise<GraphQLError | null>;
  /** Frees subscription `id`'s place on the socket (nothing when it holds none). */
  release(socket: LimitedSocket, id: string): void;
  /**
   * Takes a place for a subscription over SSE or multipart HTTP under the caller's credential: the
   * function that frees it (once, however often called), or the error that refuses it.
   */
  takeStream(context: GatewayContext): Promise<(() => void) | GraphQLError>;
  /** Gives back, in Redis, the places still held (once the server has closed its streams). */
  close(): Promise<void>;
}

export function createSubscriptionLimits(options: SubscriptionLimitsOptions): SubscriptionLimits {
  const perCredential = createCredentialPlaces({
    cap: options.maxSubscriptionsPerCredential,
    fleet: options.fleet && { ...options.fleet, kind: 'subscriptions' },
  });
  const perUnverifiedAddress = new Map<string, number>();
  /** Each socket's open subscriptions and their places. */
  const sockets = new WeakMap<LimitedSocket, Map<string, Place | typeof TAKING>>();

  /** Takes a place for one more subscription of the caller: the place, or the refusal. */
  async function takePlace(context: GatewayContext): Promise<Place | GraphQLError> {
    const credential = options.credentialKeyOf(context);
    const address = options.unverifiedSubscriptionsPerAddress > 0 && context.clientAddress !== undefined && !options.isVerified(context) ? context.clientAddress : undefined;
    // Before Redis is asked: invented credentials from one address must not cost a round trip each.
    if (address !== undefined && addressFull(address)) return tooManyFromAddress(address);
    const credentialCount = await perCredential.take(credential);
    if (credentialCount !== null) {
      return tooMany(`Your credential already has ${credentialCount} subscriptions open, the most allowed; complete one first.`, 'credential', options.maxSubscriptionsPerCredential);
    }
    if (address !== undefined) {
      // Others from the address may have taken the last places while Redis answered.
      if (addressFull(address)) {
        perCredential.give(credential);
        return tooManyFromAddress(address);
      }
      addCount(perUnverifiedAddress, address, 1);
    }
    return { credential, address };
  }

  function addressFull(address: string): boolean {
    return countOf(perUnverifiedAddress, address) >= options.unverifiedSubscriptionsPerAddress;
  }

  function tooManyFromAddress(address: string): GraphQLError {
    return tooMany(
      `Your address already has ${countOf(perUnverifiedAddress, address)} subscriptions open under credentials the upstream has not accepted, the most allowed; complete one, or make a query with your credential first.`,
      'address',
      options.unverifiedSubscriptionsPerAddress,
    );
  }

  function releasePlace(place: Place): void {
    perCredential.give(place.credential);
    if (place.address !== undefined) addCount(perUnverifiedAddress, place.address, -1);
  }

  function release(socket: LimitedSocket, id: string): void {
    const open = sockets.get(socket);
    const place = open?.get(id);
    if (place === undefined || place === TAKING) return;
    open!.delete(id);
    releasePlace(place);
  }

  function openOn(socket: LimitedSocket): Map<string, Place | typeof TAKING> {
    let open = sockets.get(socket);
    if (open === undefined) {
      const created = new Map<string, Place | typeof TAKING>();
      sockets.set(socket, created);
      socket.closed.addEventListener('abort', () => {
        for (const id of [...created.keys()]) release(socket, id);
      });
      open = created;
    }
    return open;
  }

  async function takeStream(context: GatewayContext): Promise<(() => void) | GraphQLError> {
    const place = await takePlace(context);
    if (place instanceof GraphQLError) return place;
    let held = true;
    return () => {
      if (held) releasePlace(place);
      held = false;
    };
  }

  return {
    async take(socket, id, context) {
      // Closed while its operation was being prepared: graphql-ws drops the operation, and a place
      // taken now would never be given back.
      if (socket.closed.aborted) return null;
      const open = openOn(socket);
      // Counted with the places being taken: a burst on one socket must not pass the cap while Redis answers.
      if (open.size >= options.wsMaxSubscriptionsPerSocket) {
        return tooMany(`This connection already has ${open.size} subscriptions open, the most allowed; complete one first.`, 'socket', options.wsMaxSubscriptionsPerSocket);
      }
      open.set(id, TAKING);
      const place = await takePlace(context);
      if (open.get(id) === TAKING) open.delete(id);
      if (place instanceof GraphQLError) return place;
      // Closed meanwhile: its other places were freed already; this one is dropped with the operation.
      if (socket.closed.aborted) {
        releasePlace(place);
        return null;
      }
      open.set(id, place);
      return null;
    },
    release,
    takeStream,
    close: () => perCredential.close(),
  };
}

function tooMany(message: string, per: 'socket' | 'credential' | 'address', limit: number): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'TOO_MANY_SUBSCRIPTIONS', per, limit } });
}
