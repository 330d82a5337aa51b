/**
 * A real redis-server for a test: started as a child process on a free port, and able to stop and
 * start again on the same port (an outage and a recovery). Without persistence it comes back
 * empty; `persistent` keeps its data across the restart (an append-only file in a directory of
 * its own, synced at every write), as a Redis deployed with persistence does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RedisServer {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** SIGSTOP: the process stalls, its connections stay open and unanswered (a frozen Redis, a partition without resets). */
  freeze(): void;
  /** SIGCONT: it answers again, everything sent meanwhile first. */
  thaw(): void;
}

/** A port nothing listens on right now: bound by the OS, then released. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const address = probe.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

export interface RedisServerOptions {
  /** Keep the data across `stop()` and `start()`. @default false */
  persistent?: boolean;
}

export async function startRedis(options: RedisServerOptions = {}): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const persistence = options.persistent ? ['--dir', persistentDirectory(), '--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];

  async function start(): Promise<void> {
    child = await spawnRedisServer(['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence]);
  }

  async function stop(): Promise<void> {
    const running = child;
    child = undefined;
    // A frozen server would never handle the SIGTERM.
    running?.kill('SIGCONT');
    if (running) await stopProcess(running, 'SIGTERM');
  }

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    start,
    freeze: () => child?.kill('SIGSTOP'),
    thaw: () => child?.kill('SIGCONT'),
  };
}

/** A directory of its own for a server's files, removed when the test process exits. */
function persistentDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'gateway-redis-'));
  process.once('exit', () => rmSync(directory, { recursive: true, force: true }));
  return directory;
}

/** Starts `redis-server <args>` and resolves once it accepts connections (its output kept drained). */
export async function spawnRedisServer(args: readonly string[]): Promise<ChildProcess> {
  const server = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
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
    server.once('exit', (code) => reject(new Error(`redis-server ${args.join(' ')} exited with ${code}: ${output}`)));
  });
  // Keep draining its output so the pipe never fills.
  server.stdout?.resume();
  server.stderr?.resume();
  return server;
}

/** Sends `child` `signal` and waits until it has exited (at once when it already has). */
export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  await exited;
}

/**
 * The ids of the gateways' stream-reader connections in a `CLIENT LIST` reply; `reading`: only
 * those blocked in a read (past their first check of the streams' offsets).
 */
export function readerIds(list: unknown, reading = false): string[] {
  return String(list)
    .split('\n')
    .filter((line) => / name=gateway-reader /.test(line) && (!reading || / cmd=xread /.test(line)))
    .map((line) => /\bid=(\d+)/.exec(line)![1]!);
}

/** What the gateway at `gatewayUrl` says of its dependencies on `/healthz`, e.g. `{ upstream: 'up', redis: 'down' }`. */
export async function dependenciesOf(gatewayUrl: string): Promise<Record<string, string>> {
  const health = (await (await fetch(`${gatewayUrl}/healthz`)).json()) as { dependencies: Record<string, string> };
  return health.dependencies;
}

/** Whether the gateway at `gatewayUrl` reports Redis up (every connection of it back). */
export async function redisUpAt(gatewayUrl: string): Promise<boolean> {
  return (await dependenciesOf(gatewayUrl)).redis === 'up';
}
