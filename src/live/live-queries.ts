/**
 * `createLiveQueries`: the open live queries of this replica, by credential scope and by the
 * collections they read. It admits a live query under the caps (per graphql-ws socket, per
 * credential scope: over every replica with Redis, `fleet`, see `credential-places.ts`), tells the change feed which (scope, collection) pairs are read
 * (`onInterest`), and turns invalidations into re-executions: only the live queries of the
 * invalidated scope that read the invalidated collection run again, each at most once per
 * `liveMinIntervalMs`, a burst of invalidations coalesced into one run.
 *
 * The scheduling gives at-least-once-after-change: an invalidation that arrives while a run is
 * under way (whose reads may predate the change) makes one more run once it ends, and a run that
 * fails (the admission control refused it: the gateway is overloaded) is tried again, no sooner
 * than `retryAfterMs` later.
 */
import { GraphQLError } from 'graphql';
import { createCredentialPlaces, type FleetOptions } from '../execution/credential-places.js';
import type { LiveCause, LiveChange, LiveCollection, LiveInterestListener, LiveInvalidation, LiveScope } from './invalidation.js';

/** Least time (ms) before a run that failed is tried again. */
const DEFAULT_RETRY_AFTER_MS = 1_000;

export interface LiveQueriesOptions {
  /** Live queries open at once on one graphql-ws socket (`LIVE_MAX_PER_SOCKET`). */
  liveMaxPerSocket: number;
  /** Live queries open at once under one credential scope (`LIVE_MAX_PER_CREDENTIAL`). */
  liveMaxPerCredential: number;
  /** With Redis: the credential's live queries on every replica count. Unset: this replica's. */
  fleet?: FleetOptions | undefined;
  /** Least time (ms) between the starts of two runs of one live query (`LIVE_MIN_INTERVAL_MS`). */
  liveMinIntervalMs: number;
  /** Least time (ms) before a run that failed is tried again. @default DEFAULT_RETRY_AFTER_MS */
  retryAfterMs?: number | undefined;
  /** The number of live queries open changed. */
  onOpen?: ((open: number) => void) | undefined;
  /** A live query runs again. */
  onReexecution?: ((cause: LiveCause) => void) | undefined;
  /** An invalidation was folded into a run already scheduled. */
  onCoalesced?: (() => void) | undefined;
  /**
   * An invalidation reached live queries of `scope`, before any of them runs again: where reads
   * in flight that may predate the change stop taking newcomers.
   */
  onInvalidate?: ((scope: LiveScope, cause: LiveCause) => void) | undefined;
}

/** What a live query is, to the registry. */
export interface LiveQuerySpec {
  readonly scope: LiveScope;
  /** The collections its answer reads (record names). */
  readonly collections: readonly LiveCollection[];
  /** The graphql-ws socket it runs on (any object that stays the same for the socket); none over SSE. */
  readonly socket?: object | undefined;
  /** Least time (ms) between its runs, when it asks for more than `liveMinIntervalMs` (`@live(throttle:)`). */
  readonly throttleMs?: number | undefined;
  /** Runs it again; the next run starts only once the promise settles. A rejection means it did not run: it is tried again. */
  readonly run: (cause: LiveCause) => Promise<void>;
}

/** An admitted live query: its first run is under way until `firstRunDone`. */
export interface LiveQueryHandle {
  /** The first answer is out: invalidations that came meanwhile now make a run. */
  firstRunDone(): void;
  /** It ended: no more runs, its places and interest are given back. */
  close(): void;
}

export interface LiveQueries extends LiveInvalidation {
  /** Admits a live query (its first run starts now), or answers the error that refuses it. */
  open(spec: LiveQuerySpec): Promise<LiveQueryHandle | GraphQLError>;
  /**
   * A finished job of the credential whose job owner digest is `owner` changed `change`: the
   * live queries of every scope with that resource credential run again.
   */
  invalidateOwner(owner: string, change: LiveChange, cause: LiveCause): void;
  /**
   * How many invalidations have reached scope `scopeKey`'s live queries: runs of one generation may
   * share an execution in flight (operation coalescing); a run never joins one of an earlier
   * generation, which may have read before the change.
   */
  generationOf(scopeKey: string): number;
  /** Live queries open now. */
  readonly size: number;
  /** Gives back, in Redis, the places still held (once the server has closed its streams). */
  close(): Promise<void>;
}

/** One open live query and its run schedule. */
interface Entry {
  readonly spec: LiveQuerySpec;
  readonly intervalMs: number;
  running: boolean;
  closed: boolean;
  lastStart: number;
  /** No run starts before this time (ms since the epoch): set when a run failed. */
  notBefore: number;
  /** The cause of the run due next; null when none is due. */
  pending: LiveCause | null;
  timer: NodeJS.Timeout | undefined;
}

interface ScopeState {
  readonly scope: LiveScope;
  generation: number;
  readonly entries: Set<Entry>;
  readonly byCollection: Map<LiveCollection, Set<Entry>>;
}

