/**
 * The gateway as a separate process, started the way a container starts it
 * (`node --import tsx src/index.ts`), for tests that kill it or send it signals.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface GatewayProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Everything it printed (JSON log lines and the GraphiQL line). */
  output(): string;
  /** Resolves with the exit code (or the signal that ended it). */
  readonly exited: Promise<number | NodeJS.Signals>;
  kill(signal?: NodeJS.Signals): Promise<number | NodeJS.Signals>;
}

/**
 * Starts the gateway of the source tree at `cwd` (this one by default; another release's, extracted
 * by `test/support/previous-release.ts`) with `env` over this process's, and resolves once it
 * printed where it listens.
 */
export async function spawnGateway(env: Record<string, string>, cwd?: string): Promise<GatewayProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/index.ts'], {
    cwd,
    env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | NodeJS.Signals>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1));
  });
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (): void => {
      const match = /GraphiQL: (\S+)\/graphql/.exec(output);
      if (match) {
        child.stdout.off('data', onData);
        resolve(match[1]!);
      }
    };
    child.stdout.on('data', onData);
    void exited.then((code) => reject(new Error(`the gateway exited with ${code} before listening:\n${output}`)));
  });
  return {
    url,
    child,
    output: () => output,
    exited,
    async kill(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Resolves once `check` holds, checking after each `intervalMs`; rejects after `attempts` checks. */
export async function eventually<T>(check: () => Promise<T | undefined | false> | T | undefined | false, what: string, attempts = 200, intervalMs = 50): Promise<T> {
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const result = await check();
    if (result !== undefined && result !== false) return result;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`gave up waiting for ${what}`);
}
