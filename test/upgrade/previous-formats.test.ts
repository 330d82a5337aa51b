/**
 * The records the previous release wrote (dumped from Redis by scripts/redis-format-fixtures.ts
 * while it ran: test/fixtures/redis-formats/<commit>/) are read by the current decoders, and what
 * the current code writes keeps every field the previous release reads. Fast and without Redis;
 * rolling-upgrade.test.ts shows the same with both releases running.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CursorSeal } from '../../src/cursors/seal.js';
import { decodePayload } from '../../src/cursors/payload.js';
import type { JobRecord } from '../../src/jobs/store.js';
import {
  decodeCursorSecret,
  decodeFinishedJob,
  decodeJob,
  decodeLiveChange,
  decodeWatermark,
  encodeFinishedJob,
  encodeJob,
  encodeLiveChange,
  encodeWatermark,
} from '../../src/redis/formats.js';
import { PIN_FILE, readPin, type DumpedKey } from '../support/previous-release.js';

const FIXTURES = join(import.meta.dirname, '../fixtures/redis-formats');

/** One release's dump, file by file (`job`, `finished-jobs`, ...). */
function readDump(release: string): { commit: string; keys(kind: string): DumpedKey[]; file<T>(kind: string): T } {
  const file = <T>(kind: string): T => JSON.parse(readFileSync(join(FIXTURES, release, `${kind}.json`), 'utf8')) as T;
  return { commit: file<{ commit: string }>('client').commit, keys: (kind) => file<{ keys: DumpedKey[] }>(kind).keys, file };
}

const releases = readdirSync(FIXTURES);
const pin = await readPin();

describe('the fixtures of the pinned previous release', () => {
  it(`are there: the pin (${PIN_FILE}) moved with its fixtures`, () => {
    expect(releases, 'run npx tsx scripts/redis-format-fixtures.ts and commit what it writes').toContain(pin.commit.slice(0, 7));
    expect(readDump(pin.commit.slice(0, 7)).commit).toBe(pin.commit);
  });
});

