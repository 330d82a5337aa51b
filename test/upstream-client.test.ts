/**
 * The upstream client's edge cases against undici's MockAgent (request building, error
 * mapping, retries, decoding), plus two against a real socket for what a mock cannot show.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UnrecognizedValue } from '../src/upstream/define-record.js';
import {
  UpstreamBusinessError,
  type UpstreamClient,
  type UpstreamClientOptions,
  type UpstreamRequestError,
  type UpstreamRequestEvent,
} from '../src/upstream/index.js';
import {
  CreateCbtTask,
  DeleteVolumeSnapshotGroup,
  DestroyVmInstance,
  GetHostBlockDevices,
  GetHostNetworkFacts,
  GetHostSensors,
  GetPrimaryStorageCapacity,
  GetVmAttachableDataVolume,
  UpdateHostNqn,
} from '../src/upstream/operations/index.js';
import { createTestUpstreamClient } from './support/upstream-client.js';

const UP = 'http://upstream.test';
const RES = 'http://resources.test';
const SESSION = { authorization: 'OAuth 0123456789abcdef0123456789abcdef' };
const TOKEN = { authorization: 'Bearer tok-1', tenantId: 'tenant-a' };
const U1 = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1';
const U2 = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb2';
const JOB = 'cccccccccccccccccccccccccccccccc';
const JSON_HEADERS = { 'content-type': 'application/json;charset=UTF-8' };
const TEXT_HEADERS = { 'content-type': 'text/plain' };

interface Seen {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
}

let agent: MockAgent;
let client: UpstreamClient;
let events: UpstreamRequestEvent[];

function makeClient(overrides: Partial<UpstreamClientOptions> = {}): UpstreamClient {
  return createTestUpstreamClient({
    upstreamUrl: `${UP}/`,
    resourcesUrl: RES,
    dispatcher: agent,
    upstreamTimeoutMs: 2000,
    retryBaseDelayMs: 1,
    onRequest: (event) => events.push(event),
    ...overrides,
  });
}

/** Intercepts one request on `origin` and records exactly what was sent. */
function capture(origin: string, status: number, body: unknown, headers: Record<string, string> = JSON_HEADERS): Seen[] {
  const seen: Seen[] = [];
  agent
    .get(origin)
    .intercept({ path: () => true, method: () => true })
    .reply(status, (opts) => {
      seen.push({
        method: opts.method,
        path: opts.path,
        headers: normalizeHeaders(opts.headers),
        body: typeof opts.body === 'string' ? opts.body : undefined,
      });
      return typeof body === 'string' ? body : JSON.stringify(body);
    }, { headers });
  return seen;
}

function normalizeHeaders(headers: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers === null || headers === undefined) return out;
  const entries: Iterable<[string, unknown]> =
    Array.isArray(headers) ? pairs(headers as string[]) : Object.entries(headers as Record<string, unknown>);
  for (const [key, value] of entries) out[key.toLowerCase()] = String(value);
  return out;
}

function* pairs(flat: string[]): Generator<[string, unknown]> {
  for (let i = 0; i + 1 < flat.length; i += 2) yield [flat[i] as string, flat[i + 1]];
}

/** The decoded query parameters of a recorded path, as [key, value] pairs in order. */
function paramsOf(path: string): Array<[string, string]> {
  return [...new URL(path, 'http://x').searchParams];
}

async function failure(promise: Promise<unknown>): Promise<UpstreamRequestError> {
  try {
    await promise;
  } catch (error) {
    return error as UpstreamRequestError;
  }
  throw new Error('expected the call to fail');
}

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  events = [];
  client = makeClient();
});

afterEach(async () => {
  await client.close();
  await agent.close();
});

