#!/usr/bin/env node
/**
 * Replays the Dockerfile without a Docker engine (CI machines have none): every stage gets a
 * directory, `COPY` copies from the build context or an earlier stage, `RUN npm ...` runs there
 * (other `RUN`s install into the base image and are skipped), and the last stage's `CMD` runs
 * with its `ENV`. The image is then checked as a deployment would check it:
 * - it holds compiled JavaScript and production dependencies only: no TypeScript source, no tsx,
 *   no dev dependency (one imported at run time would break the image; the runs below prove the
 *   gateway and the simulator load without them);
 * - against an upstream (the image's own simulator, `node dist/simulator/main.js`): its
 *   `HEALTHCHECK` passes, a dashboard query reads VMs, and SIGTERM stops it with exit code 0;
 * - with no `UPSTREAM_URL` (the demo default of `docker run`): it starts its embedded simulator,
 *   the demo credentials its banner prints read VMs, and SIGTERM stops it with exit code 0;
 * - either way, GraphiQL's page comes whole from the image (its example tabs, every asset inline)
 *   and the guide it links to answers.
 *
 * What this does not cover: the base image itself (its Node version: the replay runs on this
 * machine's), `apt-get` (tini) and the `node` user.
 */
import { spawn } from 'node:child_process';
import { access, cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';

const context = resolve(import.meta.dirname, '..');
const work = await mkdtemp(join(tmpdir(), 'image-check-'));
const children = new Set();

function log(message) {
  process.stdout.write(`[image-check] ${message}\n`);
}

/** Dockerfile instructions, continuation lines joined, comments and parser directives dropped. */
function instructions(text) {
  const joined = text.replace(/\\\r?\n/g, ' ');
  return joined
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [keyword, ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });
}

/** `KEY=value KEY2="two words"` pairs of an `ENV`. */
function envPairs(args) {
  const pairs = {};
  for (const match of args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("([^"]*)"|\S*)/g)) pairs[match[1]] = match[3] ?? match[2];
  return pairs;
}

function run(command, args, options) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { stdio: 'inherit', ...options });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolvePromise() : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`))));
  });
}

async function freePort() {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  await new Promise((done) => server.close(done));
  return port;
}

/** Retries `attempt` until it resolves, pausing `pauseMs` between tries, for up to `timeoutMs`. */
async function until(what, timeoutMs, pauseMs, attempt) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${what} still failing after ${timeoutMs} ms`, { cause: error });
      await sleep(pauseMs);
    }
  }
}

/** Waits until `url` answers 2xx. */
function answering(url, timeoutMs) {
  return until(url, timeoutMs, 250, async () => {
    const response = await fetch(url, { signal: AbortSignal.timeout(3000) });
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  });
}

/** Runs the stage's `HEALTHCHECK` command until it exits 0, as Docker would. */
function healthy(stage, env, timeoutMs) {
  if (!stage.healthcheck) throw new Error('the last stage has no exec-form HEALTHCHECK');
  const [command, ...args] = stage.healthcheck;
  return until('HEALTHCHECK', timeoutMs, 500, () => run(executable(command), args, { cwd: join(stage.dir, stage.workdir), env, stdio: 'ignore' }));
}

/** The image's `node` is this machine's Node. */
function executable(command) {
  return command === 'node' ? process.execPath : command;
}

/** Spawns a long-running process whose output is kept for the failure message. */
function start(command, args, options) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  children.add(child);
  child.output = '';
  for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk) => (child.output += chunk));
  child.once('exit', () => children.delete(child));
  return child;
}

async function build() {
  const stages = new Map();
  let stage;
  for (const { keyword, args } of instructions(await readFile(join(context, 'Dockerfile'), 'utf8'))) {
    if (keyword === 'ARG' && args.startsWith('NODE_IMAGE=')) {
      log(`the image is based on ${args.slice('NODE_IMAGE='.length)}; replayed on Node ${process.version}`);
    } else if (keyword === 'FROM') {
      const name = /\bAS\s+(\S+)/i.exec(args)?.[1] ?? String(stages.size);
      stage = { name, dir: join(work, name), workdir: '/', env: {}, cmd: undefined, healthcheck: undefined };
      stages.set(name, stage);
      log(`stage ${name}`);
    } else if (keyword === 'WORKDIR') {
      stage.workdir = args;
    } else if (keyword === 'ENV') {
      Object.assign(stage.env, envPairs(args));
    } else if (keyword === 'COPY') {
      const words = args.split(/\s+/);
      const from = words.find((word) => word.startsWith('--from='))?.slice('--from='.length);
      const paths = words.filter((word) => !word.startsWith('--'));
      const destination = paths.pop();
      // Sources name paths in the build context, or from the root of an earlier stage.
      const sourceRoot = from === undefined ? context : stages.get(from).dir;
      const target = join(stage.dir, destination.startsWith('/') ? destination : join(stage.workdir, destination));
      for (const source of paths) {
        const into = destination.endsWith('/') ? join(target, source.split('/').pop()) : target;
        await cp(join(sourceRoot, source), into, { recursive: true });
      }
      log(`COPY ${args}`);
    } else if (keyword === 'RUN') {
      if (!args.startsWith('npm ')) {
        log(`skipped (base image setup): RUN ${args.slice(0, 60)}`);
        continue;
      }
      log(`RUN ${args}`);
      // The image build's own npm cache, as inside a container: `npm cache clean` must not
      // empty this machine's.
      const npmCache = join(work, 'npm-cache');
      await run('bash', ['-c', args], { cwd: join(stage.dir, stage.workdir), env: { ...process.env, ...stage.env, npm_config_cache: npmCache } });
    } else if (keyword === 'CMD') {
      stage.cmd = JSON.parse(args);
    } else if (keyword === 'HEALTHCHECK') {
      stage.healthcheck = JSON.parse(/\bCMD\s+(\[.*\])\s*$/.exec(args)?.[1] ?? 'null');
    }
  }
  return stage;
}

