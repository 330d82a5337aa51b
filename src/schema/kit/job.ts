/**
 * Jobs as GraphQL reads them: the `Job` node, its status and operation, the `MutationPayload`
 * union of every mutation's payload; `job(id)`, `jobs(...)` (the caller's own, newest first) and
 * the subscriptions `jobCompleted(id)` (the finished job once, then complete) and `jobEvents`
 * (every job the caller's credential starts, resumable from `Job.eventCursor`). A job is visible
 * only to the credential that started it.
 */
import type { EnumRef, ObjectRef } from '@pothos/core';
import { brandWithType } from '@pothos/core';
import { GraphQLError } from 'graphql';
import { mapAsyncIterator } from 'graphql-yoga';
import { builder, type GatewaySchemaTypes } from '../../builder.js';
import { forgetLoadedRecords, type GatewayContext } from '../../context.js';
import { decodePayload, encodePayload } from '../../cursors/payload.js';
import { decodeEventCursor, encodeEventCursor, type JobEvent } from '../../jobs/event-log.js';
import type { JobRecord, JobStatus, OwnedJob } from '../../jobs/store.js';
import { SHARED_STREAM_EXTENSION } from '../../subscriptions/shared-subscriptions.js';
import type { ErrorCodeRecord } from '../../upstream/records.js';
import type { Release } from '../../upstream/releases.js';
import { readPageSize, type ConnectionResult } from './connections.js';
import { constantCase, closedSetEnum } from './enums.js';
import { UpstreamErrorRef } from './errors.js';
import type { UserErrorRecord } from './user-errors.js';

type Types = PothosSchemaTypes.ExtendDefaultTypes<GatewaySchemaTypes>;

/** What every payload resolves from: the job (none when the gateway refused the input) and the mutation's input. */
export interface PayloadSource {
  /** The mutation, e.g. `updateHostNqn`: its payload type is `UpdateHostNqnPayload`. */
  operation: string;
  clientMutationId: string | null;
  input: Record<string, unknown>;
  /** Null when the gateway refused the input before starting a job (`refusals` says why). */
  job: JobRecord | null;
  /** Failures the gateway found in the input itself, before any upstream call. */
  refusals?: readonly UserErrorRecord[];
}

/** The upstream ErrorCode of a failed job. */
export function errorOf(source: PayloadSource, context: GatewayContext): ErrorCodeRecord | null {
  if (source.job?.status !== 'FAILED') return null;
  const error = source.job.outcome?.body.error;
  return error ? context.upstream.decoder.errorCode(error) : null;
}

/** Whether the payload's job succeeded: its records can be read. */
export function succeeded(source: PayloadSource): boolean {
  return source.job?.status === 'SUCCEEDED';
}

export function payloadSourceOf(job: JobRecord): PayloadSource {
  const clientMutationId = job.input.clientMutationId;
  return { operation: job.operation, clientMutationId: typeof clientMutationId === 'string' ? clientMutationId : null, input: job.input, job };
}

export const JobStatusEnum = closedSetEnum('JobStatus', {
  description: 'Where an upstream job is.',
  values: {
    RUNNING: 'Accepted by the upstream (202), result not in yet.',
    SUCCEEDED: 'Finished successfully; `payload` holds the result.',
    FAILED: 'Finished with an error; the payload\'s `userErrors` say which.',
  },
  since: null,
});

/** The write operations, by mutation name, as the mutation kit registers them. */
const jobOperations: Record<string, { value: string; description: string; extensions: { since: Release } }> = {};
let JobOperationEnum: EnumRef<Types, string> | undefined;

/** Called by the mutation kit for each mutation: its job's `operation`, as old as the mutation. */
export function registerJobOperation(mutation: string, operation: string, since: Release): void {
  jobOperations[constantCase(mutation)] = { value: mutation, description: `\`${mutation}\` (${operation}).`, extensions: { since } };
}

/**
 * Makes the `JobOperation` enum of every mutation registered so far: once every schema module
 * has defined its mutations (`schema/index.ts`), before the schema is built.
 */
export function defineJobOperations(): void {
  JobOperationEnum ??= builder.enumType('JobOperation', {
    description: 'The write operation a job carries out: one value per mutation.',
    values: jobOperations,
    extensions: { since: null },
  });
}

function jobOperationEnum(): EnumRef<Types, string> {
  if (JobOperationEnum === undefined) throw new Error('defineJobOperations() must run before the schema is built');
  return JobOperationEnum;
}

export const MutationPayloadUnion = builder.unionType('MutationPayload', {
  description:
    'The payload of whichever mutation started a job. Every member implements `WritePayload`, so `... on WritePayload { status userErrors { code message field } }` reads any of them.',
  // Each mutation's payload joins the union as the mutation kit defines it (`addTypes`), so the
  // members live on the union's own ref.
  types: [] as ObjectRef<Types, PayloadSource>[],
  resolveType: (source: PayloadSource) => `${source.operation.charAt(0).toUpperCase()}${source.operation.slice(1)}Payload`,
});

export const JobRef = builder.objectRef<JobRecord>('Job');

