/**
 * The observability routes, `/readyz` and `/metrics`, each alone in a yoga of its own and called
 * through `yoga.fetch`: the readiness a load balancer reads and the registry Prometheus scrapes.
 */
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import { pino } from 'pino';
import { Counter, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createReadiness, type Readiness } from '../../src/observability/readiness.js';
import { useMetricsRoute } from '../../src/observability/use-metrics-route.js';
import { useReadiness } from '../../src/observability/use-readiness.js';
import { schema } from '../../src/schema/index.js';

const logger = pino({ level: 'silent' });

function yogaWith(plugin: Plugin): YogaServerInstance<Record<string, unknown>, Record<string, unknown>> {
  return createYoga({ schema, logging: false, plugins: [plugin] });
}

describe('useReadiness', () => {
  const readinessYoga = (readiness: Readiness) => yogaWith(useReadiness({ readiness }));

  it('is 503 starting until the app has started, then 200 ready', async () => {
    const readiness = createReadiness(new AbortController().signal);
    const before = await readinessYoga(readiness).fetch('http://gateway/readyz');
    expect(before.status).toBe(503);
    expect(await before.json()).toEqual({ status: 'starting' });
    readiness.markStarted();
    const after = await readinessYoga(readiness).fetch('http://gateway/readyz');
    expect(after.status).toBe(200);
    expect(await after.json()).toEqual({ status: 'ready' });
  });

  it('answers draining once the app is stopping', async () => {
    const stopping = new AbortController();
    const readiness = createReadiness(stopping.signal);
    readiness.markStarted();
    stopping.abort();
    const draining = await readinessYoga(readiness).fetch('http://gateway/readyz');
    expect(draining.status).toBe(503);
    expect(await draining.json()).toEqual({ status: 'draining' });
  });
});

describe('useMetricsRoute', () => {
  it('answers /metrics with the registry\'s text exposition and content type', async () => {
    const registry = new Registry();
    new Counter({ name: 'probe_total', help: 'A counter of this test.', registers: [registry] }).inc(3);
    const answer = await yogaWith(useMetricsRoute({ registry, logger })).fetch('http://gateway/metrics');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe(registry.contentType);
    expect(await answer.text()).toContain('probe_total 3');
  });
});
