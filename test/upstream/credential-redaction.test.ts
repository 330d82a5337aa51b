/**
 * The service quotes the credential it was sent in some errors (`Invalid session[OAuth …]`), as
 * the simulator does. No answer, log line or metric of the gateway shows it: field errors,
 * mutation payloads and job results carry the upstream's text with the credential scrubbed.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { defaultConfig } from '../../src/config/index.js';
import { createSimulator, type Simulator } from '../../src/simulator/server.js';
import { MAX_CREDENTIAL_CHARS } from '../../src/context.js';
import { UpstreamRequestError } from '../../src/upstream/errors.js';
import { redact, REDACTED } from '../../src/upstream/redact.js';
import { credentialHeaders } from '../support/harness.js';
import WebSocket from 'ws';
import { createTestUpstreamClient } from '../support/upstream-client.js';

/**
 * Sessions the simulator does not know, shaped like real ones; one per test, as the gateway
 * answers a session the upstream just rejected without asking it (or quoting it) again.
 */
const UNKNOWN_SESSION = '895a2c0e4b7d4f1a9c3e6b8d0f2a4c6e';
const OTHER_UNKNOWN_SESSION = '17c3e5a7b9d1f3a5c7e9b1d3f5a7c9e1';

interface Answer {
  status: number;
  text: string;
  body: { data?: Record<string, unknown> | null; errors?: { message: string; extensions?: Record<string, unknown> }[] };
}

describe('credentials in upstream text', () => {
  let simulator: Simulator;
  let app: App;
  let url: string;
  const logText: string[] = [];

  beforeAll(async () => {
    simulator = createSimulator({ asyncDelayMs: 5 });
    const simulatorUrl = await simulator.start(0, '127.0.0.1');
    const logger = pino({ level: 'debug' }, { write: (line: string) => void logText.push(line) });
    // Polling late, so a webhook the test sends itself is the one that finishes the job.
    app = createApp({ ...defaultConfig, port: 0, host: '127.0.0.1', upstreamUrl: simulatorUrl, jobPollAfterMs: 60_000 }, { logger });
    url = await app.start();
  });

  afterAll(async () => {
    await app.stop();
    await simulator.stop();
  });

  async function gql(query: string, headers: Record<string, string>, variables?: Record<string, unknown>): Promise<Answer> {
    const response = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
      body: JSON.stringify({ query, variables }),
    });
    const text = await response.text();
    return { status: response.status, text, body: JSON.parse(text) as Answer['body'] };
  }

  function expectNoSession(text: string): void {
    expect(text.toLowerCase()).not.toContain(UNKNOWN_SESSION);
  }

  it('keeps an unknown session out of a field error, the log and the metrics, and still says why it failed', async () => {
    const answer = await gql('{ cbtTasks(first: 1) { totalCount } }', { authorization: `OAuth ${UNKNOWN_SESSION}` });
    expectNoSession(answer.text);
    const error = answer.body.errors?.[0];
    expect(error?.extensions).toMatchObject({
      code: 'UNAUTHENTICATED',
      upstream: { code: 'ID.1001', description: 'The session is invalid, please login again', details: 'Invalid session[OAuth [redacted]]' },
    });
    expectNoSession(await (await fetch(`${url}/metrics`)).text());
    expect(logText.length).toBeGreaterThan(0);
    for (const line of logText) expectNoSession(line);
  });

  it('keeps an unknown session out of a mutation payload\'s error', async () => {
    const answer = await gql(
      'mutation($input: DeleteCbtTaskInput!) { deleteCbtTask(input: $input) { error { code description details cause { details } } job { status } } }',
      { authorization: `OAuth ${OTHER_UNKNOWN_SESSION}` },
      { input: { uuid: 'a'.repeat(32) } },
    );
    expect(answer.text.toLowerCase()).not.toContain(OTHER_UNKNOWN_SESSION);
    expect(answer.body.data?.deleteCbtTask).toMatchObject({ error: { code: 'ID.1001', details: 'Invalid session[OAuth [redacted]]' }, job: { status: 'FAILED' } });
  });

  it('keeps the caller\'s session out of a failed job delivered by webhook, in every spelling', async () => {
    const { session, tenantId } = simulator.credentials;
    simulator.configure({ dropWebhooks: true });
    try {
      const host = [...simulator.store.hosts.list(tenantId)].find((candidate) => candidate.status === 'Connected');
      const started = await gql(
        'mutation($input: UpdateHostNqnInput!) { updateHostNqn(input: $input) { job { id status } } }',
        { authorization: `OAuth ${session}` },
        { input: { uuid: host?.uuid, nqn: 'nqn.2014-08.org.nvmexpress:uuid:00000001-0000-4000-8000-000000000000', async: true } },
      );
      const job = (started.body.data?.updateHostNqn as { job: { id: string } }).job;
      const webHook = simulator.journal().find((entry) => entry.headers['x-job-uuid'] === job.id)?.headers['x-web-hook'];
      // What the service's webhook would carry had the job failed quoting the session.
      const delivered = await fetch(webHook ?? '', {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', 'x-job-uuid': job.id, 'x-job-success': 'false' },
        body: JSON.stringify({
          error: {
            code: 'SYS.1006',
            description: `operation failed for OAuth ${session}`,
            details: `session ${session.toUpperCase()} expired`,
            cause: { code: 'ID.1001', details: `Invalid session[${session}]`, opaque: { session } },
          },
        }),
      });
      expect(delivered.status).toBe(200);
      const read = await gql(`{ job(id: "${job.id}") { status error { description details cause { details opaque } } } }`, { authorization: `OAuth ${session}` });
      expect(read.text.toLowerCase()).not.toContain(session);
      expect(read.body.data?.job).toEqual({
        status: 'FAILED',
        error: {
          description: 'operation failed for OAuth [redacted]',
          details: 'session [redacted] expired',
          cause: { details: 'Invalid session[[redacted]]', opaque: { session: '[redacted]' } },
        },
      });
    } finally {
      simulator.configure({ dropWebhooks: false });
    }
  });
});

