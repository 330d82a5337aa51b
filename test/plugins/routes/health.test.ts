/**
 * `/healthz` as a plugin alone in a yoga of its own, called through `yoga.fetch`: no server, no
 * socket, only the plugin and the real parts it reads (an upstream client against the simulator).
 */
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { useHealth } from '../../../src/plugins/routes/use-health.js';
import { createDependencyWatch } from '../../../src/observability/dependencies.js';
import { schema } from '../../../src/schema/index.js';
import { createSimulator, type Simulator } from '../../../src/simulator/server.js';
import { GetHostSensors } from '../../../src/upstream/operations/index.js';
import type { UpstreamClient } from '../../../src/upstream/types.js';
import { createTestUpstreamClient } from '../../support/upstream-client.js';

const logger = pino({ level: 'silent' });

function yogaWith(plugin: Plugin): YogaServerInstance<Record<string, unknown>, Record<string, unknown>> {
  return createYoga({ schema, logging: false, plugins: [plugin] });
}

describe('useHealth', () => {
  let simulator: Simulator;
  let upstream: UpstreamClient;

  beforeAll(async () => {
    simulator = createSimulator();
    const url = await simulator.start(0, '127.0.0.1');
    upstream = createTestUpstreamClient({ upstreamUrl: url, upstreamBreakerThreshold: 1, upstreamBreakerOpenMs: 60_000, retries: 0 });
  });

  afterAll(async () => {
    await upstream?.close();
    await simulator?.stop();
  });

  it('answers /healthz 200 as JSON with each dependency up, Redis only when there is one, and leaves other paths to yoga', async () => {
    const watch = createDependencyWatch({ upstream, logger });
    const yoga = yogaWith(useHealth({ dependencies: watch }));
    const health = await yoga.fetch('http://gateway/healthz');
    expect(health.status).toBe(200);
    expect(health.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await health.json()).toEqual({ status: 'ok', dependencies: { upstream: 'up' } });
    expect((await yoga.fetch('http://gateway/healthz/more')).status).toBe(404);
    const withRedis = yogaWith(useHealth({ dependencies: createDependencyWatch({ upstream, redis: { isReady: () => false }, logger }) }));
    const redisDown = await withRedis.fetch('http://gateway/healthz');
    expect(redisDown.status).toBe(200);
    expect(await redisDown.json()).toEqual({ status: 'ok', dependencies: { upstream: 'up', redis: 'down' } });
  });

  it('stays 200 once calls to the upstream failed, saying it is down with {"breaker":"open"}, and not where it is', async () => {
    // Nothing listens on port 9: the first refused call opens the breaker.
    const away = createTestUpstreamClient({ upstreamUrl: 'http://127.0.0.1:9', upstreamBreakerThreshold: 1, upstreamBreakerOpenMs: 60_000, retries: 0 });
    try {
      await expect(away.read({ authorization: `OAuth ${simulator.credentials.session}` }, GetHostSensors, { uuid: 'a'.repeat(32) })).rejects.toThrow();
      const yoga = yogaWith(useHealth({ dependencies: createDependencyWatch({ upstream: away, logger }) }));
      const answer = await yoga.fetch('http://gateway/healthz');
      const text = await answer.text();
      expect(answer.status).toBe(200);
      expect(JSON.parse(text)).toEqual({ status: 'ok', dependencies: { upstream: 'down' }, breaker: 'open' });
      expect(text).not.toContain('127.0.0.1');
    } finally {
      await away.close();
    }
  });

  it('learns that the upstream stopped answering from the ping a read of its state sends once the last is old, without a call of any request', async () => {
    const dead = createSimulator();
    const url = await dead.start(0, '127.0.0.1');
    const client = createTestUpstreamClient({ upstreamUrl: url, retries: 0 });
    const watch = createDependencyWatch({ upstream: client, intervalMs: 50, logger });
    watch.start();
    try {
      await dead.stop();
      await vi.waitFor(() => expect(watch.states()).toEqual({ upstream: false }), { timeout: 5_000, interval: 50 });
    } finally {
      watch.stop();
      await client.close();
    }
  });
});
