/**
 * Property-based abuse of every write path: each mutation of the schema (listed at run time, so
 * new ones are covered as they land) gets random inputs generated from its input type, with wrong
 * types and garbage mixed in; the webhook receiver gets random paths, headers and bodies.
 *
 * Properties: every error is typed (`extensions.code`, never INTERNAL_SERVER_ERROR), the gateway
 * keeps serving, and a request rejected before reaching the upstream leaves the simulator's state
 * exactly as it was.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  type GraphQLField,
  type GraphQLInputType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/schema/index.js';
import type { Simulator } from '../../src/simulator/server.js';
import { startHarness, type GraphQLResponse, type Harness } from '../support/harness.js';

/** Runs per mutation; each reaching the upstream waits for its job, so keep it modest. */
const RUNS_PER_MUTATION = 20;
const WEBHOOK_RUNS = 150;

/** A digest of every record the simulator holds, in a stable order. */
function storeDigest(simulator: Simulator): string {
  const hash = createHash('sha256');
  for (const [name, table] of Object.entries(simulator.store).sort(([a], [b]) => a.localeCompare(b))) {
    if (typeof table !== 'object' || table === null || typeof (table as { all?: unknown }).all !== 'function') continue;
    const records = [...(table as { all(): Iterable<unknown> }).all()].map((record) => JSON.stringify(record)).sort();
    hash.update(name).update(JSON.stringify(records));
  }
  return hash.digest('hex');
}

/** Record uuids of the estate: valid inputs that reach the upstream and may change state. */
function knownUuids(simulator: Simulator): string[] {
  const tenant = simulator.credentials.tenantId;
  const store = simulator.store;
  const pick = <T extends { uuid: string }>(records: Iterable<T>, count: number) => [...records].slice(0, count).map((record) => record.uuid);
  return [
    ...pick(store.vms.list(tenant), 4),
    ...pick(store.hosts.list(tenant), 2),
    ...pick(store.volumes.list(tenant), 3),
    ...pick(store.snapshotGroups.list(tenant), 2),
    ...pick(store.cbtTasks.list(tenant), 2),
    ...pick(store.snsPlatforms.list(tenant), 1),
    ...pick(store.snsEndpoints.list(tenant), 2),
    ...pick(store.directories.list(tenant), 1),
  ];
}

/** Values of the right type for a scalar, often plausible, sometimes edge cases. */
function scalarArbitrary(name: string, uuids: readonly string[], clean: boolean): fc.Arbitrary<unknown> {
  switch (name) {
    case 'Uuid':
      return fc.oneof(
        { weight: clean ? 6 : 1, arbitrary: uuids.length > 0 ? fc.constantFrom(...uuids) : fc.constant('0'.repeat(32)) },
        { weight: 1, arbitrary: fc.stringMatching(/^[0-9a-f]{32}$/) },
        { weight: clean ? 0 : 1, arbitrary: fc.string({ maxLength: 40 }) },
      );
    case 'Int':
      return fc.oneof(fc.integer({ min: -5, max: 200 }), fc.integer());
    case 'Float':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'Long':
      return fc.oneof(fc.integer({ min: 0, max: 1_000_000 }), fc.maxSafeInteger());
    case 'Boolean':
      return fc.boolean();
    case 'DateTime':
      return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((date) => date.toISOString());
    case 'JSON':
      return fc.jsonValue({ maxDepth: 2 });
    default:
      // String, ID and custom text scalars.
      return fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('', 'nqn.2014-08.org.example:x', 'http://127.0.0.1:1/x', '10.0.0.1', '255.255.255.0'));
  }
}

/** Anything JSON can carry: the wrong type almost everywhere. */
const garbage: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.string({ maxLength: 10 }),
  fc.constantFrom(null, -1, 1e308, true, [], {}, '\u0000', '../..', 'x'.repeat(2000)),
);

/**
 * Inputs for a mutation: half well typed throughout (plausible values, the estate's own uuids, so
 * many reach the upstream), half with one node in five replaced by garbage.
 */
function mutationInputArbitrary(type: GraphQLInputType, uuids: readonly string[]): fc.Arbitrary<unknown> {
  return fc.oneof(inputArbitrary(type, uuids, true), inputArbitrary(type, uuids, false));
}

function inputArbitrary(type: GraphQLInputType, uuids: readonly string[], clean: boolean, depth = 0): fc.Arbitrary<unknown> {
  const typed = typedArbitrary(type, uuids, clean, depth);
  return clean ? typed : fc.oneof({ weight: 4, arbitrary: typed }, { weight: 1, arbitrary: garbage });
}