describe('request building', () => {
  it('builds q conditions, paging and sorting with every reserved character percent-encoded', async () => {
    const seen = capture(UP, 200, { inventories: [], total: 0 });
    await client.query(
      SESSION,
      'fiberChannelLuns',
      {
        conditions: [
          { field: 'uuid', op: '?=', value: [U1, U2] },
          { field: 'name', op: '~=', value: '%lun a+b%' },
          { field: 'state', op: '!=', value: 'Disabled' },
          { field: 'wwid', op: 'not null' },
        ],
        limit: 50,
        start: 100,
        sort: { field: 'createDate', direction: 'desc' },
        replyWithCount: true,
      },
      { requestId: 'req-1' },
    );
    expect(seen).toHaveLength(1);
    const [request] = seen;
    expect(request?.method).toBe('GET');
    expect(request?.path.split('?')[0]).toBe('/svc/v1/storage-devices/fiber-channel/luns');
    // Raw encoding: `?`, `=`, `,`, `%`, `+`, space and `!` never appear bare in a value.
    expect(request?.path.split('?')[1]).toBe(
      `q=uuid%3F%3D${U1}%2C${U2}&q=name~%3D%25lun%20a%2Bb%25&q=state!%3DDisabled&q=wwid%20not%20null` +
        '&limit=50&start=100&sort=-createDate&replyWithCount=true',
    );
    expect(paramsOf(request?.path ?? '')).toEqual([
      ['q', `uuid?=${U1},${U2}`],
      ['q', 'name~=%lun a+b%'],
      ['q', 'state!=Disabled'],
      ['q', 'wwid not null'],
      ['limit', '50'],
      ['start', '100'],
      ['sort', '-createDate'],
      ['replyWithCount', 'true'],
    ]);
    expect(request?.headers.authorization).toBe(SESSION.authorization);
    expect(request?.headers['x-request-id']).toBe('req-1');
    expect(request?.headers['x-tenant-id']).toBeUndefined();
    expect(request?.headers['content-type']).toBeUndefined();
  });

  it('sends an ascending sort as %2B so it does not decode to a space', async () => {
    const seen = capture(UP, 200, { inventories: [] });
    await client.query(SESSION, 'cbtTasks', { sort: { field: 'name', direction: 'asc' } });
    expect(seen[0]?.path).toBe('/svc/v1/cbt-task?sort=%2Bname');
  });

  it.each([
    ['http://upstream.test', '/svc/v1/volume-snapshots/group'],
    ['http://upstream.test/', '/svc/v1/volume-snapshots/group'],
    ['http://upstream.test/zone-a/api', '/zone-a/api/svc/v1/volume-snapshots/group'],
    ['http://upstream.test/zone-a/api/', '/zone-a/api/svc/v1/volume-snapshots/group'],
  ])('appends svc/v1 to the base %s', async (upstreamUrl, expected) => {
    const prefixed = makeClient({ upstreamUrl });
    const seen = capture(UP, 200, { inventories: [] });
    await prefixed.query(SESSION, 'volumeSnapshotGroups', {});
    expect(seen[0]?.path).toBe(expected);
    await prefixed.close();
  });

  it('answers an empty "in" list without a request, and drops an empty "not in"', async () => {
    await expect(client.query(SESSION, 'hbaDevices', { conditions: [{ field: 'uuid', op: '?=', value: [] }], replyWithCount: true })).resolves.toEqual({
      inventories: [],
      total: 0,
    });
    await expect(client.cursorQuery(TOKEN, { resourceType: 'vm', filter: [{ field: 'uuid', op: 'in', value: [] }] })).resolves.toEqual({
      items: [],
      total: 0,
      nextCursor: null,
      hasMore: false,
    });
    const seen = capture(UP, 200, { inventories: [] });
    await client.query(SESSION, 'hbaDevices', { conditions: [{ field: 'uuid', op: '!?=', value: [] }] });
    expect(seen[0]?.path).toBe('/svc/v1/storage-devices/hba');
  });

  it('sends cursor queries to the cursor family with repeated filters, the bearer token and X-Tenant-ID', async () => {
    const seen = capture(RES, 200, { items: [], total: 0, nextCursor: null, hasMore: false });
    await client.cursorQuery(
      TOKEN,
      {
        resourceType: 'vm',
        sort: 'name',
        order: 'desc',
        pageSize: 50,
        filter: [
          { field: 'state', op: 'eq', value: 'Running' },
          { field: 'uuid', op: 'in', value: [U1, U2] },
          { field: 'name', op: 'like', value: 'web 1%' },
        ],
      },
      { requestId: 'req-2' },
    );
    const [request] = seen;
    expect(request?.path.split('?')[0]).toBe('/api/v1/resources/cursor-query');
    expect(paramsOf(request?.path ?? '')).toEqual([
      ['resourceType', 'vm'],
      ['sort', 'name'],
      ['order', 'desc'],
      ['pageSize', '50'],
      ['filter', 'state:eq:Running'],
      ['filter', `uuid:in:${U1},${U2}`],
      ['filter', 'name:like:web 1%'],
    ]);
    expect(request?.headers.authorization).toBe('Bearer tok-1');
    expect(request?.headers['x-tenant-id']).toBe('tenant-a');
    expect(request?.headers['x-request-id']).toBe('req-2');
  });

  it('omits X-Tenant-ID when the caller sent none, and encodes the opaque cursor', async () => {
    const seen = capture(RES, 200, { items: [], total: 0, nextCursor: null, hasMore: false });
    const cursor = 'eyJhIjoxfQ==.sig+/x';
    await client.cursorNext({ authorization: 'Bearer tok-1' }, { resourceType: 'host', cursor, pageSize: 5 });
    expect(seen[0]?.path).toBe(`/api/v1/resources/cursor-next?cursor=${encodeURIComponent(cursor)}&pageSize=5`);
    expect(paramsOf(seen[0]?.path ?? '')).toEqual([
      ['cursor', cursor],
      ['pageSize', '5'],
    ]);
    expect(seen[0]?.headers['x-tenant-id']).toBeUndefined();
  });

  it('uses the origin of upstreamUrl for the cursor family when resourcesUrl is not given', async () => {
    const defaulted = makeClient({ upstreamUrl: `${UP}/some/prefix/`, resourcesUrl: undefined });
    const seen = capture(UP, 200, { items: [], total: 0, nextCursor: null, hasMore: false });
    await defaulted.cursorQuery(TOKEN, { resourceType: 'directory' });
    expect(seen[0]?.path).toBe('/api/v1/resources/cursor-query?resourceType=directory');
    await defaulted.close();
  });

  it('sends capacity lists as repeated query parameters', async () => {
    const seen = capture(UP, 200, {
      success: true,
      totalCapacity: 1000,
      availableCapacity: 400.0,
      totalPhysicalCapacity: '2000',
      availablePhysicalCapacity: 900,
    });
    const capacity = await client.read(SESSION, GetPrimaryStorageCapacity, { zoneUuids: [U1, U2], primaryStorageUuids: [U2], all: false });
    expect(seen[0]?.path.split('?')[0]).toBe('/svc/v1/primary-storage/capacities');
    expect(paramsOf(seen[0]?.path ?? '')).toEqual([
      ['zoneUuids', U1],
      ['zoneUuids', U2],
      ['primaryStorageUuids', U2],
      ['all', 'false'],
    ]);
    expect(capacity).toEqual({ totalCapacity: 1000, availableCapacity: 400, totalPhysicalCapacity: 2000, availablePhysicalCapacity: 900 });
  });

  it('reads the host and VM GET operations from their spec paths', async () => {
    const facts = capture(UP, 200, { success: true, bondings: [], nics: [] });
    const blocks = capture(UP, 200, { success: true, error: null, blockDevices: [{ name: 'sda' }] });
    const sensors = capture(UP, 200, { sensors: [{ name: 'cpu0', value: 41 }] });
    const candidates = capture(UP, 200, { inventories: [{ uuid: U2, name: 'data-1', size: 10737418240, isShareable: false }] });
    await client.read(SESSION, GetHostNetworkFacts, { hostUuid: U1 });
    expect(await client.read(SESSION, GetHostBlockDevices, { uuid: U1 })).toEqual({ blockDevices: [{ name: 'sda' }] });
    expect(await client.read(SESSION, GetHostSensors, { uuid: U1 })).toEqual({ sensors: [{ name: 'cpu0', value: 41 }] });
    const volumes = await client.read(SESSION, GetVmAttachableDataVolume, { vmInstanceUuid: U2 });
    expect(facts[0]?.path).toBe(`/svc/v1/hosts/network-facts/${U1}`);
    expect(blocks[0]?.path).toBe(`/svc/v1/hosts/${U1}/get-block-devices`);
    expect(sensors[0]?.path).toBe(`/svc/v1/hosts/${U1}/get-sensors`);
    expect(candidates[0]?.path).toBe(`/svc/v1/vm-instances/${U2}/data-volume-candidates`);
    expect(volumes).toHaveLength(1);
    expect(volumes[0]).toMatchObject({ uuid: U2, name: 'data-1', size: 10737418240, isShareable: false, vmInstanceUuid: null });
  });

  it('encodes path parameters and refuses dot segments before any request', async () => {
    const seen = capture(UP, 200, { bondings: [], nics: [] });
    await client.read(SESSION, GetHostNetworkFacts, { hostUuid: 'a/b?c' });
    expect(seen[0]?.path).toBe('/svc/v1/hosts/network-facts/a%2Fb%3Fc');
    const error = await failure(client.read(SESSION, GetHostSensors, { uuid: '..' }));
    expect(error.code).toBe('UPSTREAM_BAD_REQUEST');
  });
});

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
    capture(UP, 503, chained);
    const spare = capture(UP, 200, { inventories: [] });
    const error = await failure(client.query(SESSION, 'cbtTasks', {}));
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
    capture(UP, 200, { success: false, ...chained });
    expect((await failure(client.query(SESSION, 'cbtTasks', {}))).code).toBe('UPSTREAM_ERROR');
  });

  it.each([
    ['ID.1001', 'UNAUTHENTICATED'],
    ['ID.1002', 'FORBIDDEN'],
  ])('maps ErrorCode %s to %s and keeps the ErrorCode', async (code, expected) => {
    capture(UP, 503, { error: { code, description: 'session' } });
    const error = await failure(client.read(SESSION, GetHostNetworkFacts, { hostUuid: U1 }));
    expect(error.code).toBe(expected);
    expect(error.errorCode?.code).toBe(code);
  });

  it.each([
    [401, { error: { code: 'ID.1001', description: 'bad token' } }, 'UNAUTHENTICATED'],
    [401, '', 'UNAUTHENTICATED'],
    [403, { error: { code: 'ID.1002', description: 'tenant mismatch' } }, 'FORBIDDEN'],
    [403, 'Forbidden', 'FORBIDDEN'],
  ])('maps a cursor-family %s to its code', async (status, body, expected) => {
    capture(RES, status, body, typeof body === 'string' ? TEXT_HEADERS : JSON_HEADERS);
    const error = await failure(client.cursorQuery(TOKEN, { resourceType: 'host' }));
    expect(error.code).toBe(expected);
    expect(error.status).toBe(status);
    expect(error.operation).toBe('CursorQuery');
  });

  it('maps 400 plain text to UPSTREAM_BAD_REQUEST quoting a truncated upstream text', async () => {
    capture(UP, 400, `Unknown query field 'colour'. ${'x'.repeat(5000)}`, TEXT_HEADERS);
    const error = await failure(client.query(SESSION, 'hbaDevices', { conditions: [{ field: 'colour', op: '=', value: 'red' }] }));
    expect(error.code).toBe('UPSTREAM_BAD_REQUEST');
    expect(error.message).toContain("Unknown query field 'colour'.");
    expect(error.message.length).toBeLessThan(400);
  });

  it('maps 404 to UPSTREAM_NOT_FOUND', async () => {
    capture(UP, 404, 'Not Found', TEXT_HEADERS);
    expect((await failure(client.read(SESSION, GetHostSensors, { uuid: U1 }))).code).toBe('UPSTREAM_NOT_FOUND');
  });

  it('maps a 503 plain text to UPSTREAM_UNAVAILABLE after retrying it', async () => {
    const attempts = [capture(UP, 503, 'Service Unavailable', TEXT_HEADERS), capture(UP, 503, '', TEXT_HEADERS), capture(UP, 502, 'Bad Gateway', TEXT_HEADERS)];
    const error = await failure(client.read(SESSION, GetHostSensors, { uuid: U1 }));
    expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(error.status).toBe(502);
    expect(attempts.map((seen) => seen.length)).toEqual([1, 1, 1]);
    expect(events).toEqual([expect.objectContaining({ operation: 'GetHostSensors', status: 502, error: 'UPSTREAM_UNAVAILABLE' })]);
  });

  it('maps a refused connection to UPSTREAM_UNAVAILABLE', async () => {
    agent
      .get(UP)
      .intercept({ path: () => true })
      .replyWithError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))
      .times(3);
    const error = await failure(client.read(SESSION, GetHostNetworkFacts, { hostUuid: U1 }));
    expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(error.status).toBeUndefined();
    expect(events[0]).toMatchObject({ status: null, error: 'UPSTREAM_UNAVAILABLE' });
  });

  it('maps a reply slower than timeoutMs to UPSTREAM_TIMEOUT', async () => {
    const slow = makeClient({ upstreamTimeoutMs: 100 });
    agent.get(UP).intercept({ path: () => true }).reply(200, { inventories: [] }).delay(1000);
    const started = Date.now();
    const error = await failure(slow.query(SESSION, 'cbtTasks', {}));
    expect(error.code).toBe('UPSTREAM_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(900);
    await slow.close();
  });

  it('gives the caller back its own abort reason', async () => {
    agent.get(UP).intercept({ path: () => true }).reply(200, { inventories: [] }).delay(1000);
    const controller = new AbortController();
    const reason = new Error('client went away');
    setTimeout(() => controller.abort(reason), 20);
    await expect(client.query(SESSION, 'cbtTasks', {}, { signal: controller.signal })).rejects.toBe(reason);
  });

  it.each([
    ['a body that is not JSON', 'this is not json'],
    ['a record without a uuid', JSON.stringify({ inventories: [{ name: 'no id' }] })],
    ['a record with a malformed uuid', JSON.stringify({ inventories: [{ uuid: 'vm-050' }] })],
    ['a list that is not a list', JSON.stringify({ inventories: [{ uuid: U1, scsiLunHostRefs: 'none' }] })],
    ['an unreadable timestamp', JSON.stringify({ inventories: [{ uuid: U1, createDate: 'yesterday' }] })],
    ['a fractional integer', JSON.stringify({ inventories: [{ uuid: U1, size: 1.5 }] })],
  ])('maps %s to UPSTREAM_PROTOCOL_ERROR', async (_name, body) => {
    capture(UP, 200, body);
    const error = await failure(client.query(SESSION, 'fiberChannelLuns', {}));
    expect(error.code).toBe('UPSTREAM_PROTOCOL_ERROR');
    expect(error.operation).toBe('QueryFiberChannelLun');
  });

  it('rejects a cursor page that claims more records but gives no cursor', async () => {
    capture(RES, 200, { items: [], total: 3, nextCursor: null, hasMore: true });
    expect((await failure(client.cursorQuery(TOKEN, { resourceType: 'vm' }))).code).toBe('UPSTREAM_PROTOCOL_ERROR');
  });
});

