/**
 * Where jobs live between the mutation that starts them and the webhook (or poll) that ends
 * them. In one process: memory. With `REDIS_URL`: Redis, so any replica can take the webhook.
 */

export type JobStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED';

/** How a job ended: the upstream's result body (success) or `{error: ErrorCode}` (failure). */
export interface JobOutcome {
  success: boolean;
  body: Record<string, unknown>;
}

export interface JobRecord {
  /** The `X-Job-UUID` the gateway chose: 32 lowercase hex. */
  id: string;
  /** The mutation that started the job, e.g. `destroyVmInstance`. */
  operation: string;
  /** Digest of the credential that started it: only that credential may read it. */
  owner: string;
  /** Per-job secret carried in the `X-Web-Hook` URL; never shown to clients. */
  secret: string;
  /** The upstream's polling address, once the upstream answered 202. */
  location: string | null;
  status: JobStatus;
  createdAt: number;
  finishedAt: number | null;
  /** What the payload needs of the mutation's input once the job ends (`clientMutationId`, record ids). */
  input: Record<string, unknown>;
  outcome: JobOutcome | null;
  /**
   * The W3C `traceparent` of the span that submitted the job, when tracing is on: the spans of
   * its webhook, polls and publication link to it, on whichever replica they happen.
   */
  traceParent?: string | undefined;
}

/** What a list of a caller's jobs needs of each before reading the page's records whole. */
export interface OwnedJob {
  id: string;
  operation: string;
  status: JobStatus;
  createdAt: number;
}

/** Which of a caller's jobs to list; absent conditions hold for every job. */
export interface OwnedJobsFilter {
  status?: JobStatus | undefined;
  operation?: string | undefined;
}

/**
 * Most jobs a caller's list holds: the newest this many (within the store's retention). Bounds
 * what one `jobs` query reads from the store, whatever a credential runs.
 */
export const OWNED_JOBS_LISTED = 1000;

export interface JobStore {
  create(job: JobRecord): Promise<void>;
  get(id: string): Promise<JobRecord | null>;
  setLocation(id: string, location: string): Promise<void>;
  /**
   * Ends a running job. Returns the finished job the first time, null when the job is unknown
   * or already finished, so a webhook delivered twice publishes once.
   */
  finish(id: string, outcome: JobOutcome): Promise<JobRecord | null>;
  /**
   * Claims the running jobs no live replica follows any more, for this one to poll. In memory,
   * where this process is the only replica, that is every running job; with Redis, those whose
   * replica's heartbeat is gone, each claimed by one replica only.
   */
  claimOrphaned(): Promise<JobRecord[]>;
  /** Forgets a job at once (one the upstream never took on, once its caller has the answer). */
  discard(id: string): Promise<void>;
  /**
   * The jobs `owner` started that the store still keeps and that meet `filter`, newest first: of
   * its `OWNED_JOBS_LISTED` newest jobs.
   */
  listOwned(owner: string, filter: OwnedJobsFilter): Promise<OwnedJob[]>;
  close(): Promise<void>;
}

/** Whether a job meets a filter of `listOwned`. */
export function meets(job: Pick<OwnedJob, 'status' | 'operation'>, filter: OwnedJobsFilter): boolean {
  return (filter.status === undefined || job.status === filter.status) && (filter.operation === undefined || job.operation === filter.operation);
}

export interface MemoryJobStoreOptions {
  /** How long finished jobs stay readable (`JOB_TTL_MS`). */
  ttlMs: number;
}

export function createMemoryJobStore(options: MemoryJobStoreOptions): JobStore {
  const { ttlMs } = options;
  const jobs = new Map<string, JobRecord>();
  // Each owner's job ids, oldest first (the order they were created in).
  const owned = new Map<string, Set<string>>();

  function forget(id: string): void {
    const job = jobs.get(id);
    if (job === undefined) return;
    jobs.delete(id);
    const ids = owned.get(job.owner);
    ids?.delete(id);
    if (ids?.size === 0) owned.delete(job.owner);
  }

  function expired(job: JobRecord, now: number): boolean {
    return job.finishedAt !== null && now - job.finishedAt > ttlMs;
  }

  function sweep(now: number): void {
    for (const [id, job] of jobs) if (expired(job, now)) forget(id);
  }
  const sweeper = setInterval(() => sweep(Date.now()), Math.min(ttlMs, 60_000));
  sweeper.unref();

  return {
    async create(job) {
      jobs.set(job.id, structuredClone(job));
      let ids = owned.get(job.owner);
      if (ids === undefined) owned.set(job.owner, (ids = new Set()));
      ids.add(job.id);
    },
    async get(id) {
      const job = jobs.get(id);
      if (!job) return null;
      if (expired(job, Date.now())) {
        forget(id);
        return null;
      }
      return structuredClone(job);
    },
    async setLocation(id, location) {
      const job = jobs.get(id);
      if (job) job.location = location;
    },
    async finish(id, outcome) {
      const job = jobs.get(id);
      if (!job || job.status !== 'RUNNING') return null;
      job.status = outcome.success ? 'SUCCEEDED' : 'FAILED';
      job.outcome = outcome;
      job.finishedAt = Date.now();
      return structuredClone(job);
    },
    async claimOrphaned() {
      return [...jobs.values()].filter((job) => job.status === 'RUNNING').map((job) => structuredClone(job));
    },
    async discard(id) {
      forget(id);
    },
    async listOwned(owner, filter) {
      const now = Date.now();
      const newest = [...(owned.get(owner) ?? [])].reverse().slice(0, OWNED_JOBS_LISTED);
      return newest.flatMap((id) => {
        const job = jobs.get(id);
        return job === undefined || expired(job, now) || !meets(job, filter) ? [] : [{ id, operation: job.operation, status: job.status, createdAt: job.createdAt }];
      });
    },
    async close() {
      clearInterval(sweeper);
      jobs.clear();
      owned.clear();
    },
  };
}
