/**
 * The formats of what the gateway keeps in Redis, in one place: the version each kind of record is
 * written in now, its encoder, and a reader that takes the formats of the previous release as well
 * (docs/operations/upgrades.md: replicas of two releases share one Redis during a rolling upgrade
 * and after a rollback).
 *
 * Format 1 is what the releases before versioning wrote (up to 4b31ccc): no mark. A record with
 * room for one carries its version where a format-1 reader does not look, so a previous release
 * reads the records of this one unchanged: a hash field `v`, a stream entry field `v`, a JSON
 * property `v`. A record that is a bare value (an id in an index, a kept upstream cursor, the
 * cursor key, a lease holder's token) has no such room and stays format 1: its reader takes any
 * value, and a change to it takes a new key (or, for a kept cursor, a new kind byte in the gateway
 * cursor that points at it), written beside the old one for a release.
 *
 * Readers never throw. A record of a newer format than this release knows (written by a newer
 * replica, after a rollback) is read for the fields this release understands and reported once per
 * kind and version (`noticeNewerFormats`); a record that cannot be read at all is null.
 */
import type { Logger } from 'pino';
import type { JobOutcome, JobRecord, JobStatus } from '../jobs/store.js';
import type { LiveChange } from '../live/invalidation.js';
import type { WatermarkState } from '../live/feed-watermark.js';

/** The version each marked kind of record is written in now. */
export const FORMATS = {
  /**
   * `gw:job:<id>`, hash field `v`. 2: the job is listed in its owner's index
   * (`gw:jobs:owner:<owner>`, which format 1 had not); a format-1 job is listed, and marked 2, the
   * first time this release reads it.
   */
  job: 2,
  /** Entries of `gw:{jobs-finished}`, field `v` beside `job` (the job as JSON, its secret blanked). */
  finishedJob: 2,
  /**
   * Messages on `gateway:live:changes` and entries of `gw:{jobs-finished}:live-changes`, JSON
   * property `v`. 2: `inStream` says a PUBLISHed message was appended to the stream too.
   */
  liveChange: 2,
  /** `gateway:live:watermark:<scope>:<collection>`, JSON property `v`. */
  liveWatermark: 2,
  /** `gw:replica:<id>`, JSON `{v, at}` (format 1: the time as text). Read for its existence only. */
  heartbeat: 2,
} as const;

export type RecordKind = keyof typeof FORMATS;

/** A record as read, with the version it was written in. */
export interface Decoded<T> {
  readonly value: T;
  readonly version: number;
}

/** Told of a record whose format is newer than this release writes (`version` NaN: a mark it cannot read). */
export type NewerFormatNotice = (kind: RecordKind, version: number) => void;

/**
 * A notice that logs a warning the first time it hears of each kind and version: one line per
 * upgrade (or rollback), not one per record.
 */
export function noticeNewerFormats(logger: Logger | undefined): NewerFormatNotice {
  const heard = new Set<string>();
  return (kind, version) => {
    const key = `${kind}@${version}`;
    if (heard.has(key)) return;
    heard.add(key);
    logger?.warn(
      { kind, version: Number.isNaN(version) ? 'unreadable' : version, current: FORMATS[kind] },
      'a record in Redis has a newer format than this release writes (a newer replica wrote it); reading the fields this release knows',
    );
  };
}

/** The version a mark names: 1 when there is none, NaN when it is not a version. */
function versionOf(mark: unknown): number {
  if (mark === undefined || mark === null) return 1;
  const version = typeof mark === 'number' ? mark : Number(mark);
  return Number.isInteger(version) && version >= 1 ? version : Number.NaN;
}

