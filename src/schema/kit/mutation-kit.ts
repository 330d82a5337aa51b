/**
 * One way to declare a write of the spec as a Relay mutation: the operation of the catalogue it
 * sends, whose declared parameters become its input fields (kind, requiredness and description
 * said there, once), the few inputs with GraphQL types of their own, and the payload fields that
 * read the operation's decoded result. The kit adds what every mutation shares: `clientMutationId`,
 * `systemTags`, `userTags`, `async`; the `WritePayload` fields (`status`, `userErrors`, `job`); the
 * deprecated `error`; and the payload's place in the `MutationPayload` union that `Job.payload`
 * returns. A payload is nullable: a mutation that cannot run at all (no credential, the upstream
 * unreachable) nulls its own field with an error, and the other mutations of the document keep
 * their answers. No method, path or body shape lives here: the operation's declaration
 * (`upstream/operations/`) has them.
 */
import type { InputFieldMap, InputFieldRef, InputShapeFromFields, ObjectRef } from '@pothos/core';
import { encodeGlobalID } from '@pothos/plugin-relay';
import { describeSince } from '../../upstream/releases.js';
import { getNamedType, isInputObjectType, isScalarType, type GraphQLField, type GraphQLResolveInfo, type GraphQLSchema } from 'graphql';
import { builder, type GatewaySchemaTypes } from '../../builder.js';
import type { GatewayContext } from '../../context.js';
import type { JobOutcome, JobRecord } from '../../jobs/store.js';
import { isDeclaredParam, type DeclaredValues, type ParamDeclaration, type ParamsOf, type ResultOf, type WriteOperation } from '../../upstream/operations/index.js';
import { deleteModeField } from './delete-mode.js';
import { UpstreamErrorRef } from './errors.js';
import { JobRef, JobStatusEnum, MutationPayloadUnion, errorOf, payloadSourceOf, registerJobOperation, succeeded, type PayloadSource } from './job.js';
import { isFallback } from './enums.js';
import { InputRefusal, inputFieldsOf, userErrorOf, UserErrorRef, type UserErrorRecord } from './user-errors.js';

export type { PayloadSource } from './job.js';
export { succeeded } from './job.js';

type Types = PothosSchemaTypes.ExtendDefaultTypes<GatewaySchemaTypes>;
type InputBuilder = PothosSchemaTypes.InputFieldBuilder<Types, 'InputObject'>;
type PayloadBuilder = PothosSchemaTypes.ObjectFieldBuilder<Types, PayloadSource>;

/** A finished job's result as its operation's decoder reads it; null while running or after a failure. */
export type ResultReader<Result> = (source: PayloadSource, context: GatewayContext) => Result | null;

/**
 * The resolver of a payload field answering the record a write's result carries in `inventory`;
 * null while the job runs, after a failure, or when the answer has no inventory.
 */
export function resultInventory<R>(result: ResultReader<{ inventory: R | null }>) {
  return (source: PayloadSource, _args: unknown, context: GatewayContext): R | null => result(source, context)?.inventory ?? null;
}

/** A record a delete removed: its uuid, and the local id its global id is made of (the uuid itself, or an embedded id). */
export interface RemovedRecord {
  readonly uuid: string;
  readonly localId: string;
}

/**
 * `...deletedRecordFields(t, 'CbtTask', 'task', (source) => ...)`: what a delete payload says of
 * the record it removed: `deleted<Type>Uuid`, and `deleted<Type>Id`, its global id as the record's
 * `id` was, for a client cache to drop it (Relay's `@deleteRecord`; Apollo's `cache.evict` with the
 * cache key `cache.identify` makes of it, since Apollo keys a record by `__typename:id`, not the id).
 * Both null until the job succeeded; `removed` answers which record.
 */