describe('retries', () => {
  it('retries a GET answered 503 plain text and returns the next answer', async () => {
    const first = capture(UP, 503, 'upstream restarting', TEXT_HEADERS);
    const second = capture(UP, 200, { inventories: [{ uuid: U1, status: 'Running' }] });
    const result = await client.query(SESSION, 'cbtTasks', {});
    expect(first).toHaveLength(1);
    expect(second).toHaveLength(1);
    expect(result.inventories.map((task) => task.status)).toEqual(['Running']);
    expect(events).toEqual([expect.objectContaining({ operation: 'QueryCbtTask', method: 'GET', status: 200 })]);
    expect(events[0]?.error).toBeUndefined();
  });

  it('retries a GET after a reset connection', async () => {
    agent
      .get(UP)
      .intercept({ path: () => true })
      .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    capture(UP, 200, { bondings: [], nics: [] });
    await expect(client.read(SESSION, GetHostNetworkFacts, { hostUuid: U1 })).resolves.toEqual({ bondings: [], nics: [] });
  });

  it('does not retry when retries is 0', async () => {
    const once = makeClient({ retries: 0 });
    capture(UP, 503, 'down', TEXT_HEADERS);
    const spare = capture(UP, 200, { inventories: [] });
    expect((await failure(once.query(SESSION, 'cbtTasks', {}))).code).toBe('UPSTREAM_UNAVAILABLE');
    expect(spare).toHaveLength(0);
    await once.close();
  });

  it('never retries a submitted write', async () => {
    const first = capture(UP, 503, 'Service Unavailable', TEXT_HEADERS);
    const spare = capture(UP, 202, { location: `${UP}/svc/v1/api-jobs/${JOB}` });
    const error = await failure(
      client.submit(SESSION, { operation: CreateCbtTask, params: { name: 't' }, jobUuid: JOB }),
    );
    expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(error.operation).toBe('CreateCbtTask');
    expect(first).toHaveLength(1);
    expect(spare).toHaveLength(0);
  });

  it('never retries a write whose connection was reset', async () => {
    agent
      .get(UP)
      .intercept({ path: () => true, method: 'DELETE' })
      .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    const spare = capture(UP, 202, { location: `${UP}/svc/v1/api-jobs/${JOB}` });
    const error = await failure(client.submit(SESSION, { operation: DestroyVmInstance, params: { uuid: U1 }, jobUuid: JOB }));
    expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(spare).toHaveLength(0);
  });
});

