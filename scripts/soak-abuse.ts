/**
 * The attacker of `npm run soak`'s abuse phase, run as a process of its own so its work does not
 * slow the normal callers' event loop: `tsx scripts/soak-abuse.ts <gateway url> <seconds>`.
 * Loopback only, bounded in count and time. For the whole phase it keeps up, at once:
 * - stalled bodies: `SOAK_ABUSE_STALLED` connections (default 100), each declaring 1 MiB, sending
 *   half and then nothing, reopened as soon as the gateway cuts one;
 * - large aliased mutations under an invented credential: 30 aliases sharing 900 KB of `userTags`
 *   (over the mutation limit), and every fifth time 10 (at it), one request at a time;
 * - webhook deliveries to unknown jobs, each declaring 1 MiB and sending none.
 * `SOAK_ABUSE_ATTACKS` picks some of them (`stalled,mutations,webhooks`, the default: all).
 * Prints one JSON line with what it did and what the gateway answered.
 */
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';

const MIB = 1024 * 1024;
/** Whatever the clock says, no attack opens more than this many connections or requests. */
const MAX_ATTEMPTS = 20_000;

interface Tally {
  [outcome: string]: number;
}

function count(tally: Tally, key: string): void {
  tally[key] = (tally[key] ?? 0) + 1;
}

/** Opens a connection, sends `head` and `body`, and resolves with the answer's status (or `closed`) once the gateway closes it. */
function stall(port: number, head: string, body: Buffer | null, giveUpMs: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    const timer = setTimeout(() => socket.destroy(), giveUpMs);
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 'closed');
    });
    socket.write(head);
    if (body) socket.write(body);
  });
}

function postHead(path: string, contentLength: number): string {
  return `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${contentLength}\r\n\r\n`;
}

async function stalledBodies(port: number, deadline: number, connections: number, tally: Tally): Promise<void> {
  const half = Buffer.alloc(MIB / 2, 32);
  let attempts = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < deadline && attempts < MAX_ATTEMPTS) {
        attempts += 1;
        count(tally, `stalled body: ${await stall(port, postHead('/graphql', MIB), half, Math.max(1, deadline - Date.now()))}`);
      }
    }),
  );
}

async function bigMutations(url: string, deadline: number, tally: Tally): Promise<void> {
  const userTags = Array.from({ length: 900 }, (_, index) => `tag-${index}-${'x'.repeat(994)}`);
  const aliased = (count: number): string =>
    `mutation($input: DeleteCbtTaskInput!) { ${Array.from({ length: count }, (_, index) => `m${index}: deleteCbtTask(input: $input) { error { code } }`).join(' ')} }`;
  const input = { uuid: '0'.repeat(32), userTags, async: true };
  for (let attempt = 0; Date.now() < deadline && attempt < MAX_ATTEMPTS; attempt += 1) {
    const aliases = attempt % 5 === 4 ? 10 : 30;
    try {
      const response = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `OAuth ${randomBytes(16).toString('hex')}` },
        body: JSON.stringify({ query: aliased(aliases), variables: { input } }),
        signal: AbortSignal.timeout(30_000),
      });
      const answer = (await response.json()) as { errors?: { extensions?: { code?: string } }[] };
      count(tally, `${aliases} mutations: ${answer.errors?.[0]?.extensions?.code ?? `answered ${response.status}`}`);
    } catch (error) {
      count(tally, `${aliases} mutations: ${error instanceof Error ? error.name : 'failed'}`);
    }
  }
}

async function strangerWebhooks(port: number, deadline: number, tally: Tally): Promise<void> {
  for (let attempt = 0; Date.now() < deadline && attempt < MAX_ATTEMPTS; attempt += 1) {
    const path = `/webhooks/jobs/${randomBytes(16).toString('hex')}/${randomBytes(24).toString('base64url')}`;
    count(tally, `webhook: ${await stall(port, postHead(path, MIB), null, 10_000)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function main(): Promise<void> {
  const [url, seconds] = process.argv.slice(2);
  if (url === undefined || seconds === undefined) throw new Error('usage: soak-abuse.ts <gateway url> <seconds>');
  const target = new URL(url);
  if (target.hostname !== '127.0.0.1' && target.hostname !== 'localhost') throw new Error('the attacker only targets loopback');
  const port = Number(target.port);
  const deadline = Date.now() + Number(seconds) * 1000;
  const connections = Number(process.env.SOAK_ABUSE_STALLED ?? 100);
  const tally: Tally = {};
  const attacks = new Set((process.env.SOAK_ABUSE_ATTACKS ?? 'stalled,mutations,webhooks').split(',').map((name) => name.trim()));
  await Promise.all([
    attacks.has('stalled') ? stalledBodies(port, deadline, connections, tally) : undefined,
    attacks.has('mutations') ? bigMutations(url, deadline, tally) : undefined,
    attacks.has('webhooks') ? strangerWebhooks(port, deadline, tally) : undefined,
  ]);
  process.stdout.write(`${JSON.stringify(tally)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`attacker failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