/** Files under `dir` (recursively) whose name `test` accepts, relative to `dir`. */
async function filesUnder(dir, test) {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile() && test(entry.name)).map((entry) => relative(dir, join(entry.parentPath, entry.name)));
}

/** The image carries what runs it and nothing of the development setup. */
async function checkContents(runtime) {
  const app = join(runtime.dir, runtime.workdir);
  const sources = await filesUnder(app, (name) => name.endsWith('.ts') && !name.endsWith('.d.ts'));
  const ownSources = sources.filter((path) => !path.startsWith('node_modules'));
  if (ownSources.length > 0) throw new Error(`the image carries TypeScript sources: ${ownSources.slice(0, 5).join(', ')}`);
  const entry = join(app, runtime.cmd.at(-1));
  await access(entry).catch(() => {
    throw new Error(`the CMD's script ${runtime.cmd.at(-1)} is not in the image`);
  });
  // What npm marks dev-only in the lock: a dev dependency that a production dependency also needs
  // (graphql-jit needs @graphql-typed-document-node/core) belongs in the image and is not marked.
  const { packages } = JSON.parse(await readFile(join(context, 'package-lock.json'), 'utf8'));
  const devOnly = Object.entries(packages)
    .filter(([path, entry]) => path.startsWith('node_modules/') && entry.dev)
    .map(([path]) => path);
  // tsx and TypeScript by name too: as production dependencies they would pass the first test.
  const forbidden = new Set([...devOnly, 'node_modules/tsx', 'node_modules/typescript']);
  const present = [];
  for (const path of forbidden) {
    if (await access(join(app, path)).then(() => true, () => false)) present.push(path.slice('node_modules/'.length));
  }
  if (present.length > 0) throw new Error(`the image carries dev-only packages: ${present.slice(0, 10).join(', ')}`);
  const compiled = await filesUnder(join(app, 'dist'), (name) => name.endsWith('.js'));
  log(`contents: ${compiled.length} compiled modules, no TypeScript source, none of the ${forbidden.size} dev-only packages (tsx and typescript among them)`);
}

/** Waits until the child's output matches `pattern`, and answers the match. */
function printed(child, pattern, timeoutMs) {
  return until(`output matching ${pattern}`, timeoutMs, 100, async () => {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode} before printing ${pattern}`);
    const match = pattern.exec(child.output);
    if (!match) throw new Error('not yet');
    return match;
  });
}

/**
 * GraphiQL as a browser asks for it: the page, with its example tabs and every asset inline (no
 * script or stylesheet from elsewhere), and the guide page it links to, both served from the image.
 * On the demo the tabs name records of the demo; against an upstream, placeholders.
 */
async function checkGraphiQL(port, label, demo) {
  const page = await fetch(`http://127.0.0.1:${port}/graphql`, { headers: { accept: 'text/html' } });
  const html = await page.text();
  if (page.status !== 200 || !html.includes('"defaultTabs"')) throw new Error(`no GraphiQL page with example tabs: ${page.status} ${html.slice(0, 300)}`);
  if (/<(script|link)\b[^>]*\b(src|href)="(https?:)?\/\//i.test(html)) throw new Error('the GraphiQL page loads a script or stylesheet from elsewhere');
  const picked = /hostUuid\\": \\"[0-9a-f]{32}\\"/.test(html);
  if (picked !== demo) throw new Error(demo ? 'the example tabs name no host of the demo' : 'the example tabs name a host, not a placeholder');
  const guide = /href=\\?"(\/docs\/[^"\\]+\.md)/.exec(html)?.[1];
  const answer = guide && (await fetch(`http://127.0.0.1:${port}${guide}`));
  if (!answer || answer.status !== 200 || !(await answer.text()).includes('GraphiQL')) throw new Error(`the page's guide link ${guide} does not answer`);
  log(`${label}: GraphiQL: a ${Math.round(html.length / 1024)} KB page, every asset inline, ${demo ? 'tabs on the demo\'s records' : 'tabs with placeholders'}, its guide at ${guide}`);
}