/** The version of a record of `kind` marked `mark`, reported when newer than this release's. */
function checkVersion(kind: RecordKind, mark: unknown, notice: NewerFormatNotice | undefined): number {
  const version = versionOf(mark);
  if (!(version <= FORMATS[kind])) notice?.(kind, version);
  return version;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const JOB_STATUSES: readonly string[] = ['RUNNING', 'SUCCEEDED', 'FAILED'] satisfies JobStatus[];

/**
 * A job from its fields, whatever format they came in: only the fields this release knows, each of
 * its type; null when one it cannot do without (identity, owner, operation, status) is missing.
 */
function readJob(fields: Record<string, unknown>): JobRecord | null {
  const { id, operation, owner, secret, createdAt, input, traceParent, location, status, finishedAt, outcome } = fields;
  if (typeof id !== 'string' || typeof owner !== 'string' || typeof operation !== 'string') return null;
  if (typeof status !== 'string' || !JOB_STATUSES.includes(status)) return null;
  const job: JobRecord = {
    id,
    operation,
    owner,
    secret: typeof secret === 'string' ? secret : '',
    location: typeof location === 'string' ? location : null,
    status: status as JobStatus,
    createdAt: typeof createdAt === 'number' ? createdAt : 0,
    finishedAt: typeof finishedAt === 'number' ? finishedAt : null,
    input: isObject(input) ? input : {},
    outcome: isObject(outcome) && typeof outcome.success === 'boolean' && isObject(outcome.body) ? (outcome as unknown as JobOutcome) : null,
  };
  if (typeof traceParent === 'string') job.traceParent = traceParent;
  return job;
}

/** The fields of a job that never change, kept in its hash as one JSON value (`record`). */
type FixedFields = Pick<JobRecord, 'id' | 'operation' | 'owner' | 'secret' | 'createdAt' | 'input' | 'traceParent'>;

/** The hash of a new job (`gw:job:<id>`), polled by `replica`. */
export function encodeJob(job: JobRecord, replica: string): Record<string, string> {
  const fixed: FixedFields = {
    id: job.id,
    operation: job.operation,
    owner: job.owner,
    secret: job.secret,
    createdAt: job.createdAt,
    input: job.input,
    traceParent: job.traceParent,
  };
  const fields: Record<string, string> = { v: String(FORMATS.job), record: JSON.stringify(fixed), status: job.status, replica };
  if (job.location !== null) fields.location = job.location;
  if (job.finishedAt !== null) fields.finishedAt = String(job.finishedAt);
  if (job.outcome !== null) fields.outcome = encodeOutcome(job.outcome);
  return fields;
}

/** The `outcome` field of a job's hash. */
export function encodeOutcome(outcome: JobOutcome): string {
  return JSON.stringify(outcome);
}

/**
 * A job from its hash (or the part of it read: `status`, `record` and `v` at least); null when it
 * is gone or unreadable.
 */
export function decodeJob(hash: Record<string, string | null | undefined>, notice?: NewerFormatNotice): Decoded<JobRecord> | null {
  if (typeof hash.record !== 'string' || typeof hash.status !== 'string') return null;
  const version = checkVersion('job', hash.v ?? undefined, notice);
  const fixed = parseJson(hash.record);
  if (!isObject(fixed)) return null;
  const finishedAt = hash.finishedAt == null ? null : Number(hash.finishedAt);
  const outcome = hash.outcome == null ? null : parseJson(hash.outcome);
  const job = readJob({ ...fixed, status: hash.status, location: hash.location ?? null, finishedAt, outcome });
  return job === null ? null : { value: job, version };
}

/** The fields of a finished job's stream entry: the job without its webhook secret, which no reader needs. */
export function encodeFinishedJob(job: JobRecord): string[] {
  return ['v', String(FORMATS.finishedJob), 'job', JSON.stringify({ ...job, secret: '' })];
}

/** The job of a stream entry's fields; null for anything else (written by something other than a gateway). */
export function decodeFinishedJob(fields: readonly string[], notice?: NewerFormatNotice): Decoded<JobRecord> | null {
  const entry = new Map<string, string>();
  for (let index = 0; index + 1 < fields.length; index += 2) entry.set(fields[index]!, fields[index + 1]!);
  const text = entry.get('job');
  if (text === undefined) return null;
  const version = checkVersion('finishedJob', entry.get('v'), notice);
  const value = parseJson(text);
  const job = isObject(value) ? readJob(value) : null;
  return job === null ? null : { value: job, version };
}

/** A tick's changes of one scope, as one replica tells the others. */
export interface LiveChangeMessage {
  /** The replica that found them (which ignores its own message). */
  from: string;
  scopeKey: string;
  changes: readonly LiveChange[];
  /** Appended to the stream too: readers of the stream ignore its PUBLISHed copy. Unset by format 1. */
  inStream?: boolean;
}

export function encodeLiveChange(message: LiveChangeMessage): string {
  return JSON.stringify({ v: FORMATS.liveChange, ...message, changes: message.changes.map(({ collection, uuids }) => ({ collection, uuids })) });
}

/** The message, or null when it is not one: a change of it unreadable drops the whole message. */
export function decodeLiveChange(text: string, notice?: NewerFormatNotice): Decoded<LiveChangeMessage> | null {
  const value = parseJson(text);
  if (!isObject(value) || typeof value.from !== 'string' || typeof value.scopeKey !== 'string' || !Array.isArray(value.changes)) return null;
  const version = checkVersion('liveChange', value.v, notice);
  const changes: LiveChange[] = [];
  for (const change of value.changes as unknown[]) {
    if (!isObject(change) || typeof change.collection !== 'string') return null;
    const { collection, uuids } = change;
    if (uuids === undefined) changes.push({ collection });
    else if (Array.isArray(uuids) && uuids.every((uuid) => typeof uuid === 'string')) changes.push({ collection, uuids: uuids as string[] });
    else return null;
  }
  const message: LiveChangeMessage = { from: value.from, scopeKey: value.scopeKey, changes };
  if (value.inStream === true) message.inStream = true;
  return { value: message, version };
}

export function encodeWatermark(state: WatermarkState): string {
  return JSON.stringify({ v: FORMATS.liveWatermark, newest: state.newest, total: state.total });
}

export function decodeWatermark(text: string, notice?: NewerFormatNotice): Decoded<WatermarkState> | null {
  const value = parseJson(text);
  if (!isObject(value) || typeof value.newest !== 'number' || typeof value.total !== 'number') return null;
  return { value: { newest: value.newest, total: value.total }, version: checkVersion('liveWatermark', value.v, notice) };
}

/** A replica's heartbeat at `now`. Peers read only that it exists: any value, of any format, means alive. */
export function encodeHeartbeat(now: number): string {
  return JSON.stringify({ v: FORMATS.heartbeat, at: now });
}

/** The cursor key agreed through Redis (`gateway:cursor-secret`): 32 random bytes as hex, format 1. */
export function encodeCursorSecret(key: Buffer): string {
  return key.toString('hex');
}

/** The agreed cursor key; null when the value holds fewer than the 16 bytes a seal needs. */
export function decodeCursorSecret(text: string): Buffer | null {
  const key = Buffer.from(text, 'hex');
  return key.length >= 16 ? key : null;
}
