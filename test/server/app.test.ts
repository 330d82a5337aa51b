import { spawn } from 'node:child_process';
import { isEnumType, isInputObjectType, isInterfaceType, isObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createApp } from '../../src/app.js';
import { defaultConfig } from '../../src/config/index.js';
import { schema } from '../../src/schema/index.js';
import { errorCodes, startHarness, type Harness } from '../support/harness.js';

describe('the gateway app', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness();
  });

  afterAll(async () => {
    await harness.close();
  });

  it('answers /healthz and /readyz while the upstream is up', async () => {
    const health = await fetch(`${harness.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok', dependencies: { upstream: 'up' } });
    const ready = await fetch(`${harness.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
  });

  it('fails a field without credentials as UNAUTHENTICATED and makes no upstream request', async () => {
    harness.resetStats();
    const response = await harness.gql('{ hosts(first: 1) { totalCount } }', undefined, {});
    expect(errorCodes(response)).toEqual(['UNAUTHENTICATED']);
    expect(harness.upstreamRequests()).toBe(0);
  });

  it('reports an invalid session as UNAUTHENTICATED with the upstream ErrorCode', async () => {
    const response = await harness.gql(
      '{ cbtTasks(first: 1) { totalCount } }',
      undefined,
      { authorization: `OAuth ${'0'.repeat(32)}` },
    );
    expect(errorCodes(response)).toEqual(['UNAUTHENTICATED']);
    expect(response.errors?.[0]?.extensions?.upstream).toMatchObject({ code: 'ID.1001' });
  });

  it('rejects a malformed Uuid before any upstream request', async () => {
    harness.resetStats();
    const response = await harness.gql('{ host(uuid: "not-a-uuid") { name } }');
    expect(errorCodes(response)).toContain('BAD_USER_INPUT');
    expect(harness.upstreamRequests()).toBe(0);
  });

  it('rejects first: 1000 as BAD_USER_INPUT before any upstream request', async () => {
    harness.resetStats();
    const response = await harness.gql('{ hosts(first: 1000) { totalCount } }');
    expect(errorCodes(response)).toEqual(['BAD_USER_INPUT']);
    expect(harness.upstreamRequests()).toBe(0);
  });

  it('masks unexpected errors but keeps typed ones', async () => {
    const response = await harness.gql('{ hosts(first: 2, after: "garbage") { totalCount } }');
    expect(errorCodes(response)).toEqual(['INVALID_CURSOR']);
    expect(response.errors?.[0]?.message).toMatch(/cursor/);
  });

  it('describes every type, field, argument and enum value, so GraphiQL explains the API by itself', () => {
    const undescribed: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__') || ['String', 'Int', 'Boolean', 'ID', 'Float'].includes(type.name)) continue;
      if (!type.description) undescribed.push(type.name);
      if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
        for (const field of Object.values(type.getFields())) {
          if (!field.description) undescribed.push(`${type.name}.${field.name}`);
          for (const arg of 'args' in field ? field.args : []) if (!arg.description) undescribed.push(`${type.name}.${field.name}(${arg.name})`);
        }
      }
      if (isEnumType(type)) for (const value of type.getValues()) if (!value.description) undescribed.push(`${type.name}.${value.name}`);
    }
    expect(undescribed).toEqual([]);
  });
});

describe('an upstream outage', () => {
  it('gives UPSTREAM_UNAVAILABLE on the field, stays ready and says on /healthz that the upstream is down', async () => {
    // A port nothing listens on: take a free one from a server we close at once.
    const probe = createApp({ ...defaultConfig, port: 0, host: '127.0.0.1', upstreamUrl: 'http://127.0.0.1:9' }, { logger: pino({ level: 'silent' }) });
    const url = await probe.start();
    try {
      const response = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-resources-authorization': 'Bearer x' },
        body: JSON.stringify({ query: '{ hosts(first: 1) { totalCount } }' }),
      });
      const body = (await response.json()) as { data: unknown; errors: { extensions: { code: string } }[] };
      expect(body.data).toEqual({ hosts: null });
      expect(body.errors.map((error) => error.extensions.code)).toEqual(['UPSTREAM_UNAVAILABLE']);
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      const health = await fetch(`${url}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ dependencies: { upstream: 'down' } });
    } finally {
      await probe.stop();
    }
  });
});

describe('npm start', () => {
  it('starts the embedded simulator and serves GraphiQL with the credentials filled in', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/index.ts'], {
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', UPSTREAM_URL: '', LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let output = '';
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const match = /GraphiQL: (\S+)/.exec(output);
          if (match) resolve(match[1]!);
        });
        child.once('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
      });
      const page = await fetch(url, { headers: { accept: 'text/html' } });
      const html = await page.text();
      expect(page.status).toBe(200);
      expect(html).toMatch(/OAuth [0-9a-f]{32}/);
      expect(html).toContain('X-Resources-Authorization');
      expect(html).not.toMatch(/<script[^>]+src="https?:\/\/(?!127\.0\.0\.1|localhost)/);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