describe('writes and jobs', () => {
  it('submits with the job headers and a JSON body, and reads the 202 location from the body', async () => {
    const seen = capture(UP, 202, { location: `${UP}/svc/v1/api-jobs/${JOB}`, apiTimeout: 1800000 });
    const accepted = await client.submit(
      SESSION,
      {
        operation: UpdateHostNqn,
        params: { uuid: U1, nqn: 'nqn.2014-08.org:host' },
        jobUuid: JOB,
        webHook: 'http://gateway.test/webhooks/upstream',
      },
      { requestId: 'req-3' },
    );
    expect(accepted).toEqual({ location: `${UP}/svc/v1/api-jobs/${JOB}`, jobUuid: JOB, apiTimeout: 1800000 });
    const [request] = seen;
    expect(request?.method).toBe('PUT');
    expect(request?.path).toBe(`/svc/v1/hosts/nqn/${U1}/actions`);
    expect(request?.headers).toMatchObject({
      authorization: SESSION.authorization,
      'content-type': 'application/json;charset=UTF-8',
      'x-job-uuid': JOB,
      'x-web-hook': 'http://gateway.test/webhooks/upstream',
      'x-request-id': 'req-3',
    });
    expect(JSON.parse(request?.body ?? 'null')).toEqual({ updateHostNqn: { nqn: 'nqn.2014-08.org:host' } });
  });

  it('takes the polling address from a Location header, sends the query and no body when there is none', async () => {
    const seen = capture(UP, 202, '', { location: `${UP}/svc/v1/api-jobs/${JOB}` });
    const accepted = await client.submit(SESSION, {
      operation: DeleteVolumeSnapshotGroup,
      params: { uuid: U1, deleteMode: 'Enforcing' },
      jobUuid: JOB,
    });
    expect(accepted.location).toBe(`${UP}/svc/v1/api-jobs/${JOB}`);
    expect(seen[0]?.path).toBe(`/svc/v1/volume-snapshots/group/${U1}?deleteMode=Enforcing`);
    expect(seen[0]?.headers['content-type']).toBeUndefined();
    expect(seen[0]?.headers['x-web-hook']).toBeUndefined();
  });

  it('accepts a synchronous 200 as an already finished job', async () => {
    capture(UP, 200, { success: true, inventory: { uuid: U1, status: 'Created' } });
    const accepted = await client.submit(SESSION, { operation: CreateCbtTask, params: {}, jobUuid: JOB });
    expect(accepted.location).toBeNull();
    expect(accepted.result).toEqual({ success: true, inventory: { uuid: U1, status: 'Created' } });
    expect(client.decoder.cbtTask(accepted.result?.inventory).status).toBe('Created');
  });

  it('rejects a submitted duplicate job uuid as a bad request', async () => {
    capture(UP, 400, 'Duplicate job uuid', TEXT_HEADERS);
    const error = await failure(client.submit(SESSION, { operation: CreateCbtTask, params: {}, jobUuid: JOB }));
    expect(error.code).toBe('UPSTREAM_BAD_REQUEST');
    expect(error.message).toContain('Duplicate job uuid');
  });

  it('polls a job: 202 running, 200 succeeded, 503 failed, 404 expired', async () => {
    const location = `http://somewhere-else.test:9999/svc/v1/api-jobs/${JOB}`;
    const polls = [
      capture(UP, 202, {}),
      capture(UP, 200, { inventory: { uuid: U1 } }),
      capture(UP, 503, { error: { code: 'SYS.1006', cause: { code: 'VM.1010' } } }),
      capture(UP, 404, 'job expired', TEXT_HEADERS),
    ];
    expect(await client.pollJob(location)).toEqual({ status: 'running' });
    expect(await client.pollJob(location)).toEqual({ status: 'succeeded', body: { inventory: { uuid: U1 } } });
    const failed = await client.pollJob(location);
    expect(failed.status).toBe('failed');
    expect(failed.status === 'failed' && failed.error.cause?.code).toBe('VM.1010');
    expect((await failure(client.pollJob(location))).code).toBe('UPSTREAM_NOT_FOUND');
    // The address the service wrote is moved onto the configured base; no credential is needed.
    expect(polls.map((seen) => seen[0]?.path)).toEqual(Array(4).fill(`/svc/v1/api-jobs/${JOB}`));
    expect(polls[0]?.[0]?.headers.authorization).toBeUndefined();
  });

  it('gives the polling address of a job on the configured base, its path prefix kept, and polls it there', async () => {
    const prefixed = makeClient({ upstreamUrl: `${UP}/zstack` });
    const location = prefixed.jobLocation(JOB);
    expect(location).toBe(`${UP}/zstack/svc/v1/api-jobs/${JOB}`);
    const seen = capture(UP, 202, {});
    expect(await prefixed.pollJob(location)).toEqual({ status: 'running' });
    expect(seen[0]?.path).toBe(`/zstack/svc/v1/api-jobs/${JOB}`);
    await prefixed.close();
  });
});

