/**
 * A real three-master Redis Cluster for a test: three `redis-server --cluster-enabled yes`
 * processes on free ports, joined with `redis-cli --cluster create` (redis-cli comes with
 * redis-server on Debian, in redis-tools), each in its own temporary directory.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort } from './redis.js';

const run = promisify(execFile);

export interface RedisCluster {
  /** `redis+cluster://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3`: what `REDIS_URL` names it by. */
  readonly url: string;
  readonly ports: readonly number[];
  stop(): Promise<void>;
}

async function startNode(port: number, dir: string): Promise<ChildProcess> {
  const server = spawn(
    'redis-server',
    [
      '--port', String(port),
      '--bind', '127.0.0.1',
      '--save', '',
      '--appendonly', 'no',
      '--dir', dir,
      '--cluster-enabled', 'yes',
      '--cluster-config-file', join(dir, `nodes-${port}.conf`),
      '--cluster-node-timeout', '2000',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        server.stdout?.off('data', onData);
        resolve();
      }
    };
    server.stdout?.on('data', onData);
    server.once('error', reject);
    server.once('exit', (code) => reject(new Error(`redis-server (cluster node) exited with ${code}: ${output}`)));
  });
  server.stdout?.resume();
  server.stderr?.resume();
  return server;
}

export async function startRedisCluster(): Promise<RedisCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-redis-cluster-'));
  const ports = [await freePort(), await freePort(), await freePort()];
  const nodes: ChildProcess[] = [];
  async function stop(): Promise<void> {
    await Promise.all(
      nodes.splice(0).map(async (node) => {
        if (node.exitCode !== null) return;
        const exited = once(node, 'exit');
        node.kill('SIGTERM');
        await exited;
      }),
    );
    await rm(dir, { recursive: true, force: true });
  }
  try {
    for (const port of ports) nodes.push(await startNode(port, dir));
    await run('redis-cli', ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '0', '--cluster-yes']);
    // `create` returns once slots are assigned; every node must also agree the cluster is up.
    const deadline = Date.now() + 30_000;
    for (const port of ports) {
      const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true });
      try {
        await client.connect();
        while (!/cluster_state:ok/.test(await client.cluster('INFO'))) {
          if (Date.now() > deadline) throw new Error(`cluster node ${port} never reported cluster_state:ok`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      } finally {
        client.disconnect();
      }
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `redis+cluster://${ports.map((port) => `127.0.0.1:${port}`).join(',')}`, ports, stop };
}
