/**
 * Runs upstream writes as jobs: sends the gateway's own `X-Job-UUID` and an `X-Web-Hook` URL on
 * itself carrying a per-job secret, takes the result from the webhook, and falls back to polling
 * the upstream's `location` when the webhook is late, so a lost webhook delays a result but never
 * loses it. Finished jobs are published once on the pub/sub (`finished`, then `job` by id); `jobEvents`
 * follows the `finished` topic's log (`event-log.ts`).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Span, Tracer } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { contextFromTraceparent, inChildSpan, linkTo, recordFailure, scopeOf, startChildSpan, startSpan, traceFields, traceparentOf, type SpanScope } from '../tracing/spans.js';
import { isRedisUnavailableError } from '../redis/connection.js';
import { isUpstreamRequestError } from '../upstream/errors.js';
import { redactJson, secretOf } from '../upstream/redact.js';
import type { ResourceCredential, SubmitRequest, UpstreamClient } from '../upstream/types.js';
import type { JobEventSource } from './event-log.js';
import { FINISHED_SCOPE, type JobPubSub } from './events.js';
import type { JobOutcome, JobRecord, JobStore, OwnedJob, OwnedJobsFilter } from './store.js';

export interface JobManagerOptions {
  store: JobStore;
  pubsub: JobPubSub;
  /** `jobEvents`' source, handed on to the schema. */
  events: JobEventSource;
  upstream: UpstreamClient;
  /**
   * The gateway's address as the upstream reaches it (`PUBLIC_URL`, or where the server listens):
   * asked at each write, since a server on port 0 learns its port only once listening.
   */
  publicUrl: () => string;
  /** The upstream's polling address of a job id, for when the 202 answer itself was lost. */
  jobLocation: (id: string) => string;
  logger: Logger;
  /** How long to wait for the webhook before the first poll (`JOB_POLL_AFTER_MS`). */
  jobPollAfterMs: number;
  /** Longest pause between polls (the pause grows 1.5x from `jobPollAfterMs`). @default DEFAULT_POLL_MAX_INTERVAL_MS */
  pollMaxIntervalMs?: number;
  /** Give up polling (job FAILED, `GATEWAY.JOB_LOST`) after this long. @default DEFAULT_POLL_DEADLINE_MS */
  pollDeadlineMs?: number;
  /**
   * Called once per job when it finishes here, and again whenever `wait` hands out a job that
   * finished (perhaps on another replica), so that whoever waited reads the job's records afresh
   * (e.g. to invalidate cached reads it changed). It must not mind being called twice.
   */
  onFinished?: (job: JobRecord) => void;
  /**
   * Traces jobs (`src/tracing/`): the submit under the mutation's span, each webhook arrival and
   * poll as a trace of its own linked to the submit, the publication under whichever finished
   * it. Undefined: tracing off.
   */
  tracer?: Tracer | undefined;
  /** How `readWhenStoreAnswers` waits out a store (Redis) that is away; undefined: a store never away (in memory). */
  storeOutage?: StoreOutage | undefined;
}

/** Waiting for a store that is away (Redis). */
export interface StoreOutage {
  /** Resolves true once the store can be read again, false if `timeoutMs` passes first. */
  untilAnswers(timeoutMs: number): Promise<boolean>;
  /** How long to wait for it (`REDIS_RESUME_GRACE_MS`). */
  redisResumeGraceMs: number;
}

export interface StartJob {
  operation: string;
  credential: ResourceCredential;
  owner: string;
  input: Record<string, unknown>;
  request: Omit<SubmitRequest, 'jobUuid' | 'webHook'>;
  requestId?: string | undefined;
  /** The caller's address, for the budget of calls under credentials not yet accepted upstream. */
  clientAddress?: string | undefined;
  /** Where the job's submit span goes (the mutation's execution); undefined: not traced. */
  trace?: SpanScope | undefined;
}