function typedArbitrary(type: GraphQLInputType, uuids: readonly string[], clean: boolean, depth: number): fc.Arbitrary<unknown> {
  if (isNonNullType(type)) return typedArbitrary(type.ofType, uuids, clean, depth);
  if (isListType(type)) return fc.array(inputArbitrary(type.ofType, uuids, clean, depth + 1), { maxLength: depth > 2 ? 0 : 3 });
  if (isEnumType(type)) return fc.constantFrom(...type.getValues().map((value) => value.name));
  if (isScalarType(type)) return scalarArbitrary(type.name, uuids, clean);
  if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields());
    const shape: Record<string, fc.Arbitrary<unknown>> = {};
    for (const field of fields) shape[field.name] = depth > 3 ? fc.constant(null) : inputArbitrary(field.type, uuids, clean, depth + 1);
    const required = fields.filter((field) => isNonNullType(field.type)).map((field) => field.name);
    const record = fc.record(shape, { requiredKeys: required });
    if (clean) return record;
    // Sometimes a required field is missing, sometimes an unknown one is added.
    return fc.oneof(
      { weight: 6, arbitrary: record },
      { weight: 1, arbitrary: record.map((value) => ({ ...value, notAField: 1 })) },
      { weight: 1, arbitrary: record.chain((value) => fc.constantFrom(...(required.length > 0 ? required : ['_'])).map((drop) => omit(value, drop))) },
    );
  }
  return garbage;
}

function omit(value: Record<string, unknown>, key: string): Record<string, unknown> {
  const { [key]: _dropped, ...rest } = value;
  return rest;
}

/** Every error of a response is typed, and none is an internal one. */
function expectTypedErrors(response: GraphQLResponse): void {
  expect([200, 400]).toContain(response.status);
  for (const error of response.errors ?? []) {
    const code = error.extensions?.code;
    expect(typeof code, JSON.stringify(error)).toBe('string');
    expect(code, JSON.stringify(error)).not.toBe('INTERNAL_SERVER_ERROR');
  }
}