/**
 * Starts the image's CMD with `extraEnv`, waits for its HEALTHCHECK, reads VMs with the
 * credentials `credentialsOf` finds, checks GraphiQL (`demo`: with the embedded simulator), and
 * stops it with SIGTERM, which must end it with code 0.
 */
async function checkGateway(runtime, label, extraEnv, credentialsOf, demo) {
  const port = await freePort();
  const [command, ...args] = runtime.cmd;
  log(`${label}: CMD ${runtime.cmd.join(' ')} (port ${port})`);
  // Only the image's environment (and PATH): nothing of this checkout's leaks in.
  const env = { PATH: process.env.PATH, ...runtime.env, HOST: '127.0.0.1', PORT: String(port), ...extraEnv };
  const gateway = start(executable(command), args, { cwd: join(runtime.dir, runtime.workdir), env });
  try {
    await healthy(runtime, env, 60_000);
    log(`${label}: HEALTHCHECK passed: ${runtime.healthcheck.join(' ').slice(0, 80)}`);
    const credentials = await credentialsOf(gateway);
    const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `OAuth ${credentials.session}`,
        'x-resources-authorization': `Bearer ${credentials.token}`,
        'x-tenant-id': credentials.tenantId,
      },
      body: JSON.stringify({ query: '{ vmInstances(first: 3) { totalCount nodes { uuid name host { name } } } }' }),
    });
    const body = await response.json();
    if (response.status !== 200 || body.errors || !(body.data?.vmInstances?.nodes?.length > 0)) {
      throw new Error(`the dashboard query failed: ${response.status} ${JSON.stringify(body).slice(0, 500)}`);
    }
    log(`${label}: a query through the image read ${body.data.vmInstances.nodes.length} of ${body.data.vmInstances.totalCount} VMs from the upstream`);
    await checkGraphiQL(port, label, demo);
    gateway.kill('SIGTERM');
    // A timer raced against the exit would keep this script alive for its 15 s after success.
    const [code] = await once(gateway, 'exit', { signal: AbortSignal.timeout(15_000) }).catch((error) => {
      throw new Error('no exit within 15 s of SIGTERM', { cause: error });
    });
    if (code !== 0) throw new Error(`exit code ${code} after SIGTERM`);
    log(`${label}: SIGTERM: graceful exit, code 0`);
  } catch (error) {
    process.stderr.write(`--- the image's output (${label}) ---\n${gateway.output}\n`);
    throw error;
  }
}

try {
  const runtime = await build();
  if (!runtime?.cmd) throw new Error('the last stage has no exec-form CMD');
  await checkContents(runtime);

  // An upstream for the gateway: the simulator the image ships, run from the image as a
  // deployment without a real upstream would run it.
  const credentials = { SIM_SESSION: 'image-check-session', SIM_TOKEN: 'image-check-token', SIM_TENANT: 'image-check-tenant' };
  const simulatorPort = await freePort();
  const simulator = start(executable('node'), ['dist/simulator/main.js'], {
    cwd: join(runtime.dir, runtime.workdir),
    env: { PATH: process.env.PATH, ...runtime.env, ...credentials, PORT: String(simulatorPort) },
  });
  try {
    await answering(`http://127.0.0.1:${simulatorPort}/__sim/stats`, 30_000);
  } catch (error) {
    process.stderr.write(`--- the simulator's output ---\n${simulator.output}\n`);
    throw error;
  }
  log('the image\'s simulator answers: node dist/simulator/main.js');

  await checkGateway(runtime, 'with UPSTREAM_URL', { UPSTREAM_URL: `http://127.0.0.1:${simulatorPort}/` }, async () => ({
    session: credentials.SIM_SESSION,
    token: credentials.SIM_TOKEN,
    tenantId: credentials.SIM_TENANT,
  }), false);

  // `docker run` with nothing set: the embedded simulator and the credentials the banner prints.
  await checkGateway(runtime, 'demo (no UPSTREAM_URL)', {}, async (gateway) => {
    const [, session, token, tenantId] = await printed(
      gateway,
      /Authorization: OAuth (\S+)\n\s*X-Resources-Authorization: Bearer (\S+)\n\s*X-Tenant-ID: (\S+)\n/,
      30_000,
    );
    return { session, token, tenantId };
  }, true);
} finally {
  for (const child of children) child.kill('SIGKILL');
  await rm(work, { recursive: true, force: true });
}
