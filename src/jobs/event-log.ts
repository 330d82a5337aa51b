/**
 * `jobEvents` as a log a client can resume: every finished job is an event with a position in the
 * stream of finished jobs (the Redis stream's entry id with `REDIS_URL`, an in-process log
 * without), and `jobEvents(after:)` sends, in order and once, the caller's events after the one
 * its cursor names, then goes on live. A phone that lost its connection for ten seconds catches
 * up by subscribing again with the last cursor it saw.
 *
 * What is kept is bounded (`REDIS_STREAM_MAX_LEN` entries): a cursor whose own event is no longer
 * kept, or that comes from another stream (Redis lost its data; an in-process log of another
 * process), cannot say what was missed, and answers `CURSOR_EXPIRED`: list `jobs` instead.
 */
import { randomBytes } from 'node:crypto';
import { GraphQLError } from 'graphql';
import { Repeater } from 'graphql-yoga';
import { compareIds } from '../redis/streams.js';
import { joinKeyedSet } from '../utils/keyed-sets.js';
import type { JobRecord } from './store.js';

/** Where an event stands: the stream it belongs to (`epoch`) and its id there (`<ms>-<seq>`). */
export interface EventPosition {
  readonly epoch: string;
  readonly id: string;
}

/** One finished job as `jobEvents` delivers it. */
export interface JobEvent {
  readonly position: EventPosition;
  readonly job: JobRecord;
}

/** The events a subscriber owed by a cursor is sent first; `null`: the stream no longer holds them all. */
export type ReplayEvents = (owner: string, after: EventPosition) => Promise<readonly JobEvent[] | null>;

export interface JobEventSource {
  /**
   * The finished jobs of `owner`, live; with `after`, first those after it that are still kept,
   * in order, each once. Ends with `CURSOR_EXPIRED` when what came after `after` is no longer kept.
   */
  subscribeEvents(owner: string, after?: EventPosition): Repeater<JobEvent>;
}

/** The longest cursor `jobEvents(after:)` reads: a real one is under 60 characters. */
const MAX_CURSOR_LENGTH = 200;
const CURSOR_PREFIX = 'je1';
const STREAM_ID = /^\d{1,20}-\d{1,20}$/;
const EPOCH = /^[0-9a-f]{1,64}$/;

/** The cursor a client is given for an event: opaque, short, URL-safe. */
export function encodeEventCursor(position: EventPosition): string {
  return Buffer.from(`${CURSOR_PREFIX}:${position.epoch}:${position.id}`).toString('base64url');
}

/** The position a cursor names; throws `INVALID_CURSOR` for anything this gateway did not issue. */
export function decodeEventCursor(cursor: string): EventPosition {
  const [prefix, epoch, id, ...rest] = cursor.length <= MAX_CURSOR_LENGTH ? Buffer.from(cursor, 'base64url').toString('latin1').split(':') : [];
  if (prefix !== CURSOR_PREFIX || epoch === undefined || id === undefined || rest.length > 0 || !EPOCH.test(epoch) || !STREAM_ID.test(id)) {
    throw new GraphQLError('`after` is not a cursor `jobEvents` gave (`Job.eventCursor`). Subscribe without `after`, and list `jobs` to catch up.', {
      extensions: { code: 'INVALID_CURSOR', argument: 'after' },
    });
  }
  return { epoch, id };
}

/** What a subscriber owed events before its cursor gets when they can no longer be sent. */
export function eventsNoLongerKept(): GraphQLError {
  return new GraphQLError(
    'The jobs that finished after `after` are no longer all kept: list `jobs` (newest first) to catch up, then subscribe to `jobEvents` without `after`.',
    { extensions: { code: 'CURSOR_EXPIRED', argument: 'after' } },
  );
}

/**
 * Hands each owner's events to its subscribers. A subscriber with a cursor listens before it
 * replays, holding live events back until the replay is sent, and then sends only those after the
 * last one replayed: nothing published in between is missed or sent twice.
 */
export interface JobEventHub extends JobEventSource {
  publish(event: JobEvent): void;
  /** Ends every open subscriber with `error` (the stream they follow broke). */
  failAll(error: Error): void;
}

export interface JobEventHubOptions {
  replay: ReplayEvents;
  /**
   * Runs before a subscriber listens; a rejection ends it with that error (with Redis: wait
   * for the stream's reader to catch up).
   */
  beforeListening?: () => Promise<void>;
}

export function createJobEventHub(options: JobEventHubOptions): JobEventHub {
  const listeners = new Map<string, Set<Listener>>();

  interface Listener {
    push(event: JobEvent): void;
    fail(error: Error): void;
  }

  function subscribeEvents(owner: string, after?: EventPosition): Repeater<JobEvent> {
    return new Repeater<JobEvent>(async (push, stop) => {
      try {
        await options.beforeListening?.();
      } catch (error) {
        stop(error);
        return;
      }
      let held: JobEvent[] | undefined = after === undefined ? undefined : [];
      let last = after?.id;
      const send = (event: JobEvent): void => {
        if (last !== undefined && compareIds(event.position.id, last) <= 0) return;
        last = event.position.id;
        void push(event);
      };
      const listener: Listener = { push: (event) => (held ? held.push(event) : send(event)), fail: (error) => stop(error) };
      void stop.then(joinKeyedSet(listeners, owner, listener));
      if (after === undefined) return;
      try {
        const replayed = await options.replay(owner, after);
        if (replayed === null) throw eventsNoLongerKept();
        for (const event of replayed) send(event);
        for (const event of held ?? []) send(event);
        held = undefined;
      } catch (error) {
        stop(error);
      }
    });
  }

  return {
    subscribeEvents,
    publish(event) {
      for (const listener of listeners.get(event.job.owner) ?? []) listener.push(event);
    },
    failAll(error) {
      for (const set of listeners.values()) for (const listener of set) listener.fail(error);
    },
  };
}

/**
 * The events of one process, without Redis: the newest `maxLength` finished jobs, in a log whose
 * epoch is new with each process (a cursor from before a restart cannot be replayed).
 */
export function createMemoryJobEvents(maxLength: number): JobEventHub & { append(job: JobRecord): void } {
  const epoch = randomBytes(8).toString('hex');
  const log: JobEvent[] = [];
  const seen = new Set<string>();
  let lastMs = 0;
  let sequence = 0;

  const hub = createJobEventHub({
    async replay(owner, after) {
      if (after.epoch !== epoch) return null;
      // The event `after` names must still be here (or be newer than all): else some after it may be gone.
      const oldest = log[0];
      if (oldest !== undefined && compareIds(oldest.position.id, after.id) > 0) return null;
      return log.filter((event) => event.job.owner === owner && compareIds(event.position.id, after.id) > 0);
    },
  });

  return {
    ...hub,
    append(job) {
      // A job published twice (its finish unconfirmed, then found) is one event.
      if (seen.has(job.id)) return;
      seen.add(job.id);
      const now = Date.now();
      if (now > lastMs) [lastMs, sequence] = [now, 0];
      else sequence += 1;
      const event: JobEvent = { position: { epoch, id: `${lastMs}-${sequence}` }, job };
      log.push(event);
      if (log.length > maxLength) seen.delete(log.shift()!.job.id);
      hub.publish(event);
    },
  };
}
