/**
 * The per-request upstream session: it binds the caller's credentials and the request's options,
 * so resolvers and loaders never hold a credential. Against a real HTTP server that records what
 * it is sent.
 */
import { Caller } from '../../src/upstream/credentials.js';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CursorQuery, GetHostSensors, type UpstreamClient } from '../../src/upstream/index.js';
import { createUpstreamSession, type SessionBinding } from '../../src/upstream/session.js';
import { createTestUpstreamClient } from '../support/upstream-client.js';

const HOST = 'c'.repeat(32);

let server: Server;
let client: UpstreamClient;
let received: IncomingHttpHeaders[];

beforeAll(async () => {
  server = createServer((req, res) => {
    received.push(req.headers);
    res.setHeader('content-type', 'application/json');
    // Slow enough for a hang-up to land while the read waits.
    setTimeout(() => res.end(JSON.stringify({ items: [], total: 0, nextCursor: null, hasMore: false, sensors: [] })), 30);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  client = createTestUpstreamClient({ upstreamUrl: `http://127.0.0.1:${port}`, retries: 0 });
});

afterAll(async () => {
  await client.close();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  received = [];
});

type Credentials = Pick<Caller, 'resource' | 'cursor'>;

/** A binding of the session's tests: their caller (its credentials as given) and read options. */
function binding(overrides: Partial<Omit<SessionBinding, 'caller'>> & Partial<Credentials> = {}): SessionBinding {
  const { resource, cursor, ...rest } = { resource: { authorization: 'OAuth the-session' }, cursor: { authorization: 'Bearer the-token', tenantId: 'the-tenant' }, ...overrides };
  return {
    caller: new Caller(resource, cursor),
    requestId: 'request-7',
    signal: undefined,
    clientAddress: undefined,
    missingCredential: (family) => new Error(`missing ${family}`),
    ...rest,
  };
}

describe('the upstream session', () => {
  it('sends each family its own credential and the request id, given once when the session is made', async () => {
    const session = createUpstreamSession(client, binding());
    await session.read(GetHostSensors, { uuid: HOST });
    await session.cursorQuery({ resourceType: 'host' });
    expect(received.map((headers) => [headers.authorization, headers['x-tenant-id'], headers['x-request-id']])).toEqual([
      ['OAuth the-session', undefined, 'request-7'],
      ['Bearer the-token', 'the-tenant', 'request-7'],
    ]);
  });

  it('fails a read whose family credential the caller did not send, before any upstream request', () => {
    const session = createUpstreamSession(client, binding({ resource: undefined, cursor: undefined }));
    expect(() => session.read(GetHostSensors, { uuid: HOST })).toThrow('missing resource');
    expect(() => session.cursorQuery({ resourceType: 'vm' })).toThrow('missing cursor');
    expect(() => session.callerIdentity('cursor')).toThrow('missing cursor');
    expect(received).toHaveLength(0);
  });

  it('reads any operation of the catalogue under the credential of its family', async () => {
    const session = createUpstreamSession(client, binding());
    await session.read(CursorQuery, { resourceType: 'vm' });
    await session.read(GetHostSensors, { uuid: HOST });
    expect(received.map((headers) => [headers.authorization, headers['x-tenant-id']])).toEqual([
      ['Bearer the-token', 'the-tenant'],
      ['OAuth the-session', undefined],
    ]);
    expect(() => createUpstreamSession(client, binding({ cursor: undefined })).read(CursorQuery, { resourceType: 'vm' })).toThrow('missing cursor');
  });

  it('gives the job manager the caller of a write: the credential to poll with and one owner for every spelling of it', () => {
    const caller = createUpstreamSession(client, binding()).jobCaller();
    expect(caller.credential).toEqual({ authorization: 'OAuth the-session' });
    const respelled = createUpstreamSession(client, binding({ resource: { authorization: ' oauth   the-session ' } })).jobCaller();
    expect(respelled.owner).toBe(caller.owner);
    expect(createUpstreamSession(client, binding({ resource: { authorization: 'OAuth another' } })).jobCaller().owner).not.toBe(caller.owner);
    expect(() => createUpstreamSession(client, binding({ resource: undefined })).jobCaller()).toThrow('missing resource');
  });

  it('cancels its reads when the request hangs up, but not those of its copy without the signal', async () => {
    const hangUp = new AbortController();
    const session = createUpstreamSession(client, binding({ signal: hangUp.signal }));
    const detached = session.withoutSignal();
    const cancelled = session.read(GetHostSensors, { uuid: HOST });
    const kept = detached.read(GetHostSensors, { uuid: HOST });
    hangUp.abort();
    await expect(cancelled).rejects.toBeDefined();
    await expect(kept).resolves.toBeDefined();
  });
});

describe('who handles credentials', () => {
  // Reads go through `context.session`, and writes take their job's caller from it (`jobCaller`).
  const CREDENTIAL_USE = /requireResourceCredential|requireCursorCredential|readOptions|ownerOf|\.credentials\b|context\.upstream\.(?!decoder\b)/;

  it('no resolver, loader or mutation of the schema touches a credential or the client itself', () => {
    const dir = new URL('../../src/schema/', import.meta.url);
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
    expect(files).toContain('kit/mutation-kit.ts');
    const offenders = files.filter((file) => CREDENTIAL_USE.test(readFileSync(new URL(file, dir), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
