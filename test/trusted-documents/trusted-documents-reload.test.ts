/**
 * The trusted-document manifest of a running gateway process: SIGHUP puts a new one in force
 * without a restart, a manifest that cannot be used is logged and the one in force kept, and a
 * gateway given a broken manifest does not start.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, spawnGateway, type GatewayProcess } from '../support/process.js';

const PING = 'query Ping { __typename }';
const PONG = 'query Pong { pong: __typename }';

async function runById(url: string, documentId: string): Promise<{ status: number; codes: unknown[] }> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    body: JSON.stringify({ documentId }),
  });
  const body = (await response.json()) as { errors?: { extensions?: { code?: unknown } }[] };
  return { status: response.status, codes: (body.errors ?? []).map((error) => error.extensions?.code) };
}

describe('reloading the trusted-document manifest', () => {
  let dir: string;
  let path: string;
  let gateway: GatewayProcess;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trusted-reload-'));
    path = join(dir, 'persisted-documents.json');
    writeFileSync(path, JSON.stringify({ ping: PING }));
    gateway = await spawnGateway({ PORT: '0', TRUSTED_DOCUMENTS: path, GRAPHIQL: 'false' });
  });

  afterAll(async () => {
    await gateway?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it('puts a new manifest in force on SIGHUP, and keeps the one in force when the new one is invalid', async () => {
    expect(await runById(gateway.url, 'ping')).toEqual({ status: 200, codes: [] });
    expect(await runById(gateway.url, 'pong')).toEqual({ status: 404, codes: ['PERSISTED_QUERY_NOT_FOUND'] });

    writeFileSync(path, JSON.stringify({ ping: PING, pong: PONG }));
    gateway.child.kill('SIGHUP');
    await eventually(async () => (await runById(gateway.url, 'pong')).status === 200, 'the new manifest in force');
    // The log line crosses a pipe: it may arrive after the answer did.
    await eventually(() => gateway.output().includes('trusted-document manifest reloaded'), 'the reload logged');

    writeFileSync(path, JSON.stringify({ ping: PING, broken: 'query Broken { noSuchField }' }));
    gateway.child.kill('SIGHUP');
    await eventually(() => gateway.output().includes('trusted-document manifest not reloaded'), 'the refusal logged');
    expect(gateway.output()).toMatch(/the operation of id \\"broken\\" \(query Broken\) does not validate/);
    // Still the second manifest: pong runs, and the process is still up.
    expect(await runById(gateway.url, 'pong')).toEqual({ status: 200, codes: [] });
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toMatch(/^gateway_trusted_documents 2$/m);
    expect(metrics).toMatch(/^gateway_trusted_document_reloads_total\{result="loaded"\} 1$/m);
    expect(metrics).toMatch(/^gateway_trusted_document_reloads_total\{result="refused"\} 1$/m);
  });
});

describe('a gateway given a manifest it cannot use', () => {
  it('does not start, and says which operation is at fault', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trusted-broken-'));
    try {
      const path = join(dir, 'manifest.json');
      writeFileSync(
        path,
        JSON.stringify({ format: 'apollo-persisted-query-manifest', version: 1, operations: [{ id: 'x1', name: 'Dashboard', type: 'query', body: 'query Dashboard { vmInstances { nodes { nosuch } } }' }] }),
      );
      const started = spawnGateway({ PORT: '0', TRUSTED_DOCUMENTS: path });
      const error = await started.then(
        () => undefined,
        (failure: Error) => failure,
      );
      expect(error?.message).toMatch(/exited with 1/);
      expect(error?.message).toContain('The gateway cannot start:');
      expect(error?.message).toMatch(/operation Dashboard does not validate against the schema: .*nosuch/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
