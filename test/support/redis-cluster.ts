/**
 * Real Redis deployments beyond one server, for a test:
 * - a three-master Redis Cluster: three `redis-server --cluster-enabled yes` processes on free
 *   ports, joined with `redis-cli --cluster create` (redis-cli comes with redis-server on Debian,
 *   in redis-tools);
 * - a master with one replica watched by one sentinel (`redis-server <conf> --sentinel`: the
 *   sentinel is a mode of redis-server itself), able to fail over when the master is killed.
 */
import { writeFile } from 'node:fs/promises';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort, spawnRedisServer, stopProcess } from './redis.js';

const run = promisify(execFile);

export interface RedisCluster {
  /** `redis+cluster://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3`: what `REDIS_URL` names it by. */
  readonly url: string;
  readonly ports: readonly number[];
  stop(): Promise<void>;
}

async function startNode(port: number, dir: string): Promise<ChildProcess> {
  return spawnRedisServer([
    '--port', String(port),
    '--bind', '127.0.0.1',
    '--save', '',
    '--appendonly', 'no',
    '--dir', dir,
    '--cluster-enabled', 'yes',
    '--cluster-config-file', join(dir, `nodes-${port}.conf`),
    '--cluster-node-timeout', '2000',
  ]);
}

export async function startRedisCluster(): Promise<RedisCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-redis-cluster-'));
  const ports = [await freePort(), await freePort(), await freePort()];
  const nodes: ChildProcess[] = [];
  async function stop(): Promise<void> {
    await Promise.all(
      nodes.splice(0).map((node) => stopProcess(node, 'SIGTERM')),
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

export interface RedisSentinel {
  /** `redis+sentinel://127.0.0.1:<sentinel port>/<master name>`. */
  readonly url: string;
  readonly masterPort: number;
  readonly replicaPort: number;
  /** Kills the current master; the sentinel promotes the replica about a second later. */
  killMaster(): Promise<void>;
  /** The address the sentinel gives for the master now. */
  masterAddress(): Promise<string>;
  stop(): Promise<void>;
}

const MASTER_NAME = 'gateway-test';

export async function startRedisSentinel(): Promise<RedisSentinel> {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-redis-sentinel-'));
  const [masterPort, replicaPort, sentinelPort] = [await freePort(), await freePort(), await freePort()];
  const processes: ChildProcess[] = [];
  const plain = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
  async function stop(): Promise<void> {
    await Promise.all(
      processes.splice(0).map((child) => stopProcess(child, 'SIGKILL')),
    );
    await rm(dir, { recursive: true, force: true });
  }
  const sentinel = new Redis({ port: sentinelPort, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => 100 });
  // Refused until the sentinel listens: the loop below retries.
  sentinel.on('error', () => undefined);
  try {
    const master = await spawnRedisServer(['--port', String(masterPort), ...plain]);
    processes.push(master);
    processes.push(await spawnRedisServer(['--port', String(replicaPort), '--replicaof', '127.0.0.1', String(masterPort), ...plain]));
    // The sentinel rewrites its configuration file as it learns: it must be its own, writable.
    const conf = join(dir, 'sentinel.conf');
    await writeFile(
      conf,
      [
        `port ${sentinelPort}`,
        'bind 127.0.0.1',
        `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${masterPort} 1`,
        `sentinel down-after-milliseconds ${MASTER_NAME} 1000`,
        `sentinel failover-timeout ${MASTER_NAME} 5000`,
        '',
      ].join('\n'),
    );
    const sentinelProcess = spawn('redis-server', [conf, '--sentinel'], { stdio: ['ignore', 'ignore', 'ignore'] });
    processes.push(sentinelProcess);
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        if (sentinel.status === 'wait') await sentinel.connect();
        // Ready once the sentinel knows the master and has found its replica.
        const replicas = (await sentinel.call('SENTINEL', 'REPLICAS', MASTER_NAME)) as unknown[];
        if (replicas.length > 0) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error('the sentinel never saw the master and its replica');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    let masterProcess: ChildProcess | undefined = master;
    return {
      url: `redis+sentinel://127.0.0.1:${sentinelPort}/${MASTER_NAME}`,
      masterPort,
      replicaPort,
      async killMaster() {
        const running = masterProcess;
        masterProcess = undefined;
        if (running) await stopProcess(running, 'SIGKILL');
      },
      async masterAddress() {
        const [host, port] = (await sentinel.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER_NAME)) as [string, string];
        return `${host}:${port}`;
      },
      async stop() {
        sentinel.disconnect();
        await stop();
      },
    };
  } catch (error) {
    sentinel.disconnect();
    await stop();
    throw error;
  }
}