describe('fuzzing the write paths', () => {
  let harness: Harness;
  let uuids: string[];
  /** Job uuids already seen finished upstream. */
  const settled = new Set<string>();
  /** What the fuzzing did: requests refused before the upstream, requests that reached it, and those that changed its state. */
  const tally = { rejected: 0, reached: 0, changed: 0 };

  /** Waits until every job the upstream received has finished, so the store holds still. */
  async function settleJobs(): Promise<void> {
    for (const entry of harness.simulator.journal()) {
      const uuid = entry.headers['x-job-uuid']?.toLowerCase();
      if (uuid === undefined || settled.has(uuid)) continue;
      for (let attempt = 0; attempt < 400 && harness.simulator.jobs.poll(uuid).status === 202; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      settled.add(uuid);
    }
  }

  /** Sends one request; when it made no upstream request, the simulator's state must not have moved. */
  async function checked<T>(send: () => Promise<T>): Promise<T> {
    await settleJobs();
    const before = storeDigest(harness.simulator);
    const requestsBefore = harness.upstreamRequests();
    const result = await send();
    if (harness.upstreamRequests() === requestsBefore) {
      tally.rejected += 1;
      expect(storeDigest(harness.simulator)).toBe(before);
    } else {
      tally.reached += 1;
      await settleJobs();
      if (storeDigest(harness.simulator) !== before) tally.changed += 1;
    }
    return result;
  }

  beforeAll(async () => {
    harness = await startHarness({ config: { responseCacheTtlMs: 0, mutationWaitMs: 2_000 } });
    uuids = knownUuids(harness.simulator);
  });

  afterAll(async () => {
    await harness?.close();
  });

  const mutations = Object.values(schema.getMutationType()?.getFields() ?? {}) as GraphQLField<unknown, unknown>[];

  it('finds the mutations to fuzz in the schema', () => {
    expect(mutations.length).toBeGreaterThan(0);
    for (const mutation of mutations) expect(mutation.args.map((arg) => arg.name)).toEqual(['input']);
  });

  for (const mutation of mutations) {
    it(`${mutation.name}: random and malformed inputs get typed errors or payloads, and rejected ones change nothing`, async () => {
      const inputType = mutation.args[0]!.type;
      const typeName = getNamedType(inputType).name;
      const document = /* GraphQL */ `
        mutation Fuzz($input: ${typeName}!) {
          ${mutation.name}(input: $input) { clientMutationId error { code } job { id status } }
        }
      `;
      await fc.assert(
        fc.asyncProperty(mutationInputArbitrary(inputType, uuids), async (input) => {
          const response = await checked(() => harness.gql(document, { input }));
          expectTypedErrors(response);
        }),
        { numRuns: RUNS_PER_MUTATION },
      );
      // A variable of the wrong shape altogether, and a document that does not validate.
      for (const input of [null, 42, 'text', [], [{}]]) expectTypedErrors(await checked(() => harness.gql(document, { input })));
      expectTypedErrors(await checked(() => harness.gql(`mutation { ${mutation.name}(input: 42) { clientMutationId } }`)));
      // Still serving.
      const health = await harness.gql('{ hosts(first: 1) { totalCount } }');
      expect(health.errors).toBeUndefined();
    }, 120_000);
  }

  it('the webhook receiver answers garbage with 4xx text and never touches the upstream', async () => {
    const segment = fc.oneof(fc.stringMatching(/^[0-9a-f]{32}$/), fc.string({ maxLength: 40 }), fc.constant(''));
    const body = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
      fc.string({ maxLength: 200 }),
      fc.constantFrom('{"error": null}', '{"error": {"code": 1}}', '{}', '', '{'),
      fc.uint8Array({ maxLength: 256 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
    );
    const headers = fc.record(
      {
        'x-job-uuid': fc.oneof(fc.stringMatching(/^[0-9a-f]{32}$/), fc.string({ maxLength: 40 }).filter((text) => /^[\x20-\x7e]*$/.test(text))),
        'x-job-success': fc.constantFrom('true', 'false', 'maybe', ''),
        'content-type': fc.constantFrom('application/json; charset=utf-8', 'text/plain', 'application/octet-stream'),
      },
      { requiredKeys: [] },
    );
    const method = fc.constantFrom('POST', 'POST', 'POST', 'GET', 'PUT', 'DELETE');
    await fc.assert(
      fc.asyncProperty(segment, segment, headers, body, method, async (id, secret, sent, text, verb) => {
        const url = `${harness.url}/webhooks/jobs/${encodeURIComponent(id)}/${encodeURIComponent(secret)}`;
        const response = await checked(() =>
          fetch(url, { method: verb, headers: sent, body: verb === 'GET' ? undefined : text }),
        );
        expect(response.status).toBeGreaterThanOrEqual(400);
        expect(response.status).toBeLessThan(500);
        await response.text();
      }),
      { numRuns: WEBHOOK_RUNS },
    );
    expect((await fetch(`${harness.url}/healthz`)).status).toBe(200);
  }, 120_000);

  it('exercised both paths: inputs refused before the upstream, and inputs that reached it and changed its state', () => {
    expect(tally.rejected).toBeGreaterThan(0);
    expect(tally.reached).toBeGreaterThan(0);
    // The digest sees real writes, so an unchanged digest means something.
    expect(tally.changed).toBeGreaterThan(0);
  });

  it('a real job id with a wrong secret is refused (403) and its job stays as it was', async () => {
    const hosts = await harness.gql<{ hosts: { nodes: { uuid: string; status: string }[] } }>('{ hosts(first: 50) { nodes { uuid status } } }');
    const host = hosts.data!.hosts.nodes.find((candidate) => candidate.status === 'CONNECTED')!;
    const started = await harness.gql<{ updateHostNqn: { job: { id: string } } }>(
      'mutation ($input: UpdateHostNqnInput!) { updateHostNqn(input: $input) { job { id } } }',
      { input: { uuid: host.uuid, nqn: 'nqn.2014-08.org.example:webhook-fuzz', async: true } },
    );
    const jobId = started.data!.updateHostNqn.job.id;
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 64 }), fc.constantFrom('true', 'false'), async (secret, success) => {
        const response = await fetch(`${harness.url}/webhooks/jobs/${jobId}/${encodeURIComponent(secret)}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-job-uuid': jobId, 'x-job-success': success },
          body: JSON.stringify(success === 'true' ? { inventory: { forged: true } } : { error: { code: 'SYS.1000' } }),
        });
        expect(response.status).toBe(403);
        await response.text();
      }),
      { numRuns: 30 },
    );
    // The job's result is the upstream's, not a forged one.
    await settleJobs();
    const job = await harness.gql<{ job: { status: string } }>('query ($id: ID!) { job(id: $id) { status } }', { id: jobId });
    expect(job.data?.job.status).not.toBe('FAILED');
  });
});
