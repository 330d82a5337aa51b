/**
 * Jobs as GraphQL reads them: `job(id)`, and the subscriptions `jobCompleted(id)` (the finished
 * job once, then complete) and `jobEvents` (every job the caller's credential starts). A job is
 * visible only to the credential that started it.
 */
import { GraphQLError } from 'graphql';
import { mapAsyncIterator } from 'graphql-yoga';
import { builder } from '../builder.js';
import { forgetLoadedRecords, requireResourceCredential, type GatewayContext } from '../context.js';
import type { JobRecord } from '../jobs/store.js';
import { SHARED_STREAM_EXTENSION } from '../shared-subscriptions.js';
import { JobRef, ownerOf } from './mutation-kit.js';

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
  const owner = ownerOf(requireResourceCredential(context));
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
    resolve: (_root, args, context) => readOwnJob(context, String(args.id)),
  }),
);

builder.subscriptionType({ description: 'Results of asynchronous work, pushed as the upstream reports them.' });

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
      mapAsyncIterator(context.jobs.pubsub.subscribe('owner', ownerOf(requireResourceCredential(context))), (job) => {
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
