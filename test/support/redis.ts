/**
 * A real redis-server for a test: started as a child process on a free port, with no
 * persistence, and able to stop and start again on the same port (an outage and a recovery).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';

export interface RedisServer {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
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

export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;

  async function start(): Promise<void> {
    child = await spawnRedisServer(['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']);
  }

  async function stop(): Promise<void> {
    const running = child;
    child = undefined;
    if (running) await stopProcess(running, 'SIGTERM');
  }

  await start();
  return { url: `redis://127.0.0.1:${port}`, port, stop, start };
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
