/**
 * The gateway's Redis connections (`REDIS_URL`: one Redis, a Redis Cluster, or a master behind
 * Sentinel): one for commands and publishing, one in subscriber mode, and one for the blocking
 * reads of the finished-jobs stream. All reconnect on their own; while any is down every
 * Redis-backed operation fails at once with `RedisUnavailableError` rather than queueing (the
 * replica stays ready: what does not need Redis goes on). A Redis that stalls instead of refusing
 * (a frozen process, a partition that sends no reset) is found by a command left unanswered past
 * the command timeout: the command connection is then dropped and stays down until Redis answers
 * its reconnect, so the commands after it fail at once too instead of each waiting out the timeout.
 *
 * On a cluster every operation touches one key, or keys sharing a hash tag (`{...}`), and scripts
 * touch only the keys they are given: nothing here assumes one keyspace on one node.
 */
import { EventEmitter } from 'node:events';
import { Cluster, Redis, ReplyError, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import { parseRedisUrl, type RedisTarget } from './url.js';

/** One Redis or a Redis Cluster: the same commands, routed by key on a cluster. */
export type RedisClient = Redis | Cluster;

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
  readonly commands: RedisClient;
  /** SUBSCRIBE only; queues while disconnected and resubscribes on reconnect. */
  readonly subscriber: RedisClient;
  /**
   * Blocking reads (`XREAD BLOCK`) only, which would hold up every other command on a shared
   * connection. Fails fast while disconnected: the reader resumes from its own offset.
   */
  readonly reader: RedisClient;
  /** What `REDIS_URL` names. */
  readonly target: RedisTarget;
  /** Every connection is up. */
  isReady(): boolean;
  /** Calls `listener` each time a connection is lost; returns the unsubscribe function. */
  onDown(listener: () => void): () => void;
  /** Resolves true once every connection is ready, false if `timeoutMs` passes first. */
  waitUntilReady(timeoutMs: number): Promise<boolean>;
  /** Every connection up and a round trip on the command one answered; false instead of throwing. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** Longest time one command may take before it fails, in ms (`REDIS_COMMAND_TIMEOUT_MS`'s default). */
const DEFAULT_COMMAND_TIMEOUT_MS = 1_000;

export interface RedisConnectionOptions {
  url: string;
  logger: Logger;
  /**
   * Longest time one command may take before it fails; a PING left unanswered this long means
   * Redis stalls (`REDIS_COMMAND_TIMEOUT_MS`). @default DEFAULT_COMMAND_TIMEOUT_MS
   */
  commandTimeoutMs?: number;
}

export function createRedisConnection(options: RedisConnectionOptions): RedisConnection {
  const { logger } = options;
  const commandTimeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  const target = parseRedisUrl(options.url);
  const events = new EventEmitter();
  events.setMaxListeners(0);
  const commands = connect(target, 'gateway-commands', {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // Also bounds the ready check of a reconnect: a Redis still stalled keeps the connection down.
    commandTimeout: commandTimeoutMs,
  });
  const subscriber = connect(target, 'gateway-subscriber', {
    // SUBSCRIBE/UNSUBSCRIBE issued while down wait for the reconnect instead of rejecting: a
    // Redis event target does not handle their promises (an unhandled rejection would kill us).
    maxRetriesPerRequest: null,
  });
  const reader = connect(target, 'gateway-reader', {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // A read cut by a lost connection is not sent again by the client: the reader checks that
    // nothing was lost while it was away, then reads on from its offset.
    autoResendUnfulfilledCommands: false,
  });
  const clients = [commands, subscriber, reader];

  let wasReady = false;
  let closing = false;
  function update(): void {
    const ready = allReady();
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
  function allReady(): boolean {
    return clients.every((client) => client.status === 'ready');
  }
  for (const client of clients) {
    client.on('ready', update);
    client.on('close', update);
    client.on('end', update);
    // ioredis reports every failed reconnect; the transitions above are what operators need.
    client.on('error', (error: Error) => logger.debug({ err: error }, 'redis client error'));
  }

  const watchdog = watchForStall(commands, commandTimeoutMs, logger);

  return {
    commands,
    subscriber,
    reader,
    target,
    isReady: allReady,
    onDown(listener) {
      events.on('down', listener);
      return () => events.off('down', listener);
    },
    async waitUntilReady(timeoutMs) {
      for (const client of clients) {
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
      // Ready means every connection: each reconnects on its own schedule, and until the reader
      // has, jobCompleted/jobEvents and every waiting mutation would wait.
      if (subscriber.status !== 'ready' || reader.status !== 'ready') return false;
      try {
        return (await commands.ping()) === 'PONG';
      } catch {
        return false;
      }
    },
    async close() {
      closing = true;
      clearInterval(watchdog);
      // The reader at once: a QUIT would wait behind its blocking read.
      reader.disconnect();
      await Promise.all([commands, subscriber].map((client) => client.quit().catch(() => client.disconnect())));
    },
  };
}

/** Per-connection options that mean the same on one Redis, a cluster's nodes, or a Sentinel's master. */
type ConnectionOptions = Pick<RedisOptions, 'enableOfflineQueue' | 'maxRetriesPerRequest' | 'commandTimeout' | 'autoResendUnfulfilledCommands'>;

// Reconnect quickly and forever: a replica must come back by itself when Redis does.
const retryStrategy = (times: number): number => Math.min(100 * times, 1000);

function connect(target: RedisTarget, connectionName: string, options: ConnectionOptions): RedisClient {
  const common: RedisOptions = { lazyConnect: true, retryStrategy, connectionName, ...options };
  switch (target.kind) {
    case 'single':
      return new Redis(target.url, common);
    case 'sentinel':
      return new Redis({
        ...common,
        sentinels: target.sentinels.map(({ host, port }) => ({ host, port })),
        name: target.masterName,
        db: target.db,
        username: target.username,
        password: target.password,
        sentinelPassword: target.sentinelPassword,
        sentinelRetryStrategy: retryStrategy,
        // A master demoted by a failover answers writes READONLY: reconnect, asking the sentinels
        // again, and send the command there. (ioredis' `failoverDetector` left clients that were
        // already reconnecting stuck in tests, with the new master up.)
        reconnectOnError: (error) => (error.message.startsWith('READONLY') ? 2 : false),
        ...(target.tls ? { tls: {}, enableTLSForSentinelMode: true } : {}),
      });
    case 'cluster': {
      const { enableOfflineQueue, ...perNode } = options;
      const clusterOptions: ClusterOptions = {
        lazyConnect: true,
        clusterRetryStrategy: retryStrategy,
        enableOfflineQueue: enableOfflineQueue ?? true,
        redisOptions: {
          ...perNode,
          connectionName,
          username: target.username,
          password: target.password,
          ...(target.tls ? { tls: {} } : {}),
        },
      };
      return new Cluster(
        target.nodes.map(({ host, port }) => ({ host, port })),
        clusterOptions,
      );
    }
  }
}

/**
 * PINGs the command connection every `timeoutMs` while it is up: a PING the client gives up on
 * (its command timeout) means Redis stalls, and the connection is dropped to reconnect. Until the
 * reconnect's ready check is answered the connection is down, so commands fail at once.
 */
function watchForStall(commands: RedisClient, timeoutMs: number, logger: Logger): NodeJS.Timeout {
  let pinging = false;
  const timer = setInterval(() => {
    if (pinging || commands.status !== 'ready') return;
    pinging = true;
    commands
      .ping()
      .catch((error: unknown) => {
        if (redisFailureOf(error) !== 'stalled' || commands.status !== 'ready') return;
        logger.error({ timeoutMs }, 'redis stopped answering; Redis-backed operations fail with REDIS_UNAVAILABLE until it answers again');
        commands.disconnect(true);
      })
      .finally(() => {
        pinging = false;
      });
  }, timeoutMs);
  timer.unref();
  return timer;
}

/** What went wrong with a Redis command, in the gateway's words; `reply`: Redis answered an error of ours. */
type RedisFailure = 'stalled' | 'down' | 'busy' | 'reply';

/**
 * Replies that mean Redis cannot serve right now rather than that the command was wrong: loading
 * its data after a restart, busy with a script, a replica that lost its master or was demoted,
 * a cluster without its slots.
 */
const UNAVAILABLE_REPLIES = /^(LOADING|BUSY|MASTERDOWN|READONLY|CLUSTERDOWN|TRYAGAIN|NOREPLICAS)\b/;

/** The kind of a Redis command's failure: the one place that reads the client's errors. */
function redisFailureOf(error: unknown): RedisFailure {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof ReplyError) return UNAVAILABLE_REPLIES.test(message) ? 'busy' : 'reply';
  return message.includes('timed out') ? 'stalled' : 'down';
}

const FAILURE_WORDS: Record<Exclude<RedisFailure, 'reply'>, string> = {
  stalled: 'Redis did not answer in time',
  down: 'the connection to Redis is down',
  busy: 'Redis cannot serve requests right now',
};

/**
 * The error a caller sees for a failed Redis command: a `RedisUnavailableError` saying what
 * happened in the gateway's words (`operation`: what it was doing), the client's own error kept
 * as its `cause` for the logs. An error Redis replied to a correct connection (a bug of ours,
 * not an outage) is returned as it is.
 */
export function redisUnavailable(operation: string, error: unknown): Error {
  if (error instanceof RedisUnavailableError) return error;
  const failure = redisFailureOf(error);
  if (failure === 'reply') return error as Error;
  return new RedisUnavailableError(`Redis is unavailable (${operation}): ${FAILURE_WORDS[failure]}. Retry later.`, { cause: error });
}

/** Runs a Redis command, turning its failures into `RedisUnavailableError` (`redisUnavailable`). */
export async function guardRedis<T>(operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw redisUnavailable(operation, error);
  }
}
