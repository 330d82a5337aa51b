/**
 * The upstream client's failures over undici's MockAgent: the errors answers map to (each status
 * class is tested without a server in `answers.test.ts`), timeouts, the caller's own abort, and
 * which GETs are retried and which calls never are.
 */
import { describe, expect, it } from 'vitest';
import { readable } from '../support/readable.js';
import { readableItems, UnreadableRecord, UpstreamBusinessError } from '../../src/upstream/index.js';
import { CreateCbtTask, DestroyVmInstance, GetHostNetworkFacts, GetHostSensors } from '../../src/upstream/operations/index.js';
import { JOB, RES, SESSION, TEXT_HEADERS, JSON_HEADERS, TOKEN, U1, U2, UP, failure, useMockUpstream } from './mock-upstream.js';

const upstream = useMockUpstream();

describe('error mapping', () => {
  const chained = {
    error: {
      code: 'SYS.1006',
      description: 'operation failed',
      details: 'could not recover the VM',
      cause: { code: 'VM.1010', description: 'wrong VM state', cause: { code: 'SYS.1000', description: 'internal' } },
    },
  };

  it('maps a 503 ErrorCode to UPSTREAM_ERROR with its whole cause chain, and does not retry it', async () => {
    upstream.capture(UP, 503, chained);
    const spare = upstream.capture(UP, 200, { inventories: [] });
    const error = await failure(upstream.client.query(SESSION, 'cbtTasks', {}));
    expect(error).toBeInstanceOf(UpstreamBusinessError);
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.status).toBe(503);
    expect(error.operation).toBe('QueryCbtTask');
    expect(error.errorCode?.code).toBe('SYS.1006');
    expect(error.errorCode?.details).toBe('could not recover the VM');
    expect(error.errorCode?.cause?.code).toBe('VM.1010');
    expect(error.errorCode?.cause?.cause?.code).toBe('SYS.1000');
    expect(error.errorCode?.cause?.cause?.cause).toBeNull();
    expect(spare).toHaveLength(0);
  });

  it('treats a 200 whose error is not null as a failure', async () => {
    upstream.capture(UP, 200, { success: false, ...chained });
    expect((await failure(upstream.client.query(SESSION, 'cbtTasks', {}))).code).toBe('UPSTREAM_ERROR');
  });

  it.each([
    ['ID.1001', 'UNAUTHENTICATED'],
    ['ID.1002', 'FORBIDDEN'],
  ])('maps ErrorCode %s to %s and keeps the ErrorCode', async (code, expected) => {
    upstream.capture(UP, 503, { error: { code, description: 'session' } });
    const error = await failure(upstream.client.read(SESSION, GetHostNetworkFacts, { hostUuid: U1 }));
    expect(error.code).toBe(expected);
    expect(error.errorCode?.code).toBe(code);
  });

  it.each([
    [401, { error: { code: 'ID.1001', description: 'bad token' } }, 'UNAUTHENTICATED'],
    [401, '', 'UNAUTHENTICATED'],
    [403, { error: { code: 'ID.1002', description: 'tenant mismatch' } }, 'FORBIDDEN'],
    [403, 'Forbidden', 'FORBIDDEN'],
  ])('maps a cursor-family %s to its code', async (status, body, expected) => {
    upstream.capture(RES, status, body, typeof body === 'string' ? TEXT_HEADERS : JSON_HEADERS);
    const error = await failure(upstream.client.cursorQuery(TOKEN, { resourceType: 'host' }));
    expect(error.code).toBe(expected);
    expect(error.status).toBe(status);
    expect(error.operation).toBe('CursorQuery');
  });

  it('maps 400 plain text to UPSTREAM_BAD_REQUEST quoting a truncated upstream text', async () => {
    upstream.capture(UP, 400, `Unknown query field 'colour'. ${'x'.repeat(5000)}`, TEXT_HEADERS);
    const error = await failure(upstream.client.query(SESSION, 'hbaDevices', { conditions: [{ field: 'colour', op: '=', value: 'red' }] }));
    expect(error.code).toBe('UPSTREAM_BAD_REQUEST');
    expect(error.message).toContain("Unknown query field 'colour'.");
    expect(error.message.length).toBeLessThan(400);
  });

  it('maps 404 to UPSTREAM_NOT_FOUND', async () => {
    upstream.capture(UP, 404, 'Not Found', TEXT_HEADERS);
    expect((await failure(upstream.client.read(SESSION, GetHostSensors, { uuid: U1 }))).code).toBe('UPSTREAM_NOT_FOUND');
  });

  it('maps a 503 plain text to UPSTREAM_UNAVAILABLE after retrying it', async () => {
    const attempts = [upstream.capture(UP, 503, 'Service Unavailable', TEXT_HEADERS), upstream.capture(UP, 503, '', TEXT_HEADERS), upstream.capture(UP, 502, 'Bad Gateway', TEXT_HEADERS)];
    const error = await failure(upstream.client.read(SESSION, GetHostSensors, { uuid: U1 }));
    expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(error.status).toBe(502);
    expect(attempts.map((seen) => seen.length)).toEqual([1, 1, 1]);
    expect(upstream.events).toEqual([expect.objectContaining({ operation: 'GetHostSensors', status: 502, error: 'UPSTREAM_UNAVAILABLE' })]);
  });

  it('maps a refused connection to UPSTREAM_UNAVAILABLE', async () => {
    upstream.agent
      .get(UP)
      .intercept({ path: () => true })
      .replyWithError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))
      .times(3);
    const error = await failure(upstream.client.read(SESSION, GetHostNetworkFacts, { hostUuid: U1 }));
    expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(error.status).toBeUndefined();
    expect(upstream.events[0]).toMatchObject({ status: null, error: 'UPSTREAM_UNAVAILABLE' });
  });

  it('maps a reply slower than timeoutMs to UPSTREAM_TIMEOUT', async () => {
    const slow = upstream.makeClient({ upstreamTimeoutMs: 100 });
    upstream.agent.get(UP).intercept({ path: () => true }).reply(200, { inventories: [] }).delay(1000);
    const started = Date.now();
    const error = await failure(slow.query(SESSION, 'cbtTasks', {}));
    expect(error.code).toBe('UPSTREAM_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(900);
    await slow.close();
  });

  it('gives the caller back its own abort reason', async () => {
    upstream.agent.get(UP).intercept({ path: () => true }).reply(200, { inventories: [] }).delay(1000);
    const controller = new AbortController();
    const reason = new Error('client went away');
    setTimeout(() => controller.abort(reason), 20);
    await expect(upstream.client.query(SESSION, 'cbtTasks', {}, { signal: controller.signal })).rejects.toBe(reason);
  });

  it('maps a body that is not JSON to UPSTREAM_PROTOCOL_ERROR', async () => {
    upstream.capture(UP, 200, 'this is not json');
    const error = await failure(upstream.client.query(SESSION, 'fiberChannelLuns', {}));
    expect(error.code).toBe('UPSTREAM_PROTOCOL_ERROR');
    expect(error.operation).toBe('QueryFiberChannelLun');
  });

  it.each([
    ['a record without a uuid', { name: 'no id' }, 'body.inventories[1].uuid'],
    ['a record with a malformed uuid', { uuid: 'vm-050' }, 'body.inventories[1].uuid'],
    ['a list that is not a list', { uuid: U1, scsiLunHostRefs: 'none' }, 'body.inventories[1].scsiLunHostRefs'],
    ['an unreadable timestamp', { uuid: U1, createDate: 'yesterday' }, 'body.inventories[1].createDate'],
    ['a fractional integer', { uuid: U1, size: 1.5 }, 'body.inventories[1].size'],
  ])('reads %s as an unreadable record in its own slot, the others decoded', async (_name, record, path) => {
    upstream.capture(UP, 200, JSON.stringify({ inventories: [{ uuid: U2 }, record, { uuid: U2.replace(/^./, 'c') }] }));
    const result = await upstream.client.query(SESSION, 'fiberChannelLuns', {});
    expect(result.inventories).toHaveLength(3);
    expect(result.inventories[1]).toBeInstanceOf(UnreadableRecord);
    expect((result.inventories[1] as UnreadableRecord).path).toBe(path);
    expect(readableItems(result.inventories).map((lun) => lun.uuid)).toEqual([U2, U2.replace(/^./, 'c')]);
  });

  it('rejects a cursor page that claims more records but gives no cursor', async () => {
    upstream.capture(RES, 200, { items: [], total: 3, nextCursor: null, hasMore: true });
    expect((await failure(upstream.client.cursorQuery(TOKEN, { resourceType: 'vm' }))).code).toBe('UPSTREAM_PROTOCOL_ERROR');
  });
});

