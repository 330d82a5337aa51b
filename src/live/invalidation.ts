/**
 * The seam between live queries (`@live`, `src/live/use-live-query.ts`) and what tells them
 * their answer may have changed: finished jobs (on any replica, `followFinishedJobs`) and the
 * upstream change feed (`change-feed.ts`). Both speak of one credential scope at a time, and of
 * the collections live queries read, named as the records of `src/upstream/records.ts`
 * (`'vmInstance'`, `'host'`, ...).
 */
import type { Caller } from '../upstream/credentials.js';

/**
 * One credential scope: every caller whose credentials the upstream reads as the same. It is the
 * request's `Caller`: its `key` (a digest, the same on every replica, carrying no credential)
 * names the scope; its credentials are what the change feed polls with; its `owner` is whose jobs
 * wake it.
 */
export type LiveScope = Caller;

/** A collection some live query reads: the record name of `src/upstream/records.ts`. */
export type LiveCollection = string;

/** What made a live query run again. */
export type LiveCause = 'job' | 'feed';

/** Records (by record name and uuid) or a whole collection of one scope that may have changed. */
export interface LiveChange {
  readonly collection: LiveCollection;
  /** The records that changed, were created or removed; absent: any record of the collection. */
  readonly uuids?: readonly string[] | undefined;
}

/** Called with +1 when a live query of `scope` starts reading `collection`, -1 when it ends. */
export type LiveInterestListener = (scope: LiveScope, collection: LiveCollection, delta: 1 | -1) => void;

export interface LiveInvalidation {
  /**
   * Tells the live queries of scope `scopeKey` that read `change.collection` that their answer may
   * have changed: each runs again (throttled, bursts coalesced into one run). Another scope's live
   * queries are never touched. Unknown scopes and collections nobody reads are ignored.
   */
  invalidate(scopeKey: string, change: LiveChange, cause: LiveCause): void;
  /**
   * Follows which (scope, collection) pairs open live queries read: `listener` gets +1 for each
   * collection a live query reads as it starts, -1 for each as it ends (so a pair's sum is the
   * number of open live queries reading it; 0: stop polling it). At subscription it gets +1 for
   * every collection of every live query already open. Returns the unsubscribe function.
   */
  onInterest(listener: LiveInterestListener): () => void;
}
