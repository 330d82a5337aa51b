/**
 * One way to declare a write of the spec as a Relay mutation: its typed input, the exact
 * upstream request, and the payload fields that read the result. The kit adds what every
 * mutation shares: `clientMutationId`, `systemTags`, `userTags`, `async`, the job, `error`, and
 * the payload's place in the `MutationPayload` union that `Job.payload` returns.
 */
import { createHash } from 'node:crypto';
import type { InputFieldMap, InputShapeFromFields, ObjectRef } from '@pothos/core';
import { getNamedType, isInputObjectType, isScalarType, type GraphQLField, type GraphQLResolveInfo } from 'graphql';
import { builder, type GatewaySchemaTypes } from '../builder.js';
import { requireResourceCredential, type GatewayContext } from '../context.js';
import type { JobRecord } from '../jobs/store.js';
import { resourceIdentity } from '../upstream/credentials.js';
import type { ErrorCodeRecord } from '../upstream/records.js';
import type { ResourceCredential } from '../upstream/types.js';
import { UpstreamErrorRef } from './errors.js';

/** What every payload resolves from: the job and the mutation's input. */
export interface PayloadSource {
  clientMutationId: string | null;
  input: Record<string, unknown>;
  job: JobRecord;
}

/** The request a mutation makes, before the kit adds tags and job headers. */
export interface WriteRequestSpec {
  method: 'POST' | 'PUT' | 'DELETE';
  /** Relative to `svc/v1/`, uuids already in place. */
  path: string;
  /** POST: the `params` object. PUT: the action object. DELETE: parameters sent in the body's `params`. */
  params?: Record<string, unknown>;
  /** PUT only: the action key that selects the operation. */
  actionKey?: string;
  /** Parameters the spec sends on the query string. */
  query?: Record<string, string | undefined>;
}

type Types = PothosSchemaTypes.ExtendDefaultTypes<GatewaySchemaTypes>;
type InputBuilder = PothosSchemaTypes.InputFieldBuilder<Types, 'InputObject'>;
type PayloadBuilder = PothosSchemaTypes.ObjectFieldBuilder<Types, PayloadSource>;

export interface WriteMutationSpec<Fields extends InputFieldMap> {
  /** The mutation's name: the spec's operation in lowerCamelCase. */
  name: string;
  /** The spec's operation name, e.g. `DestroyVmInstance`. */
  operation: string;
  description: string;
  inputFields: (t: InputBuilder) => Fields;
  request: (input: InputShapeFromFields<Fields>) => WriteRequestSpec;
  payloadFields: (t: PayloadBuilder) => Record<string, PothosSchemaTypes.FieldRef<Types>>;
  /** What the write changes, for the response cache to forget once its job finishes. */
  touches: WriteTouches<InputShapeFromFields<Fields>>;
}

/**
 * What a write changes beyond its payload, declared next to it so that every cached answer it
 * made stale is dropped when its job finishes (read your writes). Type names are the schema's;
 * the response cache checks them when the gateway starts.
 */
export interface WriteTouches<Input> {
  /**
   * Record types the write creates, changes or removes. Every cached list (connection) of each
   * goes, and every cached answer holding a record of one of them that `uuids` names or the
   * upstream's answer carries.
   */
  types: readonly string[];
  /** The records the write changes or removes that its input names. */
  uuids: (input: Input) => readonly (string | null | undefined)[];
  /**
   * Types of which the write may change records that neither its input nor the upstream's answer
   * names (the CBT task of a VM whose volumes are exported), or that have no identity (capacity):
   * every cached answer holding one goes.
   */
  everyRecordOf?: readonly string[];
}

/** What one finished job touched: `WriteTouches` applied to its input and its result. */
export interface TouchedRecords {
  types: readonly string[];
  uuids: readonly string[];
  everyRecordOf: readonly string[];
}

/** Every payload type, for the `MutationPayload` union; keyed by mutation name. */
const payloadTypes = new Map<string, ObjectRef<Types, PayloadSource>>();