export interface JobManager {
  /** Where finished jobs are published (`finished`, then `job` by id). */
  readonly pubsub: JobPubSub;
  /** Each owner's finished jobs as resumable events: `jobEvents`. */
  readonly events: JobEventSource;
  /** Submits the write; resolves once the upstream accepted it (or failed it at once). */
  start(job: StartJob): Promise<JobRecord>;
  get(id: string): Promise<JobRecord | null>;
  /** The jobs `owner` started that are still kept, newest first (`JobStore.listOwned`). */
  listOwned(owner: string, filter: OwnedJobsFilter): Promise<OwnedJob[]>;
  /** Resolves with the job once finished, or as it is when `timeoutMs` passes. */
  wait(id: string, timeoutMs: number): Promise<JobRecord | null>;
  /**
   * Whether a webhook at `/webhooks/jobs/{id}/{secret}` may deliver: `unknown` (no such job),
   * `forbidden` (not the job's secret) or `accepted`. Decided from the path alone, before any body.
   */
  checkWebhook(id: string, secret: string): Promise<WebhookAccess>;
  /**
   * Finishes a job with the outcome its webhook delivered; false when it had finished already.
   * `traceparent`: the delivery's own, when the upstream sent one (the webhook span's parent).
   */
  deliverWebhook(id: string, outcome: JobOutcome, traceparent?: string): Promise<boolean>;
  /** Resumes polling jobs left running (e.g. by a replica that stopped). */
  resumeRunning(): Promise<void>;
  /**
   * Runs `read`; while it fails because the store (Redis) is away, runs it again once the store
   * answers, for up to `storeResumeGraceMs` (then the store's error): a subscription opened during
   * an outage waits it out, as open ones do, rather than ending at once.
   */
  readWhenStoreAnswers<T>(read: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export type WebhookAccess = 'unknown' | 'forbidden' | 'accepted';

/** The ids the gateway gives jobs (see `start`). */
const JOB_ID = /^[0-9a-f]{32}$/;

/**
 * Pause before reading again a store that failed and says it answers again, in ms: a stalled
 * Redis looks connected until its next PING goes unanswered.
 */
const STORE_RETRY_PAUSE_MS = 250;

/** Longest pause between two polls of a job, in ms. */
const DEFAULT_POLL_MAX_INTERVAL_MS = 10_000;
/** When polling gives up on a job (FAILED, `GATEWAY.JOB_LOST`): the upstream's apiTimeout, 30 min. */
const DEFAULT_POLL_DEADLINE_MS = 1_800_000;

/** The path of the webhook receiver, under the gateway's public URL. */
export const WEBHOOK_PATH = '/webhooks/jobs/';

export function createJobManager(options: JobManagerOptions): JobManager {
  const { store, pubsub, logger, tracer } = options;
  const pollAfterMs = options.jobPollAfterMs;
  const pollMaxIntervalMs = options.pollMaxIntervalMs ?? DEFAULT_POLL_MAX_INTERVAL_MS;
  const pollDeadlineMs = options.pollDeadlineMs ?? DEFAULT_POLL_DEADLINE_MS;
  const timers = new Set<NodeJS.Timeout>();
  // The credential secrets of the jobs started here, while they run: what their webhook bodies
  // are scrubbed of. Memory only, never the store: another replica's webhook for a job started
  // here is scrubbed of anything shaped like a credential (`redact`), not of this exact one.
  const secretsOfRunning = new Map<string, string>();
  // Jobs whose finish here failed (Redis away, or too slow to answer): they stay RUNNING in the
  // store and are polled again. One found finished by then may have been finished by that very
  // write, its answer lost, and so published by no one: it is published then (readers drop a job
  // id published twice).
  const unconfirmed = new Set<string>();
  let closed = false;

  /** Ends a job once and publishes it; `span`: the span of what finished it (its publication goes under it). */
  async function finish(id: string, outcome: JobOutcome, via: 'webhook' | 'poll' | 'submit', span?: Span): Promise<boolean> {
    const secret = secretsOfRunning.get(id);
    let finished: JobRecord | null;
    try {
      finished = await store.finish(id, { success: outcome.success, body: redactJson(outcome.body, secret === undefined ? [] : [secret]) });
    } catch (error) {
      unconfirmed.add(id);
      throw error;
    }
    if (!finished) {
      // Finished already: perhaps by a finish of ours whose answer was lost.
      if (unconfirmed.has(id)) publishUnconfirmed(id, await store.get(id));
      return false;
    }
    unconfirmed.delete(id);
    secretsOfRunning.delete(id);
    if (span !== undefined && via === 'webhook') span.addLinks(linkTo(finished.traceParent, { 'job.link': 'submit' }));
    span?.setAttribute('job.status', finished.status);
    logger.info({ job: id, operation: finished.operation, status: finished.status, via, ...traceFields(span) }, 'job finished');
    publish(finished, span);
    return true;
  }

  /** Publishes a job found finished (or forgets one gone) after a finish of it here went unconfirmed, once. */
  function publishUnconfirmed(id: string, job: JobRecord | null): void {
    if (job?.status === 'RUNNING' || !unconfirmed.delete(id) || job === null) return;
    logger.info({ job: id, operation: job.operation, status: job.status }, 'job found finished after its finish here went unconfirmed; publishing it');
    publish(job, undefined);
  }

  function publish(finished: JobRecord, span: Span | undefined): void {
    // Before publishing: whoever waits for the job may read its records again at once.
    options.onFinished?.(finished);
    const publication = span === undefined || tracer === undefined ? undefined : startChildSpan(scopeOf(tracer, span), 'job.publish', { 'job.id': finished.id, 'job.status': finished.status });
    // `finished` first: a replica receives its messages in order, so it forgets the cached reads
    // the job changed before its `jobCompleted` subscribers hear of the job.
    pubsub.publish('finished', FINISHED_SCOPE, finished);
    pubsub.publish('job', finished.id, finished);
    publication?.end();
  }

  /** A span of its own for a job's webhook or poll, linked to the span that submitted it (from the job record, written by any replica). */
  function startJobSpan(name: string, id: string, job: JobRecord | null, parent?: string): SpanScope | undefined {
    if (tracer === undefined) return undefined;
    const span = startSpan(tracer, name, {
      parent: contextFromTraceparent(parent),
      attributes: { 'job.id': id, ...(job === null ? {} : { 'job.operation': job.operation }) },
      links: linkTo(job?.traceParent, { 'job.link': 'submit' }),
    });
    return scopeOf(tracer, span);
  }

  async function deliverWebhook(id: string, outcome: JobOutcome, traceparent?: string): Promise<boolean> {
    const span = startJobSpan('job.webhook', id, null, traceparent)?.span;
    try {
      return await finish(id, outcome, 'webhook', span);
    } catch (error) {
      if (span !== undefined) recordFailure(span, error);
      throw error;
    } finally {
      span?.end();
    }
  }

  function schedulePoll(id: string, location: string, delayMs: number, startedAt: number): void {
    if (closed) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      void pollOnce(id, location, delayMs, startedAt);
    }, delayMs);
    timer.unref();
    timers.add(timer);
  }

