/**
 * GraphiQL as a person meets it after `npm start`: the gateway with its embedded simulator,
 * opened in Debian's chromium with every request off this machine blocked.
 */
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { startHarness, type Harness } from '../support/harness.js';

const ARTIFACTS = new URL('../artifacts/', import.meta.url);

describe('GraphiQL', () => {
  let harness: Harness;
  let browser: Browser;

  beforeAll(async () => {
    // The simulator as npm start's demo upstream.
    harness = await startHarness({ demo: true });
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await harness?.close();
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

    await page.goto(`${harness.url}/graphql`);
    const editor = page.locator('.graphiql-query-editor');
    await editor.waitFor({ state: 'visible', timeout: 20_000 });

    const expected = harness.simulator.credentials;
    const vmCount = [...harness.simulator.store.vms.list(expected.tenantId)].length;

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
