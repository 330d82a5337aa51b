/**
 * Subscriptions over plain HTTP in Apollo's multipart protocol (`multipart/mixed;subscriptionSpec=1.0`),
 * read off the wire: the framing, the events, the refusals, and the same limits as SSE.
 * (Apollo Client's own HttpLink over it: real-clients.test.ts.)
 */
import { createSchema, createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useMultipartSubscriptions } from '../../src/plugins/result/use-multipart-subscriptions.js';
import { startHarness, type Harness } from '../support/harness.js';
import { connectedHost } from '../support/replica-jobs.js';

const ACCEPT = 'multipart/mixed;subscriptionSpec="1.0", application/json';
const JOB_EVENTS = 'subscription { jobEvents { id status } }';

/** A multipart subscription read as raw text, split into its parts' JSON bodies as they arrive. */
async function openMultipart(harness: Harness, query: string, accept = ACCEPT, variables: Record<string, unknown> = {}) {
  const abort = new AbortController();
  const response = await fetch(`${harness.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept, ...harness.headers },
    body: JSON.stringify({ query, variables }),
    signal: abort.signal,
  });
  let text = '';
  const ended = (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) text += decoder.decode(chunk, { stream: true });
    } catch {
      // Aborted by the test.
    }
  })();
  /** The JSON of every part closed by a boundary so far. */
  const parts = (): unknown[] =>
    text
      .split('\r\n--graphql')
      .slice(1, -1)
      .map((part) => JSON.parse(part.slice(part.indexOf('\r\n\r\n') + 4)) as unknown);
  return { response, parts, text: () => text, ended, close: () => abort.abort() };
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('subscriptions over multipart HTTP (Apollo protocol)', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({ config: { jobPollAfterMs: 100, maxSubscriptionsPerCredential: 2 } });
    // The credential has been accepted upstream, as any dashboard's has by the time it subscribes.
    await harness.gql('{ hosts(first: 1) { totalCount } }');
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('streams a heartbeat first, then each event as {"payload": ...}, each part closed by the boundary', async () => {
    const stream = await openMultipart(harness, JOB_EVENTS);
    try {
      expect(stream.response.status).toBe(200);
      expect(stream.response.headers.get('content-type')).toBe('multipart/mixed;boundary="graphql";subscriptionSpec=1.0');
      await until(() => stream.parts().length >= 1, 'the first heartbeat');
      expect(stream.parts()).toEqual([{}]);
      expect(stream.text().startsWith('\r\n--graphql\r\ncontent-type: application/json\r\n\r\n{}\r\n--graphql')).toBe(true);

      const written = await harness.gql<{ updateHostNqn: { job: { id: string } } }>('mutation($input: UpdateHostNqnInput!) { updateHostNqn(input: $input) { job { id } } }', {
        input: { uuid: connectedHost(harness.simulator), nqn: 'nqn.2014-08.org.nvmexpress:uuid:00000505-0000-4000-8000-000000000001' },
      });
      const id = written.data!.updateHostNqn.job.id;
      await until(() => stream.parts().length >= 2, 'the job event');
      expect(stream.parts()[1]).toEqual({ payload: { data: { jobEvents: { id, status: 'SUCCEEDED' } } } });
    } finally {
      stream.close();
      await stream.ended;
    }
  });

  it('answers a subscription refused before it starts as JSON when the client takes JSON, else as the one payload of a stream', async () => {
    const query = 'subscription($id: ID!) { jobCompleted(id: $id) { id } }';
    const asJson = await fetch(`${harness.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT, ...harness.headers },
      body: JSON.stringify({ query, variables: { id: { not: 'an id' } } }),
    });
    expect(asJson.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await asJson.json()) as { errors: { extensions: { code: string } }[] };
    expect(body.errors.map((error) => error.extensions.code)).toEqual(['BAD_USER_INPUT']);

    const only = await openMultipart(harness, query, 'multipart/mixed;subscriptionSpec=1.0', { id: { not: 'an id' } });
    await only.ended;
    expect(only.response.status).toBe(200);
    expect(only.parts()).toEqual([{}, { payload: { errors: [expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', field: ['id'] }) })] } }]);
    expect(only.text().endsWith('\r\n--graphql--\r\n')).toBe(true);
  });

  it('counts under the credential like SSE, and gives the place back when the client goes', async () => {
    const first = await openMultipart(harness, JOB_EVENTS);
    const second = await openMultipart(harness, JOB_EVENTS);
    try {
      await until(() => first.parts().length >= 1 && second.parts().length >= 1, 'both streams to open');
      const third = await fetch(`${harness.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: ACCEPT, ...harness.headers },
        body: JSON.stringify({ query: JOB_EVENTS }),
      });
      const refused = (await third.json()) as { errors: { extensions: Record<string, unknown> }[] };
      expect(refused.errors.map((error) => error.extensions)).toEqual([{ code: 'TOO_MANY_SUBSCRIPTIONS', per: 'credential', limit: 2 }]);

      first.close();
      await first.ended;
      let reopened: Awaited<ReturnType<typeof openMultipart>> | undefined;
      for (let attempt = 0; attempt < 20 && reopened === undefined; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const candidate = await openMultipart(harness, JOB_EVENTS);
        await until(() => candidate.text().length > 0, 'an answer');
        if (candidate.response.headers.get('content-type')?.startsWith('multipart/mixed')) reopened = candidate;
        else await candidate.ended;
      }
      expect(reopened).toBeDefined();
      reopened!.close();
      await reopened!.ended;
    } finally {
      first.close();
      second.close();
      await Promise.all([first.ended, second.ended]);
    }
  });
});

describe('a multipart subscription stream that fails', () => {
  it('delivers the failure as its last payload, the error masked as any unexpected one is, and ends', async () => {
    const yoga = createYoga({
      schema: createSchema({
        typeDefs: 'type Query { ok: Boolean } type Subscription { ticks: Int }',
        resolvers: {
          Subscription: {
            ticks: {
              subscribe: async function* () {
                yield { ticks: 1 };
                throw new Error('connection string postgres://admin:hunter2@db');
              },
            },
          },
        },
      }),
      plugins: [useMultipartSubscriptions()],
      logging: false,
    });
    const response = await yoga.fetch('http://localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT },
      body: JSON.stringify({ query: 'subscription { ticks }' }),
    });
    const text = await response.text();
    const parts = text
      .split('\r\n--graphql')
      .slice(1, -1)
      .map((part) => JSON.parse(part.slice(part.indexOf('\r\n\r\n') + 4)) as unknown);
    expect(parts).toEqual([{}, { payload: { data: { ticks: 1 } } }, { payload: { errors: [expect.objectContaining({ message: 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } })] } }]);
    expect(text).not.toContain('hunter2');
    expect(text.endsWith('\r\n--graphql--\r\n')).toBe(true);
  });
});