/** What each mutation touches; keyed by mutation name. */
const touchesByMutation = new Map<string, WriteTouches<Record<string, unknown>>>();

/** The declared touches of every mutation, for checking their type names against the schema. */
export function declaredTouches(): ReadonlyMap<string, WriteTouches<Record<string, unknown>>> {
  return touchesByMutation;
}

/**
 * The records a finished job's write touched: the uuids its input names and every record
 * (`uuid`) in the upstream's answer, e.g. the volumes inside a migrated VM's inventory. A failed
 * write touches its named records too, since a failure may still change them (enableCbtTask
 * leaves its task FAILED). Null for a job of no known mutation.
 */
export function touchedBy(job: JobRecord): TouchedRecords | null {
  const touches = touchesByMutation.get(job.operation);
  if (!touches) return null;
  const uuids = new Set<string>();
  for (const uuid of touches.uuids(job.input)) if (typeof uuid === 'string') uuids.add(uuid);
  if (job.status === 'SUCCEEDED' && job.outcome) collectUuids(job.outcome.body, uuids);
  return { types: touches.types, uuids: [...uuids], everyRecordOf: touches.everyRecordOf ?? [] };
}

function collectUuids(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) collectUuids(item, into);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, field] of Object.entries(value)) {
      if (key === 'uuid' && typeof field === 'string') into.add(field);
      else collectUuids(field, into);
    }
  }
}

/**
 * Digest of a credential as the upstream reads it: who a job belongs to, without keeping the
 * credential itself (the same session in another spelling owns the same jobs).
 */
export function ownerOf(credential: ResourceCredential): string {
  return createHash('sha256').update(resourceIdentity(credential)).digest('hex');
}

