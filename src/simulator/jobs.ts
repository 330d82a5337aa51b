/**
 * The simulator's asynchronous job engine: every write is answered 202 with a polling address,
 * runs after a delay, is pollable at `GET svc/v1/api-jobs/{uuid}` and, when the caller sent
 * `X-Web-Hook`, is pushed to that URL with retries, as the real service does.
 */
import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { RESOURCE_FAMILY_PREFIX, type JobAnswer, type JobRunner, type JobRunnerOptions, type SubmitJob, type WebhookDelivery } from './contracts.js';
import { SimBadRequest, SimError, errorCode, type WireErrorCode } from './errors.js';
import { encodeJson } from './format.js';

/** What the real service answers as `apiTimeout` (30 minutes). */
export const API_TIMEOUT_MS = 1_800_000;
/** The real service keeps finished jobs for 3 hours. */
export const DEFAULT_JOB_TTL_MS = 3 * 60 * 60 * 1000;
/** The real service retries a failed webhook push 15 times. */
export const DEFAULT_WEBHOOK_RETRIES = 15;
/** The most webhook attempts `deliveries` remembers (the oldest are forgotten first). */
export const DELIVERY_LOG_LIMIT = 10_000;
/** One webhook attempt may take this long before it counts as an I/O error. */
export const WEBHOOK_TIMEOUT_MS = 10_000;

const JOB_UUID_PATTERN = /^[0-9a-fA-F]{32}$/;

type JobOutcome =
  | { state: 'running' }
  | { state: 'succeeded'; body: Record<string, unknown> }
  | { state: 'failed'; error: WireErrorCode };

interface Job {
  /** Lowercase; the key of the job table and the last segment of `location`. */
  uuid: string;
  /** As the caller sent it; echoed in the webhook's `X-Job-UUID`. */
  headerUuid: string;
  operation: string;
  webHook: string | undefined;
  outcome: JobOutcome;
}