  async function pollOnce(id: string, location: string, delayMs: number, startedAt: number): Promise<void> {
    const next = Math.min(pollMaxIntervalMs, Math.round(delayMs * 1.5));
    let job: JobRecord | null;
    try {
      job = await store.get(id);
    } catch (error) {
      // The store is unreachable (a Redis outage): keep the job's polling alive for when it returns.
      logger.warn({ job: id, err: error }, 'reading a job failed; will retry');
      schedulePoll(id, location, next, startedAt);
      return;
    }
    if (!job || job.status !== 'RUNNING') {
      // Finished elsewhere (another replica took its webhook), or here by a write whose answer was lost.
      secretsOfRunning.delete(id);
      publishUnconfirmed(id, job);
      return;
    }
    const scope = startJobSpan('job.poll', id, job);
    const span = scope?.span;
    try {
      const poll = await options.upstream.pollJob(location, { trace: scope });
      if (poll.status === 'running') {
        if (Date.now() - startedAt < pollDeadlineMs) schedulePoll(id, location, next, startedAt);
        else await finish(id, lostOutcome('no result within the polling deadline'), 'poll', span);
        return;
      }
      await finish(id, { success: poll.status === 'succeeded', body: poll.body }, 'poll', span);
    } catch (error) {
      if (isUpstreamRequestError(error) && error.code === 'UPSTREAM_NOT_FOUND') {
        // The upstream does not know the job (never received, or expired): nothing more will come.
        await finish(id, lostOutcome('the upstream does not know this job'), 'poll', span);
        return;
      }
      if (span !== undefined) recordFailure(span, error);
      logger.warn({ job: id, err: error, ...traceFields(span) }, 'polling a job failed; will retry');
      if (Date.now() - startedAt < pollDeadlineMs) schedulePoll(id, location, next, startedAt);
      else await finish(id, lostOutcome('the upstream could not be polled before the deadline'), 'poll', span);
    } finally {
      span?.end();
    }
  }

  /** Submits the write, traced as `job.submit` under the mutation's span when it is traced. */
  function start(request: StartJob): Promise<JobRecord> {
    const id = randomBytes(16).toString('hex');
    return inChildSpan(request.trace, 'job.submit', { 'job.id': id, 'job.operation': request.operation }, (scope) => submit(id, request, scope));
  }

