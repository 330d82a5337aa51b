/**
 * Failures a caller can act on, as data in every mutation payload (`userErrors`), in the manner of
 * Shopify's API: a message for people, the path into the input that caused it where one can be
 * known, a stable code of the gateway's own, and the upstream's original ErrorCode with its cause
 * chain. An upstream refusal of a write, a write that failed while it ran, and an input the
 * gateway refuses before sending anything all arrive here; an empty list means success (or a job
 * still running: see the payload's `status`).
 */
import { getNamedType, isInputObjectType, type GraphQLSchema } from 'graphql';
import { builder } from '../../builder.js';
import { classifyErrorCode, parameterNamedBy, type FailureCategory } from '../../upstream/error-codes.js';
import type { ErrorCodeRecord } from '../../upstream/records.js';
import { closedSetEnum } from './enums.js';
import { UpstreamErrorRef } from './errors.js';

/** One failure as the schema shows it. */
export interface UserErrorRecord {
  readonly message: string;
  /** `['input', <field>]`, or `['input', <field>, <index>]` for an item of a list; null when no input field is to blame. */
  readonly field: readonly string[] | null;
  readonly code: FailureCategory;
  readonly upstream: ErrorCodeRecord | null;
}

const CATEGORY_DOCS: Readonly<Record<FailureCategory, string>> = {
  VALIDATION: 'An input value is invalid (missing, malformed or outside its allowed set); `field` names it when it can be known. Upstream `SYS.1007`, or refused by the gateway before any upstream call.',
  NOT_FOUND: 'A record the input names does not exist (or is not visible to your credential). Upstream `SYS.1003`.',
  CONFLICT: 'The write collides with what exists: the record is already taken, in use or a duplicate (e.g. a VM that already belongs to a CBT task).',
  INVALID_STATE: 'A record is in a state that does not allow the write (e.g. a running VM, a disconnected host). Upstream `VM.1010`, `HOST.1010`.',
  PERMISSION_DENIED: 'Your credential may not do this. Upstream `ID.1002`.',
  UNAUTHENTICATED: 'The upstream no longer accepts your session; log in again. Upstream `ID.1001`.',
  TIMEOUT: 'The upstream gave up on an internal step in time; retrying may succeed. Upstream `SYS.1001`.',
  OPERATION_FAILED: 'The upstream tried and failed; `upstream.cause` usually says why. Upstream `SYS.1006`.',
  UPSTREAM_INTERNAL: 'An internal error of the upstream service. Upstream `SYS.1000`.',
  RESULT_LOST: 'The gateway could not obtain the job\'s result (the upstream forgot the job, or it ran past the polling deadline); the write may or may not have happened: read the record again.',
  OTHER: 'Any other upstream error; `upstream.code` is its own identifier.',
};

export const UserErrorCode = closedSetEnum('UserErrorCode', {
  description:
    'What kind of failure a `UserError` is: stable codes of the gateway\'s own, each mapping a family of upstream ErrorCodes (kept as they came in `UserError.upstream`). New codes may be added in a minor version; treat an unknown one as `OTHER`.',
  values: CATEGORY_DOCS,
  since: null,
});

export const UserErrorRef = builder.objectRef<UserErrorRecord>('UserError');

UserErrorRef.implement({
  extensions: { since: null },
  description: 'A failure of a mutation the caller can act on, pointing at the input that caused it where that can be known.',
  fields: (t) => ({
    message: t.exposeString('message', { nullable: false, description: 'What went wrong, for people (the upstream\'s description and details).' }),
    field: t.field({
      type: ['String'],
      nullable: true,
      description:
        'The path to the input field that caused the failure, e.g. `["input", "uuid"]`, or `["input", "volumeUuids", "1"]` for an item of a list; null when no single input field is to blame.',
      resolve: (error) => error.field,
    }),
    code: t.field({ type: UserErrorCode, nullable: false, description: 'The kind of failure: stable, documented, for code to branch on.', resolve: (error) => error.code }),
    upstream: t.field({
      type: UpstreamErrorRef,
      nullable: true,
      description: 'The upstream\'s own ErrorCode with its cause chain; null for a failure the gateway found itself.',
      resolve: (error) => error.upstream,
    }),
  }),
});

/**
 * Thrown while a mutation reads its input (`WriteMutationSpec.params`) for a value the gateway
 * refuses before any upstream call: it becomes a `VALIDATION` user error on `field` and no job.
 */
export class InputRefusal extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'InputRefusal';
  }

  toUserError(): UserErrorRecord {
    return { message: this.message, field: ['input', this.field], code: 'VALIDATION', upstream: null };
  }
}

/** The failure of a write whose job ended with `error`; `input` is what the job kept of its input. */
export function userErrorOf(error: ErrorCodeRecord, input: Readonly<Record<string, unknown>>, inputFields: readonly string[]): UserErrorRecord {
  const path = parameterNamedBy(error, input, inputFields);
  return {
    message: messageOf(error),
    field: path === null ? null : ['input', ...path.map(String)],
    code: classifyErrorCode(error),
    upstream: error,
  };
}

function messageOf(error: ErrorCodeRecord): string {
  const { description, details } = error;
  if (description && details) return `${description}: ${details}`;
  return description ?? details ?? `Upstream error ${error.code}.`;
}

/** The input field names of mutation `name` (`input: <Name>Input!`): read when a write failed, rarely enough not to keep. */
export function inputFieldsOf(schema: GraphQLSchema, name: string): readonly string[] {
  const inputType = getNamedType(schema.getMutationType()?.getFields()[name]?.args.find((arg) => arg.name === 'input')?.type);
  return isInputObjectType(inputType) ? Object.keys(inputType.getFields()) : [];
}