export function deletedRecordFields(
  t: PayloadBuilder,
  typeName: string,
  noun: string,
  removed: (source: PayloadSource, context: GatewayContext) => RemovedRecord | null,
): Record<string, PothosSchemaTypes.FieldRef<Types>> {
  return {
    [`deleted${typeName}Uuid`]: t.field({
      type: 'Uuid',
      nullable: true,
      description: `The uuid of the ${noun} removed; null until the job succeeded.`,
      resolve: (source, _args, context) => removed(source, context)?.uuid ?? null,
    }),
    [`deleted${typeName}Id`]: t.field({
      type: 'ID',
      nullable: true,
      description:
        `The global \`id\` the ${noun} removed had, for a client cache to drop it: Relay's \`@deleteRecord\`, or in Apollo ` +
        `\`cache.evict({ id: cache.identify({ __typename: '${typeName}', id }) })\` (Apollo keys a record by \`__typename:id\`, so the bare id evicts nothing); null until the job succeeded.`,
      resolve: (source, _args, context) => {
        const record = removed(source, context);
        return record === null ? null : encodeGlobalID(typeName, record.localId);
      },
    }),
  };
}

/**
 * The uuid input field `field` names, once the job succeeded: the record the write changed, for
 * its loader to read as it is now; null while the job runs or after a failure.
 */
export function writtenUuid(source: PayloadSource, field: string): string | null {
  const uuid = source.input[field];
  return succeeded(source) && typeof uuid === 'string' ? uuid : null;
}

/** The record named by input field `field` of a succeeded job (a delete whose upstream answers `{}`). */
export function removedByInput(field: string) {
  return (source: PayloadSource): RemovedRecord | null => {
    const uuid = writtenUuid(source, field);
    return uuid === null ? null : { uuid, localId: uuid };
  };
}

/**
 * `...removesNamedRecord('CbtTask', 'task')`: the payload and the touches of a delete whose input
 * names by `uuid` the one record it removes, as the upstream's bare `{}` answer does not.
 */
export function removesNamedRecord(typeName: string, noun: string) {
  return {
    payloadFields: (t: PayloadBuilder) => deletedRecordFields(t, typeName, noun, removedByInput('uuid')),
    touches: { types: [typeName], uuids: (input: { readonly uuid?: string | null }) => [input.uuid] },
  };
}

/**
 * A mutation's input as its resolvers see it: the fields the kit builds from the operation's
 * declared parameters, and the fields the mutation spells itself.
 */
export type MutationInput<Fields extends InputFieldMap, Op> = InputShapeFromFields<Fields> & DeclaredValues<Op>;