export function createLiveQueries(options: LiveQueriesOptions): LiveQueries {
  const scopes = new Map<string, ScopeState>();
  /** Scope keys by the job owner digest of their resource credential. */
  const scopesByOwner = new Map<string, Set<string>>();
  const perSocket = new WeakMap<object, number>();
  const perCredential = createCredentialPlaces({ cap: options.liveMaxPerCredential, fleet: options.fleet && { ...options.fleet, kind: 'live' } });
  const listeners = new Set<LiveInterestListener>();
  const retryAfterMs = options.retryAfterMs ?? DEFAULT_RETRY_AFTER_MS;
  let open = 0;

  function tellInterest(scope: LiveScope, collections: readonly LiveCollection[], delta: 1 | -1): void {
    for (const listener of listeners) for (const collection of collections) listener(scope, collection, delta);
  }

  function schedule(entry: Entry): void {
    if (entry.closed || entry.running || entry.timer !== undefined || entry.pending === null) return;
    const delay = Math.max(0, entry.lastStart + entry.intervalMs - Date.now(), entry.notBefore - Date.now());
    entry.timer = setTimeout(() => fire(entry), delay);
    entry.timer.unref();
  }

  function fire(entry: Entry): void {
    entry.timer = undefined;
    const cause = entry.pending;
    if (entry.closed || cause === null) return;
    entry.pending = null;
    entry.running = true;
    entry.lastStart = Date.now();
    options.onReexecution?.(cause);
    void entry.spec
      .run(cause)
      .catch(() => {
        // It did not run: the change it was woken for is still unread.
        entry.pending ??= cause;
        entry.notBefore = Date.now() + retryAfterMs;
      })
      .finally(() => {
        entry.running = false;
        schedule(entry);
      });
  }

  function wake(entry: Entry, cause: LiveCause): void {
    if (entry.closed) return;
    if (entry.pending !== null) {
      options.onCoalesced?.();
      return;
    }
    entry.pending = cause;
    schedule(entry);
  }

  function stateOf(scope: LiveScope): ScopeState {
    let state = scopes.get(scope.key);
    if (!state) {
      state = { scope, generation: 0, entries: new Set(), byCollection: new Map() };
      scopes.set(scope.key, state);
      const owner = scope.owner;
      if (owner !== undefined) {
        let keys = scopesByOwner.get(owner);
        if (!keys) scopesByOwner.set(owner, (keys = new Set()));
        keys.add(scope.key);
      }
    }
    return state;
  }

  function forgetScope(state: ScopeState): void {
    scopes.delete(state.scope.key);
    const owner = state.scope.owner;
    if (owner === undefined) return;
    const keys = scopesByOwner.get(owner);
    keys?.delete(state.scope.key);
    if (keys?.size === 0) scopesByOwner.delete(owner);
  }

  function invalidate(scopeKey: string, change: LiveChange, cause: LiveCause): void {
    const state = scopes.get(scopeKey);
    const entries = state?.byCollection.get(change.collection);
    if (!state || !entries) return;
    state.generation += 1;
    options.onInvalidate?.(state.scope, cause);
    for (const entry of entries) wake(entry, cause);
  }

  return {
    async open(spec) {
      const ofSocket = spec.socket ? (perSocket.get(spec.socket) ?? 0) : 0;
      if (spec.socket && ofSocket >= options.liveMaxPerSocket) {
        return tooMany(`This connection already has ${ofSocket} live queries open, the most allowed; end one first.`, 'socket', options.liveMaxPerSocket);
      }
      // Counted at once: a burst on one socket must not pass its cap while Redis answers.
      if (spec.socket) perSocket.set(spec.socket, ofSocket + 1);
      const ofCredential = await perCredential.take(spec.scope.key);
      if (ofCredential !== null) {
        if (spec.socket) perSocket.set(spec.socket, (perSocket.get(spec.socket) ?? 1) - 1);
        return tooMany(`Your credential already has ${ofCredential} live queries open, the most allowed; end one first.`, 'credential', options.liveMaxPerCredential);
      }
      const entry: Entry = {
        spec,
        intervalMs: Math.max(options.liveMinIntervalMs, spec.throttleMs ?? 0),
        running: true,
        closed: false,
        lastStart: Date.now(),
        notBefore: 0,
        pending: null,
        timer: undefined,
      };
      const scope = stateOf(spec.scope);
      scope.entries.add(entry);
      for (const collection of spec.collections) {
        let entries = scope.byCollection.get(collection);
        if (!entries) scope.byCollection.set(collection, (entries = new Set()));
        entries.add(entry);
      }
      options.onOpen?.(++open);
      tellInterest(spec.scope, spec.collections, 1);
      return {
        firstRunDone() {
          entry.running = false;
          schedule(entry);
        },
        close() {
          if (entry.closed) return;
          entry.closed = true;
          clearTimeout(entry.timer);
          scope.entries.delete(entry);
          for (const collection of spec.collections) {
            const entries = scope.byCollection.get(collection);
            entries?.delete(entry);
            if (entries?.size === 0) scope.byCollection.delete(collection);
          }
          if (scope.entries.size === 0) forgetScope(scope);
          if (spec.socket) perSocket.set(spec.socket, (perSocket.get(spec.socket) ?? 1) - 1);
          perCredential.give(spec.scope.key);
          options.onOpen?.(--open);
          tellInterest(spec.scope, spec.collections, -1);
        },
      };
    },
    invalidate,
    invalidateOwner(owner, change, cause) {
      for (const key of scopesByOwner.get(owner) ?? []) invalidate(key, change, cause);
    },
    onInterest(listener) {
      listeners.add(listener);
      for (const { scope, entries } of scopes.values()) for (const entry of entries) for (const collection of entry.spec.collections) listener(scope, collection, 1);
      return () => void listeners.delete(listener);
    },
    generationOf(scopeKey) {
      return scopes.get(scopeKey)?.generation ?? 0;
    },
    get size() {
      return open;
    },
    close: () => perCredential.close(),
  };
}

/** The refusal of a live query past a cap: `TOO_MANY_LIVE_QUERIES`, with the cap and what it counts. */
function tooMany(message: string, per: 'socket' | 'credential', limit: number): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'TOO_MANY_LIVE_QUERIES', per, limit } });
}
