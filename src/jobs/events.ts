/**
 * The pub/sub finished jobs are published on: in-process by default, or over Redis (yoga's
 * Redis event target) so a webhook taken by one replica reaches subscribers on every replica.
 */
import { createPubSub, type PubSub, type PubSubEventTarget } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { JobRecord } from './store.js';

export interface JobTopics {
  /** Keyed by job id: `jobCompleted(id)`. */
  job: [id: string, job: JobRecord];
  /** Every finished job, keyed by `FINISHED_SCOPE`: replicas follow it to drop cached reads it changed. */
  finished: [scope: string, job: JobRecord];
  [topic: string]: [string, JobRecord];
}

/** The one routing key of the `finished` topic. */
export const FINISHED_SCOPE = 'all';

export type JobPubSub = PubSub<JobTopics>;

/** In-process without an event target; pass yoga's Redis event target to share across replicas. */
export function createJobPubSub(eventTarget?: PubSubEventTarget<JobTopics>): JobPubSub {
  return createPubSub<JobTopics>(eventTarget ? { eventTarget } : undefined);
}

/**
 * Calls `onJob` for every job that finishes on any replica, until `until` aborts. A lost
 * subscription (Redis went away) is taken up again after `retryMs`.
 */
export function followFinishedJobs(pubsub: JobPubSub, onJob: (job: JobRecord) => void, logger: Logger, until: AbortSignal, retryMs = 1000): void {
  let current: AsyncIterator<JobRecord> | undefined;
  until.addEventListener('abort', () => void current?.return?.(), { once: true });
  void (async () => {
    while (!until.aborted) {
      try {
        current = pubsub.subscribe('finished', FINISHED_SCOPE)[Symbol.asyncIterator]();
        for (let next = await current.next(); !next.done && !until.aborted; next = await current.next()) onJob(next.value);
      } catch (error) {
        logger.warn({ err: error }, 'following finished jobs failed; subscribing again');
      }
      if (!until.aborted) await new Promise((resolve) => setTimeout(resolve, retryMs).unref());
    }
  })();
}