export interface WriteMutationSpec<Fields extends InputFieldMap, Op extends WriteOperation> {
  /** The mutation's name: the spec's operation in lowerCamelCase. */
  name: string;
  /** The operation of the catalogue the mutation sends, e.g. `DestroyVmInstance`. */
  operation: Op;
  description: string;
  /**
   * The input fields of the parameters the operation declares by their location alone (an
   * enumeration, an input object), each taking its parameter's place in the input. The kit builds
   * the others from their declaration (`pathParam`, `bodyParam`).
   * @default none
   */
  inputFields?: (t: InputBuilder) => Fields;
  /**
   * The parameters whose value is not simply the input field of their name (a list reshaped, a
   * value checked), for a mutation whose input does more than name them. Every other parameter
   * is the input field of its name (the contract names every input field after the spec's
   * parameter); the kit adds the tags. Throw an `InputRefusal` for a value the gateway refuses:
   * it becomes a `VALIDATION` user error and no job starts.
   * @default none
   */
  params?: (input: MutationInput<Fields, Op>) => Partial<ParamsOf<Op>>;
  /** The payload's own fields; `result` reads the job's result, decoded once by the operation. */
  payloadFields: (t: PayloadBuilder, result: ResultReader<ResultOf<Op>>) => Record<string, PothosSchemaTypes.FieldRef<Types>>;
  /** What the write changes, for the response cache to forget once its job finishes. */
  touches: WriteTouches<MutationInput<Fields, Op>>;
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

declare module 'graphql' {
  interface GraphQLFieldExtensions<_TSource, _TContext, _TArgs> {
    /** On a mutation field: what its write touches (`WriteTouches`), for the response cache. */
    writeTouches?: WriteTouches<Record<string, unknown>>;
  }
}

/** What the mutation `name` of `schema` touches, as its field carries it; undefined for no write of the kit. */
function touchesOf(schema: GraphQLSchema, name: string): WriteTouches<Record<string, unknown>> | undefined {
  return schema.getMutationType()?.getFields()[name]?.extensions.writeTouches;
}

/** The declared touches of every mutation of `schema`, for checking their type names against it. */
export function declaredTouches(schema: GraphQLSchema): ReadonlyMap<string, WriteTouches<Record<string, unknown>>> {
  const declared = new Map<string, WriteTouches<Record<string, unknown>>>();
  for (const name of Object.keys(schema.getMutationType()?.getFields() ?? {})) {
    const touches = touchesOf(schema, name);
    if (touches) declared.set(name, touches);
  }
  return declared;
}

/**
 * The records a finished job's write touched: the uuids its input names and every record
 * (`uuid`) in the upstream's answer, e.g. the volumes inside a migrated VM's inventory. A failed
 * write touches its named records too, since a failure may still change them (enableCbtTask
 * leaves its task FAILED). Null for a job of no mutation of `schema`.
 */
export function touchedBy(job: JobRecord, schema: GraphQLSchema): TouchedRecords | null {
  const touches = touchesOf(schema, job.operation);
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

// Results by the outcome they were decoded from: the payload's fields share one decoding, and the
// entry goes with the job record it belongs to.
const decodedResults = new WeakMap<JobOutcome, { value: unknown }>();

/** Reads a job's result with its operation's decoder, once per job record. */
function resultReader<Op extends WriteOperation>(operation: Op): ResultReader<ResultOf<Op>> {
  return (source, context) => {
    const outcome = source.job?.outcome ?? null;
    if (!succeeded(source) || outcome === null) return null;
    let decoded = decodedResults.get(outcome);
    if (decoded === undefined) {
      // A write's decoder reads the body alone; the parameters are not kept with the job.
      decoded = { value: operation.decode(outcome.body, context.upstream.decoder, {} as ParamsOf<Op>) };
      decodedResults.set(outcome, decoded);
    }
    return decoded.value as ResultOf<Op>;
  };
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

/** Every parameter an operation takes: the path parameters it does not declare, then those it declares. */
function paramNamesOf(operation: WriteOperation): readonly string[] {
  const undeclared = operation.pathParts.flatMap((part) => ('param' in part && !(part.param in operation.params) ? [part.param] : []));
  return [...undeclared, ...Object.keys(operation.params)];
}

type InputFieldOptions = { required: boolean; description: string } & ({ deprecationReason: string } | Record<never, never>);

/** The input field of a parameter declared with its facts: its kind's scalar, non-null when required. */
function declaredField(t: InputBuilder, declaration: ParamDeclaration): InputFieldRef<Types, unknown> {
  const options: InputFieldOptions = {
    required: declaration.required,
    description: declaration.doc,
    ...(declaration.deprecated === undefined ? {} : { deprecationReason: declaration.deprecated }),
  };
  switch (declaration.kind) {
    case 'uuid':
      return t.field({ type: 'Uuid', ...options });
    case 'text':
      return t.string(options);
    case 'int':
      return t.int(options);
    case 'long':
      return t.field({ type: 'Long', ...options });
    case 'bool':
      return t.boolean(options);
    case 'uuids':
      return t.field({ type: ['Uuid'], ...options });
    case 'texts':
      return t.stringList(options);
    case 'json':
      return t.field({ type: 'JSON', ...options });
  }
}

/**
 * The input fields of an operation's parameters, in the order it declares them: built from the
 * declaration, or the mutation's own field for a parameter declared by its location alone (the
 * kit knows one of those itself: `deleteMode`, the `DeleteMode` enum, unless the mutation says
 * more of it); then the mutation's fields that name no parameter (its `params` maps them). A
 * parameter of neither, or one said twice, is a mistake in the mutation: the schema does not build.
 */
function parameterFields(t: InputBuilder, operation: WriteOperation, mutation: string, own: InputFieldMap): InputFieldMap {
  const fields: InputFieldMap = {};
  for (const name of paramNamesOf(operation)) {
    const spec = operation.params[name];
    if (spec !== undefined && isDeclaredParam(spec)) {
      if (name in own) throw new TypeError(`${mutation}: parameter ${name} of ${operation.name} needs no input field of its own`);
      fields[name] = declaredField(t, spec);
    } else {
      const field = own[name] ?? (name === 'deleteMode' ? deleteModeField(t, operation) : undefined);
      if (field === undefined) throw new TypeError(`${mutation}: parameter ${name} of ${operation.name} needs an input field`);
      fields[name] = field;
    }
  }
  return { ...fields, ...own };
}

/** The parameters named `names`, each from the input field of its name. */
function sameNamed<Op extends WriteOperation>(input: Record<string, unknown>, names: readonly string[]): ParamsOf<Op> {
  return Object.fromEntries(names.map((name) => [name, input[name]])) as ParamsOf<Op>;
}

/**
 * What every mutation payload has, so a client can read any of them (e.g. `Job.payload`, a union)
 * with one fragment: `... on WritePayload { status userErrors { code message field } }`.
 */
export const WritePayloadRef = builder.interfaceRef<PayloadSource>('WritePayload').implement({
  extensions: { since: null },
  description:
    'The fields every mutation payload shares: how the write ended (`status`), what went wrong in a form a client can show next to its input (`userErrors`), and the job that carried it out.',
  fields: (t) => ({
    clientMutationId: t.id({
      nullable: true,
      description: 'The `clientMutationId` sent in the input.',
      resolve: (source) => source.clientMutationId,
    }),
    status: t.field({
      type: JobStatusEnum,
      nullable: false,
      description:
        'How the write stands. `SUCCEEDED`: done, the payload\'s records hold the result. `FAILED`: `userErrors` says why. `RUNNING`: still running, and the records are null: always with `async: true`, and with `async: false` when the job outlasted the gateway\'s wait (`MUTATION_WAIT_MS`, 20 s by default); follow `job { id }` with `jobCompleted(id:)`.',
      resolve: (source) => source.job?.status ?? 'FAILED',
    }),
    userErrors: t.field({
      type: [UserErrorRef],
      nullable: false,
      description:
        'Why the write failed, each with the input field to blame where it can be known; empty on success and while the job runs. One place to look: the deprecated `error` carries the same upstream failure unclassified.',
      resolve: (source, _args, context, info) => userErrorsOf(source, context, info),
    }),
    job: t.field({
      type: JobRef,
      nullable: true,
      description: 'The upstream job that carries out the write; null when the gateway refused the input before starting one (see `userErrors`).',
      resolve: (source) => source.job,
    }),
  }),
});

function userErrorsOf(source: PayloadSource, context: GatewayContext, info: GraphQLResolveInfo): readonly UserErrorRecord[] {
  if (source.refusals !== undefined) return source.refusals;
  const error = errorOf(source, context);
  return error === null ? [] : [userErrorOf(error, source.input, inputFieldsOf(info.schema, source.operation))];
}

/** Refuses an input field holding an enum's fallback (`OTHER`/`UNKNOWN`): it names no value the upstream could be sent. */
function refuseFallbacks(input: Record<string, unknown>): void {
  const field = Object.keys(input).find((name) => isFallback(input[name]));
  if (field !== undefined) throw new InputRefusal(field, `${field}: OTHER (or UNKNOWN) is what this API answers for a value it does not know yet; send one of the enum's other values.`);
}

/** The payload of a write refused before any job: its input broke a rule the gateway checks. */
function refusedPayload(operation: string, input: Record<string, unknown>, refusal: InputRefusal): PayloadSource {
  const clientMutationId = typeof input.clientMutationId === 'string' ? input.clientMutationId : null;
  return { operation, clientMutationId, input: {}, job: null, refusals: [refusal.toUserError()] };
}

export function defineWriteMutation<Fields extends InputFieldMap, Op extends WriteOperation>(spec: WriteMutationSpec<Fields, Op>): ObjectRef<Types, PayloadSource> {
  const typeName = spec.name.charAt(0).toUpperCase() + spec.name.slice(1);
  const operation = spec.operation.name;
  const result = resultReader(spec.operation);
  const paramNames = paramNamesOf(spec.operation);
  registerJobOperation(spec.name, operation, spec.operation.since);
  // Typed by hand: Pothos cannot infer the payload's shape through the kit's generic input.
  const { payloadType } = builder.relayMutationField<InputFieldMap, true, PayloadSource, PayloadSource, [typeof WritePayloadRef]>(
    spec.name,
    {
      name: `${typeName}Input`,
      description: describeSince(`Input of \`${spec.name}\` (${operation}).`, spec.operation.since),
      // Each input field is as old as its parameter (`schema/releases.ts` reads the declaration).
      extensions: { since: spec.operation.since, upstreamOperation: spec.operation },
      inputFields: (t) => ({
        clientMutationId: t.id({ description: 'Echoed back in the payload, for the client to match answers to requests.' }),
        ...parameterFields(t, spec.operation, spec.name, spec.inputFields?.(t) ?? {}),
        systemTags: t.stringList({ description: 'System tags sent with the request.' }),
        userTags: t.stringList({ description: 'User tags sent with the request.' }),
        async: t.boolean({
          defaultValue: false,
          description:
            'false (default): wait for the job, at most `MUTATION_WAIT_MS` (20 s by default), and return its outcome. A job that outlasts the wait comes back with `status: RUNNING` and null records, which is not a failure: follow `job { id }` with `jobCompleted(id:)`. true: return at once with `status: RUNNING`.',
        }),
      }),
    },
    {
      description: spec.description,
      // Nullable, as GitHub's: a mutation that cannot run nulls its own field, not the whole answer.
      nullable: true,
      extensions: { writeTouches: spec.touches as unknown as WriteTouches<Record<string, unknown>>, since: spec.operation.since },
      resolve: async (_root, args, context, info): Promise<PayloadSource> => {
        // The kit's generic input name defeats Pothos' inference; the shape is the one declared above.
        const input = (args as unknown as { input: Record<string, unknown> }).input;
        const { credential, owner } = context.session.jobCaller();
        let params: ParamsOf<Op>;
        try {
          refuseFallbacks(input);
          params = { ...sameNamed<Op>(input, paramNames), ...spec.params?.(input as MutationInput<Fields, Op>) };
        } catch (error) {
          if (error instanceof InputRefusal) return refusedPayload(spec.name, input, error);
          throw error;
        }
        let job = await context.jobs.start({
          operation: spec.name,
          credential,
          owner,
          input: keptInput(input, info),
          requestId: context.requestId,
          clientAddress: context.clientAddress,
          trace: context.session.trace,
          request: { operation: spec.operation, params, systemTags: input.systemTags, userTags: input.userTags },
        });
        if (input.async !== true && job.status === 'RUNNING') {
          job = (await context.jobs.wait(job.id, context.mutationWaitMs)) ?? job;
        }
        return payloadSourceOf(job);
      },
    },
    {
      name: `${typeName}Payload`,
      description: describeSince(`Result of \`${spec.name}\` (${operation}).`, spec.operation.since),
      extensions: { since: spec.operation.since },
      interfaces: [WritePayloadRef],
      outputFields: (t) => ({
        ...spec.payloadFields(t, result),
        error: t.field({
          type: UpstreamErrorRef,
          nullable: true,
          description: 'The upstream error with its cause chain when the operation failed; null on success or while running.',
          deprecationReason: 'Read `userErrors`: the same failure, classified (`code`), pointing at the input (`field`), with this ErrorCode as `upstream`.',
          resolve: (source, _args, context) => errorOf(source, context),
        }),
      }),
    },
  );
  const payload = payloadType as unknown as ObjectRef<Types, PayloadSource>;
  MutationPayloadUnion.addTypes([payload]);
  return payload;
}