describe('decoding', () => {
  const nic = (interfaceType: string | undefined, n: number): Record<string, unknown> => ({
    uuid: `${String(n).repeat(32)}`,
    hostUuid: U1,
    interfaceName: `eth${n}`,
    ...(interfaceType === undefined ? {} : { interfaceType }),
    speed: 10000.0,
    carrierActive: true,
    futureField: { anything: 1 },
  });

  it('normalizes every interfaceType spelling, keeps an unknown one as its text and leaves an absent one null', async () => {
    capture(UP, 200, {
      success: true,
      bondings: [{ uuid: U2, bondingName: 'bond0', miimon: 100.0, allSlavesActive: true, slaves: [nic('bondSlave', 1), nic('bondingSlave', 2)] }],
      nics: [nic('nomaster', 3), nic('noMaster', 4), nic('bridgeSlave', 5), nic(undefined, 6), nic('vlanSlave', 7)],
    });
    const facts = await client.read(SESSION, GetHostNetworkFacts, { hostUuid: U1 });
    expect(facts.bondings[0]?.slaves.map((s) => s.interfaceType)).toEqual(['bondingSlave', 'bondingSlave']);
    expect(facts.nics.map((s) => s.interfaceType)).toEqual(['noMaster', 'noMaster', 'bridgeSlave', null, new UnrecognizedValue('vlanSlave')]);
    expect(facts.bondings[0]).toMatchObject({ miimon: 100, allSlavesActive: true, bondingType: null, ipAddresses: [] });
    expect(facts.nics[0]).toMatchObject({ speed: 10000, gateway: null, ipAddresses: [], createDate: null });
    expect(facts.nics[0]).not.toHaveProperty('futureField');
  });

  it('reads 1.0-style integers as integers, including from the wire text', async () => {
    capture(UP, 200, '{"inventories":[{"uuid":"' + U1 + '","snapshotCount":3.0,"volumeSnapshotRefs":[{"volumeSnapshotUuid":"' + U2 + '","deviceId":1.0,"snapshotDeleted":false}]}]}');
    const [group] = (await client.query(SESSION, 'volumeSnapshotGroups', {})).inventories;
    expect(group?.snapshotCount).toBe(3);
    expect(Number.isInteger(group?.snapshotCount)).toBe(true);
    expect(group?.volumeSnapshotRefs[0]).toMatchObject({ deviceId: 1, snapshotDeleted: false, volumeName: null });
  });

  it('lowers an upper-case uuid and keeps a lower-case one', () => {
    expect(client.decoder.volume({ uuid: 'ABCDEF0123456789ABCDEF0123456789' }).uuid).toBe('abcdef0123456789abcdef0123456789');
    expect(client.decoder.volume({ uuid: 'abcdef0123456789abcdef0123456789' }).uuid).toBe('abcdef0123456789abcdef0123456789');
    expect(() => client.decoder.volume({ uuid: 'ABCDEF0123456789ABCDEF012345678' })).toThrow(/expected a uuid/);
  });

  it("gives a VM's embedded NICs, used IPs and CD-ROMs the VM's uuid when the upstream leaves it out", () => {
    const U3 = '3'.repeat(32);
    const U4 = '4'.repeat(32);
    const usedIp = (uuid: string) => ({ uuid, ip: '10.0.0.9' });
    const vm = client.decoder.vmInstance({
      uuid: U1,
      vmNics: [
        { uuid: U2, usedIps: [usedIp(U3)] },
        { uuid: U3, vmInstanceUuid: U4, usedIps: [usedIp(U4)] },
      ],
      vmCdRoms: [{ uuid: U4 }],
    });
    expect(vm.vmNics.map((nic) => nic.vmInstanceUuid)).toEqual([U1, U4]);
    expect(vm.vmNics.map((nic) => nic.usedIps[0]?.vmInstanceUuid)).toEqual([U1, U4]);
    expect(vm.vmCdRoms[0]?.vmInstanceUuid).toBe(U1);
    // A NIC on its own (a VmNicInventory) has no VM to fall back on.
    expect(client.decoder.vmNic({ uuid: U2, usedIps: [usedIp(U3)] })).toMatchObject({ vmInstanceUuid: null, usedIps: [{ vmInstanceUuid: null }] });
  });

  it('decodes unknown closed-set values as their text, told apart from known ones and from none', async () => {
    capture(RES, 200, {
      items: [{ uuid: U1, cpuStatus: 'Normal', fanStatus: 'Error', gpuStatus: 'Melting', state: 'Enabled' }],
      total: 1,
      nextCursor: null,
      hasMore: false,
    });
    const page = await client.cursorQuery(TOKEN, { resourceType: 'host' });
    expect(page.items[0]).toMatchObject({ cpuStatus: 'Normal', fanStatus: 'Error', gpuStatus: new UnrecognizedValue('Melting'), raidStatus: null, state: 'Enabled' });
    expect(page.items[0]!.gpuStatus).toBeInstanceOf(UnrecognizedValue);
  });

  it("decodes a NIC's driverType in lower case, and keeps one outside the spec's set as its text", () => {
    const drivers = ['virtio', 'E1000', 'Rtl8139', 'ne2k_pci', undefined].map((driverType) => client.decoder.vmNic({ uuid: U2, driverType }).driverType);
    expect(drivers).toEqual(['virtio', 'e1000', 'rtl8139', new UnrecognizedValue('ne2k_pci'), null]);
  });

  function dates(zone: string, texts: string[]): Promise<Array<string | undefined>> {
    const zoned = makeClient({ upstreamTimezone: zone });
    capture(UP, 200, { inventories: texts.map((createDate, i) => ({ uuid: String(i + 1).repeat(32), createDate })) });
    return zoned.query(SESSION, 'snsEmailAddresses', {}).then(async (result) => {
      await zoned.close();
      return result.inventories.map((record) => (record.createDate === null ? undefined : new Date(record.createDate).toISOString()));
    });
  }

  it('reads timestamp text as UTC by default, with 12 AM as midnight and 12 PM as noon', async () => {
    expect(
      await dates('UTC', ['Jan 5, 2024 3:04:05 PM', 'Jan 5, 2024 12:00:00 AM', 'Jan 5, 2024 12:30:00 PM', 'Dec 31, 2023 11:59:59 PM', 'Feb 29, 2024 1:02:03 AM']),
    ).toEqual(['2024-01-05T15:04:05.000Z', '2024-01-05T00:00:00.000Z', '2024-01-05T12:30:00.000Z', '2023-12-31T23:59:59.000Z', '2024-02-29T01:02:03.000Z']);
  });

  it('reads timestamp text in a DST zone with the offset of its own date', async () => {
    expect(
      await dates('Europe/Berlin', [
        'Jul 15, 2024 2:30:00 PM', // CEST, UTC+2
        'Jan 15, 2024 2:30:00 PM', // CET, UTC+1
        'Jan 15, 2024 12:15:00 AM', // midnight CET: the previous UTC day
        'Jul 15, 2024 12:15:00 PM', // noon CEST
        'Mar 31, 2024 2:30:00 AM', // skipped by the spring change: moved past the gap, as java.time does
        'Oct 27, 2024 2:30:00 AM', // repeated by the autumn change: the earlier instant
      ]),
    ).toEqual([
      '2024-07-15T12:30:00.000Z',
      '2024-01-15T13:30:00.000Z',
      '2024-01-14T23:15:00.000Z',
      '2024-07-15T10:15:00.000Z',
      '2024-03-31T01:30:00.000Z',
      '2024-10-27T00:30:00.000Z',
    ]);
  });

  it('refuses an unknown timezone when the client is created', () => {
    expect(() => makeClient({ upstreamTimezone: 'Mars/Olympus_Mons' })).toThrow(RangeError);
  });

  it('decodes a page of 10,000 VMs with NICs and volumes quickly', async () => {
    const vm = (i: number): Record<string, unknown> => ({
      uuid: i.toString(16).padStart(32, '0'),
      name: `vm-${i}`,
      state: 'Running',
      memorySize: 2147483648,
      cpuNum: 2.0,
      createDate: `Mar ${1 + (i % 28)}, 2024 ${1 + (i % 12)}:0${i % 10}:00 ${i % 2 ? 'AM' : 'PM'}`,
      lastOpDate: 'Mar 3, 2024 4:05:06 PM',
      vmNics: [{ uuid: (i + 1e6).toString(16).padStart(32, '0'), ip: '10.0.0.1', deviceId: 0.0, usedIps: [], createDate: 'Mar 3, 2024 4:05:06 PM' }],
      allVolumes: [
        { uuid: (i + 2e6).toString(16).padStart(32, '0'), size: 10737418240, type: 'Root', createDate: 'Mar 3, 2024 4:05:06 PM' },
        { uuid: (i + 3e6).toString(16).padStart(32, '0'), size: 1073741824, type: 'Data', createDate: 'Mar 3, 2024 4:05:06 PM' },
      ],
      vmCdRoms: [],
    });
    const zoned = makeClient({ upstreamTimezone: 'America/New_York', maxResponseBytes: 64 * 1024 * 1024 });
    capture(RES, 200, { items: Array.from({ length: 10_000 }, (_, i) => vm(i)), total: 10_000, nextCursor: null, hasMore: false });
    const started = performance.now();
    const page = await zoned.cursorQuery(TOKEN, { resourceType: 'vm', pageSize: 1000 });
    const elapsed = performance.now() - started;
    expect(page.items).toHaveLength(10_000);
    expect(page.items[9_999]?.allVolumes[1]?.size).toBe(1073741824);
    expect(new Date(page.items[0]!.createDate!).toISOString()).toBe('2024-03-01T18:00:00.000Z') // 1 PM EST (UTC-5);
    expect(elapsed).toBeLessThan(5000);
    // Decoding alone (no HTTP, no JSON parsing): 10,000 VMs, 40,000 timestamps in a DST zone.
    const wire = Array.from({ length: 10_000 }, (_, i) => vm(i));
    const decodeStarted = performance.now();
    const decoded = zoned.decoder.list(wire, 'items', zoned.decoder.vmInstance);
    const decodeElapsed = performance.now() - decodeStarted;
    expect(decoded).toHaveLength(10_000);
    expect(decodeElapsed).toBeLessThan(1000);
    await zoned.close();
  });
});

