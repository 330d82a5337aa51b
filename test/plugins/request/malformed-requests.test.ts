/**
 * A request that is not well-formed GraphQL over HTTP is the client's mistake: 400 BAD_REQUEST
 * with a message saying what is wrong, never a 500, never an error in the log, never an upstream
 * request, and never the client's whole body quoted back.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../../src/app.js';
import { defaultConfig } from '../../../src/config/index.js';
import { createSimulator, type Simulator } from '../../../src/simulator/server.js';
import { credentialHeaders } from '../../support/harness.js';

/** A JSON list nested `levels` deep: `[[[]]]` for 3. */
function nested(levels: number): string {
  return '['.repeat(levels) + ']'.repeat(levels);
}

interface Answer {
  status: number;
  text: string;
  body: { data?: unknown; errors?: { message: string; extensions?: Record<string, unknown> }[] };
}

describe('malformed requests', () => {
  let simulator: Simulator;
  let app: App;
  let url: string;
  let headers: Record<string, string>;
  const logLines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    simulator = createSimulator({ asyncDelayMs: 5 });
    const simulatorUrl = await simulator.start(0, '127.0.0.1');
    const logger = pino({ level: 'info' }, { write: (line: string) => void logLines.push(JSON.parse(line) as Record<string, unknown>) });
    app = createApp({ ...defaultConfig, port: 0, host: '127.0.0.1', upstreamUrl: simulatorUrl }, { logger });
    url = await app.start();
    headers = credentialHeaders(simulator.credentials);
  });

  afterAll(async () => {
    await app.stop();
    await simulator.stop();
  });

  async function post(body: string, accept = 'application/json'): Promise<Answer> {
    const response = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', accept, ...headers }, body });
    const text = await response.text();
    return { status: response.status, text, body: JSON.parse(text) as Answer['body'] };
  }

  async function get(search: string): Promise<Answer> {
    const response = await fetch(`${url}/graphql?${search}`, { headers: { accept: 'application/graphql-response+json', ...headers } });
    const text = await response.text();
    return { status: response.status, text, body: JSON.parse(text) as Answer['body'] };
  }

  function expectBadRequest(answer: Answer, message: RegExp): void {
    expect({ status: answer.status, codes: answer.body.errors?.map((error) => error.extensions?.code) }).toEqual({ status: 400, codes: ['BAD_REQUEST'] });
    expect(answer.body.errors?.[0]?.message).toMatch(message);
    expect(answer.body.data).toBeUndefined();
  }

  const postBodies: [string, string, RegExp][] = [
    ['a query that is a list', '{"query": ["{ __typename }"]}', /"query" must be a string, got array/],
    ['a query that is an object', '{"query": {"a": 1}}', /"query" must be a string, got object/],
    ['a query that is a number', '{"query": 5}', /"query" must be a string, got number/],
    ['an operationName that is a number', '{"query": "{ __typename }", "operationName": 5}', /"operationName" must be a string, got number/],
    ['an operationName that is an object', '{"query": "{ __typename }", "operationName": {"a": 1}}', /"operationName" must be a string/],
    ['variables that are a string', '{"query": "{ __typename }", "variables": "{}"}', /"variables" must be a JSON object, got string/],
    ['variables that are a list', '{"query": "{ __typename }", "variables": [1]}', /"variables" must be a JSON object, got array/],
    ['variables that are a number', '{"query": "{ __typename }", "variables": 7}', /"variables" must be a JSON object, got number/],
    ['extensions that are a string', '{"query": "{ __typename }", "extensions": "x"}', /"extensions" must be a JSON object, got string/],
    ['extensions that are a list', '{"query": "{ __typename }", "extensions": []}', /"extensions" must be a JSON object, got array/],
    ['no query at all', '{}', /Must provide a "query" string/],
    // 400 KB of brackets: JSON.parse takes it, the response cache's key (JSON.stringify) overflowed the stack on it, a 500.
    ['variables nested 100,000 levels deep', `{"query": "query($f: VmInstanceFilter) { vmInstances(first: 1, filter: $f) { totalCount } }", "variables": {"f": ${nested(100_000)}}}`, /"variables" is nested deeper than 32 levels/],
    ['extensions nested 100,000 levels deep', `{"query": "{ __typename }", "extensions": {"x": ${nested(100_000)}}}`, /"extensions" is nested deeper than 32 levels/],
    ['variables nested 33 levels deep', `{"query": "{ __typename }", "variables": {"x": ${nested(32)}}}`, /"variables" is nested deeper than 32 levels/],
    ['a JSON body that is a string', '"{ __typename }"', /expected to be object/],
    ['a JSON body that is a number', '42', /expected to be object/],
    ['a JSON body that is null', 'null', /expected to be object/],
  ];

  it('takes variables nested 32 levels deep, the most it accepts', async () => {
    const answer = await post(`{"query": "{ __typename }", "variables": {"x": ${nested(31)}}}`);
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 200, body: expect.objectContaining({ data: { __typename: 'Query' } }) });
  });

  it('quotes at most 40 characters of a bad Uuid variable, and names a list or object by its kind', async () => {
    const query = 'query($uuids: [Uuid!]) { vmInstances(first: 1, filter: { uuids: $uuids }) { totalCount } }';
    const long = await post(JSON.stringify({ query, variables: { uuids: ['x'.repeat(100_000)] } }));
    expect(long.body.errors?.map((error) => error.extensions?.code)).toEqual(['BAD_USER_INPUT']);
    expect(long.body.errors?.[0]?.message).toContain(`got "${'x'.repeat(40)}…"`);
    expect(long.text.length).toBeLessThan(1000);
    const list = await post(JSON.stringify({ query, variables: { uuids: [[['a']]] } }));
    expect(list.body.errors?.[0]?.message).toMatch(/Uuid must be 32 hexadecimal digits, or the hyphenated 8-4-4-4-12 form, got a list\./);
    expect(simulator.stats().total).toBe(0);
  });

  it.each(postBodies)('answers %s with 400 BAD_REQUEST, to either Accept, without asking the upstream', async (_name, body, message) => {
    simulator.resetStats();
    expectBadRequest(await post(body), message);
    expectBadRequest(await post(body, 'application/graphql-response+json'), message);
    expect(simulator.stats().total).toBe(0);
  });

  const getSearches: [string, string, RegExp][] = [
    ['variables that are not JSON', 'query=%7B__typename%7D&variables=notjson', /"variables" parameter is not valid JSON/],
    ['extensions that are not JSON', 'query=%7B__typename%7D&extensions=%7Bbad', /"extensions" parameter is not valid JSON/],
    ['variables that are a number', 'query=%7B__typename%7D&variables=5', /"variables" must be a JSON object, got number/],
    ['the query given twice', 'query=%7B__typename%7D&query=%7Bhosts%7BtotalCount%7D%7D', /"query" parameter is given more than once/],
    ['no query', 'variables=%7B%7D', /Must provide a "query" string/],
  ];

  it.each(getSearches)('answers a GET with %s with 400 BAD_REQUEST', async (_name, search, message) => {
    expectBadRequest(await get(search), message);
  });

  it('says which body types it reads when a POST sends another, with 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const response = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'text/plain', ...headers }, body: '{"query": "{ __typename }"}' });
    expect(response.status).toBe(415);
    const body = (await response.json()) as Answer['body'];
    expect(body.errors?.map((error) => error.extensions?.code)).toEqual(['UNSUPPORTED_MEDIA_TYPE']);
    expect(body.errors?.[0]?.message).toContain('application/json');
  });

  it('answers a form POST whose variables are not JSON with 400 BAD_REQUEST', async () => {
    const response = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: 'query=%7B__typename%7D&variables=nope',
    });
    const text = await response.text();
    expectBadRequest({ status: response.status, text, body: JSON.parse(text) as Answer['body'] }, /"variables" or "extensions" parameter is not valid JSON/);
  });

  it('still runs a well-formed GET and POST', async () => {
    expect((await get('query=%7B__typename%7D&operationName=&variables=%7B%7D')).body).toMatchObject({ data: { __typename: 'Query' } });
    expect((await post('{"query": "query Q { __typename }", "operationName": "Q", "variables": null, "extensions": {}}')).body).toMatchObject({
      data: { __typename: 'Query' },
    });
  });

  it('quotes at most a short piece of a 200 KB body that is not JSON', async () => {
    const answer = await post(`{"query": "${'x'.repeat(200 * 1024)}`);
    expectBadRequest(answer, /invalid JSON/);
    expect(answer.text.length).toBeLessThan(1_000);
  });

  it('logs none of them as an error', () => {
    expect(logLines.filter((line) => Number(line.level) >= 50)).toEqual([]);
  });
});
