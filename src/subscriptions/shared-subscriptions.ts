/**
 * Shared subscriptions: subscribers (graphql-ws or SSE) that would be sent the same events,
 * computed the same way, share one execution. A thousand dashboards watching `jobEvents` with
 * one credential cost one pub/sub listener and one execution per event instead of a thousand;
 * only writing each subscriber's message stays per subscriber.
 *
 * Two subscriptions share when they select a root field marked `extensions: { sharedStream: true }`
 * (a stream of events that starts at subscription time and replays nothing, so joining late
 * misses nothing owed), given no arguments (an argument such as `after` may ask for a replay),
 * with the same document, operation name, variables and credentials. The
 * first one starts the execution; the others join it. The execution ends when its last
 * subscriber leaves, or when the stream itself ends (every subscriber completes, or sees its error).
 *
 * An event is serialized once and written straight to each graphql-ws connection as that
 * operation's `next` message (`graphqlWsWriter`), rather than passed through graphql-ws's
 * per-subscriber loop, which would serialize it again for every subscriber. A connection whose
 * client stopped reading is closed by its bounded send (`websocket.ts`) rather than holding the
 * others back; a subscriber without a writer (SSE, whose own pipeline serializes its events) has a
 * queue of at most `maxQueued` events, past which it is ended with `SUBSCRIBER_TOO_SLOW`. An event
 * reaches the subscribers `chunkSize` at a time, a turn of the event loop apart, so the first ones
 * are written while the rest wait and a large fan-out never stalls HTTP requests for its whole
 * length.
 */
