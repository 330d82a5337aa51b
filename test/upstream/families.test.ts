/**
 * The two family implementations against a real HTTP server that records what it is asked: one
 * family-neutral filter, spelled as each family's wire text.
 */
import { Caller } from '../../src/upstream/credentials.js';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { UpstreamClient } from '../../src/upstream/index.js';
import { cursorFamilyOf, resourceFamilyOf, type Condition } from '../../src/upstream/families.js';
import { createUpstreamSession, type UpstreamSession } from '../../src/upstream/session.js';
import { createTestUpstreamClient } from '../support/upstream-client.js';

const A = 'a'.repeat(32);
const B = 'b'.repeat(32);

let server: Server;
let client: UpstreamClient;
let session: UpstreamSession;
let requests: URL[];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    const url = new URL(req.url ?? '/', 'http://upstream');
    requests.push(url);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(url.pathname.includes('cursor-query') ? { items: [], total: 0, nextCursor: null, hasMore: false } : { inventories: [], total: 0 }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  client = createTestUpstreamClient({ upstreamUrl: `http://127.0.0.1:${port}`, retries: 0 });
  session = createUpstreamSession(client, {
    caller: new Caller({ authorization: 'OAuth session' }, { authorization: 'Bearer token', tenantId: 'tenant' }),
    requestId: 'req-1',
    signal: undefined,
    clientAddress: undefined,
    missingCredential: (family) => new Error(`no ${family} credential`),
  });
});

afterAll(async () => {
  await client.close();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  requests = [];
});

const vms = cursorFamilyOf('vm');
const tasks = resourceFamilyOf('cbtTasks');

describe('one neutral filter, two spellings', () => {
  const where: Condition[] = [
    { field: 'uuid', op: 'in', value: [A, B] },
    { field: 'name', op: 'contains', value: 'web' },
    { field: 'state', op: 'eq', value: 'Running' },
    { field: 'size', op: 'gt', value: '10' },
    { field: 'type', op: 'notIn', value: ['ApplianceVm'] },
  ];

  it('the cursor family sends each condition as filter=field:op:value', async () => {
    await vms.readAll(session, where);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.searchParams.getAll('filter')).toEqual([
      `uuid:in:${A},${B}`,
      'name:like:%web%',
      'state:eq:Running',
      'size:gt:10',
      'type:nin:ApplianceVm',
    ]);
  });

  it('the resource family sends each condition as q=<field><op><value>', async () => {
    await tasks.readAll(session, where);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.searchParams.getAll('q')).toEqual([`uuid?=${A},${B}`, 'name~=%web%', 'state=Running', 'size>10', 'type!?=ApplianceVm']);
  });

  it('an in-list of one value is an equality in both families', async () => {
    await vms.readAll(session, [{ field: 'uuid', op: 'in', value: [A] }]);
    await tasks.readAll(session, [{ field: 'uuid', op: 'in', value: [A] }]);
    expect(requests[0]!.searchParams.getAll('filter')).toEqual([`uuid:eq:${A}`]);
    expect(requests[1]!.searchParams.getAll('q')).toEqual([`uuid=${A}`]);
  });

  it('an empty in-list matches nothing in both families, without an upstream request', async () => {
    const nothing: Condition[] = [{ field: 'uuid', op: 'in', value: [] }];
    expect(await vms.readAll(session, nothing)).toEqual([]);
    expect(await tasks.readAll(session, nothing)).toEqual([]);
    expect(requests).toHaveLength(0);
  });

  it('an empty not-in list matches everything in both families: the condition is left out', async () => {
    const everything: Condition[] = [{ field: 'type', op: 'notIn', value: [] }];
    await vms.readAll(session, everything);
    await tasks.readAll(session, everything);
    expect(requests).toHaveLength(2);
    expect(requests[0]!.searchParams.getAll('filter')).toEqual([]);
    expect(requests[1]!.searchParams.getAll('q')).toEqual([]);
  });
});
