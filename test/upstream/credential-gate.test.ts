/**
 * The credential gate's memory and budget, and the client address it charges: the rules behind
 * the figures of `abuse-amplification.test.ts`, each on its own. The upstream client cases run
 * against the real simulator.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientAddressResolver } from '../../src/server/client-address.js';
import { loadConfig } from '../../src/config/index.js';
import { createSimulator, type Simulator } from '../../src/simulator/server.js';
import { CredentialGate, type CredentialGateOptions } from '../../src/upstream/credential-gate.js';
import { cursorIdentity, resourceIdentity } from '../../src/upstream/credentials.js';
import { isUpstreamRequestError, type UpstreamRequestError } from '../../src/upstream/errors.js';
import { GetHostSensors } from '../../src/upstream/operations/index.js';
import { createTestUpstreamClient, upstreamOptions } from '../support/upstream-client.js';

async function failure(promise: Promise<unknown>): Promise<UpstreamRequestError> {
  try {
    await promise;
  } catch (error) {
    if (isUpstreamRequestError(error)) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

/** A gate as the client builds it from the default settings, with `options`, whose clock the test moves. */
function gateAt(options: Partial<CredentialGateOptions> = {}): { gate: CredentialGate; advance(ms: number): void } {
  let now = 1_000_000;
  const settings = upstreamOptions({ upstreamUrl: 'http://upstream.test' });
  return { gate: new CredentialGate({ ...settings, ...options, now: () => now }), advance: (ms) => (now += ms) };
}

describe('the credential gate', () => {
  it('fails a rejected credential at once until its rejection is forgotten, then asks the upstream again', async () => {
    const { gate, advance } = gateAt({ rejectedCredentialTtlMs: 60_000 });
    (await gate.enter('svc oauth a', '192.0.2.1', 'Op')).settle('rejected', true);
    expect((await failure(gate.enter('svc oauth a', '192.0.2.1', 'Op'))).code).toBe('UNAUTHENTICATED');
    advance(60_001);
    const probe = await gate.enter('svc oauth a', '192.0.2.1', 'Op');
    probe.settle('accepted', true);
  });

  it('remembers at most the configured number of rejected credentials, forgetting the oldest', async () => {
    const { gate } = gateAt({ rememberedCredentials: 2 });
    for (const identity of ['a', 'b', 'c']) (await gate.enter(identity, undefined, 'Op')).settle('rejected', true);
    // `a` was forgotten to make room for `c`: unknown again, it may probe.
    (await gate.enter('a', undefined, 'Op')).settle('accepted', true);
    expect((await failure(gate.enter('c', undefined, 'Op'))).code).toBe('UNAUTHENTICATED');
  });

  it('lets the calls under one unknown credential wait for the first one, and fails them all with its rejection', async () => {
    const { gate } = gateAt();
    const probe = await gate.enter('x', '192.0.2.1', 'Op');
    const waiting = Array.from({ length: 5 }, () => failure(gate.enter('x', '192.0.2.1', 'Op')));
    probe.settle('rejected', true);
    expect((await Promise.all(waiting)).map((error) => error.code)).toEqual(Array(5).fill('UNAUTHENTICATED'));
  });

  it('gives an address its call back when the probe never reached the upstream', async () => {
    const { gate } = gateAt({ unverifiedCallsPerAddress: 1, unverifiedCallsPerMinute: 1 });
    (await gate.enter('first', '192.0.2.1', 'Op')).settle('unknown', false);
    (await gate.enter('second', '192.0.2.1', 'Op')).settle('unknown', true);
    const refused = await failure(gate.enter('third', '192.0.2.1', 'Op'));
    expect(refused.code).toBe('RATE_LIMITED');
    // Another address has its own budget; the gateway's own calls have none.
    (await gate.enter('third', '192.0.2.2', 'Op')).settle('accepted', true);
    (await gate.enter('fourth', undefined, 'Op')).settle('accepted', true);
  });
});

