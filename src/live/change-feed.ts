/**
 * The upstream change feed behind `@live` queries: for each (credential scope, collection) some
 * live query reads, one poll per `LIVE_POLL_MS` however many live queries read it, under the
 * credentials of that scope's own callers. Records created or changed since the last poll are
 * handed to the live queries of that scope (`LiveInvalidation.invalidate(..., 'feed')`); a count
 * that does not add up (a removal) invalidates the whole collection for that scope.
 *
 * A poll is one read of the collection newest `lastOpDate` first (one page, with the count); only
 * when more records changed since the watermark than the page holds does it read them all with
 * `lastOpDate>=…` (`feed-sources.ts`). What counts as changed is `feed-watermark.ts`'s.
 *
 * The collections of one scope are polled together, at one tick, and their changes handed on at
 * once, so that a live query reading several runs once for them.
 *
 * Polling of a pair starts with its first live query and stops with its last. An upstream error
 * backs the pair off (doubling up to `MAX_BACKOFF_MS`) and is logged; the live queries keep their
 * last answers. A scope whose credential the upstream rejects stops polling until its live queries
 * have all ended. With Redis, one replica polls a pair and the others hear what it finds
 * (`feed-replicas.ts`).
 *
 * With tracing on, each tick that reads the upstream is a root span, `live.feed.tick`, its upstream
 * calls under it: the load the gateway puts on the upstream by itself shows in the traces too (a
 * tick that reads nothing, its pairs polled by another replica, makes no span).
 */
import type { Tracer } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { recordFailure, scopeOf, startSpan, type SpanScope } from '../tracing/spans.js';
import { UpstreamRequestError } from '../upstream/errors.js';
import { createUpstreamSession, type CredentialFamily, type UpstreamSession } from '../upstream/session.js';
import type { UpstreamClient } from '../upstream/types.js';
import type { FeedMetrics } from './feed-metrics.js';
import { createLocalFeedReplicas, type FeedReplicas } from './feed-replicas.js';
import { feedSourceOf, type FeedRecord, type FeedSource } from './feed-sources.js';
import { ChangeTracker, createTimestampFormatter } from './feed-watermark.js';
import type { LiveChange, LiveCollection, LiveInvalidation, LiveScope } from './invalidation.js';

/** Records of the newest-first page each poll reads; when more changed since the last poll, it reads the rest. */
const DEFAULT_PAGE_SIZE = 100;

export interface ChangeFeedOptions {
  /** Where changes go, and where interest in (scope, collection) pairs comes from. */
  invalidation: LiveInvalidation;
  upstream: UpstreamClient;
  /** Interval between two polls of a pair (`LIVE_POLL_MS`). */
  livePollMs: number;
  /** Zone of the upstream's timestamp text (`UPSTREAM_TIMEZONE`), to write `lastOpDate>=…`. */
  upstreamTimezone: string;
  logger: Logger;
  /** The other replicas (Redis); default: this process alone. */
  replicas?: FeedReplicas | undefined;
  metrics?: FeedMetrics | undefined;
  /** Records of the newest-first page each poll reads. @default DEFAULT_PAGE_SIZE */
  pageSize?: number | undefined;
  /** Traces each tick (`live.feed.tick`) when tracing is on. */
  tracer?: Tracer | undefined;
}

export interface ChangeFeed {
  /** Pairs this replica polls now. */
  pollers(): number;
  /** Stops every poller (releasing its lease) and stops listening. */
  stop(): Promise<void>;
}

/**
 * The client address the feed's polls are counted under by the credential gate: polls under a
 * credential the upstream has not accepted yet share one unverified-call budget, so live queries
 * opened under made-up credentials cannot make the feed probe the upstream beyond it.
 */
export const FEED_CLIENT_ADDRESS = 'change-feed';

/** Longest pause between polls of a pair whose polls keep failing. */
export const MAX_BACKOFF_MS = 60_000;