/** The success body of a finished job, or null (running, or failed). */
export function resultOf(source: PayloadSource): Record<string, unknown> | null {
  return source.job.status === 'SUCCEEDED' ? (source.job.outcome?.body ?? null) : null;
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

function buildBody(spec: WriteRequestSpec, systemTags: unknown, userTags: unknown): Record<string, unknown> | undefined {
  const tags = {
    ...(Array.isArray(systemTags) ? { systemTags } : {}),
    ...(Array.isArray(userTags) ? { userTags } : {}),
  };
  const params = Object.fromEntries(Object.entries(spec.params ?? {}).filter(([, value]) => value !== undefined && value !== null));
  if (spec.method === 'PUT') return { [spec.actionKey ?? 'params']: params, ...tags };
  if (spec.method === 'POST') return { params, ...tags };
  return Object.keys(params).length > 0 || Object.keys(tags).length > 0 ? { params, ...tags } : undefined;
}

/** Per mutation: the input fields a job keeps (see `keptInput`). */
const keptFields = new WeakMap<GraphQLField<unknown, unknown>, readonly string[]>();

/**
 * What a job keeps of its mutation's input for its life (`JOB_TTL_MS`): `clientMutationId` and
 * the ids (single or listed) the payload reads the written records by, never tags or other values a caller may make
 * as large as a request body.
 */
function keptInput(input: Record<string, unknown>, info: GraphQLResolveInfo): Record<string, unknown> {
  const field = info.parentType.getFields()[info.fieldName]!;
  let names = keptFields.get(field);
  if (names === undefined) {
    const inputType = getNamedType(field.args.find((arg) => arg.name === 'input')?.type);
    const fields = isInputObjectType(inputType) ? Object.values(inputType.getFields()) : [];
    // Lists of ids too (`volumeUuids`): the records a write names are what it invalidates.
    const ids = fields.filter((candidate) => {
      const type = getNamedType(candidate.type);
      return isScalarType(type) && type.name === 'Uuid';
    });
    names = ['clientMutationId', ...ids.map((candidate) => candidate.name)];
    keptFields.set(field, names);
  }
  return Object.fromEntries(names.filter((name) => input[name] !== undefined).map((name) => [name, input[name]]));
}

export function defineWriteMutation<Fields extends InputFieldMap>(spec: WriteMutationSpec<Fields>): ObjectRef<Types, PayloadSource> {
  const typeName = spec.name.charAt(0).toUpperCase() + spec.name.slice(1);
  const { payloadType } = builder.relayMutationField(
    spec.name,
    {
      name: `${typeName}Input`,
      description: `Input of \`${spec.name}\` (${spec.operation}).`,
      inputFields: (t) => ({
        clientMutationId: t.id({ description: 'Echoed back in the payload, for the client to match answers to requests.' }),
        ...spec.inputFields(t),
        systemTags: t.stringList({ description: 'System tags sent with the request.' }),
        userTags: t.stringList({ description: 'User tags sent with the request.' }),
        async: t.boolean({
          defaultValue: false,
          description:
            'false (default): wait, up to the gateway\'s bound, and return the final payload. true: return at once with `job { status: RUNNING }`; follow it with `jobCompleted(id)`.',
        }),
      }),
    },
    {
      description: spec.description,
      nullable: false,
      resolve: async (_root, args, context, info): Promise<PayloadSource> => {
        // The kit's generic input name defeats Pothos' inference; the shape is the one declared above.
        const input = (args as unknown as { input: Record<string, unknown> }).input;
        const credential = requireResourceCredential(context);
        const request = spec.request(input as InputShapeFromFields<Fields>);
        const query = new URLSearchParams(
          Object.entries(request.query ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined),
        );
        let job = await context.jobs.start({
          operation: spec.name,
          credential,
          owner: ownerOf(credential),
          input: keptInput(input, info),
          requestId: context.requestId,
          clientAddress: context.clientAddress,
          request: {
            operation: spec.operation,
            method: request.method,
            path: request.path,
            ...(query.size > 0 ? { query } : {}),
            ...(buildBody(request, input.systemTags, input.userTags) === undefined
              ? {}
              : { body: buildBody(request, input.systemTags, input.userTags) }),
          },
        });
        if (input.async !== true && job.status === 'RUNNING') {
          job = (await context.jobs.wait(job.id, context.mutationWaitMs)) ?? job;
        }
        return payloadSourceOf(job);
      },
    },
    {
      name: `${typeName}Payload`,
      description: `Result of \`${spec.name}\` (${spec.operation}).`,
      outputFields: (t) => ({
        clientMutationId: t.id({
          nullable: true,
          description: 'The `clientMutationId` sent in the input.',
          resolve: (source) => source.clientMutationId,
        }),
        ...spec.payloadFields(t),
        error: t.field({
          type: UpstreamErrorRef,
          nullable: true,
          description: 'The upstream error with its cause chain when the operation failed; null on success or while running.',
          resolve: (source, _args, context) => errorOf(source, context),
        }),
        job: t.field({
          type: JobRef,
          nullable: false,
          description: 'The upstream job that carried out the operation.',
          resolve: (source) => source.job,
        }),
      }),
    },
  );
  payloadTypes.set(spec.name, payloadType as unknown as ObjectRef<Types, PayloadSource>);
  touchesByMutation.set(spec.name, spec.touches as unknown as WriteTouches<Record<string, unknown>>);
  return payloadType as unknown as ObjectRef<Types, PayloadSource>;
}

export const JobStatusEnum = builder.enumType('JobStatus', {
  description: 'Where an upstream job is.',
  values: {
    RUNNING: { value: 'RUNNING', description: 'Accepted by the upstream (202), result not in yet.' },
    SUCCEEDED: { value: 'SUCCEEDED', description: 'Finished successfully; `payload` holds the result.' },
    FAILED: { value: 'FAILED', description: 'Finished with an error; `error` says which.' },
  } as const,
});

export const MutationPayloadUnion = builder.unionType('MutationPayload', {
  description: 'The payload of whichever mutation started a job.',
  types: () => [...payloadTypes.values()],
  resolveType: (source: PayloadSource) => `${source.job.operation.charAt(0).toUpperCase()}${source.job.operation.slice(1)}Payload`,
});

export const JobRef = builder.objectRef<JobRecord>('Job');

JobRef.implement({
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
