/**
 * `npm start` as a newcomer runs it: with the embedded simulator it prints the demo credentials (the
 * docs', unless the simulator's settings say otherwise) and a curl command that works as pasted; with UPSTREAM_URL it prints no credential; on a taken port
 * it says which port and how to choose another, and exits non-zero without a stack trace.
 */
import { execFile, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator/server.js';
import { eventually, spawnGateway, type GatewayProcess } from '../support/process.js';

const run = promisify(execFile);

/**
 * The demo credentials the README and the docs show (the default seed's), from every page that
 * states one as a header is written (`OAuth <session>`, `Bearer <token>`, `X-Tenant-ID: <tenant>`):
 * wherever they are stated, this test checks them.
 */
function documentedCredentials(): string[] {
  const pages = ['README.md', ...readdirSync(new URL('../../docs/', import.meta.url), { recursive: true, encoding: 'utf8' }).filter((path) => path.endsWith('.md')).map((path) => `docs/${path}`)];
  const text = pages.map((page) => readFileSync(new URL(`../../${page}`, import.meta.url), 'utf8')).join('\n');
  const found = [/OAuth ([0-9a-f]{32})\b/g, /Bearer (simtok-[0-9a-f]+)/g, /X-Tenant-ID'?:\s*'?(tenant-[0-9a-f]+)/g].map((pattern) => [...new Set([...text.matchAll(pattern)].map((match) => match[1] ?? ''))]);
  // Each of the three is stated, and stated alike everywhere.
  expect(found.map((values) => values.length)).toEqual([1, 1, 1]);
  return found.flat();
}

describe('npm start', () => {
  const started: GatewayProcess[] = [];

  afterAll(async () => {
    await Promise.all(started.map((gateway) => gateway.kill()));
  });

  it('prints the embedded simulator\'s credentials and a curl command that answers with the demo data', async () => {
    const gateway = await spawnGateway({ PORT: '0' });
    started.push(gateway);
    const curlLine = await eventually(() => /^\s*(curl .*)$/m.exec(gateway.output())?.[1], 'the curl command');
    for (const header of ['Authorization: OAuth ', 'X-Resources-Authorization: Bearer ', 'X-Tenant-ID: ']) expect(gateway.output()).toContain(header);
    expect(curlLine).toContain(`${gateway.url}/graphql`);

    const { stdout } = await run('sh', ['-c', curlLine]);
    const answer = JSON.parse(stdout) as { data?: { vmInstances: { totalCount: number; nodes: { name: string }[] } }; errors?: unknown };
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.vmInstances.totalCount).toBeGreaterThan(0);
    expect(answer.data?.vmInstances.nodes).toHaveLength(3);
    // The docs show the default seed's credentials: they are what a newcomer sees.
    for (const credential of documentedCredentials()) expect(gateway.output()).toContain(credential);
  });

  it('builds its demo as the simulator\'s settings say: another seed, other credentials; a fixed session; the estate\'s size', async () => {
    const session = 'c0ffee00c0ffee00c0ffee00c0ffee00';
    const gateway = await spawnGateway({ PORT: '0', SIM_SEED: '4242', SIM_VMS: '7', SIM_SESSION: session });
    started.push(gateway);
    const curlLine = await eventually(() => /^\s*(curl .*)$/m.exec(gateway.output())?.[1], 'the curl command');
    expect(gateway.output()).toContain(`Authorization: OAuth ${session}`);
    for (const credential of documentedCredentials()) expect(gateway.output()).not.toContain(credential);

    const { stdout } = await run('sh', ['-c', curlLine]);
    const answer = JSON.parse(stdout) as { data?: { vmInstances: { totalCount: number } } };
    expect(answer.data?.vmInstances.totalCount).toBe(7);
  });

  it('with TRUSTED_DOCUMENTS, prints how to name an operation instead of a curl command its manifest would refuse', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'start-trusted-'));
    const manifest = join(directory, 'manifest.json');
    await writeFile(manifest, JSON.stringify({ demo: '{ vmInstances(first: 3) { totalCount } }' }));
    const gateway = await spawnGateway({ PORT: '0', TRUSTED_DOCUMENTS: manifest });
    started.push(gateway);
    await eventually(() => (gateway.output().includes('TRUSTED_DOCUMENTS') ? true : undefined), 'the trusted-documents line');
    // The started message is written whole at once: the credential lines are there too.
    expect(gateway.output()).toContain('X-Tenant-ID: ');
    expect(gateway.output()).toContain(`Only the operations of ${manifest} run`);
    expect(gateway.output()).not.toContain('curl ');
  });

  describe('with UPSTREAM_URL', () => {
    let simulator: Simulator;

    beforeAll(async () => {
      simulator = createSimulator();
    });

    afterAll(async () => {
      await simulator.stop();
    });

    it('prints no credential and no curl command', async () => {
      const upstreamUrl = await simulator.start(0, '127.0.0.1');
      const gateway = await spawnGateway({ PORT: '0', UPSTREAM_URL: upstreamUrl });
      started.push(gateway);
      // The started message is written at once after the GraphiQL line.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const output = gateway.output();
      expect(output).toContain('GraphiQL: ');
      for (const secret of [simulator.credentials.session, simulator.credentials.token, 'OAuth ', 'Bearer ', 'curl ']) expect(output).not.toContain(secret);
    });
  });

  describe('on a port already in use', () => {
    let blocker: Server;
    let port: number;

    beforeAll(async () => {
      blocker = createServer();
      await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
      port = (blocker.address() as AddressInfo).port;
    });

    afterAll(async () => {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    });

    it('says which port is taken and that PORT chooses another, and exits non-zero without a stack trace', async () => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/index.ts'], {
        env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));

      expect(code).toBe(1);
      expect(output).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(output).toMatch(/Set PORT to choose another port/);
      expect(output).not.toMatch(/^\s+at /m);
      expect(output).not.toContain('Internal error emitted');
    });
  });
});
