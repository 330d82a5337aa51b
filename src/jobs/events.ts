/**
 * The pub/sub finished jobs are published on: in-process by default, or over Redis (yoga's
 * Redis event target) so a webhook taken by one replica reaches subscribers on every replica.
 */
import { createPubSub, type PubSub, type PubSubEventTarget } from 'graphql-yoga';
import type { JobRecord } from './store.js';

export interface JobTopics {
  /** Keyed by job id: `jobCompleted(id)`. */
  job: [id: string, job: JobRecord];
  /** Keyed by the owning credential's digest: `jobEvents`. */
  owner: [owner: string, job: JobRecord];
  [topic: string]: [string, JobRecord];
}

export type JobPubSub = PubSub<JobTopics>;

/** In-process without an event target; pass yoga's Redis event target to share across replicas. */
export function createJobPubSub(eventTarget?: PubSubEventTarget<JobTopics>): JobPubSub {
  return createPubSub<JobTopics>(eventTarget ? { eventTarget } : undefined);
}
