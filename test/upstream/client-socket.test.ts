/**
 * The upstream client against a real socket, for what a mock cannot show: dropped connections,
 * a closed port, a body over the size limit while it streams, a connection lost mid-body, and a
 * stalled body.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { UpstreamClient, UpstreamClientOptions } from '../../src/upstream/index.js';
import { GetHostSensors } from '../../src/upstream/operations/index.js';
import { createTestUpstreamClient } from '../support/upstream-client.js';
import { JSON_HEADERS, SESSION, U1, failure } from './mock-upstream.js';

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
