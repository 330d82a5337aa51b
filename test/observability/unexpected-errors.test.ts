/**
 * Unexpected errors (bugs, not errors raised for the client): masked as INTERNAL_SERVER_ERROR for
 * the client and logged with the request id, while errors meant for the client and the reads of a
 * client that hung up are not logged as errors.
 */
import { createSchema, createYoga } from 'graphql-yoga';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { defaultConfig } from '../../src/config/index.js';
import { useUnexpectedErrorLogging } from '../../src/observability/use-unexpected-error-logging.js';
import { createSimulator } from '../../src/simulator/server.js';
import { errorCodes, type GraphQLResponse } from '../support/harness.js';

describe('unexpected errors', () => {
  it('are masked for the client and logged with the request id', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const yoga = createYoga<Record<string, unknown>, { requestId: string }>({
      schema: createSchema({
        typeDefs: 'type Query { broken: String }',
        resolvers: { Query: { broken: () => { throw new TypeError('secret internal detail'); } } },
      }),
      context: ({ request }) => ({ requestId: request.headers.get('x-request-id') ?? 'none' }),
      plugins: [useUnexpectedErrorLogging({ logger })],
      logging: false,
    });
    const response = await yoga.fetch('http://localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'req-42' },
      body: JSON.stringify({ query: '{ broken }' }),
    });
    const body = (await response.json()) as Omit<GraphQLResponse, 'status'>;
    expect(JSON.stringify(body)).not.toContain('secret internal detail');
    expect(body.errors?.[0]?.message).toBe('Unexpected error.');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ reqId: 'req-42', err: { message: 'secret internal detail' } });
  });

  it('are the only errors logged: an upstream refusal meant for the client is not logged as an error', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const simulator = createSimulator({});
    const app = createApp({ ...defaultConfig, port: 0, host: '127.0.0.1', upstreamUrl: await simulator.start(0, '127.0.0.1') }, { logger });
    try {
      const url = await app.start();
      const response = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'OAuth 00000000000000000000000000000000' },
        body: JSON.stringify({ query: '{ cbtTasks(first: 1) { totalCount } }' }),
      });
      expect(errorCodes((await response.json()) as GraphQLResponse)).toEqual(['UNAUTHENTICATED']);
      expect(lines.filter((line) => Number(line.level) >= 50)).toEqual([]);
    } finally {
      await app.stop();
      await simulator.stop();
    }
  });

  it('are not logged as errors once the client has hung up: its reads were cancelled on purpose', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const hangUp = new AbortController();
    const yoga = createYoga<Record<string, unknown>, { requestId: string; signal: AbortSignal }>({
      schema: createSchema({
        typeDefs: 'type Query { slow: String }',
        resolvers: {
          Query: {
            // What an upstream read does when its caller's signal aborts: it rejects with the reason.
            slow: () => {
              hangUp.abort();
              throw hangUp.signal.reason;
            },
          },
        },
      }),
      context: () => ({ requestId: 'req-43', signal: hangUp.signal }),
      plugins: [useUnexpectedErrorLogging({ logger })],
      logging: false,
    });
    await yoga.fetch('http://localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ slow }' }),
    });
    expect(lines.filter((line) => Number(line.level) >= 50)).toEqual([]);
    expect(lines).toMatchObject([{ level: 20, reqId: 'req-43', msg: 'operation abandoned by its client' }]);
  });
});