describe('credentials in the upstream client\'s errors', () => {
  let upstream: Server;
  let base: string;
  const token = 'tok_5Yf0pQ8mZc2LwR7vX1nB';

  beforeAll(async () => {
    // An upstream that quotes the credential back in every kind of failure it can answer.
    upstream = createServer((request, response) => {
      const authorization = request.headers.authorization ?? '';
      if (request.url?.includes('cursor-query')) {
        response.writeHead(400, { 'content-type': 'text/plain' }).end(`bad cursor for ${authorization} (token ${encodeURIComponent(token)})`);
      } else {
        response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'ID.1001', details: `unknown ${authorization}` } }));
      }
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => upstream.close(() => resolve()));
  });

  async function failure(promise: Promise<unknown>): Promise<UpstreamRequestError> {
    try {
      await promise;
    } catch (error) {
      if (error instanceof UpstreamRequestError) return error;
      throw error;
    }
    throw new Error('expected the call to fail');
  }

  it('scrubs a bearer token quoted in plain text and in an ErrorCode, percent-encoded or not', async () => {
    const client = createTestUpstreamClient({ upstreamUrl: base, retries: 0 });
    try {
      const plain = await failure(client.cursorQuery({ authorization: `Bearer ${token}`, tenantId: undefined }, { resourceType: 'vm' }));
      expect(plain.code).toBe('UPSTREAM_BAD_REQUEST');
      expect(plain.message).toContain('bad cursor for Bearer [redacted] (token [redacted])');
      const coded = await failure(client.query({ authorization: `Bearer ${token}` }, 'cbtTasks', {}));
      expect(JSON.stringify({ message: coded.message, errorCode: coded.errorCode })).not.toContain(token);
      expect(coded.errorCode?.details).toBe('unknown Bearer [redacted]');
    } finally {
      await client.close();
    }
  });
});

