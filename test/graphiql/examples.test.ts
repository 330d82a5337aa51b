/**
 * GraphiQL's example tabs as a newcomer meets them after `npm start` (the gateway as a process,
 * its embedded simulator as the upstream), in Debian's chromium with every request off this
 * machine blocked: each tab answers, the job a write starts reaches the subscription tab, the
 * explorer writes a query that runs. And the page's absence with GRAPHIQL=false, its placeholders
 * against a real upstream.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { buildSchema } from 'graphql';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { spawnGateway, type GatewayProcess } from '../support/process.js';

const ARTIFACTS = new URL('../artifacts/', import.meta.url);
const TAB_NAMES = ['Dashboard', 'HostLuns', 'PagedVms', 'AsyncWrite', 'JobCompleted', 'LiveQuery', 'RefetchNode'];

interface Answer {
  data?: Record<string, unknown> | null;
  errors?: unknown[];
}

describe('GraphiQL example tabs, after npm start', () => {
  let gateway: GatewayProcess;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const blocked: string[] = [];

  beforeAll(async () => {
    gateway = await spawnGateway({ PORT: '0', UPSTREAM_URL: '', LOG_LEVEL: 'warn' });
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    // Every page of the context, the guide opened from the link too.
    await context.route('**/*', (route) => {
      const { protocol, hostname } = new URL(route.request().url());
      if (protocol === 'data:' || protocol === 'blob:' || hostname === '127.0.0.1') return route.continue();
      blocked.push(route.request().url());
      return route.abort();
    });
    page = await context.newPage();
    await page.goto(`${gateway.url}/graphql`);
    await page.locator('.graphiql-query-editor').waitFor({ state: 'visible', timeout: 20_000 });
  });

  afterEach(() => {
    expect(blocked).toEqual([]);
  });

  afterAll(async () => {
    if (page) {
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: new URL('graphiql-examples.png', ARTIFACTS).pathname }).catch(() => undefined);
    }
    await browser?.close();
    await gateway?.kill();
  });

  /** Makes `name` the current tab, as a click does once GraphiQL's tab bar has settled. */
  async function openTab(name: string): Promise<void> {
    const tab = page.locator('.graphiql-tab', { has: page.getByRole('button', { name, exact: true }) });
    await expect
      .poll(
        async () => {
          if ((await tab.getAttribute('aria-selected')) === 'true') return true;
          await tab.locator('.graphiql-tab-button').click();
          return (await tab.getAttribute('aria-selected')) === 'true';
        },
        { timeout: 10_000 },
      )
      .toBe(true);
    // The run button runs what the editor holds: wait until it holds this tab's operation, and as
    // long again as a person takes to reach the button. Sooner, GraphiQL may still pair the previous
    // tab's text with this tab's operation name, and refuses to run ("Cannot infer operation").
    await expect.poll(queryText, { timeout: 10_000 }).toMatch(new RegExp(`(query|mutation|subscription) ${name}\\b`));
    await page.waitForTimeout(500);
  }

  /** The query editor's visible text. */
  async function queryText(): Promise<string> {
    return ((await page.locator('.graphiql-query-editor').textContent()) ?? '').replace(/\s+/g, ' ');
  }

  /** Runs the current tab's query or mutation and answers what the gateway sent back over HTTP. */
  async function runOverHttp(): Promise<Answer> {
    const answered = page.waitForResponse((response) => new URL(response.url()).pathname === '/graphql' && response.request().method() === 'POST', { timeout: 10_000 });
    await page.locator('.graphiql-execute-button').click();
    const answer = (await (await answered).json()) as Answer;
    // And the response pane shows it.
    await expect.poll(responseText, { timeout: 10_000 }).toContain('"data"');
    return answer;
  }

  /** The response pane's visible text; Monaco renders spaces as non-breaking ones. */
  async function responseText(): Promise<string> {
    return ((await page.locator('.graphiql-response').textContent()) ?? '').replace(/\s+/g, ' ');
  }

  /** The Variables (or Headers) editor of the current tab. */
  async function toolEditor(tool: 'variables' | 'headers') {
    await page.locator(`.graphiql-editor-tools button[data-name="${tool}"]`).click();
    return page.locator('section.graphiql-editor-tool .graphiql-editor[data-mode-id="json"]:not(.hidden)');
  }

  /** Replaces the current tab's variables, as a person pastes them. */
  async function setVariables(variables: Record<string, unknown>): Promise<void> {
    const editor = await toolEditor('variables');
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(JSON.stringify(variables));
    // GraphiQL takes an editor's text in after a short pause, as it does a tab's (see openTab).
    await page.waitForTimeout(500);
  }

  it('opens with seven named tabs, the demo credentials in their headers, and a guide one click away', async () => {
    await expect.poll(() => page.locator('.graphiql-tab-button').allTextContents()).toEqual(TAB_NAMES);
    expect(await page.title()).toBe('Infrastructure GraphQL gateway');

    await openTab('HostLuns');
    const headers = ((await (await toolEditor('headers')).textContent()) ?? '').replace(/\s+/g, ' ');
    expect(headers).toMatch(/"Authorization": "OAuth [0-9a-f]{32}"/);
    expect(headers).toContain('"X-Resources-Authorization": "Bearer ');
    expect(headers).toContain('"X-Tenant-ID": "');

    const [guide] = await Promise.all([context.waitForEvent('page'), page.getByRole('link', { name: 'Guide' }).click()]);
    await guide.waitForLoadState();
    expect(await guide.locator('body').textContent()).toContain('# GraphiQL: the example tabs');
    await guide.close();
    // A page in the background runs no animation frames, which GraphiQL's editors wait for.
    await page.bringToFront();
  });

  it('answers every query and mutation tab with data and no error', async () => {
    await openTab('Dashboard');
    const dashboard = await runOverHttp();
    expect(dashboard.errors).toBeUndefined();
    expect(dashboard.data?.vmInstances).toMatchObject({ totalCount: expect.any(Number) as number, nodes: expect.arrayContaining([expect.objectContaining({ name: expect.any(String) as string })]) as unknown[] });

    await openTab('HostLuns');
    const hostLuns = await runOverHttp();
    expect(hostLuns.errors).toBeUndefined();
    const { host, fiberChannelLuns } = hostLuns.data as { host: { name: string }; fiberChannelLuns: { nodes: { hosts: { name: string }[] }[] } };
    // The filter kept the LUNs this host sees, and only those.
    expect(fiberChannelLuns.nodes.length).toBeGreaterThan(0);
    expect(fiberChannelLuns.nodes.every((lun) => lun.hosts.some((seer) => seer.name === host.name))).toBe(true);

    await openTab('PagedVms');
    const first = await runOverHttp();
    expect(first.errors).toBeUndefined();
    type Page = { vmInstances: { pageInfo: { hasNextPage: boolean; endCursor: string }; edges: { node: { name: string } }[] } };
    const firstPage = (first.data as Page).vmInstances;
    expect(firstPage.pageInfo.hasNextPage).toBe(true);
    // As the tab says: the endCursor as `after` gives the next page.
    await setVariables({ first: 3, after: firstPage.pageInfo.endCursor });
    const next = await runOverHttp();
    expect(next.errors).toBeUndefined();
    const nextNames = (next.data as Page).vmInstances.edges.map((edge) => edge.node.name);
    expect(nextNames).toHaveLength(3);
    expect(nextNames).not.toEqual(firstPage.edges.map((edge) => edge.node.name));

    await openTab('AsyncWrite');
    const write = await runOverHttp();
    expect(write.errors).toBeUndefined();
    expect(write.data?.updateVolumeSnapshotGroup).toMatchObject({ status: 'RUNNING', userErrors: [], job: { id: expect.any(String) as string, status: 'RUNNING' } });

    await openTab('RefetchNode');
    const refetch = await runOverHttp();
    expect(refetch.errors).toBeUndefined();
    expect(refetch.data?.node).toMatchObject({ __typename: 'VmInstance', name: expect.any(String) as string });

    // A live query runs over SSE until stopped: its first answer shows in the pane.
    await openTab('LiveQuery');
    await page.locator('.graphiql-execute-button').click();
    await expect.poll(responseText, { timeout: 10_000 }).toContain('"volumeSnapshotGroups"');
    expect(await responseText()).not.toContain('"errors"');
    await page.getByRole('button', { name: /^Stop/ }).click();
  });

  it('delivers, in the JobCompleted tab, the job the AsyncWrite tab started, once it has finished', async () => {
    await openTab('AsyncWrite');
    const write = await runOverHttp();
    const { job } = write.data?.updateVolumeSnapshotGroup as { job: { id: string; status: string } };
    expect(job.status).toBe('RUNNING');

    // What the tabs tell a person to do: copy job.id into the subscription tab's variables.
    await openTab('JobCompleted');
    await setVariables({ id: job.id });
    await page.locator('.graphiql-execute-button').click();
    await expect.poll(responseText, { timeout: 15_000 }).toContain('"status": "SUCCEEDED"');
    const event = await responseText();
    expect(event).toContain(`"id": "${job.id}"`);
    expect(event).toContain('"description": "Described from GraphiQL"');
    expect(event).not.toContain('"errors"');
  });

  it('keeps the explorer: it lists the query fields, and ticking hosts, nodes, name writes a query that runs', async () => {
    await page.getByRole('button', { name: 'New tab' }).click();
    await page.getByRole('button', { name: 'Show GraphiQL Explorer' }).click();
    const explorer = page.locator('.graphiql-explorer-root');
    const listed = explorer.locator('[id^="query-"] > .graphiql-explorer-node > span[data-field-name]');
    await listed.first().waitFor({ timeout: 10_000 });
    const schema = buildSchema(readFileSync(new URL('../../schema/schema.graphql', import.meta.url), 'utf8'));
    const queryFields = Object.keys(schema.getQueryType()!.getFields()).sort();
    expect((await listed.evaluateAll((spans) => spans.map((span) => span.getAttribute('data-field-name')))).sort()).toEqual(queryFields);

    await explorer.locator('.graphiql-explorer-hosts > span[data-field-name="hosts"]').click();
    await explorer.locator('.graphiql-explorer-hosts [data-field-name="nodes"]').first().click();
    await explorer.locator('.graphiql-explorer-hosts .graphiql-explorer-nodes [data-field-name="name"]').first().click();
    await expect.poll(queryText).toContain('hosts { nodes { name } }');

    const answer = await runOverHttp();
    expect(answer.errors).toBeUndefined();
    expect((answer.data?.hosts as { nodes: { name: string }[] }).nodes.length).toBeGreaterThan(0);
  });
});