import { createHash } from 'node:crypto';
import { initContextCache } from '@pothos/core';
import { getOperationAST, GraphQLError, print, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { MessageType } from 'graphql-ws';
import { isAsyncIterable } from 'graphql-yoga';
import type { GatewayContext } from '../context.js';
import { isSharedExecution, markSharedExecution } from '../execution/execution-kind.js';

/** The field extension that marks a subscription root field as a shareable stream. */
export const SHARED_STREAM_EXTENSION = 'sharedStream';

export type SubscribeResult = AsyncIterable<ExecutionResult> | ExecutionResult;

/**
 * Writes one event to a subscriber's connection; `payload` is the execution result as JSON.
 * Answers false when the connection no longer takes messages, and the subscriber is then ended.
 */
export type DirectWriter = (payload: string) => boolean;

/**
 * A `DirectWriter` for operation `id` on a graphql-ws connection: its `next` messages, framed as
 * graphql-ws frames them, written with `send`, the connection's bounded send (see `websocket.ts`),
 * which answers false once the connection is closing (its client stopped reading).
 */
export function graphqlWsWriter(send: (data: string) => boolean, id: string): DirectWriter {
  const prefix = `{"id":${JSON.stringify(id)},"type":"${MessageType.Next}","payload":`;
  return (payload) => send(`${prefix}${payload}}`);
}

/** Events a subscriber may fall behind before it is ended. */
const DEFAULT_MAX_QUEUED = 1_000;
/** Subscribers handed an event per turn of the event loop. */
const DEFAULT_CHUNK_SIZE = 64;

export interface SharedSubscriptionsOptions {
  /**
   * Runs for every subscriber before it joins (the shared execution's envelop hooks run once, not
   * per subscriber): a result refuses the subscriber with it (cost limits, budgets).
   */
  admit?: (args: ExecutionArgs) => Promise<ExecutionResult | null>;
  /** Events a subscriber may fall behind before it is ended. @default DEFAULT_MAX_QUEUED */
  maxQueued?: number;
  /** Subscribers handed an event per turn of the event loop. @default DEFAULT_CHUNK_SIZE */
  chunkSize?: number;
  /**
   * Called for every subscriber, with whether it was accepted (an accepted one gets a stream;
   * the others the refusal the execution answered); an accepted subscriber's returned function
   * is called once it leaves. Metrics count subscribers here, not shared executions.
   */
  onSubscriber?: (args: ExecutionArgs, accepted: boolean) => (() => void) | void;
  /** Called with the number of executions running whenever it changes. */
  onExecutions?: (running: number) => void;
  /** The subscriber's direct writer, when its transport has one (see `graphqlWsWriter`). */
  writerOf?: (args: ExecutionArgs) => DirectWriter | undefined;
}

export interface SharedSubscriptions {
  /**
   * Runs a graphql-ws subscription, whose subscribers skip their own envelop pipeline: admits and
   * counts the subscriber (`admit`, `onSubscriber`), then `execute(args)` for one that cannot
   * share, otherwise joins (or starts, with `execute`) the execution shared by its key.
   */
  subscribe(args: ExecutionArgs, execute: (args: ExecutionArgs) => SubscribeResult | Promise<SubscribeResult>): Promise<SubscribeResult>;
  /**
   * The same sharing for subscriptions that run their own envelop pipeline (SSE), which has
   * admitted and counted each subscriber already (`use-shared-subscriptions.ts`): the subscribe
   * function that joins the shared execution of `args`' operation, started with `subscribe`; null
   * when the operation runs alone (a shared execution's own run is one).
   */
  joiningSubscribe(args: ExecutionArgs, subscribe: (args: ExecutionArgs) => SubscribeResult | Promise<SubscribeResult>): ((subscriber: ExecutionArgs) => Promise<Subscriber | ExecutionResult>) | null;
}

export function createSharedSubscriptions(options: SharedSubscriptionsOptions = {}): SharedSubscriptions {
  const streams = new SharedStreams({ maxQueued: options.maxQueued ?? DEFAULT_MAX_QUEUED, chunkSize: options.chunkSize ?? DEFAULT_CHUNK_SIZE }, options.onExecutions);
  const sharingKey = createSharingKeys();
  return {
    async subscribe(args, execute) {
      const key = sharingKey(args);
      if (key === null) return execute(args);
      const refused = (await options.admit?.(args)) ?? null;
      if (refused !== null) {
        options.onSubscriber?.(args, false);
        return refused;
      }
      const start = () => {
        markSharedExecution(args.contextValue as object);
        return execute(args);
      };
      const result = await streams.join(key, start, options.writerOf?.(args));
      if (!(result instanceof Subscriber)) {
        options.onSubscriber?.(args, false);
        return result;
      }
      const left = options.onSubscriber?.(args, true);
      if (left) result.onLeft(left);
      return result;
    },
    joiningSubscribe(args, subscribe) {
      // A shared execution's own run (a graphql-ws one goes through the whole pipeline).
      if (isSharedExecution(args.contextValue)) return null;
      const key = sharingKey(args);
      if (key === null) return null;
      return (subscriber) =>
        streams.join(
          key,
          () => {
            // The execution outlives its first subscriber: it must not carry that client's
            // hang-up signal, which would cancel the reads of every other subscriber, nor
            // share its loaders.
            const context = subscriber.contextValue as GatewayContext;
            const contextValue = { ...context, ...initContextCache(), signal: undefined, session: context.session.withoutSignal() };
            markSharedExecution(contextValue);
            return subscribe({ ...subscriber, contextValue });
          },
          undefined,
        );
    },
  };
}

/**
 * What makes two subscriptions' events identical (null when the operation must run alone), with
 * the printed text of each document kept while the document lives.
 */
function createSharingKeys(): (args: ExecutionArgs) => string | null {
  const printed = new WeakMap<DocumentNode, string>();
  return (args) => {
    const operation = getOperationAST(args.document, args.operationName);
    if (operation?.operation !== 'subscription') return null;
    const fields = args.schema.getSubscriptionType()?.getFields();
    // A field given arguments (`jobEvents(after:)`) replays what it owes that subscriber first: it runs alone.
    const shareable = operation.selectionSet.selections.every(
      (selection) =>
        selection.kind === 'Field' && (selection.arguments?.length ?? 0) === 0 && fields?.[selection.name.value]?.extensions[SHARED_STREAM_EXTENSION] === true,
    );
    if (!shareable) return null;
    let text = printed.get(args.document);
    if (text === undefined) {
      text = print(args.document);
      printed.set(args.document, text);
    }
    return keyOf(text, args);
  };
}

/** The sharing key of an operation whose printed document is `text`. */
function keyOf(text: string, args: ExecutionArgs): string {
  const { caller } = args.contextValue as GatewayContext;
  return createHash('sha256')
    .update(JSON.stringify([text, args.operationName ?? null, args.variableValues ?? null, caller.key]))
    .digest('base64url');
}

/** The running shared executions, by sharing key. */
class SharedStreams {
  private readonly streams = new Map<string, SharedStream>();

  constructor(
    private readonly limits: { maxQueued: number; chunkSize: number },
    private readonly onExecutions: ((running: number) => void) | undefined,
  ) {}

  /** Joins the execution running under `key`, starting it with `start` when there is none. */
  async join(key: string, start: () => SubscribeResult | Promise<SubscribeResult>, writer: DirectWriter | undefined): Promise<Subscriber | ExecutionResult> {
    for (;;) {
      let stream = this.streams.get(key);
      if (!stream) {
        const created: SharedStream = new SharedStream(this.limits, start, () => {
          if (this.streams.get(key) !== created) return;
          this.streams.delete(key);
          this.onExecutions?.(this.streams.size);
        });
        this.streams.set(key, created);
        this.onExecutions?.(this.streams.size);
        stream = created;
      }
      // Null: the execution ended while this subscriber waited to join; start a fresh one.
      const joined = await stream.subscribe(writer);
      if (joined !== null) return joined;
    }
  }
}

/** One execution and the subscribers it feeds. */
class SharedStream {
  private readonly subscribers = new Set<Subscriber>();
  private readonly started: Promise<AsyncIterator<ExecutionResult> | ExecutionResult>;
  private source: AsyncIterator<ExecutionResult> | undefined;
  private ended = false;

  constructor(
    private readonly limits: { maxQueued: number; chunkSize: number },
    start: () => SubscribeResult | Promise<SubscribeResult>,
    private readonly forget: () => void,
  ) {
    this.started = (async () => {
      const result = await start();
      if (!isAsyncIterable(result)) {
        // Refused (no credential, a resolver error): the same answer for everyone who asked.
        this.end();
        return result;
      }
      this.source = result[Symbol.asyncIterator]();
      void this.pump(this.source);
      return this.source;
    })();
    this.started.catch(() => this.end());
  }

  /** A new subscriber, the refusal everyone gets, or null when the execution already ended. */
  async subscribe(writer: DirectWriter | undefined): Promise<Subscriber | ExecutionResult | null> {
    const started = await this.started;
    if (!isAsyncIterator(started)) return started;
    if (this.ended) return null;
    const subscriber = new Subscriber(this.limits.maxQueued, writer, () => this.leave(subscriber));
    this.subscribers.add(subscriber);
    return subscriber;
  }

  private async pump(source: AsyncIterator<ExecutionResult>): Promise<void> {
    try {
      for (let next = await source.next(); !next.done; next = await source.next()) {
        const event = next.value;
        let json: string | undefined;
        const serialized = (): string => (json ??= JSON.stringify(event));
        let handed = 0;
        for (const subscriber of [...this.subscribers]) {
          subscriber.deliver(event, serialized);
          if (++handed % this.limits.chunkSize === 0) await new Promise((resolve) => setImmediate(resolve));
        }
        if (this.ended) return;
      }
      for (const subscriber of this.subscribers) subscriber.complete();
    } catch (error) {
      for (const subscriber of this.subscribers) subscriber.fail(error);
    }
    this.end();
  }

  private leave(subscriber: Subscriber): void {
    if (!this.subscribers.delete(subscriber) || this.subscribers.size > 0 || this.ended) return;
    this.end();
    void this.source?.return?.();
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.forget();
  }
}

function isAsyncIterator(value: unknown): value is AsyncIterator<ExecutionResult> {
  return typeof (value as AsyncIterator<ExecutionResult> | undefined)?.next === 'function';
}

/**
 * One subscriber of a shared execution. With a direct writer, events go straight to its
 * connection and the iterator only ends (done, or the error); without, it queues the events not
 * yet read.
 */
class Subscriber implements AsyncIterableIterator<ExecutionResult> {
  private readonly queue: ExecutionResult[] = [];
  private waiting: ((result: IteratorResult<ExecutionResult>) => void) | undefined;
  private waitingFailed: ((error: unknown) => void) | undefined;
  private left: (() => void) | undefined;
  private done = false;
  private error: unknown;

  constructor(
    private readonly maxQueued: number,
    private readonly writer: DirectWriter | undefined,
    private readonly onLeave: () => void,
  ) {}

  /** Calls `left` once this subscriber has left (or been ended): at once if it already has. */
  onLeft(left: () => void): void {
    if (this.done) left();
    else this.left = left;
  }

  deliver(value: ExecutionResult, serialized: () => string): void {
    if (this.done) return;
    if (this.writer) {
      if (!this.writer(serialized())) this.tooSlow('its connection is closing: its client stopped reading');
      return;
    }
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = this.waitingFailed = undefined;
      resolve({ value, done: false });
      return;
    }
    if (this.queue.length < this.maxQueued) this.queue.push(value);
    else this.tooSlow(`it fell more than ${this.maxQueued} events behind`);
  }

  private tooSlow(why: string): void {
    this.fail(new GraphQLError(`This subscription was ended because ${why}; subscribe again.`, { extensions: { code: 'SUBSCRIBER_TOO_SLOW' } }));
    this.onLeave();
  }

  complete(): void {
    this.finish(undefined);
  }

  fail(error: unknown): void {
    this.finish(error ?? new Error('the subscription failed'));
  }

  next(): Promise<IteratorResult<ExecutionResult>> {
    const value = this.queue.shift();
    if (value !== undefined) return Promise.resolve({ value, done: false });
    if (this.error !== undefined) {
      const error = this.error;
      this.error = undefined;
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.waitingFailed = reject;
    });
  }

  return(): Promise<IteratorResult<ExecutionResult>> {
    this.queue.length = 0;
    this.error = undefined;
    this.finish(undefined);
    this.onLeave();
    return Promise.resolve({ value: undefined, done: true });
  }

  throw(): Promise<IteratorResult<ExecutionResult>> {
    return this.return();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Ends the stream after what is queued: with `error` next, or done. */
  private finish(error: unknown): void {
    if (this.done) return;
    this.done = true;
    this.left?.();
    this.left = undefined;
    if (this.waiting) {
      const resolve = this.waiting;
      const reject = this.waitingFailed!;
      this.waiting = this.waitingFailed = undefined;
      if (error === undefined) resolve({ value: undefined, done: true });
      else reject(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.error = error;
  }
}
