/**
 * The gateway's two Redis connections (`REDIS_URL`): one for commands and publishing, one in
 * subscriber mode. Both reconnect on their own; while either is down the gateway is not ready and
 * every Redis-backed operation fails at once with `RedisUnavailableError` rather than queueing.
 */
import { EventEmitter } from 'node:events';
import { Redis, ReplyError } from 'ioredis';
import type { Logger } from 'pino';

/** A Redis-backed operation could not run because Redis is unreachable. */
export class RedisUnavailableError extends Error {
  override name = 'RedisUnavailableError';
  /** Stable code, also the GraphQL `extensions.code` of the error a client sees. */
  readonly code = 'REDIS_UNAVAILABLE';
}

export function isRedisUnavailableError(error: unknown): error is RedisUnavailableError {
  return error instanceof RedisUnavailableError;
}

export interface RedisConnection {
  /** Commands and PUBLISH. Fails fast (no offline queue) while disconnected. */
  readonly commands: Redis;
  /** SUBSCRIBE only; queues while disconnected and resubscribes on reconnect. */
  readonly subscriber: Redis;
  /** Both connections are up. */
  isReady(): boolean;
  /** Calls `listener` each time either connection is lost; returns the unsubscribe function. */
  onDown(listener: () => void): () => void;
  /** Resolves true once both connections are ready, false if `timeoutMs` passes first. */
  waitUntilReady(timeoutMs: number): Promise<boolean>;
  /** Both connections up and a round trip on the command one answered; false instead of throwing. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export interface RedisConnectionOptions {
  url: string;
  logger: Logger;
  /** Longest time one command may take before it fails. @default 5000 */
  commandTimeoutMs?: number;
}

export function createRedisConnection(options: RedisConnectionOptions): RedisConnection {
  const { logger } = options;
  const events = new EventEmitter();
  events.setMaxListeners(0);
  // Reconnect quickly and forever: a replica must come back by itself when Redis does.
  const retryStrategy = (times: number): number => Math.min(100 * times, 1000);
  const commands = new Redis(options.url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? 5000,
    retryStrategy,
    connectionName: 'gateway-commands',
  });
  const subscriber = new Redis(options.url, {
    lazyConnect: true,
    // SUBSCRIBE/UNSUBSCRIBE issued while down wait for the reconnect instead of rejecting: the
    // Redis event target does not handle their promises (an unhandled rejection would kill us).
    maxRetriesPerRequest: null,
    retryStrategy,
    connectionName: 'gateway-subscriber',
  });

  let wasReady = false;
  let closing = false;
  function update(): void {
    const ready = commands.status === 'ready' && subscriber.status === 'ready';
    if (ready === wasReady) return;
    wasReady = ready;
    if (ready) {
      logger.info('redis connected');
      events.emit('ready');
    } else {
      if (!closing) logger.error('redis connection lost; Redis-backed operations fail with REDIS_UNAVAILABLE until it returns');
      events.emit('down');
    }
  }
  for (const client of [commands, subscriber]) {
    client.on('ready', update);
    client.on('close', update);
    client.on('end', update);
    // ioredis reports every failed reconnect; the transitions above are what operators need.
    client.on('error', (error: Error) => logger.debug({ err: error }, 'redis client error'));
  }

  return {
    commands,
    subscriber,
    isReady: () => commands.status === 'ready' && subscriber.status === 'ready',
    onDown(listener) {
      events.on('down', listener);
      return () => events.off('down', listener);
    },
    async waitUntilReady(timeoutMs) {
      for (const client of [commands, subscriber]) {
        // A failed first connect still leaves ioredis retrying in the background.
        if (client.status === 'wait') client.connect().catch(() => undefined);
      }
      if (wasReady) return true;
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          events.off('ready', onReady);
          resolve(false);
        }, timeoutMs);
        const onReady = (): void => {
          clearTimeout(timer);
          resolve(true);
        };
        events.once('ready', onReady);
      });
    },
    async ping() {
      // Ready means both connections: the subscriber reconnects on its own schedule, and until
      // it has, jobCompleted/jobEvents and every waiting mutation would fail.
      if (subscriber.status !== 'ready') return false;
      try {
        return (await commands.ping()) === 'PONG';
      } catch {
        return false;
      }
    },
    async close() {
      closing = true;
      await Promise.all([commands, subscriber].map((client) => client.quit().catch(() => client.disconnect())));
    },
  };
}

/**
 * Runs a Redis command, turning connection failures into `RedisUnavailableError`; errors Redis
 * itself replied with (a bug of ours, not an outage) pass through.
 */
export async function guardRedis<T>(operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ReplyError) throw error;
    throw new RedisUnavailableError(`Redis is unavailable (${operation}): ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
}
