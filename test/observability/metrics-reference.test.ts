/**
 * The metrics reference, `docs/reference/metrics.md`, is generated from the metrics the code
 * registers, as the configuration reference is from the settings: a metric added, renamed,
 * relabelled or described anew without the page following fails here (`npm run docs` rewrites
 * it). So does a metric an app serves that the catalogue does not register, such as one a module
 * registers on the app's registry outside `createMetrics`.
 */
import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { defaultConfig } from '../../src/config/index.js';
import { metricsCatalogue, METRICS_REFERENCE_PATH, renderMetricsReference } from '../../src/observability/metrics-reference.js';

const page = readFileSync(new URL(`../../${METRICS_REFERENCE_PATH}`, import.meta.url), 'utf8');

/** The metric names a `/metrics` exposition declares (`# TYPE <name> <type>`), with their types. */
function declaredMetrics(exposition: string): Map<string, string> {
  return new Map([...exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name = '', type = '']) => [name, type]));
}

describe('the metrics reference', () => {
  let app: App;

  beforeAll(() => {
    // Never started: its registry is complete once created, and a scrape calls no upstream.
    app = createApp({ ...defaultConfig, upstreamUrl: 'http://127.0.0.1:9/' }, { logger: pino({ level: 'silent' }) });
  });

  afterAll(async () => {
    await app.stop();
  });

  it('is what the code registers (run `npm run docs`)', () => {
    expect(page).toBe(renderMetricsReference());
  });

  it('lists every metric of the gateway a created app serves, with its type', async () => {
    const response = await app.yoga.fetch('http://gateway.test/metrics');
    expect(response.status).toBe(200);
    const served = [...declaredMetrics(await response.text())].filter(([name]) => name.startsWith('gateway_'));
    expect(served.length).toBeGreaterThan(20);
    const listed = new Map(metricsCatalogue().map(({ name, type }) => [name, type]));
    expect(served.filter(([name, type]) => listed.get(name) !== type)).toEqual([]);
    for (const [name] of served) expect(page).toContain(`| \`${name}\` |`);
  });

  it('shows each metric\'s labels, and says which metrics exist only with Redis', () => {
    const rowOf = (name: string): string => page.split('\n').find((line) => line.startsWith(`| \`${name}\` |`)) ?? '';
    expect(rowOf('gateway_upstream_requests_total')).toContain('| `operation`, `method`, `status` |');
    expect(rowOf('gateway_subscriptions_open')).toContain('| gauge | none |');
    for (const name of ['gateway_redis_connected', 'gateway_redis_outbox_entries', 'gateway_redis_outbox_bytes']) expect(rowOf(name)).toContain('Only with `REDIS_URL`.');
    expect(rowOf('gateway_ready')).not.toContain('Only with');
  });
});
