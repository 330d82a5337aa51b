/**
 * How the change feed's replicas act as one (`REDIS_URL`): one poller per (scope, collection)
 * across them, and what it finds reaching every replica's live queries.
 *
 * - The poller of a pair holds a lease, `SET gateway:live:lease:<scope>:<collection> <replica> NX
 *   PX`, renewed at each poll. A replica whose live queries read the pair but that does not hold
 *   the lease tries again every interval: it takes over when the holder releases the lease (its
 *   last live query of the pair ended) or stops renewing it (it stopped or lost Redis), within
 *   `leaseMs`.
 * - The holder leaves its watermark (newest `lastOpDate` and count, no record, no credential) next
 *   to the lease, so the replica taking over goes on from there instead of missing what changed
 *   between the two.
 * - Changes go out as one message per tick and scope, `{scopeKey, collection, uuids}`, appended
 *   to a Redis stream (`LIVE_CHANGES_STREAM_KEY`, through the outbox, which keeps it while Redis is
 *   away) that every replica reads from its own offset, as finished jobs are (`streams.ts`): every
 *   replica hands them to its own live queries of that scope (or ignores them when it has none),
 *   and one whose connection dropped reads on from where it was. Only when the stream cannot
 *   replay (the entries after its offset are gone) does the replica treat every collection its live
 *   queries read as changed (`onMissed`): each runs once more.
 * - The message is also PUBLISHed on `gateway:live:changes`, marked `inStream`, for replicas of
 *   the release before (which listen only there) during a rolling upgrade; replicas of this one
 *   take from the channel only the unmarked messages of those older replicas. PUBLISH keeps
 *   nothing for a replica whose connection is down, so once it has heard an older replica, a
 *   replica whose subscription comes back after a loss runs its live queries again (`onMissed`),
 *   as every replica did before.
 *
 * Keys and messages name the scope by its key (a digest): credentials never reach Redis, and a
 * replica polls only with credentials its own live callers sent.
 *
 * Without Redis the one process is every replica: it always holds the lease.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { RedisConnection } from '../redis/connection.js';
import { decodeLiveChange, decodeWatermark, encodeLiveChange, encodeWatermark, noticeNewerFormats, type LiveChangeMessage, type NewerFormatNotice } from '../redis/formats.js';
import type { RedisOutbox } from '../redis/outbox.js';
import { LIVE_CHANGES_STREAM_KEY, type StreamReader } from '../redis/streams.js';
import type { LiveChange } from './invalidation.js';
import type { WatermarkState } from './feed-watermark.js';

/** Changes of one scope found by another replica's poller at one tick. */
export interface RemoteChange {
  readonly scopeKey: string;
  readonly changes: readonly LiveChange[];
}

export interface FeedReplicas {
  /** Takes or renews the poller lease of a pair; true when this replica polls it. */
  hold(scopeKey: string, collection: string): Promise<boolean>;
  /** Gives the lease up (when this replica held it), so another replica takes over at once. */
  release(scopeKey: string, collection: string): Promise<void>;
  /** The watermark the pair's last poller left, if recent. */
  loadState(scopeKey: string, collection: string): Promise<WatermarkState | null>;
  saveState(scopeKey: string, collection: string, state: WatermarkState): Promise<void>;
  /** Sends a tick's changes of a scope to the other replicas, in one message. */
  publish(scopeKey: string, changes: readonly LiveChange[]): void;
  /** Calls `listener` with each change another replica publishes; returns the unsubscribe function. */
  onRemoteChange(listener: (remote: RemoteChange) => void): () => void;
  /**
   * Calls `listener` when changes other replicas published may have been missed: the stream lost
   * the entries after this replica's offset, or (with replicas of an older release about) the
   * channel's subscription was down and is back. Returns the unsubscribe function.
   */
  onMissed(listener: () => void): () => void;
  close(): Promise<void>;
}

/** A single process: it holds every lease, and there is no one to tell. */
export function createLocalFeedReplicas(): FeedReplicas {
  return {
    hold: async () => true,
    release: async () => {},
    loadState: async () => null,
    saveState: async () => {},
    publish: () => {},
    onRemoteChange: () => () => {},
    onMissed: () => () => {},
    close: async () => {},
  };
}

const MIN_LEASE_MS = 1_000;
const MIN_STATE_TTL_MS = 60_000;

/**
 * The lives of leases and watermarks for a feed polling every `livePollMs`: a lease lasts three
 * intervals unrenewed (a second at least), a watermark left behind ten (a minute at least).
 */
export function replicaTimingsOf(livePollMs: number): Pick<RedisFeedReplicasOptions, 'leaseMs' | 'stateTtlMs'> {
  return { leaseMs: Math.max(3 * livePollMs, MIN_LEASE_MS), stateTtlMs: Math.max(10 * livePollMs, MIN_STATE_TTL_MS) };
}

export interface RedisFeedReplicasOptions {
  connection: RedisConnection;
  /** The reader of the Redis streams, the changes' among them (`JobBackend.streams`). */
  reader: StreamReader;
  /** Where changes wait until Redis takes them (`JobBackend.streams`). */
  outbox: RedisOutbox;
  /** How long a lease lasts unrenewed: a stopped poller's pair is taken over after this. */
  leaseMs: number;
  /** How long a watermark left behind is worth going on from. */
  stateTtlMs: number;
  logger: Logger;
}

/** Where the release before listens for changes (and publishes its own). */
const CHANNEL = 'gateway:live:changes';
/** The field of a stream entry that holds the change message. */
const ENTRY_FIELD = 'change';