describe('redaction never fails, and over-long credentials go nowhere', () => {
  it('redacts a 70,000-character secret full of pattern characters, in any case and percent-encoded, without throwing', () => {
    const secret = `${'z'.repeat(35_000)}(.*+?[{\\${'Z'.repeat(34_990)}`;
    const text = `before ${secret.toUpperCase()} middle ${encodeURIComponent(secret)} after OAuth ${'q'.repeat(20)}`;
    const clean = redact(text, [secret]);
    expect(clean).toBe(`before ${REDACTED} middle ${REDACTED} after OAuth ${REDACTED}`);
    // A secret that cannot be percent-encoded is still found as sent.
    expect(redact('x \ud800secret y', ['\ud800secret'])).toBe(`x ${REDACTED} y`);
  });

  describe('over every transport', () => {
    let simulator: Simulator;
    let app: App;
    let url: string;
    const logText: string[] = [];
    /** Longer than any credential may be, shorter than node:http's 16 KB header bound. */
    const overlong = `OAuth ${'z'.repeat(MAX_CREDENTIAL_CHARS + 100)}`;
    /** What the WebSocket of the issue sent: far over any header bound. */
    const huge = `OAuth ${'z'.repeat(70_000)}`;

    beforeAll(async () => {
      simulator = createSimulator({ asyncDelayMs: 5 });
      const simulatorUrl = await simulator.start(0, '127.0.0.1');
      const logger = pino({ level: 'trace' }, { write: (line: string) => void logText.push(line) });
      app = createApp({ ...defaultConfig, port: 0, host: '127.0.0.1', upstreamUrl: simulatorUrl }, { logger });
      url = await app.start();
    });

    afterAll(async () => {
      await app?.stop();
      await simulator?.stop();
    });

    function expectNotLogged(): void {
      expect(logText.length).toBeGreaterThan(0);
      for (const line of logText) expect(line).not.toContain('z'.repeat(32));
    }

    it('refuses an over-long credential header UNAUTHENTICATED over POST, GET and SSE, before the upstream, and logs none of it', async () => {
      simulator.resetStats();
      const query = '{ cbtTasks(first: 1) { totalCount } }';
      for (const header of ['authorization', 'x-resources-authorization', 'x-tenant-id']) {
        const headers = { ...credentialHeaders(simulator.credentials), [header]: overlong };
        const answers = [
          await fetch(`${url}/graphql`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json', accept: 'application/graphql-response+json' }, body: JSON.stringify({ query }) }),
          await fetch(`${url}/graphql?query=${encodeURIComponent(query)}`, { headers: { ...headers, accept: 'application/json' } }),
          await fetch(`${url}/graphql?query=${encodeURIComponent('subscription { jobEvents { __typename } }')}`, { headers: { ...headers, accept: 'text/event-stream' } }),
        ];
        for (const answer of answers) {
          const text = await answer.text();
          expect(answer.status, text).toBe(401);
          expect(text).toContain('UNAUTHENTICATED');
          expect(text).not.toContain('z'.repeat(32));
        }
      }
      expect(simulator.stats().total).toBe(0);
      expectNotLogged();
    });

    it('answers headers over 16 KB 431 with a coded body', async () => {
      const answer = await fetch(`${url}/graphql`, { method: 'POST', headers: { authorization: huge, 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' });
      expect(answer.status).toBe(431);
      expect(await answer.text()).toContain('BAD_REQUEST');
    });

    it('refuses a 70,000-character credential in graphql-ws connectionParams UNAUTHENTICATED per operation, before the upstream, and logs none of it', async () => {
      simulator.resetStats();
      for (const name of ['authorization', 'x-resources-authorization', 'x-tenant-id']) {
        const socket = new WebSocket(`${url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
        const received: Record<string, unknown>[] = [];
        socket.on('message', (data) => received.push(JSON.parse(String(data)) as Record<string, unknown>));
        await once(socket, 'open');
        socket.send(JSON.stringify({ type: 'connection_init', payload: { ...credentialHeaders(simulator.credentials), [name]: huge } }));
        await eventuallyTrue(() => received.some((message) => message.type === 'connection_ack'));
        socket.send(JSON.stringify({ type: 'subscribe', id: 'q', payload: { query: '{ cbtTasks(first: 1) { totalCount } }' } }));
        socket.send(JSON.stringify({ type: 'subscribe', id: 's', payload: { query: 'subscription { jobEvents { __typename } }' } }));
        await eventuallyTrue(() => ['q', 's'].every((id) => received.some((message) => message.id === id)));
        socket.close();
        for (const id of ['q', 's']) {
          const answer = received.find((message) => message.id === id);
          expect(answer?.type).toBe('error');
          expect(JSON.stringify(answer)).toContain('UNAUTHENTICATED');
          expect(JSON.stringify(answer)).not.toContain('z'.repeat(32));
        }
      }
      expect(simulator.stats().total).toBe(0);
      expectNotLogged();
    });
  });
});

async function eventuallyTrue(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('gave up waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