/** Creates the job engine the simulator's HTTP server hands every write to. */
export function createJobRunner(options: JobRunnerOptions): JobRunner {
  const jobTtlMs = options.jobTtlMs ?? DEFAULT_JOB_TTL_MS;
  const webhookRetries = options.webhookRetries ?? DEFAULT_WEBHOOK_RETRIES;
  const jobs = new Map<string, Job>();
  // Finished jobs in finishing order, so expiry only ever looks at the oldest ones.
  const finished = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  const inFlight = new Set<Promise<void>>();
  const aborter = new AbortController();
  const deliveries: WebhookDelivery[] = [];
  // Jobs that came due while held, in that order.
  const held: (() => void)[] = [];
  let closed = false;

  function schedule(delayMs: number, task: () => void): void {
    if (closed) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      task();
    }, Math.max(0, delayMs));
    timers.add(timer);
  }

  function forgetExpiredJobs(now: number): void {
    for (const [uuid, finishedAt] of finished) {
      if (now - finishedAt < jobTtlMs) break;
      finished.delete(uuid);
      jobs.delete(uuid);
    }
  }

  function runJob(job: Job, run: SubmitJob['run']): void {
    if (options.holdJobs?.()) {
      held.push(() => runJob(job, run));
      return;
    }
    job.outcome = executeSafely(run);
    finished.set(job.uuid, Date.now());
    if (job.webHook !== undefined && !options.dropWebhooks()) {
      deliver(job, job.webHook, 1);
    }
  }

  function deliver(job: Job, url: string, attempt: number): void {
    const outcome = job.outcome;
    if (outcome.state === 'running' || closed) return;
    const success = outcome.state === 'succeeded';
    // encodeJson keeps the spec's `1.0` integers, so a pushed body equals the polled one byte for byte.
    const body = encodeJson(success ? outcome.body : { error: outcome.error });
    const attemptDone = postWebhook(url, job.headerUuid, success, body, aborter.signal).then((answeredStatus) => {
      deliveries.push({ jobUuid: job.uuid, url, success, attempt, answeredStatus });
      if (deliveries.length > DELIVERY_LOG_LIMIT) deliveries.splice(0, deliveries.length - DELIVERY_LOG_LIMIT);
      const delivered = answeredStatus !== null && answeredStatus >= 200 && answeredStatus < 300;
      if (!delivered && attempt <= webhookRetries) {
        schedule(options.webhookRetryMs(), () => deliver(job, url, attempt + 1));
      }
    });
    inFlight.add(attemptDone);
    void attemptDone.finally(() => inFlight.delete(attemptDone));
  }

  return {
    deliveries,

    submit(submitted: SubmitJob): JobAnswer {
      const now = Date.now();
      forgetExpiredJobs(now);
      const headerUuid = submitted.jobUuidHeader?.trim();
      if (headerUuid !== undefined && !JOB_UUID_PATTERN.test(headerUuid)) {
        return { status: 400, text: `Invalid header[X-Job-UUID], it must be a UUID with '-' stripped: ${headerUuid}` };
      }
      const uuid = headerUuid?.toLowerCase() ?? randomUUID().replaceAll('-', '');
      if (jobs.has(uuid)) {
        return { status: 400, text: `Duplicate job uuid[${uuid}]` };
      }
      const webHook = submitted.webHook?.trim() || undefined;
      const job: Job = {
        uuid,
        headerUuid: headerUuid ?? uuid,
        operation: submitted.operation,
        webHook,
        outcome: { state: 'running' },
      };
      jobs.set(uuid, job);
      startSafely(submitted.start);
      schedule(options.asyncDelayMs(), () => runJob(job, submitted.run));
      return {
        status: 202,
        json: { location: `${options.baseUrl()}${RESOURCE_FAMILY_PREFIX}api-jobs/${uuid}`, apiTimeout: API_TIMEOUT_MS },
      };
    },

    poll(jobUuid: string): JobAnswer {
      forgetExpiredJobs(Date.now());
      const job = jobs.get(jobUuid.toLowerCase());
      if (job === undefined) return { status: 404, text: `job[${jobUuid}] not found` };
      switch (job.outcome.state) {
        case 'running':
          return { status: 202, json: {} };
        case 'succeeded':
          return { status: 200, json: job.outcome.body };
        case 'failed':
          return { status: 503, json: { error: job.outcome.error } };
      }
    },

    release(): void {
      for (const task of held.splice(0)) task();
    },

    async close(): Promise<void> {
      // Pending jobs are abandoned, not run: the store they would change is going away too.
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      held.length = 0;
      aborter.abort();
      await Promise.allSettled([...inFlight]);
    },
  };
}

/** A failing `start` must not fail the submission: `run` reports the job's real outcome. */
function startSafely(start: SubmitJob['start']): void {
  try {
    start?.();
  } catch {
    // Deliberately ignored: see above.
  }
}

/** Runs a job's work, turning every exception into the failure the real service would report. */
function executeSafely(run: SubmitJob['run']): JobOutcome {
  try {
    return { state: 'succeeded', body: run() };
  } catch (error) {
    return { state: 'failed', error: failureOf(error) };
  }
}

function failureOf(error: unknown): WireErrorCode {
  if (error instanceof SimError) return error.errorCode;
  // A REST-layer rejection should have been answered 400 before the job; inside a job it can
  // only mean a bad argument.
  if (error instanceof SimBadRequest) return errorCode('SYS.1007', 'One or more API argument is invalid', error.message);
  const details = error instanceof Error ? error.message : String(error);
  return errorCode('SYS.1000', 'An internal error happened in system', details);
}

/**
 * One delivery attempt. Resolves with the receiver's status, or null on an I/O error or
 * timeout; never rejects, so a broken receiver cannot crash the simulator.
 */
async function postWebhook(
  url: string,
  jobUuid: string,
  success: boolean,
  body: string,
  closing: AbortSignal,
): Promise<number | null> {
  try {
    const response = await request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'x-job-uuid': jobUuid,
        'x-job-success': String(success),
      },
      body,
      headersTimeout: WEBHOOK_TIMEOUT_MS,
      bodyTimeout: WEBHOOK_TIMEOUT_MS,
      signal: AbortSignal.any([closing, AbortSignal.timeout(WEBHOOK_TIMEOUT_MS)]),
    });
    await response.body.dump();
    return response.statusCode;
  } catch {
    return null;
  }
}