describe('retries', () => {
  it('retries a GET answered 503 plain text and returns the next answer', async () => {
    const first = upstream.capture(UP, 503, 'upstream restarting', TEXT_HEADERS);
    const second = upstream.capture(UP, 200, { inventories: [{ uuid: U1, status: 'Running' }] });
    const result = await upstream.client.query(SESSION, 'cbtTasks', {});
    expect(first).toHaveLength(1);
    expect(second).toHaveLength(1);
    expect(readable(result.inventories).map((task) => task.status)).toEqual(['Running']);
    expect(upstream.events).toEqual([expect.objectContaining({ operation: 'QueryCbtTask', method: 'GET', status: 200 })]);
    expect(upstream.events[0]?.error).toBeUndefined();
  });

  it('retries a GET after a reset connection', async () => {
    upstream.agent
      .get(UP)
      .intercept({ path: () => true })
      .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    upstream.capture(UP, 200, { bondings: [], nics: [] });
    await expect(upstream.client.read(SESSION, GetHostNetworkFacts, { hostUuid: U1 })).resolves.toEqual({ bondings: [], nics: [] });
  });

  it('does not retry when retries is 0', async () => {
    const once = upstream.makeClient({ retries: 0 });
    upstream.capture(UP, 503, 'down', TEXT_HEADERS);
    const spare = upstream.capture(UP, 200, { inventories: [] });
    expect((await failure(once.query(SESSION, 'cbtTasks', {}))).code).toBe('UPSTREAM_UNAVAILABLE');
    expect(spare).toHaveLength(0);
    await once.close();
  });

  it('never retries a submitted write', async () => {
    const first = upstream.capture(UP, 503, 'Service Unavailable', TEXT_HEADERS);
    const spare = upstream.capture(UP, 202, { location: `${UP}/svc/v1/api-jobs/${JOB}` });
    const error = await failure(
      upstream.client.submit(SESSION, { operation: CreateCbtTask, params: { name: 't' }, jobUuid: JOB }),
    );
    expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(error.operation).toBe('CreateCbtTask');
    expect(first).toHaveLength(1);
    expect(spare).toHaveLength(0);
  });

  it('never retries a write whose connection was reset', async () => {
    upstream.agent
      .get(UP)
      .intercept({ path: () => true, method: 'DELETE' })
      .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    const spare = upstream.capture(UP, 202, { location: `${UP}/svc/v1/api-jobs/${JOB}` });
    const error = await failure(upstream.client.submit(SESSION, { operation: DestroyVmInstance, params: { uuid: U1 }, jobUuid: JOB }));
    expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(spare).toHaveLength(0);
  });
});
