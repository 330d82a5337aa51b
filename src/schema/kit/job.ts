/**
 * Jobs as GraphQL reads them: the `Job` type, its status and the `MutationPayload` union of every
 * mutation's payload; `job(id)`, and the subscriptions `jobCompleted(id)` (the finished job once,
 * then complete) and `jobEvents` (every job the caller's credential starts). A job is visible only
 * to the credential that started it.
 */
import type { ObjectRef } from '@pothos/core';
import { GraphQLError } from 'graphql';
import { mapAsyncIterator } from 'graphql-yoga';
import { builder, type GatewaySchemaTypes } from '../../builder.js';
import { forgetLoadedRecords, type GatewayContext } from '../../context.js';
import type { JobRecord } from '../../jobs/store.js';
import { SHARED_STREAM_EXTENSION } from '../../shared-subscriptions.js';
import type { ErrorCodeRecord } from '../../upstream/records.js';
import { UpstreamErrorRef } from './errors.js';
import { closedSetEnum } from './enums.js';

type Types = PothosSchemaTypes.ExtendDefaultTypes<GatewaySchemaTypes>;

/** What every payload resolves from: the job and the mutation's input. */
export interface PayloadSource {
  clientMutationId: string | null;
  input: Record<string, unknown>;
  job: JobRecord;
}

/** The upstream ErrorCode of a failed job. */
export function errorOf(source: PayloadSource, context: GatewayContext): ErrorCodeRecord | null {
  if (source.job.status !== 'FAILED') return null;
  const error = source.job.outcome?.body.error;
  return error ? context.upstream.decoder.errorCode(error) : null;
}

export function payloadSourceOf(job: JobRecord): PayloadSource {
  const clientMutationId = job.input.clientMutationId;
  return { clientMutationId: typeof clientMutationId === 'string' ? clientMutationId : null, input: job.input, job };
}

export const JobStatusEnum = closedSetEnum('JobStatus', {
  description: 'Where an upstream job is.',
  values: {
    RUNNING: 'Accepted by the upstream (202), result not in yet.',
    SUCCEEDED: 'Finished successfully; `payload` holds the result.',
    FAILED: 'Finished with an error; `error` says which.',
  },
  since: null,
});

export const MutationPayloadUnion = builder.unionType('MutationPayload', {
  description: 'The payload of whichever mutation started a job.',
  // Each mutation's payload joins the union as the mutation kit defines it (`addTypes`), so the
  // members live on the union's own ref.
  types: [] as ObjectRef<Types, PayloadSource>[],
  resolveType: (source: PayloadSource) => `${source.job.operation.charAt(0).toUpperCase()}${source.job.operation.slice(1)}Payload`,
});

export const JobRef = builder.objectRef<JobRecord>('Job');

JobRef.implement({
  // The gateway's own: as old as the service.
  extensions: { since: null },
  description:
    'An asynchronous upstream operation started by a mutation. The result arrives by webhook (or by polling when the webhook is late) and is published on `jobCompleted` and `jobEvents`.',
  fields: (t) => ({
    id: t.exposeID('id', { nullable: false, description: 'The job id (the `X-Job-UUID` the gateway sent upstream).' }),
    operation: t.exposeString('operation', { nullable: false, description: 'The mutation that started the job, e.g. `destroyVmInstance`.' }),
    status: t.field({ type: JobStatusEnum, nullable: false, description: 'Where the job is.', resolve: (job) => job.status }),
    createdAt: t.field({ type: 'DateTime', nullable: false, description: 'When the gateway submitted the job.', resolve: (job) => new Date(job.createdAt) }),
    finishedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the result arrived; null while running.',
      resolve: (job) => (job.finishedAt === null ? null : new Date(job.finishedAt)),
    }),
    error: t.field({
      type: UpstreamErrorRef,
      nullable: true,
      description: 'The upstream error of a failed job.',
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

/** The caller's job, or an error: UNAUTHENTICATED, NOT_FOUND, FORBIDDEN. */
async function readOwnJob(context: GatewayContext, id: string): Promise<JobRecord> {
  const owner = context.session.jobCaller().owner;
  const job = /^[0-9a-f]{32}$/.test(id) ? await context.jobs.get(id) : null;
  if (!job) throw jobNotFound(id);
  if (job.owner !== owner) throw forbidden(id);
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
    description: 'Every job started with your credential, each time one finishes.',
    // Events from now on, nothing replayed: subscribers with the same selection and credentials share one execution.
    extensions: { [SHARED_STREAM_EXTENSION]: true },
    subscribe: (_root, _args, context) =>
      mapAsyncIterator(context.jobs.pubsub.subscribe('owner', context.session.jobCaller().owner), (job) => {
        forgetLoadedRecords(context);
        return job;
      }),
    resolve: (job) => job,
  }),
}));

async function* jobCompleted(context: GatewayContext, id: string): AsyncGenerator<JobRecord> {
  // Subscribe before reading the store, so a result published in between is not missed.
  const events = context.jobs.pubsub.subscribe('job', id);
  const iterator = events[Symbol.asyncIterator]();
  try {
    const job = await readOwnJob(context, id);
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