JobRef.implement({
  // The gateway's own: as old as the service.
  extensions: { since: null },
  interfaces: [builder.nodeInterfaceRef()],
  description:
    'An asynchronous upstream operation started by a mutation. The result arrives by webhook (or by polling when the webhook is late) and is published on `jobCompleted` and `jobEvents`; `jobs` lists yours, `node(id:)` fetches one again.',
  fields: (t) => ({
    id: t.exposeID('id', {
      nullable: false,
      description:
        'The job\'s global id, which is also its uuid (the `X-Job-UUID` the gateway sent upstream): pass it to `job(id:)`, `jobCompleted(id:)` or `node(id:)`.',
    }),
    operation: t.field({
      type: jobOperationEnum(),
      nullable: false,
      description: 'The mutation that started the job, e.g. `DESTROY_VM_INSTANCE`.',
      resolve: (job) => job.operation,
    }),
    status: t.field({ type: JobStatusEnum, nullable: false, description: 'Where the job is.', resolve: (job) => job.status }),
    createdAt: t.field({ type: 'DateTime', nullable: false, description: 'When the gateway submitted the job.', resolve: (job) => new Date(job.createdAt) }),
    finishedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the result arrived; null while running.',
      resolve: (job) => (job.finishedAt === null ? null : new Date(job.finishedAt)),
    }),
    eventCursor: t.string({
      nullable: true,
      description:
        'Where this job\'s finish stands among `jobEvents`: pass the last one you saw as `jobEvents(after:)` to be sent what finished since. Set on the jobs `jobEvents` delivers; null where a job is read (`job`, `jobs`, `node`).',
      resolve: (job) => eventCursors.get(job) ?? null,
    }),
    error: t.field({
      type: UpstreamErrorRef,
      nullable: true,
      description: 'The upstream error of a failed job.',
      deprecationReason: 'Read `payload { ... on WritePayload { userErrors { code message field upstream { code } } } }`: the same failure, classified and pointing at the input.',
      resolve: (job, _args, context) => errorOf(payloadSourceOf(job), context),
    }),
    payload: t.field({
      type: MutationPayloadUnion,
      nullable: true,
      description: 'The mutation\'s payload once the job finished; null while running.',
      resolve: (job) => (job.status === 'RUNNING' ? null : payloadSourceOf(job)),
    }),
  }),
});

function forbidden(id: string): GraphQLError {
  return new GraphQLError(`Job ${id} was started with another credential.`, { extensions: { code: 'FORBIDDEN', job: id } });
}

function jobNotFound(id: string): GraphQLError {
  return new GraphQLError(`No job ${id} (unknown, or finished longer ago than the gateway keeps jobs).`, {
    extensions: { code: 'NOT_FOUND', job: id },
  });
}

/** A job id as the gateway issues them (`X-Job-UUID`): 32 lowercase hex. */
export const JOB_ID = /^[0-9a-f]{32}$/;

/** The caller's job, or an error: UNAUTHENTICATED, NOT_FOUND, FORBIDDEN (NOT_FOUND instead with `hideOthers`). */
async function readOwnJob(context: GatewayContext, id: string, hideOthers = false): Promise<JobRecord> {
  const owner = context.session.jobCaller().owner;
  const job = JOB_ID.test(id) ? await context.jobs.get(id) : null;
  if (!job) throw jobNotFound(id);
  if (job.owner !== owner) throw hideOthers ? jobNotFound(id) : forbidden(id);
  return job;
}

/**
 * The caller's job for `node(id:)`, branded as a `Job` for the `Node` interface; a job of another
 * credential is NOT_FOUND there, as any record the caller cannot see.
 */
export async function loadJobNode(context: GatewayContext, id: string): Promise<JobRecord> {
  const job = await readOwnJob(context, id, true);
  brandWithType(job, JobRef as never);
  return job;
}

builder.queryField('job', (t) =>
  t.field({
    type: JobRef,
    nullable: true,
    description:
      'A job started by one of your mutations, by id; null when there is none (with a `NOT_FOUND` error), it was started with another credential (`FORBIDDEN`) or it cannot be read (e.g. `UNAUTHENTICATED`).',
    args: { id: t.arg.id({ required: true, description: 'The job id (`job { id }` of a mutation payload).' }) },
    extensions: { since: null },
    resolve: (_root, args, context) => readOwnJob(context, String(args.id)),
  }),
);

const JobConnection = builder.connectionObject({
  type: JobRef,
  name: 'JobConnection',
  description: 'A page of your jobs, newest first.',
});

builder.queryField('jobs', (t) =>
  t.field({
    type: JobConnection,
    nullable: true,
    description:
      'The jobs your credential started, newest first: running ones, and finished ones for as long as the gateway keeps them (`JOB_TTL_MS`, an hour by default), at most the newest 1,000. A client reloaded while a write runs finds it here (`status: RUNNING`). Never another credential\'s jobs. Null when it cannot be read (with an error), e.g. without `Authorization` (`UNAUTHENTICATED`).',
    extensions: { since: null },
    args: {
      first: t.arg.int({ description: 'How many jobs to return, from 0 to 100. Default 20.' }),
      after: t.arg.string({ description: 'Return the jobs after the edge with this cursor.' }),
      status: t.arg({ type: JobStatusEnum, description: 'Only jobs in this status.' }),
      operation: t.arg({ type: jobOperationEnum(), description: 'Only jobs of this mutation.' }),
    },
    resolve: (_root, args, context) => readOwnJobs(context, args),
  }),
);

