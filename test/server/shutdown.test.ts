/**
 * Graceful shutdown of the real process: SIGTERM while a query is in flight lets it finish,
 * WebSocket clients are told "going away" (1001), and the process exits 0.
 */
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createSimulator, type Simulator } from '../../src/simulator/server.js';
import { eventually, spawnGateway } from '../support/process.js';

describe('SIGTERM', () => {
  let simulator: Simulator;
  let simulatorUrl: string;

  beforeAll(async () => {
    simulator = createSimulator();
    simulatorUrl = await simulator.start(0, '127.0.0.1');
  });

  afterAll(async () => {
    await simulator?.stop();
  });

  /** A graphql-transport-ws client with one subscription open; resolves the close code. */
  async function openSubscription(url: string, authorization: string): Promise<{ closed: Promise<number> }> {
    const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
    const closed = once(socket, 'close').then(([code]) => code as number);
    await once(socket, 'open');
    socket.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: authorization } }));
    const [ack] = (await once(socket, 'message')) as [Buffer];
    expect(JSON.parse(ack.toString())).toMatchObject({ type: 'connection_ack' });
    socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: 'subscription { jobEvents { id } }' } }));
    return { closed };
  }

  it('lets a running query finish, closes WebSockets with 1001 and exits 0', async () => {
    const gateway = await spawnGateway({ PORT: '0', UPSTREAM_URL: simulatorUrl });
    const { session, token, tenantId } = simulator.credentials;
    const { closed: socketClosed } = await openSubscription(gateway.url, `OAuth ${session}`);

    simulator.configure({ latencyMs: 1500 });
    simulator.resetStats();
    const answer = fetch(`${gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-resources-authorization': `Bearer ${token}`, 'x-tenant-id': tenantId },
      body: JSON.stringify({ query: 'query Slow { hosts(first: 2) { totalCount nodes { name } } }' }),
    });
    // The query is in flight once its upstream request has reached the (slow) simulator.
    await eventually(() => simulator.journal().some((entry) => entry.operation === 'CursorQuery'), 'the query to reach the upstream');
    expect(gateway.child.kill('SIGTERM')).toBe(true);

    const response = await answer;
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data?: { hosts: { totalCount: number; nodes: unknown[] } }; errors?: unknown };
    expect(body.errors).toBeUndefined();
    expect(body.data?.hosts.nodes).toHaveLength(2);
    expect(await socketClosed).toBe(1001);
    expect(await gateway.exited).toBe(0);
    const messages = gateway
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages).toEqual(expect.arrayContaining(['shutting down', 'stopped']));
    simulator.configure({ latencyMs: 0 });
  });

  it('cuts SSE and multipart HTTP subscriptions at once, so it exits long before SHUTDOWN_TIMEOUT_MS', async () => {
    const gateway = await spawnGateway({ PORT: '0', UPSTREAM_URL: simulatorUrl, SHUTDOWN_TIMEOUT_MS: '60000' });
    const { session } = simulator.credentials;
    const open = async (accept: string) => {
      const response = await fetch(`${gateway.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept, authorization: `OAuth ${session}` },
        body: JSON.stringify({ query: 'subscription { jobEvents { id } }' }),
      });
      expect(response.status).toBe(200);
      // `ended` resolves when the server ends the stream (cut or completed).
      const ended = (async () => {
        try {
          for await (const _chunk of response.body as unknown as AsyncIterable<Uint8Array>);
        } catch {
          // A cut connection ends it too.
        }
        return 'ended';
      })();
      return { ended };
    };
    const sse = await open('text/event-stream');
    const multipart = await open('multipart/mixed;subscriptionSpec=1.0, application/json');
    const signalled = Date.now();
    expect(gateway.child.kill('SIGTERM')).toBe(true);
    expect(await Promise.all([sse.ended, multipart.ended])).toEqual(['ended', 'ended']);
    expect(await gateway.exited).toBe(0);
    // Waiting for the streams would have taken the whole 60 s.
    expect(Date.now() - signalled).toBeLessThan(20_000);
  });

  it('exits 0 within its shutdown timeout when its log reader is gone, with log lines still buffered', async () => {
    const gateway = await spawnGateway({ UPSTREAM_URL: simulatorUrl, SHUTDOWN_TIMEOUT_MS: '5000' });
    // A log shipper that stopped reading: the pipe fills, and the gateway keeps lines in its buffer.
    gateway.child.stdout!.pause();
    const headers = { 'content-type': 'application/json', authorization: `OAuth ${simulator.credentials.session}` };
    const host = [...simulator.store.hosts.list(simulator.credentials.tenantId)][0]!;
    // Each failed write logs a line ("job finished"), more than a pipe holds.
    const body = JSON.stringify({ query: `mutation { updateHostNqn(input: { uuid: "${host.uuid}", nqn: "not-an-nqn" }) { status } }` });
    for (let round = 0; round < 16; round++) {
      await Promise.all(Array.from({ length: 50 }, () => fetch(`${gateway.url}/graphql`, { method: 'POST', headers, body }).then((response) => response.text())));
    }
    // Then the shipper dies, and the orchestrator asks the gateway to stop.
    gateway.child.stdout!.destroy();
    const asked = Date.now();
    gateway.child.kill('SIGTERM');
    const exited = await Promise.race([gateway.exited, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 10_000))]);
    if (exited === 'hung') gateway.child.kill('SIGKILL');
    expect(exited).toBe(0);
    expect(Date.now() - asked).toBeLessThan(5000);
  });
});
