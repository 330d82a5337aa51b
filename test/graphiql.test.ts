/**
 * GraphiQL as a person meets it after `npm start`: the gateway with its embedded simulator,
 * opened in Debian's chromium with every request off this machine blocked.
 */
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { pino } from 'pino';
import { createApp, type App } from '../src/app.js';
import { defaultConfig } from '../src/config.js';

const ARTIFACTS = new URL('./artifacts/', import.meta.url);

describe('GraphiQL', () => {
  let app: App;
  let browser: Browser;

  beforeAll(async () => {
    app = createApp({ ...defaultConfig, port: 0, host: '127.0.0.1', upstreamUrl: undefined }, { logger: pino({ level: 'silent' }) });
    await app.start();
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it('loads offline, comes with working credentials, and runs a query typed into the editor', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const blocked: string[] = [];
    await page.route('**/*', (route) => {
      const { protocol, hostname } = new URL(route.request().url());
      const local = protocol === 'data:' || protocol === 'blob:' || hostname === '127.0.0.1' || hostname === 'localhost';
      if (local) return route.continue();
      blocked.push(route.request().url());
      return route.abort();
    });

    await page.goto(`${app.url}/graphql`);
    const editor = page.locator('.graphiql-query-editor');
    await editor.waitFor({ state: 'visible', timeout: 20_000 });

    const expected = app.simulator!.credentials;
    const vmCount = [...app.simulator!.store.vms.list(expected.tenantId)].length;

    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText('query Typed { vmInstances(first: 2) { totalCount nodes { name state } } }');
    // GraphiQL re-parses the document after a short debounce; the tab then takes the operation's name.
    await page.locator('.graphiql-tab', { hasText: 'Typed' }).waitFor({ timeout: 10_000 });
    await page.locator('.graphiql-execute-button').click();

    const response = page.locator('.graphiql-response');
    await expect.poll(async () => (await response.textContent()) ?? '', { timeout: 15_000 }).toContain('totalCount');
    // Monaco renders spaces as non-breaking spaces; compare on normalized whitespace.
    const text = ((await response.textContent()) ?? '').replace(/\s+/g, ' ');
    expect(text).toContain(`"totalCount": ${vmCount}`);
    expect(text).not.toContain('UNAUTHENTICATED');

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: new URL('graphiql.png', ARTIFACTS).pathname });
    expect(blocked).toEqual([]);
  });
});
