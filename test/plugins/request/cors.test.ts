/**
 * CORS as browser code meets it: a page on another origin calls the gateway with its credential
 * headers (a real preflight in chromium), then reads the headers it needs from the answer.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/harness.js';

describe('CORS', () => {
  let pageServer: Server;
  let pageOrigin: string;
  let harness: Harness;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    pageServer = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>app</title>'));
    await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
    // `localhost`, not the gateway's 127.0.0.1: another origin for the browser.
    pageOrigin = `http://localhost:${(pageServer.address() as AddressInfo).port}`;
    harness = await startHarness({ config: { corsOrigins: [pageOrigin], costBudget: 100, costBudgetRefill: 1 } });
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
    page = await browser.newPage();
    await page.goto(pageOrigin);
  });

  afterAll(async () => {
    await browser?.close();
    await harness?.close();
    await new Promise<void>((resolve) => pageServer.close(() => resolve()));
  });

  /** A fetch made by the page's own script, so the browser applies CORS to it. */
  async function fetchFromPage(query: string, headers: Record<string, string>) {
    return page.evaluate(
      async ({ url, query, headers }) => {
        const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query }) });
        const read = (name: string) => response.headers.get(name);
        return { status: response.status, requestId: read('x-request-id'), etag: read('etag'), retryAfter: read('retry-after'), body: (await response.json()) as unknown };
      },
      { url: `${harness.url}/graphql`, query, headers },
    );
  }

  it('lets browser code on an allowed origin read X-Request-ID and ETag', async () => {
    const answer = await fetchFromPage('{ hosts(first: 2) { totalCount } }', harness.headers);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ data: { hosts: { totalCount: expect.any(Number) } } });
    expect(answer.requestId).toMatch(/\S{8,}/);
    expect(answer.etag).toMatch(/^W\/"/);
  });

  it('lets browser code read Retry-After of a RATE_LIMITED answer', async () => {
    // Two different queries: an answer from the response cache is not charged.
    const spent = await fetchFromPage('{ hosts(first: 90) { nodes { name } } }', harness.headers);
    expect(spent.status).toBe(200);
    const answer = await fetchFromPage('{ hosts(first: 91) { nodes { uuid } } }', harness.headers);
    expect(answer.status).toBe(429);
    expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
  });

  it('says Vary: Origin on the preflight, on an answer to the page and on an answer to a request with no Origin', async () => {
    const preflight = await fetch(`${harness.url}/graphql`, {
      method: 'OPTIONS',
      headers: { origin: pageOrigin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, authorization' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(pageOrigin);
    expect(preflight.headers.get('access-control-expose-headers')).toBe('X-Request-ID, ETag, Retry-After');
    const post = (headers: Record<string, string>) =>
      fetch(`${harness.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...harness.secondHeaders, ...headers }, body: '{"query": "{ __typename }"}' });
    const varies = (response: Response) => (response.headers.get('vary') ?? '').split(',').map((name) => name.trim());
    expect(varies(preflight)).toContain('Origin');
    expect(varies(await post({ origin: pageOrigin }))).toContain('Origin');
    // Its answer carries no Access-Control-Allow-Origin: a cache must not give it to the page.
    const withoutOrigin = await post({});
    expect(withoutOrigin.headers.get('access-control-allow-origin')).toBeNull();
    expect(varies(withoutOrigin)).toContain('Origin');
  });
});
