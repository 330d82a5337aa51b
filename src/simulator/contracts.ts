/**
 * The seams inside the simulator: how the HTTP server (`server.ts`) hands write operations to
 * the write handlers (`writes/`) and runs them as asynchronous jobs (`jobs.ts`).
 */
import type { Tenant } from './model.js';
import type { SimulatorStore } from './store.js';

/** Where the resource family's API lives: every read, write and job poll is a path below it. */
export const RESOURCE_FAMILY_PREFIX = '/svc/v1/';

/** A write operation matched from method + path (+ PUT action key). */
export interface MatchedWrite {
  /** The spec's operation name, e.g. `UpdateHostNqn`. Counted in `/__sim/stats`. */
  operation: string;
  /** Path parameters by the spec's names, e.g. `{ vmInstanceUuid }`. */
  params: Record<string, string>;
}

export interface WriteRequest extends MatchedWrite {
  /** The parsed JSON body (`{}` when there was none). */
  body: Record<string, unknown>;
  query: URLSearchParams;
  tenant: Tenant;
}

/**
 * Runs one write against the store and returns the success body (`{inventory}`, `{}`,
 * `{results}`, ...), or throws `SimError` for a business failure. Called when the job runs, not
 * when the request arrives: validation failures end the job as failed.
 */
export type ExecuteWrite = (request: WriteRequest, store: SimulatorStore) => Record<string, unknown>;

/** What the server sends back for a submitted or polled job. */
export type JobAnswer =
  | { status: number; json: Record<string, unknown> }
  | { status: number; text: string };

export interface SubmitJob {
  /** The `X-Job-UUID` header as received, if any. */
  jobUuidHeader: string | undefined;
  /** The `X-Web-Hook` header as received, if any. */
  webHook: string | undefined;
  operation: string;
  tenant: Tenant;
  /** Runs the write when the job's delay is over; throws SimError on failure. */
  run: () => Record<string, unknown>;
  /**
   * Optional: runs at once when the job is accepted (before the 202), to show the state a
   * resource is in while its job runs (EnableCbtTask's `Starting`: `beginWrite` in `writes/index.ts`).
   */
  start?: () => void;
}

export interface JobRunnerOptions {
  /** Base for `location`: `<baseUrl>/svc/v1/api-jobs/<uuid>`. Read on every submit (port 0 servers learn it late). */
  baseUrl: () => string;
  asyncDelayMs: () => number;
  dropWebhooks: () => boolean;
  /** While true, jobs that come due wait for `release()`. @default never */
  holdJobs?: () => boolean;
  webhookRetryMs: () => number;
  /** Attempts after the first failure; the real service retries 15 times. */
  webhookRetries?: number;
  /** How long finished jobs stay pollable (real service: 3 hours). */
  jobTtlMs?: number;
}

export interface JobRunner {
  /** Validates `X-Job-UUID` (400 when malformed or reused) and answers 202 `{location, apiTimeout}`. */
  submit(job: SubmitJob): JobAnswer;
  /** `GET svc/v1/api-jobs/{uuid}`: 202 `{}` running, 200 result, 503 `{error}`, 404 text when unknown or expired. */
  poll(jobUuid: string): JobAnswer;
  /** Webhook deliveries made so far (for tests and stats). */
  readonly deliveries: readonly WebhookDelivery[];
  /** Finishes the jobs that came due while `holdJobs` was true, in the order they came due. */
  release(): void;
  /** Waits for pending jobs and stops retry timers. */
  close(): Promise<void>;
}

export interface WebhookDelivery {
  jobUuid: string;
  url: string;
  success: boolean;
  attempt: number;
  /** HTTP status the receiver answered, or null on an I/O error. */
  answeredStatus: number | null;
}