describe('the credential as the upstream reads it', () => {
  it('is one identity for every spelling of a session, and another for another token or tenant', () => {
    expect(resourceIdentity({ authorization: 'oauth  abc ' })).toBe(resourceIdentity({ authorization: 'OAuth abc' }));
    expect(resourceIdentity({ authorization: 'OAuth abd' })).not.toBe(resourceIdentity({ authorization: 'OAuth abc' }));
    expect(cursorIdentity({ authorization: 'bearer t', tenantId: 'x' })).toBe(cursorIdentity({ authorization: 'Bearer  t', tenantId: 'x' }));
    expect(cursorIdentity({ authorization: 'Bearer t', tenantId: 'y' })).not.toBe(cursorIdentity({ authorization: 'Bearer t', tenantId: 'x' }));
  });
});

describe('the client address', () => {
  it('is the socket peer, whatever X-Forwarded-For says, without trusted proxies', () => {
    const resolve = createClientAddressResolver([]);
    expect(resolve('::ffff:198.51.100.9', '203.0.113.1')).toBe('198.51.100.9');
  });

  it('is the first address from the right that no trusted proxy vouches for', () => {
    const resolve = createClientAddressResolver(['10.0.0.0/8', '192.0.2.1']);
    expect(resolve('10.1.2.3', '203.0.113.66, 198.51.100.9, 192.0.2.1')).toBe('198.51.100.9');
    expect(resolve('10.1.2.3', undefined)).toBe('10.1.2.3');
    // A peer outside the trusted ones wrote the header itself.
    expect(resolve('198.51.100.7', '203.0.113.66')).toBe('198.51.100.7');
  });

  it('refuses a TRUSTED_PROXIES entry that is not an address or a range', () => {
    expect(loadConfig({ TRUSTED_PROXIES: '10.0.0.0/8, ::1' }).trustedProxies).toEqual(['10.0.0.0/8', '::1']);
    expect(() => loadConfig({ TRUSTED_PROXIES: 'proxy.internal' })).toThrow(/TRUSTED_PROXIES/);
  });
});

describe('the upstream client with the simulator', () => {
  let simulator: Simulator;
  let url: string;

  beforeAll(async () => {
    simulator = createSimulator({ seed: 3, hosts: 3, vms: 10 });
    url = await simulator.start(0, '127.0.0.1');
  });

  afterAll(async () => {
    await simulator.stop();
  });

  it('sends one of 20 parallel calls under an invented session, and none of the next ones', async () => {
    const client = createTestUpstreamClient({ upstreamUrl: url });
    const session = { authorization: `OAuth ${randomBytes(16).toString('hex')}` };
    simulator.resetStats();
    const errors = await Promise.all(Array.from({ length: 20 }, () => failure(client.read(session, GetHostSensors, { uuid: randomBytes(16).toString('hex') }))));
    expect(errors.every((error) => error.code === 'UNAUTHENTICATED')).toBe(true);
    expect((await failure(client.query(session, 'cbtTasks', {}))).code).toBe('UNAUTHENTICATED');
    expect(simulator.stats().total).toBe(1);
    await client.close();
  });

  it('takes a 400 to a header the upstream reads no credential from as a rejection', async () => {
    const client = createTestUpstreamClient({ upstreamUrl: url });
    simulator.resetStats();
    expect((await failure(client.query({ authorization: ' ' }, 'cbtTasks', {}))).code).toBe('UPSTREAM_BAD_REQUEST');
    expect((await failure(client.query({ authorization: ' ' }, 'cbtTasks', {}))).code).toBe('UNAUTHENTICATED');
    expect(simulator.stats().total).toBe(1);
    await client.close();
  });

  it('sends every parallel call under a session once the upstream accepted it', async () => {
    const client = createTestUpstreamClient({ upstreamUrl: url });
    const session = { authorization: `OAuth ${simulator.credentials.session}` };
    await client.query(session, 'cbtTasks', {});
    simulator.resetStats();
    // Five different reads: identical ones in flight would share one request (SHARE_UPSTREAM_GETS).
    await Promise.all(Array.from({ length: 5 }, (_, index) => client.query(session, 'cbtTasks', { limit: index + 1 })));
    expect(simulator.stats().total).toBe(5);
    await client.close();
  });
});
