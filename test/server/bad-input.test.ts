/**
 * Bad input at the server itself (issue 38): request targets that are not a path, and graphql-ws
 * messages only a server may send. Each is the caller's mistake: a 400 with a coded GraphQL body,
 * or a socket closed 4400 with a reason; never a 500, a stack or an error log line.
 */
import { once } from 'node:events';
import { connect } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createApp, type App } from '../../src/app.js';
import { defaultConfig } from '../../src/config/index.js';
import { createSimulator, type Simulator } from '../../src/simulator/server.js';

interface RawAnswer {
  status: number;
  headers: string;
  body: string;
}

/** Sends `request` as written on a fresh connection and reads the first answer. */
function rawRequest(port: number, request: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    const finish = (closed = false): void => {
      const [head = '', ...rest] = received.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? -1);
      const body = rest.join('\r\n\r\n');
      if (!closed && length >= 0 && Buffer.byteLength(body) < length) return;
      socket.destroy();
      resolve({ status, headers: head, body });
    };
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
      if (received.includes('\r\n\r\n') && !request.startsWith('HEAD')) finish();
    });
    socket.on('close', () => finish(true));
    socket.on('error', reject);
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no answer to ${request.split('\r\n')[0]}`)));
    socket.write(request);
  });
}

describe('bad input at the server', () => {
  let simulator: Simulator;
  let app: App;
  let port: number;
  const logLines: string[] = [];

  beforeAll(async () => {
    simulator = createSimulator({ asyncDelayMs: 5 });
    const upstreamUrl = await simulator.start(0, '127.0.0.1');
    const logger = pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) });
    app = createApp({ ...defaultConfig, port: 0, host: '127.0.0.1', upstreamUrl }, { logger });
    port = Number(new URL(await app.start()).port);
  });

  afterAll(async () => {
    await app?.stop();
    await simulator?.stop();
  });

  const body = '{"query":"{ __typename }"}';
  const targets = ['http://127.0.0.1:1/graphql', `http://127.0.0.1/graphql`, 'https://example.com/graphql?x=1', '*', '127.0.0.1:1', 'graphql', '@evil/graphql'];
  const methods = ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'HEAD'];

  it('answers a request target that is not a path 400 BAD_REQUEST in a GraphQL body, for every method and target form', async () => {
    for (const target of targets) {
      for (const method of methods) {
        const withBody = method === 'POST' || method === 'PUT' || method === 'PATCH';
        const head = `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n${withBody ? `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n` : ''}\r\n`;
        const answer = await rawRequest(port, head + (withBody ? body : ''));
        const what = `${method} ${target}`;
        expect(answer.status, what).toBe(400);
        expect(answer.headers, what).toMatch(/content-type: application\/json/i);
        if (method === 'HEAD') continue;
        expect(JSON.parse(answer.body), what).toMatchObject({ errors: [{ extensions: { code: 'BAD_REQUEST' } }] });
        expect(answer.body, what).not.toMatch(/node_modules|\/src\/|\n\s+at /);
      }
    }
  }, 120_000);

  it('answers a Host header that makes no URL 400 BAD_REQUEST, and still serves a path with a good Host', async () => {
    const bad = await rawRequest(port, `POST /graphql HTTP/1.1\r\nHost: a b[\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body)).toMatchObject({ errors: [{ extensions: { code: 'BAD_REQUEST' } }] });
    const good = await rawRequest(port, `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    expect(good.status).toBe(200);
    expect(JSON.parse(good.body)).toMatchObject({ data: { __typename: 'Query' } });
  });

  it('closes a graphql-ws socket 4400 with a reason when the client sends a message only a server sends, and logs no error', async () => {
    const messages: Record<string, unknown>[] = [
      { type: 'next', id: '1', payload: { data: {} } },
      { type: 'connection_ack' },
      { type: 'error', id: '1', payload: [{ message: 'x' }] },
    ];
    for (const afterAck of [false, true]) {
      for (const message of messages) {
        const errorsBefore = logLines.filter((line) => line.includes('"level":50')).length;
        const socket = new WebSocket(`ws://127.0.0.1:${port}/graphql`, 'graphql-transport-ws');
        await once(socket, 'open');
        if (afterAck) {
          socket.send(JSON.stringify({ type: 'connection_init', payload: {} }));
          await once(socket, 'message');
        }
        const closed = once(socket, 'close') as Promise<[number, Buffer]>;
        socket.send(JSON.stringify(message));
        const [code, reason] = await closed;
        expect(code, JSON.stringify(message)).toBe(4400);
        expect(reason.toString()).toContain(String(message.type));
        expect(logLines.filter((line) => line.includes('"level":50')).length).toBe(errorsBefore);
      }
    }
    expect(logLines.join('\n')).not.toMatch(/\\n\s+at /);
  });
});