const leaseKey = (scopeKey: string, collection: string): string => `gateway:live:lease:${scopeKey}:${collection}`;
const stateKey = (scopeKey: string, collection: string): string => `gateway:live:watermark:${scopeKey}:${collection}`;

/** KEYS: lease. ARGV: replica, ttl ms. Takes a free lease or renews our own; 1 when held. */
const HOLD_SCRIPT = `
local holder = redis.call('GET', KEYS[1])
if holder == false then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0`;

/** KEYS: lease. ARGV: replica. Deletes the lease only when we hold it. */
const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

export function createRedisFeedReplicas(options: RedisFeedReplicasOptions): FeedReplicas {
  const { connection, reader, outbox, leaseMs, stateTtlMs, logger } = options;
  const replica = randomUUID();
  const notice = noticeNewerFormats(logger);
  const listeners = new Set<(remote: RemoteChange) => void>();
  const missedListeners = new Set<() => void>();
  let subscribed: Promise<unknown> | null = null;
  let unfollow: (() => void) | undefined;
  // A replica of the release before publishes on the channel only, which keeps nothing for a
  // subscriber whose connection is down: once one was heard, a 'ready' after a lost connection
  // (ioredis resubscribes by itself) means its messages published meanwhile never came.
  let olderHeard = false;
  let lost = false;
  const onLost = (): void => {
    lost = true;
  };
  const missed = (why: string): void => {
    logger.info(why);
    for (const listener of missedListeners) listener();
  };
  const onReady = (): void => {
    if (!lost) return;
    lost = false;
    if (olderHeard) missed('change feed subscription back after a lost connection to Redis, with replicas of an older release in the fleet: live queries run again');
  };

  const hand = (message: LiveChangeMessage | null): void => {
    if (message === null || message.from === replica) return;
    for (const listener of listeners) listener({ scopeKey: message.scopeKey, changes: message.changes });
  };
  const onMessage = (channel: string, text: string): void => {
    if (channel !== CHANNEL) return;
    const message = decodeLiveChange(text, notice)?.value ?? null;
    // Read from the stream, where it was appended too.
    if (message?.inStream === true) return;
    if (message !== null && message.from !== replica) olderHeard = true;
    hand(message);
  };

  function subscribe(): void {
    if (subscribed !== null) return;
    unfollow = reader.follow(LIVE_CHANGES_STREAM_KEY, {
      entry: (_id, fields) => hand(readEntry(fields, notice)),
      gap: () => missed('change feed changes published while this replica was away from Redis are gone: live queries run again'),
    });
    connection.subscriber.on('message', onMessage);
    connection.subscriber.on('close', onLost);
    connection.subscriber.on('ready', onReady);
    subscribed = connection.subscriber.subscribe(CHANNEL).catch((error: unknown) => {
      logger.warn({ err: error }, 'subscribing to the change feed channel failed; changes replicas of an older release see do not reach this one');
    });
  }

  return {
    async hold(scopeKey, collection) {
      try {
        return (await connection.commands.eval(HOLD_SCRIPT, 1, leaseKey(scopeKey, collection), replica, String(leaseMs))) === 1;
      } catch (error) {
        // Without Redis the replicas cannot agree: better each polls than none does.
        logger.warn({ err: error, collection }, 'change feed lease unavailable (Redis); polling from this replica');
        return true;
      }
    },
    async release(scopeKey, collection) {
      try {
        await connection.commands.eval(RELEASE_SCRIPT, 1, leaseKey(scopeKey, collection), replica);
      } catch (error) {
        logger.debug({ err: error, collection }, 'releasing a change feed lease failed; it expires by itself');
      }
    },
    async loadState(scopeKey, collection) {
      try {
        const text = await connection.commands.get(stateKey(scopeKey, collection));
        return text === null ? null : (decodeWatermark(text, notice)?.value ?? null);
      } catch {
        return null;
      }
    },
    async saveState(scopeKey, collection, state) {
      try {
        await connection.commands.set(stateKey(scopeKey, collection), encodeWatermark(state), 'PX', stateTtlMs);
      } catch (error) {
        logger.debug({ err: error, collection }, 'saving a change feed watermark failed');
      }
    },
    publish(scopeKey, changes) {
      const text = encodeLiveChange({ from: replica, scopeKey, changes, inStream: true });
      outbox.append(LIVE_CHANGES_STREAM_KEY, [ENTRY_FIELD, text], 'live_change');
      connection.commands.publish(CHANNEL, text).catch((error: unknown) => {
        // Older replicas run their live queries again once their own subscription is back.
        logger.debug({ err: error }, 'publishing changes on the channel of older releases failed');
      });
    },
    onRemoteChange(listener) {
      subscribe();
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onMissed(listener) {
      subscribe();
      missedListeners.add(listener);
      return () => missedListeners.delete(listener);
    },
    async close() {
      listeners.clear();
      missedListeners.clear();
      unfollow?.();
      if (subscribed === null) return;
      connection.subscriber.off('message', onMessage);
      connection.subscriber.off('close', onLost);
      connection.subscriber.off('ready', onReady);
      // While Redis is down an UNSUBSCRIBE would wait for it to return; the subscription dies with the connection anyway.
      if (connection.isReady()) await connection.subscriber.unsubscribe(CHANNEL).catch(() => undefined);
    },
  };
}

/** The message of a stream entry; null for anything else. */
function readEntry(fields: readonly string[], notice: NewerFormatNotice): LiveChangeMessage | null {
  for (let index = 0; index + 1 < fields.length; index += 2) if (fields[index] === ENTRY_FIELD) return decodeLiveChange(fields[index + 1]!, notice)?.value ?? null;
  return null;
}
