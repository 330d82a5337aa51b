/**
 * The formats of the records kept in Redis (src/redis/formats.ts): what this release writes reads
 * back as it was, marked with its format; a record of a newer format (a newer replica wrote it,
 * after a rollback) is read for what this release knows and reported once; nothing unreadable
 * throws. The previous release's records: test/upgrade/previous-formats.test.ts.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../../src/jobs/store.js';
import {
  decodeCursorSecret,
  decodeFinishedJob,
  decodeJob,
  decodeLiveChange,
  decodeWatermark,
  encodeCursorSecret,
  encodeFinishedJob,
  encodeJob,
  encodeLiveChange,
  encodeWatermark,
  FORMATS,
  noticeNewerFormats,
  type NewerFormatNotice,
} from '../../src/redis/formats.js';

const JOB: JobRecord = {
  id: 'a'.repeat(32),
  operation: 'updateHostNqn',
  owner: 'b'.repeat(64),
  secret: 'per-job-secret',
  location: 'http://upstream/svc/v1/api-jobs/' + 'a'.repeat(32),
  status: 'SUCCEEDED',
  createdAt: 1_700_000_000_000,
  finishedAt: 1_700_000_000_500,
  input: { uuid: 'c'.repeat(32), clientMutationId: 'm1' },
  outcome: { success: true, body: { inventory: { uuid: 'c'.repeat(32) } } },
  traceParent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
};

/** A notice that records what it is told. */
function recordingNotice(): NewerFormatNotice & { heard: [string, number][] } {
  const heard: [string, number][] = [];
  return Object.assign((kind: string, version: number) => void heard.push([kind, version]), { heard });
}

describe('records this release writes', () => {
  it('read back as they were, marked with the current format', () => {
    expect(decodeJob(encodeJob(JOB, 'replica-1'))).toEqual({ value: JOB, version: FORMATS.job });
    expect(decodeFinishedJob(encodeFinishedJob(JOB))).toEqual({ value: { ...JOB, secret: '' }, version: FORMATS.finishedJob });
    const message = { from: 'r1', scopeKey: 'scope', changes: [{ collection: 'vmInstance', uuids: ['u1'] }, { collection: 'host' }] };
    expect(decodeLiveChange(encodeLiveChange(message))).toEqual({ value: message, version: FORMATS.liveChange });
    // A PUBLISHed copy of a change also appended to the stream says so, for stream readers to skip it.
    expect(decodeLiveChange(encodeLiveChange({ ...message, inStream: true }))?.value.inStream).toBe(true);
    expect(decodeWatermark(encodeWatermark({ newest: 5, total: 7 }))).toEqual({ value: { newest: 5, total: 7 }, version: FORMATS.liveWatermark });
    const key = Buffer.alloc(32, 7);
    expect(decodeCursorSecret(encodeCursorSecret(key))).toEqual(key);
  });

  it('a running job keeps no outcome and no finish time', () => {
    const running: JobRecord = { ...JOB, status: 'RUNNING', finishedAt: null, outcome: null, location: null };
    const hash = encodeJob(running, 'replica-1');
    expect(Object.keys(hash).sort()).toEqual(['record', 'replica', 'status', 'v']);
    expect(decodeJob(hash)?.value).toEqual(running);
  });
});

describe('a record of a newer format', () => {
  it('is read for the fields this release knows, and reported', () => {
    const notice = recordingNotice();
    const hash = { ...encodeJob(JOB, 'r1'), v: '3', priority: 'high', record: JSON.stringify({ ...JSON.parse(encodeJob(JOB, 'r1').record!), labels: ['x'] }) };
    expect(decodeJob(hash, notice)).toEqual({ value: JOB, version: 3 });
    const entry = ['v', '3', 'job', JSON.stringify({ ...JOB, secret: '', labels: ['x'] }), 'trace', 'abc'];
    expect(decodeFinishedJob(entry, notice)).toEqual({ value: { ...JOB, secret: '' }, version: 3 });
    const message = JSON.stringify({ v: 9, from: 'r1', scopeKey: 's', changes: [{ collection: 'host', weight: 2 }], origin: 'x' });
    expect(decodeLiveChange(message, notice)).toEqual({ value: { from: 'r1', scopeKey: 's', changes: [{ collection: 'host' }] }, version: 9 });
    expect(decodeWatermark(JSON.stringify({ v: 4, newest: 1, total: 2, pages: 3 }), notice)?.value).toEqual({ newest: 1, total: 2 });
    expect(notice.heard).toEqual([
      ['job', 3],
      ['finishedJob', 3],
      ['liveChange', 9],
      ['liveWatermark', 4],
    ]);
  });

  it('is logged once per kind and version, however many records carry it', () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const notice = noticeNewerFormats(logger);
    for (let index = 0; index < 5; index++) decodeJob({ ...encodeJob(JOB, 'r1'), v: '3' }, notice);
    decodeJob({ ...encodeJob(JOB, 'r1'), v: '4' }, notice);
    decodeJob({ ...encodeJob(JOB, 'r1'), v: 'next' }, notice);
    expect(lines.map(({ kind, version, current }) => ({ kind, version, current }))).toEqual([
      { kind: 'job', version: 3, current: FORMATS.job },
      { kind: 'job', version: 4, current: FORMATS.job },
      { kind: 'job', version: 'unreadable', current: FORMATS.job },
    ]);
  });

  it('that this release cannot read is null, never an exception', () => {
    const notice = recordingNotice();
    expect(decodeJob({ v: '3', status: 'RUNNING', record: 'not json' }, notice)).toBeNull();
    expect(decodeJob({ v: '3', status: 'PAUSED', record: encodeJob(JOB, 'r1').record }, notice)).toBeNull();
    expect(decodeJob({ v: '3', status: 'RUNNING', record: JSON.stringify({ id: JOB.id }) }, notice)).toBeNull();
    expect(decodeFinishedJob(['v', '3', 'job', '{'], notice)).toBeNull();
    expect(decodeFinishedJob(['v', '3', 'jobs', '[]'], notice)).toBeNull();
    expect(decodeLiveChange('{"v":3,"from":"r","scopeKey":"s","changes":[{"collection":1}]}', notice)).toBeNull();
    expect(decodeLiveChange('[]', notice)).toBeNull();
    expect(decodeWatermark('{"v":3,"newest":"yesterday","total":1}', notice)).toBeNull();
    expect(decodeCursorSecret('not hex')).toBeNull();
  });
});

describe('a record of the previous format (no mark)', () => {
  it('reads as format 1, and nothing is reported', () => {
    const notice = recordingNotice();
    const { v: _mark, ...hash } = encodeJob(JOB, 'r1');
    expect(decodeJob(hash, notice)).toEqual({ value: JOB, version: 1 });
    expect(decodeFinishedJob(['job', JSON.stringify({ ...JOB, secret: '' })], notice)?.version).toBe(1);
    expect(decodeLiveChange('{"from":"r","scopeKey":"s","changes":[]}', notice)?.version).toBe(1);
    expect(decodeWatermark('{"newest":1,"total":2}', notice)?.version).toBe(1);
    expect(notice.heard).toEqual([]);
  });
});
