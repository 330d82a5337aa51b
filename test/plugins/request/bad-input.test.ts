/**
 * Bad input in GraphQL requests (issue 38): every answer at /graphql is a GraphQL response with a
 * code and a fitting status; text that cannot be sent upstream is the caller's BAD_USER_INPUT,
 * found before any upstream request; names and string literals are bounded and never echoed whole.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { errorCodes, startHarness, type Harness } from '../../support/harness.js';

interface Answer {
  status: number;
  contentType: string | null;
  text: string;
  body: { data?: unknown; errors?: { message: string; extensions?: Record<string, unknown> }[] } | undefined;
}

describe('bad input in GraphQL requests', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness();
  });

  afterAll(async () => {
    await harness?.close();
  });

  async function send(init: RequestInit & { path?: string }): Promise<Answer> {
    const response = await fetch(`${harness.url}${init.path ?? '/graphql'}`, { ...init, headers: { ...harness.headers, ...(init.headers as Record<string, string>) } });
    const text = await response.text();
    let body: Answer['body'];
    try {
      body = JSON.parse(text) as Answer['body'];
    } catch {
      body = undefined;
    }
    return { status: response.status, contentType: response.headers.get('content-type'), text, body };
  }

  const post = (payload: unknown, accept = 'application/graphql-response+json'): Promise<Answer> =>
    send({ method: 'POST', headers: { 'content-type': 'application/json', accept }, body: JSON.stringify(payload) });

  function expectCoded(answer: Answer, status: number, code: string): void {
    expect(answer.status, answer.text).toBe(status);
    expect(answer.contentType).toMatch(/application\/(graphql-response\+)?json/);
    expect(errorCodes(answer.body ?? {}), answer.text).toContain(code);
  }

  describe('every answer is a coded GraphQL response', () => {
    it('answers a @live query asked for as JSON 406 NOT_ACCEPTABLE, saying it needs a streaming transport', async () => {
      for (const accept of ['application/json', 'application/graphql-response+json']) {
        const answer = await post({ query: 'query @live { __typename }' }, accept);
        expectCoded(answer, 406, 'NOT_ACCEPTABLE');
        expect(answer.body?.errors?.[0]?.message).toMatch(/text\/event-stream|graphql-ws/);
      }
      // A subscription asked for as JSON, the same.
      expectCoded(await post({ query: 'subscription { jobEvents { __typename } }' }, 'application/json'), 406, 'NOT_ACCEPTABLE');
    });

    it('answers an Accept that matches no answer type 406 NOT_ACCEPTABLE, and runs nothing', async () => {
      harness.resetStats();
      for (const accept of ['text/html', 'image/png', 'application/xml', 'application/json; charset=latin1']) {
        expectCoded(await post({ query: '{ hosts(first: 1) { totalCount } }' }, accept), 406, 'NOT_ACCEPTABLE');
      }
      expect(harness.upstreamRequests()).toBe(0);
      // Wildcards still match.
      for (const accept of ['*/*', 'application/*', '']) expect((await post({ query: '{ __typename }' }, accept)).status).toBe(200);
    });

    it('answers PUT, PATCH and DELETE with a coded body, whatever the Accept', async () => {
      for (const method of ['PUT', 'PATCH', 'DELETE']) {
        for (const accept of ['application/json', 'application/graphql-response+json', 'text/html']) {
          const answer = await send({ method, headers: { 'content-type': 'application/json', accept }, body: '{"query":"{ __typename }"}' });
          expect(answer.status, `${method} ${accept}`).toBeGreaterThanOrEqual(400);
          expect(answer.status, `${method} ${accept}`).toBeLessThan(500);
          expect(errorCodes(answer.body ?? {}).length, `${method} ${accept}: ${answer.text}`).toBeGreaterThan(0);
        }
      }
    });

    it('answers a multipart request whose operations or map is not JSON 400 BAD_REQUEST', async () => {
      for (const [operations, map] of [['notjson', '{}'], ['{"query":"{ __typename }"}', 'notjson']]) {
        const form = new FormData();
        form.set('operations', operations!);
        form.set('map', map!);
        for (const accept of [undefined, 'application/json']) {
          const answer = await send({ method: 'POST', headers: { 'x-graphql-yoga-csrf': '1', ...(accept ? { accept } : {}) }, body: form });
          expectCoded(answer, 400, 'BAD_REQUEST');
        }
      }
    });
  });

  describe('text that cannot be sent upstream', () => {
    const removeReceiver = 'mutation($i: RemoveSnsSmsReceiverInput!) { removeSnsSmsReceiver(input: $i) { status } }';
    const cbtTasks = 'query($n: String) { cbtTasks(first: 1, filter: { nameContains: $n }) { totalCount } }';

    it('refuses a lone surrogate in a variable as BAD_USER_INPUT naming the variable, before any upstream request', async () => {
      harness.resetStats();
      const cases: [string, Record<string, unknown>, string, unknown[]][] = [
        [removeReceiver, { i: { endpointUuid: '0123456789abcdef0123456789abcdef', phoneNumber: '\ud800' } }, 'i', ['phoneNumber']],
        [cbtTasks, { n: '\udc00' }, 'n', []],
        [cbtTasks, { n: 'ok\ud800ok' }, 'n', []],
        // A path parameter, a query parameter, a list and a key of a JSON value.
        ['query($u: Uuid!) { host(uuid: $u) { name } }', { u: '\ud800' }, 'u', []],
        ['query($n: [Uuid!]!) { hosts(first: 1, filter: { uuids: $n }) { totalCount } }', { n: ['0123456789abcdef0123456789abcdef', '\udfff'] }, 'n', [1]],
      ];
      for (const [query, variables, variable, path] of cases) {
        const answer = await post({ query, variables }, 'application/json');
        const error = answer.body?.errors?.[0];
        expect(error?.extensions, answer.text).toMatchObject({ code: 'BAD_USER_INPUT', variable, path });
        expect(answer.text).not.toContain('INTERNAL_SERVER_ERROR');
      }
      expect(harness.upstreamRequests()).toBe(0);
    });

    it('accepts well-formed text outside the BMP (a surrogate pair) and sends it upstream', async () => {
      const answer = await post({ query: cbtTasks, variables: { n: 'disk 💾' } }, 'application/json');
      expect(answer.body?.errors, answer.text).toBeUndefined();
    });

    it('refuses a lone surrogate over graphql-ws the same way', async () => {
      const socket = new WebSocket(`${harness.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
      const received: Record<string, unknown>[] = [];
      await new Promise<void>((resolve) => socket.once('open', () => resolve()));
      socket.on('message', (data) => received.push(JSON.parse(String(data)) as Record<string, unknown>));
      socket.send(JSON.stringify({ type: 'connection_init', payload: harness.headers }));
      const ackBy = Date.now() + 10_000;
      while (!received.some((message) => message.type === 'connection_ack') && Date.now() < ackBy) await new Promise((resolve) => setTimeout(resolve, 20));
      socket.send(JSON.stringify({ type: 'subscribe', id: '1', payload: { query: cbtTasks, variables: { n: '\ud800' } } }));
      const deadline = Date.now() + 10_000;
      while (!received.some((message) => message.id === '1' && message.type !== 'complete') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      socket.close();
      const answer = received.find((message) => message.id === '1');
      expect(JSON.stringify(answer)).toContain('BAD_USER_INPUT');
    });
  });

  describe('names and string literals', () => {
    it('refuses a name over 256 characters MAX_TOKEN_LENGTH_EXCEEDED, and never echoes it', async () => {
      const name = `a${'x'.repeat(500_000)}`;
      for (const query of [`{ ${name} }`, `query ${name} { __typename }`, `{ __typename ${name}: __typename }`]) {
        const answer = await post({ query });
        expectCoded(answer, 400, 'MAX_TOKEN_LENGTH_EXCEEDED');
        expect(answer.text.length).toBeLessThan(2_000);
      }
      // Just under the limit: validated as usual, the unknown field's name quoted short.
      const answer = await post({ query: `{ a${'x'.repeat(250)} }` });
      expectCoded(answer, 400, 'GRAPHQL_VALIDATION_FAILED');
      expect(answer.text.length).toBeLessThan(1_000);
    });

    it('refuses a string literal over 16 KiB, and sends a long one that fits back cut short', async () => {
      expectCoded(await post({ query: `{ hosts(first: 1, filter: { nameContains: "${'y'.repeat(20_000)}" }) { totalCount } }` }), 400, 'MAX_TOKEN_LENGTH_EXCEEDED');
      const answer = await post({ query: `{ hosts(first: "${'y'.repeat(16_000)}") { totalCount } }` });
      expectCoded(answer, 400, 'GRAPHQL_VALIDATION_FAILED');
      expect(answer.text.length).toBeLessThan(2_000);
    });

    it('never echoes a syntax error\'s huge token whole', async () => {
      const answer = await post({ query: `{ __typename } ${'z'.repeat(300_000)}` });
      expectCoded(answer, 400, 'GRAPHQL_PARSE_FAILED');
      expect(answer.text.length).toBeLessThan(2_000);
    });
  });
});