describe('ping and the request hook', () => {
  it('counts any HTTP answer as reachable and a failed connection as not', async () => {
    capture(UP, 404, 'Not Found', TEXT_HEADERS);
    expect(await client.ping()).toBe(true);
    agent
      .get(UP)
      .intercept({ path: () => true })
      .replyWithError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }));
    expect(await client.ping()).toBe(false);
  });

  it('survives a hook that throws', async () => {
    const noisy = makeClient({
      onRequest: () => {
        throw new Error('metrics down');
      },
    });
    capture(UP, 200, { inventories: [] });
    await expect(noisy.query(SESSION, 'cbtTasks', {})).resolves.toEqual({ inventories: [], total: null });
    await noisy.close();
  });
});

describe('against a real socket', () => {
  let server: Server;
  let requests = 0;
  let behave: (n: number, res: ServerResponse) => void;

  beforeEach(async () => {
    requests = 0;
    server = createServer((req, res) => {
      requests += 1;
      behave(requests, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterEach(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  function realClient(overrides: Partial<UpstreamClientOptions> = {}): UpstreamClient {
    const { port } = server.address() as AddressInfo;
    return createTestUpstreamClient({ upstreamUrl: `http://127.0.0.1:${port}`, upstreamTimeoutMs: 2000, retryBaseDelayMs: 1, ...overrides });
  }

  it('retries a GET whose connection was dropped, then decodes the answer', async () => {
    behave = (n, res) => {
      if (n === 1) {
        res.socket?.destroy();
        return;
      }
      res.writeHead(200, JSON_HEADERS).end(JSON.stringify({ inventories: [{ uuid: U1, name: 'task' }] }));
    };
    const real = realClient();
    const result = await real.query(SESSION, 'cbtTasks', {});
    expect(result.inventories[0]?.name).toBe('task');
    expect(requests).toBe(2);
    await real.close();
  });

  it('gives up with UPSTREAM_UNAVAILABLE when every attempt is dropped, and maps a closed port the same way', async () => {
    behave = (_n, res) => res.socket?.destroy();
    const real = realClient({ retries: 1 });
    expect((await failure(real.query(SESSION, 'cbtTasks', {}))).code).toBe('UPSTREAM_UNAVAILABLE');
    expect(requests).toBe(2);
    await real.close();
    const closed = createTestUpstreamClient({ upstreamUrl: 'http://127.0.0.1:1', retries: 0 });
    expect((await failure(closed.read(SESSION, GetHostSensors, { uuid: U1 }))).code).toBe('UPSTREAM_UNAVAILABLE');
    expect(await closed.ping()).toBe(false);
    await closed.close();
  });

  it('refuses an answer over maxResponseBytes while it streams, and reads one under it whole', async () => {
    const many = { inventories: Array.from({ length: 2000 }, (_, i) => ({ uuid: (i + 1).toString(16).padStart(32, '0'), name: `task-${i}` })) };
    behave = (_n, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      // Chunked (no Content-Length), several chunks: only counting while reading can catch it.
      const text = JSON.stringify(many);
      for (let at = 0; at < text.length; at += 16 * 1024) res.write(text.slice(at, at + 16 * 1024));
      res.end();
    };
    const small = realClient({ maxResponseBytes: 32 * 1024 });
    const error = await failure(small.query(SESSION, 'cbtTasks', {}));
    expect(error.code).toBe('UPSTREAM_PROTOCOL_ERROR');
    expect(error.message).toMatch(/exceeds 32768 bytes/);
    await small.close();
    const large = realClient();
    expect((await large.query(SESSION, 'cbtTasks', {})).inventories).toHaveLength(2000);
    await large.close();
  });

  it('fails, instead of waiting, when the connection drops in the middle of the body', async () => {
    behave = (_n, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"inventories": [', () => res.socket?.destroy());
    };
    const real = realClient({ retries: 0 });
    expect((await failure(real.query(SESSION, 'cbtTasks', {}))).code).toBe('UPSTREAM_UNAVAILABLE');
    await real.close();
  });

  it('times out a server that answers headers but stalls the body', async () => {
    behave = (_n, res) => {
      res.writeHead(200, JSON_HEADERS);
      res.write('{"inventories": [');
    };
    const real = realClient({ upstreamTimeoutMs: 200 });
    expect((await failure(real.query(SESSION, 'cbtTasks', {}))).code).toBe('UPSTREAM_TIMEOUT');
    await real.close();
  });
});
