/**
 * The last flush of spans has a bound: a collector that takes the connection and never answers
 * (a stalled OTLP endpoint) holds the gateway's stop for TRACES_FLUSH_TIMEOUT_MS, not for the
 * exporter's own timeout, so a pod's grace period is not spent waiting on it.
 */
import { createServer, type Socket } from 'node:net';
import { once } from 'node:events';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { defaultConfig } from '../../src/config/index.js';
import { createSimulator, type Simulator } from '../../src/simulator/server.js';
import { credentialHeaders } from '../support/harness.js';
import { gql } from '../support/job-calls.js';

describe('the last flush of spans on stop', () => {
  const sockets: Socket[] = [];
  // Accepts, reads, never answers.
  const silent = createServer((socket) => {
    sockets.push(socket);
    socket.resume();
  });
  let simulator: Simulator;

  beforeAll(async () => {
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    simulator = createSimulator();
    await simulator.start(0, '127.0.0.1');
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    silent.close();
    await simulator?.stop();
  });

  it('gives up on a collector that never answers after TRACES_FLUSH_TIMEOUT_MS, well before the exporter\'s own 10 s timeout', { timeout: 60_000 }, async () => {
    const address = silent.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    const app = createApp(
      { ...defaultConfig, port: 0, host: '127.0.0.1', upstreamUrl: simulator.url, otelExporterOtlpEndpoint: `http://127.0.0.1:${port}`, tracesFlushTimeoutMs: 500 },
      { logger },
    );
    const url = await app.start();
    const read = await gql(url, '{ hosts(first: 1) { totalCount } }', {}, credentialHeaders(simulator.credentials));
    expect(read.errors).toBeUndefined();
    const stopping = Date.now();
    await app.stop();
    const took = Date.now() - stopping;
    expect(took).toBeLessThan(6_000);
    expect(sockets.length).toBeGreaterThan(0);
    expect(lines.join('')).toContain('the last spans were not exported in time');
  });
});
