/**
 * What the probes and the metrics say when a dependency goes, and where they are served. Ready is
 * the replica's own state: a gateway on a real redis-server and the simulator loses Redis, then
 * the simulator too, and stays ready all along (the Service keeps it, callers get its coded
 * errors), while `/healthz` and `gateway_dependency_up` say which dependency is down. And with the
 * manifests' settings (`METRICS_PORT`), `/metrics` is on a port of its own and not beside `/graphql`.
 */
import { execFileSync } from 'node:child_process';
import { pino } from 'pino';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { defaultConfig, loadConfig } from '../../src/config/index.js';
import { createSimulator, type Simulator } from '../../src/simulator/server.js';
import { credentialHeaders, errorCodes } from '../support/harness.js';
import { gql } from '../support/job-calls.js';
import { eventually } from '../support/process.js';
import { dependenciesOf, freePort, startRedis, type RedisServer } from '../support/redis.js';

/** The value of `gateway_dependency_up{dependency="<dependency>"}` at `metricsUrl`, undefined when absent. */
async function dependencyUp(metricsUrl: string, dependency: string): Promise<number | undefined> {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`gateway_dependency_up{dependency="${dependency}"}`));
  return line === undefined ? undefined : Number(line.split(' ').pop());
}

describe('a gateway whose Redis, then upstream, go away', () => {
  let redis: RedisServer;
  let simulator: Simulator;
  let app: App;
  let url: string;
  const readiness: number[] = [];
  let watching: NodeJS.Timeout | undefined;

  beforeAll(async () => {
    redis = await startRedis();
    simulator = createSimulator();
    const upstreamUrl = await simulator.start(0, '127.0.0.1');
    app = createApp({ ...defaultConfig, port: 0, host: '127.0.0.1', upstreamUrl, redisUrl: redis.url }, { logger: pino({ level: 'silent' }) });
    url = await app.start();
    // /readyz as the kubelet sees it, every 200 ms through both outages.
    watching = setInterval(() => {
      void fetch(`${url}/readyz`).then((answer) => readiness.push(answer.status), () => readiness.push(0));
    }, 200);
  });

  afterAll(async () => {
    clearInterval(watching);
    await app?.stop();
    await simulator?.stop().catch(() => undefined);
    await redis?.stop();
  });

  it('stays ready throughout, answers reads while Redis is away, and reports each dependency down on /healthz and in the metrics', { timeout: 60_000 }, async () => {
    const headers = credentialHeaders(simulator.credentials);
    expect(await dependenciesOf(url)).toEqual({ upstream: 'up', redis: 'up' });
    expect([await dependencyUp(url, 'upstream'), await dependencyUp(url, 'redis')]).toEqual([1, 1]);

    await redis.stop();
    await eventually(async () => (await dependenciesOf(url)).redis === 'down', 'Redis reported down on /healthz');
    expect(await dependencyUp(url, 'redis')).toBe(0);
    expect(await dependencyUp(url, 'upstream')).toBe(1);
    const read = await gql<{ hosts: { totalCount: number } }>(url, '{ hosts(first: 2) { totalCount nodes { uuid } } }', {}, headers);
    expect(errorCodes(read)).toEqual([]);
    expect(read.data?.hosts.totalCount).toBeGreaterThan(0);

    await simulator.stop();
    // A probe that finds the last ping over 5 s old sends the next one, which finds the upstream away.
    await eventually(async () => (await dependenciesOf(url)).upstream === 'down', 'the upstream reported down on /healthz', 300, 50);
    expect(await dependenciesOf(url)).toEqual({ upstream: 'down', redis: 'down' });
    expect([await dependencyUp(url, 'upstream'), await dependencyUp(url, 'redis')]).toEqual([0, 0]);
    const failed = await gql(url, '{ hosts(first: 2) { totalCount } }', {}, headers);
    expect(errorCodes(failed)).toEqual(['UPSTREAM_UNAVAILABLE']);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);

    clearInterval(watching);
    expect(readiness.length).toBeGreaterThan(10);
    expect(new Set(readiness)).toEqual(new Set([200]));
  });
});

/** The settings of the manifests' ConfigMap, as `kubectl kustomize deploy/kubernetes` renders it. */
function manifestSettings(): Record<string, string> {
  let rendered: string;
  try {
    rendered = execFileSync('kubectl', ['kustomize', 'deploy/kubernetes'], { encoding: 'utf8' });
  } catch (error) {
    throw new Error(`this test renders deploy/kubernetes with kubectl (its built-in kustomize), which failed or is not installed: ${String(error)}`);
  }
  const configMaps = parseAllDocuments(rendered)
    .map((document) => document.toJS() as { kind?: string; data?: Record<string, string> } | null)
    .filter((object) => object?.kind === 'ConfigMap' && object.data?.UPSTREAM_URL !== undefined);
  expect(configMaps).toHaveLength(1);
  return configMaps[0]!.data!;
}

describe('the metrics port', () => {
  let simulator: Simulator;
  let app: App;

  beforeAll(async () => {
    simulator = createSimulator();
    await simulator.start(0, '127.0.0.1');
  });

  afterAll(async () => {
    await app?.stop();
    await simulator?.stop();
  });

  it('serves /metrics on METRICS_PORT and not on the public port, with the manifests\' settings', { timeout: 30_000 }, async () => {
    const settings = manifestSettings();
    // The manifests' container port for metrics, until the ConfigMap names it.
    const metricsPort = settings.METRICS_PORT ?? '9464';
    expect(metricsPort).not.toBe(settings.PORT ?? String(defaultConfig.port));
    // Where this test can listen and reach: free ports, the simulator, no mounted manifest.
    const { TRUSTED_DOCUMENTS: _mounted, NODE_OPTIONS: _node, ...env } = settings;
    const config = loadConfig({ ...env, METRICS_PORT: String(await freePort()), PORT: String(await freePort()), HOST: '127.0.0.1', UPSTREAM_URL: simulator.url });
    app = createApp(config, { logger: pino({ level: 'silent' }) });
    const url = await app.start();
    const metricsUrl = app.metricsUrl!;
    expect(metricsUrl).toBe(`http://127.0.0.1:${config.metricsPort}`);

    const metrics = await fetch(`${metricsUrl}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('gateway_ready 1');
    const publicMetrics = await fetch(`${url}/metrics`);
    expect(publicMetrics.status).not.toBe(200);
    expect(await publicMetrics.text()).not.toContain('gateway_ready');
    // The probes answer on both: the kubelet may use either.
    for (const base of [url, metricsUrl]) {
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
    }
    // The metrics port serves nothing else, GraphQL least of all.
    const graphql = await fetch(`${metricsUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ __typename }' }) });
    expect(graphql.status).toBe(404);
  });

  it('refuses a METRICS_PORT equal to PORT at start, saying how to serve /metrics beside /graphql', () => {
    expect(() => loadConfig({ PORT: '4000', METRICS_PORT: '4000' })).toThrow('METRICS_PORT (4000) must differ from PORT: unset it to serve /metrics beside /graphql');
  });
});