describe('GraphiQL page', () => {
  let harness: Harness | undefined;

  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('against a real upstream, opens the tabs with placeholders and headers naming the three to set, no demo credential', async () => {
    harness = await startHarness();
    const html = await (await fetch(`${harness.url}/graphql`, { headers: { accept: 'text/html' } })).text();
    expect(html).toContain('"defaultTabs"');
    expect(html).toContain('paste a host uuid');
    for (const header of ['Authorization', 'X-Resources-Authorization', 'X-Tenant-ID']) expect(html).toContain(`// \\"${header}\\"`);
    for (const secret of [harness.simulator.credentials.session, harness.simulator.credentials.token]) expect(html).not.toContain(secret);
  });

  it('serves the guide as plain text, and nothing outside docs/', async () => {
    harness = await startHarness();
    const guide = await fetch(`${harness.url}/docs/getting-started/graphiql.md`);
    expect(guide.status).toBe(200);
    expect(guide.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    for (const path of ['/docs/../package.json', '/docs/%2e%2e/package.json', '/docs/getting-started/../../README.md', '/docs/.hidden.md', '/docs/missing.md']) {
      expect((await fetch(`${harness.url}${path}`)).status, path).toBe(404);
    }
  });

  it('with GRAPHIQL=false, serves neither the page nor the guide', async () => {
    harness = await startHarness({ demo: true, config: { graphiql: false } });
    const page = await fetch(`${harness.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.headers.get('content-type') ?? '').not.toContain('text/html');
    expect(await page.text()).not.toContain('GraphiQL');
    expect((await fetch(`${harness.url}/docs/getting-started/graphiql.md`)).status).toBe(404);
  });
});