describe.each(releases)('records written by release %s', (release) => {
  const dump = readDump(release);
  const client = dump.file<{ runningJob: string; finishedJob: string; cursor: string }>('client');
  const hashes = new Map(dump.keys('job').map((record) => [record.key.slice('gw:job:'.length), record.value as Record<string, string>]));
  const jobOf = (id: string): JobRecord => decodeJob(hashes.get(id)!)!.value;

  it('job hashes: the running and the finished job read back, as format 1', () => {
    const running = decodeJob(hashes.get(client.runningJob)!);
    const finished = decodeJob(hashes.get(client.finishedJob)!);
    expect(running?.version).toBe(1);
    expect(running?.value).toMatchObject({ id: client.runningJob, operation: 'updateHostNqn', status: 'RUNNING', finishedAt: null, outcome: null });
    expect(running?.value.location).toMatch(/\/svc\/v1\/api-jobs\/[0-9a-f]{32}$/);
    expect(finished?.value).toMatchObject({ id: client.finishedJob, status: 'SUCCEEDED', outcome: { success: true } });
    expect(finished?.value.finishedAt).toBeGreaterThanOrEqual(finished!.value.createdAt);
    // The owner digest the current code computes the same way: a caller finds its old jobs.
    expect(running?.value.owner).toMatch(/^[0-9a-f]{64}$/);
    const [runningSet] = dump.keys('job-indexes').filter((record) => record.key === 'gw:jobs:running');
    expect(runningSet?.value).toEqual([client.runningJob]);
  });

  it('finished-jobs stream entries: the job as its hash has it, without the webhook secret', () => {
    const [stream] = dump.keys('finished-jobs').filter((record) => record.type === 'stream');
    const entries = (stream!.value as { fields: string[] }[]).map((entry) => decodeFinishedJob(entry.fields));
    expect(entries.map((entry) => entry?.version)).toEqual([1]);
    expect(entries[0]!.value).toEqual({ ...jobOf(client.finishedJob), secret: '' });
  });

  it('the cursor key and a kept upstream cursor: the client\'s cursor opens and names the kept entry', () => {
    const [secret] = dump.keys('cursor-secret');
    const key = decodeCursorSecret(secret!.value as string);
    expect(key).not.toBeNull();
    const payload = decodePayload(new CursorSeal(key!).open(client.cursor)!);
    expect(payload).toMatchObject({ kind: 'keyset', skip: 0 });
    const ref = payload?.kind === 'keyset' ? payload.ref?.toString('base64url') : undefined;
    const entry = dump.keys('kept-cursor').find((record) => record.key === `gateway:cursor:{cursors}:${ref}`);
    // A kept cursor is the upstream's text, read as it is.
    expect(entry?.value).toEqual(expect.stringMatching(/^\S{20,}$/));
  });

  it('live feed: the change message, the watermark, and the lease held by the replica that sent the message', () => {
    const { messages } = dump.file<{ messages: string[] }>('live-change');
    const message = decodeLiveChange(messages[0]!);
    expect(message?.version).toBe(1);
    expect(message?.value.changes).toEqual([{ collection: 'vmInstance', uuids: [expect.stringMatching(/^[0-9a-f]{32}$/)] }]);
    const [watermark] = dump.keys('live-watermark');
    expect(watermark!.key).toBe(`gateway:live:watermark:${message!.value.scopeKey}:vmInstance`);
    expect(decodeWatermark(watermark!.value as string)).toEqual({ value: { newest: expect.any(Number), total: expect.any(Number) }, version: 1 });
    const [lease] = dump.keys('live-lease');
    expect(lease).toMatchObject({ key: `gateway:live:lease:${message!.value.scopeKey}:vmInstance`, value: message!.value.from });
  });

  it('heartbeats: a key per replica, read for its existence only, expiring with the lease', () => {
    const heartbeats = dump.keys('heartbeat');
    expect(heartbeats.map((record) => record.key)).toEqual([expect.stringMatching(/^gw:replica:\S+$/)]);
    expect(heartbeats[0]!.ttlMs).toBeGreaterThan(0);
  });

  // Rollback: a replica of that release reads what the current code writes. Its readers take the
  // fields below; the current writers must keep every one of them, in the same shape.
  describe('what the current code writes keeps what that release reads', () => {
    it('a job hash: the same fields, plus its format', () => {
      for (const id of [client.runningJob, client.finishedJob]) {
        const old = hashes.get(id)!;
        const current = encodeJob(jobOf(id), old.replica!);
        expect(Object.keys(current).sort()).toEqual([...Object.keys(old), 'v'].sort());
        expect(JSON.parse(current.record!)).toEqual(JSON.parse(old.record!));
        expect({ ...current, v: undefined, record: undefined }).toEqual({ ...old, v: undefined, record: undefined });
      }
    });

    it('a stream entry: the job under `job`, as before, plus its format', () => {
      const [stream] = dump.keys('finished-jobs').filter((record) => record.type === 'stream');
      const old = (stream!.value as { fields: string[] }[])[0]!.fields;
      const current = encodeFinishedJob(jobOf(client.finishedJob));
      const fields = (entry: readonly string[]) => Object.fromEntries(entry.flatMap((value, index) => (index % 2 === 0 ? [[value, entry[index + 1]]] : [])));
      expect(JSON.parse(fields(current).job!)).toEqual(JSON.parse(fields(old).job!));
      expect(Object.keys(fields(current)).sort()).toEqual(['job', 'v']);
    });

    it('a change message and a watermark: the same properties, plus their format', () => {
      const old = JSON.parse(dump.file<{ messages: string[] }>('live-change').messages[0]!) as Record<string, unknown>;
      const current = JSON.parse(encodeLiveChange(decodeLiveChange(JSON.stringify(old))!.value)) as Record<string, unknown>;
      expect({ ...current, v: undefined }).toEqual(old);
      const oldWatermark = JSON.parse(dump.keys('live-watermark')[0]!.value as string) as Record<string, unknown>;
      const currentWatermark = JSON.parse(encodeWatermark(decodeWatermark(JSON.stringify(oldWatermark))!.value)) as Record<string, unknown>;
      expect({ ...currentWatermark, v: undefined }).toEqual(oldWatermark);
    });
  });
});