/** The error a poll raises when its scope sent no credential of the collection's family. */
class MissingFeedCredential extends Error {
  override name = 'MissingFeedCredential';
  constructor(readonly family: CredentialFamily) {
    super(`no ${family} credential in this scope`);
  }
}

interface Scope {
  readonly key: string;
  /** The latest caller of the scope to open a live query: whose credentials it polls with. */
  caller: LiveScope;
  /** The upstream rejected its credential: no polling until its live queries all end. */
  rejected: boolean;
  readonly pairs: Map<LiveCollection, Pair>;
  /** The next tick, when one is planned. */
  timer: NodeJS.Timeout | null;
  /** A tick is reading the upstream. */
  ticking: boolean;
}

interface Pair {
  readonly scope: Scope;
  readonly source: FeedSource;
  /** Live queries of the scope reading the collection. */
  interest: number;
  /** Null while someone else polls (or before the first poll). */
  tracker: ChangeTracker | null;
  holding: boolean;
  failures: number;
  /** When the pair is next due (epoch ms). */
  dueAt: number;
  readonly abort: AbortController;
  stopped: boolean;
}

/** What one pair's poll ended with. */
type PollOutcome = { changes: readonly LiveChange[] } | { rejected: true };

export function createChangeFeed(options: ChangeFeedOptions): ChangeFeed {
  const { invalidation, upstream, livePollMs: pollMs, logger, metrics } = options;
  const replicas = options.replicas ?? createLocalFeedReplicas();
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  const formatTimestamp = createTimestampFormatter(options.upstreamTimezone);
  const scopes = new Map<string, Scope>();
  let holding = 0;
  let sequence = 0;
  let stopping = false;

  const offInterest = invalidation.onInterest((scope, collection, delta) => changeInterest(scope, collection, delta));
  const offRemote = replicas.onRemoteChange(({ scopeKey, changes }) => {
    for (const change of changes) invalidation.invalidate(scopeKey, change, 'feed');
  });
  // What other replicas found while this one could not hear them: every pair read here may have changed.
  const offMissed = replicas.onMissed(() => {
    for (const scope of scopes.values()) for (const collection of scope.pairs.keys()) invalidation.invalidate(scope.key, { collection }, 'feed');
  });

  function changeInterest(live: LiveScope, collection: LiveCollection, delta: 1 | -1): void {
    if (stopping) return;
    const source = feedSourceOf(collection);
    if (source === undefined) return;
    let scope = scopes.get(live.key);
    if (scope === undefined) {
      if (delta < 0) return;
      scope = { key: live.key, caller: live, rejected: false, pairs: new Map(), timer: null, ticking: false };
      scopes.set(live.key, scope);
    }
    scope.caller = live;
    let pair = scope.pairs.get(collection);
    if (pair === undefined) {
      if (delta < 0) return;
      pair = { scope, source, interest: 0, tracker: null, holding: false, failures: 0, dueAt: Date.now(), abort: new AbortController(), stopped: false };
      scope.pairs.set(collection, pair);
      if (!scope.rejected) planTick(scope);
    }
    pair.interest += delta;
    if (pair.interest > 0) return;
    void stopPair(pair);
    scope.pairs.delete(collection);
    if (scope.pairs.size === 0) {
      if (scope.timer !== null) clearTimeout(scope.timer);
      scope.timer = null;
      scopes.delete(scope.key);
    }
  }

  /** Plans the scope's next tick for its earliest due pair (a tick under way plans its own successor). */
  function planTick(scope: Scope): void {
    if (stopping || scope.ticking || scope.rejected) return;
    if (scope.timer !== null) clearTimeout(scope.timer);
    scope.timer = null;
    const live = [...scope.pairs.values()].filter((pair) => !pair.stopped);
    if (live.length === 0) return;
    const dueAt = Math.min(...live.map((pair) => pair.dueAt));
    scope.timer = setTimeout(() => void tick(scope), Math.max(0, dueAt - Date.now()));
    scope.timer.unref();
  }

  /**
   * Polls every due pair of a scope at once and hands their changes on together: a live query
   * reading several of them (VMs and hosts) then runs once for the lot, not once per collection.
   */
  async function tick(scope: Scope): Promise<void> {
    scope.timer = null;
    scope.ticking = true;
    const startedAt = Date.now();
    const due = [...scope.pairs.values()].filter((pair) => !pair.stopped && pair.dueAt <= startedAt);
    // Started by the first pair that reads the upstream (a replica not holding any lease reads
    // nothing). The scope is named by a prefix of its key, a digest: no credential goes into a span.
    let trace: SpanScope | undefined;
    const traceTick = (): SpanScope | undefined =>
      (trace ??= options.tracer && scopeOf(options.tracer, startSpan(options.tracer, 'live.feed.tick', { attributes: { 'live.scope': scope.key.slice(0, 12), 'live.collections': due.map((pair) => pair.source.collection) } })));
    let outcomes: PollOutcome[];
    try {
      outcomes = await Promise.all(due.map((pair) => poll(pair, startedAt, traceTick)));
    } finally {
      scope.ticking = false;
    }
    const changes = outcomes.flatMap((outcome) => ('changes' in outcome ? outcome.changes : []));
    if (trace !== undefined) endTickSpan(trace, outcomes, changes);
    if (outcomes.some((outcome) => 'rejected' in outcome)) {
      await rejectScope(scope);
      return;
    }
    if (changes.length > 0 && scopes.get(scope.key) === scope) {
      for (const change of changes) invalidation.invalidate(scope.key, change, 'feed');
      replicas.publish(scope.key, changes);
    }
    planTick(scope);
  }

  async function stopPair(pair: Pair): Promise<void> {
    pair.stopped = true;
    pair.abort.abort();
    if (pair.holding) {
      pair.holding = false;
      holding--;
      metrics?.pollers.dec();
      await replicas.release(pair.scope.key, pair.source.collection);
    }
  }

  function sessionOf(pair: Pair, trace: SpanScope | undefined): UpstreamSession {
    sequence++;
    return createUpstreamSession(upstream, {
      caller: pair.scope.caller,
      requestId: `live-feed-${sequence}`,
      signal: pair.abort.signal,
      clientAddress: FEED_CLIENT_ADDRESS,
      missingCredential: (family) => new MissingFeedCredential(family),
      trace,
    });
  }

  /** One pair's poll at a tick: its changes, or the news that the upstream rejected the scope. */
  async function poll(pair: Pair, tickAt: number, traceTick: () => SpanScope | undefined): Promise<PollOutcome> {
    const { source } = pair;
    try {
      // On the tick's grid, so that the scope's pairs stay due together.
      pair.dueAt = tickAt + pollMs;
      if (!(await takeLease(pair))) return { changes: [] };
      const changes = await readChanges(pair, sessionOf(pair, traceTick()));
      pair.failures = 0;
      return { changes };
    } catch (error) {
      if (pair.stopped) return { changes: [] };
      const code = error instanceof UpstreamRequestError ? error.code : error instanceof MissingFeedCredential ? 'MISSING_CREDENTIAL' : 'INTERNAL';
      metrics?.pollErrors.inc({ collection: source.collection, code });
      if (code === 'UNAUTHENTICATED' || code === 'FORBIDDEN') {
        logger.warn({ scope: pair.scope.key.slice(0, 12), collection: source.collection, code }, 'the upstream rejected a live scope’s credential: its change feed stops until its live queries end');
        return { rejected: true };
      }
      if (code === 'MISSING_CREDENTIAL') {
        // Its live queries fail on their own (UNAUTHENTICATED); polling could never succeed.
        await stopPair(pair);
        return { changes: [] };
      }
      pair.failures++;
      const backoffMs = Math.min(pollMs * 2 ** pair.failures, MAX_BACKOFF_MS);
      pair.dueAt = Date.now() + backoffMs;
      logger.warn({ err: error, collection: source.collection, failures: pair.failures, retryInMs: backoffMs }, 'change feed poll failed; live answers stay as they are until it succeeds');
      return { changes: [] };
    }
  }

  /** Holds (or renews) the pair's lease; on taking it over, goes on from the watermark left behind. */
  async function takeLease(pair: Pair): Promise<boolean> {
    const { scope, source } = pair;
    const held = await replicas.hold(scope.key, source.collection);
    if (pair.stopped) return false;
    if (!held) {
      if (pair.holding) {
        pair.holding = false;
        holding--;
        metrics?.pollers.dec();
      }
      pair.tracker = null;
      return false;
    }
    if (!pair.holding) {
      pair.holding = true;
      holding++;
      metrics?.pollers.inc();
      const state = await replicas.loadState(scope.key, source.collection);
      pair.tracker = new ChangeTracker(state ?? undefined);
    }
    return !pair.stopped;
  }

  async function readChanges(pair: Pair, session: UpstreamSession): Promise<LiveChange[]> {
    const { scope, source } = pair;
    const tracker = pair.tracker ?? new ChangeTracker();
    pair.tracker = tracker;
    metrics?.pollRequests.inc({ collection: source.collection });
    const page = await source.newest(session, pageSize);
    if (pair.stopped) return [];
    const changes: LiveChange[] = [];
    if (!tracker.started()) {
      tracker.baseline(page.records, page.total, Date.now());
    } else {
      const records = await coverWindow(pair, session, tracker, page.records, page.more);
      if (pair.stopped) return [];
      const { changed, countChanged } = tracker.take(records, page.total);
      if (changed.length > 0) {
        metrics?.changes.inc({ collection: source.collection, kind: 'records' });
        changes.push({ collection: source.collection, uuids: changed });
      }
      if (countChanged) {
        metrics?.changes.inc({ collection: source.collection, kind: 'collection' });
        changes.push({ collection: source.collection });
      }
    }
    const state = tracker.state();
    if (state !== null) await replicas.saveState(scope.key, source.collection, state);
    return changes;
  }

  /** The newest page, plus every other record of the window when the page ends inside it. */
  async function coverWindow(pair: Pair, session: UpstreamSession, tracker: ChangeTracker, records: readonly FeedRecord[], more: boolean): Promise<readonly FeedRecord[]> {
    const start = tracker.windowStart();
    const oldest = records.at(-1)?.lastOpDate;
    if (!more || start === null || oldest === null || oldest === undefined || oldest < start) return records;
    metrics?.pollRequests.inc({ collection: pair.source.collection });
    const rest = await pair.source.changedSince(session, formatTimestamp(start));
    const byUuid = new Map<string, FeedRecord>();
    for (const record of [...records, ...rest]) byUuid.set(record.uuid, record);
    return [...byUuid.values()];
  }

  /** Stops the scope's pollers; its pairs stay, counting interest, until its live queries end. */
  async function rejectScope(scope: Scope): Promise<void> {
    scope.rejected = true;
    if (scope.timer !== null) clearTimeout(scope.timer);
    scope.timer = null;
    await Promise.all([...scope.pairs.values()].map((pair) => stopPair(pair)));
  }

  return {
    pollers: () => holding,
    async stop() {
      stopping = true;
      offInterest();
      offRemote();
      offMissed();
      const all = [...scopes.values()];
      scopes.clear();
      for (const scope of all) if (scope.timer !== null) clearTimeout(scope.timer);
      await Promise.all(all.flatMap((scope) => [...scope.pairs.values()]).map((pair) => stopPair(pair)));
      await replicas.close();
    },
  };
}

/** Ends a tick's span: the upstream requests it made and the changes it found, failed when the upstream rejected the scope. */
function endTickSpan(trace: SpanScope, outcomes: readonly PollOutcome[], changes: readonly LiveChange[]): void {
  trace.span.setAttribute('upstream.requests', trace.upstreamRequests);
  trace.span.setAttribute('live.changes', changes.length);
  if (outcomes.some((outcome) => 'rejected' in outcome)) recordFailure(trace.span, Object.assign(new Error('the upstream rejected the scope\'s credential'), { code: 'UNAUTHENTICATED' }));
  trace.span.end();
}