interface JobsArgs {
  first?: number | null | undefined;
  after?: string | null | undefined;
  status?: JobStatus | null | undefined;
  operation?: string | null | undefined;
}

function invalidJobsCursor(): GraphQLError {
  return new GraphQLError('`after` is not a cursor of this list of jobs (or of these filters). Start again from the first page: repeat the query without `after`.', {
    extensions: { code: 'INVALID_CURSOR', argument: 'after' },
  });
}

/**
 * A page of the caller's jobs. An edge's cursor names its job (and its position, for when that job
 * has since left the list), so a page starts right after it even while newer jobs arrive.
 */
async function readOwnJobs(context: GatewayContext, args: JobsArgs): Promise<ConnectionResult<JobRecord>> {
  const size = readPageSize(args.first);
  const owner = context.session.jobCaller().owner;
  const filter = { status: args.status ?? undefined, operation: args.operation ?? undefined };
  const keeper = context.cursors;
  const binding = keeper.bind(['jobs', owner, filter.status ?? null, filter.operation ?? null]);
  const owned = await context.jobs.listOwned(owner, filter);
  let start = 0;
  if (args.after) {
    const bytes = keeper.open(args.after);
    const payload = bytes === null ? null : decodePayload(bytes);
    if (payload === null || payload.kind !== 'keyset' || !payload.binding.equals(binding)) throw invalidJobsCursor();
    const anchor = owned.findIndex((job) => job.id === payload.uuid);
    start = anchor >= 0 ? anchor + 1 : Math.min(payload.skip, owned.length);
  }
  const page: OwnedJob[] = owned.slice(start, start + size);
  // The summaries say which jobs; the records are read whole for the page only.
  const records = await Promise.all(page.map((job) => context.jobs.get(job.id)));
  const edges = records.flatMap((job, index) =>
    job === null || job.owner !== owner
      ? []
      : [{ node: job, cursor: keeper.seal(encodePayload({ kind: 'keyset', binding, ref: null, skip: start + index + 1, uuid: job.id })) }],
  );
  return {
    edges,
    pageInfo: {
      hasNextPage: start + size < owned.length,
      hasPreviousPage: start > 0,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
    totalCount: owned.length,
  };
}

builder.subscriptionType({ description: 'Results of asynchronous work, pushed as the upstream reports them.', extensions: { since: null } });

builder.subscriptionFields((t) => ({
  jobCompleted: t.field({
    type: JobRef,
    nullable: false,
    description: 'The job once it has finished (at once if it already has), then the subscription completes.',
    args: { id: t.arg.id({ required: true, description: 'The job id.' }) },
    subscribe: (_root, args, context) => jobCompleted(context, String(args.id)),
    resolve: (job) => job,
  }),
  jobEvents: t.field({
    type: JobRef,
    nullable: false,
    description:
      'Every job started with your credential, each time one finishes, in the order they finish. Each carries `eventCursor`: after a lost connection, subscribe again with `after` set to the last one you saw, and the jobs that finished meanwhile come first, in order and once, then the live ones. A cursor whose events are no longer kept answers `CURSOR_EXPIRED`: list `jobs` instead.',
    args: {
      after: t.arg.string({
        required: false,
        description: 'The `eventCursor` of the last job you saw: the jobs that finished after it are sent first.',
      }),
    },
    // Without `after`: events from now on, so subscribers with the same selection and
    // credentials share one execution (one with arguments runs alone).
    extensions: { [SHARED_STREAM_EXTENSION]: true },
    subscribe: (_root, args, context) => {
      const after = args.after == null ? undefined : decodeEventCursor(args.after);
      return mapAsyncIterator(context.jobs.events.subscribeEvents(context.session.jobCaller().owner, after), (event) => {
        forgetLoadedRecords(context);
        return withEventCursor(event);
      });
    },
    resolve: (job) => job,
  }),
}));

/** The cursor of the event each job `jobEvents` delivered came with (the same job object for every subscriber). */
const eventCursors = new WeakMap<JobRecord, string>();

function withEventCursor(event: JobEvent): JobRecord {
  eventCursors.set(event.job, encodeEventCursor(event.position));
  return event.job;
}

async function* jobCompleted(context: GatewayContext, id: string): AsyncGenerator<JobRecord> {
  // Subscribe before reading the store, so a result published in between is not missed.
  const events = context.jobs.pubsub.subscribe('job', id);
  const iterator = events[Symbol.asyncIterator]();
  try {
    // Opened while Redis is away, it waits for it as the subscription itself does.
    const job = await context.jobs.readWhenStoreAnswers(() => readOwnJob(context, id));
    if (job.status !== 'RUNNING') {
      yield job;
      return;
    }
    const next = await iterator.next();
    if (!next.done) yield next.value;
  } finally {
    await iterator.return?.();
  }
}