  async function submit(id: string, request: StartJob, scope: SpanScope | undefined): Promise<JobRecord> {
    const secret = randomBytes(24).toString('base64url');
    const job: JobRecord = {
      id,
      operation: request.operation,
      owner: request.owner,
      secret,
      location: null,
      status: 'RUNNING',
      createdAt: Date.now(),
      finishedAt: null,
      input: request.input,
      outcome: null,
    };
    const traceParent = scope === undefined ? undefined : traceparentOf(scope.span);
    if (traceParent !== undefined) job.traceParent = traceParent;
    // Stored before the upstream hears of it: the webhook may arrive before `submit` returns.
    await store.create(job);
    const credentialSecret = secretOf(request.credential.authorization);
    if (credentialSecret !== undefined) secretsOfRunning.set(id, credentialSecret);
    const webHook = `${options.publicUrl().replace(/\/$/, '')}${WEBHOOK_PATH}${id}/${secret}`;
    try {
      const accepted = await options.upstream.submit(
        request.credential,
        { ...request.request, jobUuid: id, webHook },
        { requestId: request.requestId, clientAddress: request.clientAddress, trace: scope },
      );
      if (accepted.result) {
        await finish(id, { success: true, body: accepted.result }, 'submit', scope?.span);
      } else {
        const location = accepted.location ?? options.jobLocation(id);
        await store.setLocation(id, location);
        schedulePoll(id, location, pollAfterMs, job.createdAt);
      }
    } catch (error) {
      if (isUpstreamRequestError(error) && error.errorCode) {
        // Refused (a rejected credential, a bad parameter): no upstream job exists to follow, so
        // once its caller has the answer nothing keeps it for JOB_TTL_MS.
        return finishUnstarted(id, { success: false, body: { error: error.errorCode } }, job, scope?.span);
      } else if (isUpstreamRequestError(error) && (error.code === 'UPSTREAM_TIMEOUT' || error.mayHaveBeenDelivered)) {
        // The write may have been accepted (a timeout, or a connection that failed after sending):
        // its job id is ours, so poll for it rather than guess. A job the upstream never received
        // polls 404 and ends FAILED with GATEWAY.JOB_LOST; one it ran ends with its result.
        const location = options.jobLocation(id);
        await store.setLocation(id, location);
        schedulePoll(id, location, pollAfterMs, job.createdAt);
      } else {
        await finishUnstarted(id, lostOutcome(error instanceof Error ? error.message : String(error)), job, scope?.span);
        throw error;
      }
    }
    return (await store.get(id)) ?? job;
  }

  /** Finishes (publishes) a job the upstream never took on and forgets it: its answer is all there is. */
  async function finishUnstarted(id: string, outcome: JobOutcome, job: JobRecord, span: Span | undefined): Promise<JobRecord> {
    await finish(id, outcome, 'submit', span);
    const finished = (await store.get(id)) ?? { ...job, status: 'FAILED', outcome, finishedAt: Date.now() };
    await store.discard(id);
    return finished;
  }

  async function wait(id: string, timeoutMs: number): Promise<JobRecord | null> {
    const job = await waitForFinish(id, timeoutMs);
    // Finished elsewhere, the job reaches this replica's cache through the `finished` topic, which
    // may come just after the answer that says the write is done.
    if (job && job.status !== 'RUNNING') options.onFinished?.(job);
    return job;
  }

  async function waitForFinish(id: string, timeoutMs: number): Promise<JobRecord | null> {
    const subscription = pubsub.subscribe('job', id);
    const iterator = subscription[Symbol.asyncIterator]();
    let timer: NodeJS.Timeout | undefined;
    try {
      const current = await store.get(id);
      if (!current || current.status !== 'RUNNING') return current;
      const timeout = new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), timeoutMs);
      });
      const next = iterator.next().then((result) => (result.done ? null : result.value));
      return (await Promise.race([next, timeout])) ?? (await store.get(id));
    } finally {
      if (timer) clearTimeout(timer);
      void iterator.return?.();
    }
  }

  async function checkWebhook(id: string, secret: string): Promise<WebhookAccess> {
    const job = JOB_ID.test(id) ? await store.get(id) : null;
    if (!job) return 'unknown';
    return sameSecret(job.secret, secret) ? 'accepted' : 'forbidden';
  }

  return {
    pubsub,
    events: options.events,
    start,
    get: (id) => store.get(id),
    listOwned: (owner, filter) => store.listOwned(owner, filter),
    wait,
    checkWebhook,
    deliverWebhook,
    async readWhenStoreAnswers(read) {
      const outage = options.storeOutage;
      if (outage === undefined) return read();
      const deadline = Date.now() + outage.redisResumeGraceMs;
      for (;;) {
        try {
          return await read();
        } catch (error) {
          const left = deadline - Date.now();
          if (!isRedisUnavailableError(error) || left <= 0) throw error;
          if (!(await outage.untilAnswers(left))) throw error;
          await new Promise((resolve) => setTimeout(resolve, Math.min(STORE_RETRY_PAUSE_MS, Math.max(0, deadline - Date.now()))));
        }
      }
    },
    async resumeRunning() {
      for (const job of await store.claimOrphaned()) {
        schedulePoll(job.id, job.location ?? options.jobLocation(job.id), pollAfterMs, job.createdAt);
      }
    },
    async close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      secretsOfRunning.clear();
      unconfirmed.clear();
    },
  };
}

function lostOutcome(reason: string): JobOutcome {
  return { success: false, body: { error: { code: 'GATEWAY.JOB_LOST', description: 'The job\'s result could not be obtained.', details: reason } } };
}

function sameSecret(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
