/**
 * The previous release, as a tree of source to run beside the current code: the commit the pin
 * file names (`test/upgrade/previous-release.json`, moved at each release), extracted with
 * `git archive` into a temporary directory that shares this tree's `node_modules` (a release's
 * production dependencies are the current ones, or a subset of them); and replicas of either
 * tree, started as processes.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually, spawnGateway, type GatewayProcess } from './process.js';
import { freePort } from './redis.js';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
/** The pin file, relative to the repository's root. */
export const PIN_FILE = 'test/upgrade/previous-release.json';

/** What the pin file holds. */
export interface ReleasePin {
  /** The previous release's full commit id. */
  commit: string;
  note: string;
}

export async function readPin(): Promise<ReleasePin> {
  const pin = JSON.parse(await readFile(join(ROOT, PIN_FILE), 'utf8')) as Partial<ReleasePin>;
  if (typeof pin.commit !== 'string' || !/^[0-9a-f]{40}$/.test(pin.commit)) throw new Error(`${PIN_FILE}: "commit" must be a full 40-hex commit id`);
  return { commit: pin.commit, note: pin.note ?? '' };
}

/** A key as scripts/redis-format-fixtures.ts dumps it into test/fixtures/redis-formats/. */
export interface DumpedKey {
  key: string;
  /** Its Redis type: `string`, `hash`, `set`, `zset` or `stream`. */
  type: string;
  /** Its time to live when dumped, in ms (-1: none). */
  ttlMs: number;
  /** A string, a hash's fields, a set's sorted members, a zset's `[member, score, ...]`, a stream's `[{id, fields}]`. */
  value: unknown;
}

/** A release's source, extracted. */
export interface ReleaseTree {
  readonly commit: string;
  /** Where it is: the working directory to start its gateway in (`spawnGateway(env, dir)`). */
  readonly dir: string;
  remove(): Promise<void>;
}

/** Extracts `commit` of this repository; fails saying how to fetch it when the clone lacks it. */
export async function extractRelease(commit: string): Promise<ReleaseTree> {
  try {
    execFileSync('git', ['cat-file', '-e', `${commit}^{commit}`], { cwd: ROOT, stdio: 'ignore' });
  } catch {
    throw new Error(
      `The previous release ${commit} (pinned in ${PIN_FILE}) is not in this clone, so the upgrade tests cannot run it. ` +
        `Fetch the whole history (git fetch --unshallow, or a checkout with fetch-depth: 0) or at least that commit (git fetch origin ${commit}).`,
    );
  }
  const dir = await mkdtemp(join(tmpdir(), `gateway-${commit.slice(0, 7)}-`));
  execFileSync('sh', ['-c', `git archive --format=tar ${commit} | tar -x -C "$1"`, 'extract', dir], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  await symlink(await realpath(join(ROOT, 'node_modules')), join(dir, 'node_modules'), 'dir');
  return { commit, dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Starts a replica of the tree at `dir` (this one when undefined) on a port of its own, which is
 * also its webhook address (`PUBLIC_URL`), with `env` over that, and resolves once it is ready.
 */
export async function startReplica(dir: string | undefined, env: Record<string, string>): Promise<GatewayProcess> {
  const port = await freePort();
  const replica = await spawnGateway({ PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: 'warn', ...env }, dir);
  try {
    await eventually(async () => (await fetch(`${replica.url}/readyz`)).status === 200, `the replica of ${dir ?? 'this tree'} ready`);
  } catch (error) {
    await replica.kill('SIGKILL');
    throw error;
  }
  return replica;
}
