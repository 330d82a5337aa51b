/**
 * The job pub/sub over Redis: yoga's Redis event target carries each finished job to every
 * replica, and each replica hands it to its own subscribers.
 *
 * Two things yoga's pub/sub alone does not give a gateway behind a load balancer:
 * - No lost result between "read the store" and "listen": Redis SUBSCRIBE takes effect a round
 *   trip after it is sent, so once a `job` subscription is confirmed the store is read once more
 *   and a job that finished in between is delivered from there.
 * - A clear failure: while Redis is down a subscription fails at once, and one that is open when
 *   the connection drops ends with `RedisUnavailableError` (code `REDIS_UNAVAILABLE`), since Redis
 *   pub/sub does not replay what was published meanwhile. Clients resubscribe; `jobCompleted`
 *   then answers from the store.
 */
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { Repeater, type PubSubEvent, type PubSubEventTarget } from 'graphql-yoga';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { RedisUnavailableError, type RedisConnection } from '../redis.js';
import { createJobPubSub, type JobPubSub, type JobTopics } from './events.js';
import type { JobRecord, JobStore } from './store.js';

export interface RedisJobPubSubOptions {
  connection: RedisConnection;
  /** Read after a `job` subscription is confirmed, to deliver a job that finished meanwhile. */
  store: JobStore;
  logger: Logger;
}

type JobEvent = PubSubEvent<JobTopics, Extract<keyof JobTopics, string>>;

export function createRedisJobPubSub(options: RedisJobPubSubOptions): JobPubSub {
  const { connection, store, logger } = options;
  const target: PubSubEventTarget<JobTopics> = createRedisEventTarget<JobEvent>({
    publishClient: publishWithoutThrowing(connection.commands, logger),
    subscribeClient: connection.subscriber,
  });
  const publisher = createJobPubSub(target);

  function subscribe(routingKey: string, id: string): Repeater<JobRecord> {
    const topic = `${routingKey}:${id}`;
    return new Repeater<JobRecord>(async (push, stop) => {
      if (!connection.isReady()) {
        stop(new RedisUnavailableError('Redis is unavailable: subscriptions cannot be delivered until it returns.'));
        return;
      }
      const listener = (event: JobEvent): void => void push(event.detail);
      target.addEventListener(topic, listener);
      const offDown = connection.onDown(() =>
        stop(new RedisUnavailableError('The connection to Redis was lost: results published meanwhile cannot be delivered. Subscribe again.')),
      );
      void stop.then(() => {
        target.removeEventListener(topic, listener);
        offDown();
      });
      if (routingKey !== 'job') return;
      try {
        // Replies on one connection come in order: once this SUBSCRIBE is answered, so is the
        // event target's, and anything published from now on reaches `listener`.
        await connection.subscriber.subscribe(topic);
        const job = await store.get(id);
        if (job && job.status !== 'RUNNING') await push(job);
      } catch (error) {
        stop(error instanceof RedisUnavailableError ? error : new RedisUnavailableError('Redis is unavailable.', { cause: error }));
      }
    });
  }

  return {
    publish: (routingKey, ...args) => publisher.publish(routingKey, ...args),
    subscribe: subscribe as JobPubSub['subscribe'],
  };
}

/**
 * The command client, except that a failed PUBLISH is logged instead of becoming an unhandled
 * rejection: the event target drops the promise PUBLISH returns.
 */
function publishWithoutThrowing(client: Redis, logger: Logger): Redis {
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property !== 'publish') return Reflect.get(target, property, receiver) as unknown;
      return (channel: string, message: string) =>
        target.publish(channel, message).catch((error: unknown) => {
          logger.warn({ err: error, channel }, 'publishing a finished job on Redis failed; subscribers elsewhere miss it');
          return 0;
        });
    },
  });
}
