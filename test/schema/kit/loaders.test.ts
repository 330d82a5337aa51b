/**
 * DataLoader batches as the upstream sees them: split at MAX_BATCH_SIZE, duplicates loaded once,
 * a missing key an error in its own slot only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCodes, startHarness, type Harness } from '../../support/harness.js';

describe('per-request loaders', () => {
  let harness: Harness;
  let vmIds: string[];

  beforeAll(async () => {
    harness = await startHarness({ config: { maxBatchSize: 7 } });
    const page = await harness.gql<{ vmInstances: { nodes: { id: string }[] } }>('{ vmInstances(first: 20) { nodes { id } } }');
    vmIds = page.data!.vmInstances.nodes.map((node) => node.id);
  });

  afterAll(async () => {
    await harness.close();
  });

  /** The uuids each CursorQuery of the journal asked for with its `uuid` filter. */
  function uuidBatches(): string[][] {
    return harness.simulator
      .journal()
      .filter((entry) => entry.operation === 'CursorQuery')
      .map((entry) => new URLSearchParams(entry.query).getAll('filter').find((filter) => filter.startsWith('uuid:')))
      .filter((filter): filter is string => filter !== undefined)
      .map((filter) => filter.split(':').slice(2).join(':').split(','));
  }

  it('splits a batch longer than MAX_BATCH_SIZE into upstream requests of at most that many keys', async () => {
    harness.resetStats();
    const journalBefore = harness.simulator.journal().length;
    const response = await harness.gql<{ nodes: { uuid: string }[] }>('query($ids: [ID!]!) { nodes(ids: $ids) { ... on VmInstance { uuid } } }', {
      ids: vmIds,
    });
    expect(response.errors).toBeUndefined();
    expect(response.data!.nodes).toHaveLength(20);
    const batches = uuidBatches().slice(-Math.ceil(20 / 7));
    expect(harness.simulator.journal().length - journalBefore).toBe(3);
    expect(batches.map((batch) => batch.length).sort()).toEqual([6, 7, 7]);
    expect(new Set(batches.flat()).size).toBe(20);
  });

  it('loads a key asked for several times once', async () => {
    harness.resetStats();
    const [a, b] = vmIds;
    const response = await harness.gql<{ nodes: { uuid: string }[] }>('query($ids: [ID!]!) { nodes(ids: $ids) { ... on VmInstance { uuid } } }', {
      ids: [a, a, b, a],
    });
    expect(response.data!.nodes.map((node) => node.uuid)).toEqual([
      response.data!.nodes[0]!.uuid,
      response.data!.nodes[0]!.uuid,
      response.data!.nodes[2]!.uuid,
      response.data!.nodes[0]!.uuid,
    ]);
    expect(harness.upstreamRequests()).toBe(1);
    expect(uuidBatches().at(-1)).toHaveLength(2);
  });

  it('fails only the slot of a key the upstream does not have, matching the others by key', async () => {
    const unknown = Buffer.from(`VmInstance:${'e'.repeat(32)}`).toString('base64');
    const response = await harness.gql<{ nodes: ({ uuid: string } | null)[] }>(
      'query($ids: [ID!]!) { nodes(ids: $ids) { ... on VmInstance { uuid } } }',
      { ids: [vmIds[3], unknown, vmIds[4]] },
    );
    const [first, missing, last] = response.data!.nodes;
    expect(first?.uuid).toMatch(/^[0-9a-f]{32}$/);
    expect(missing).toBeNull();
    expect(last?.uuid).toMatch(/^[0-9a-f]{32}$/);
    expect(first?.uuid).not.toBe(last?.uuid);
    expect(errorCodes(response)).toEqual(['NOT_FOUND']);
    expect(response.errors![0]!.path).toEqual(['nodes', 1]);
  });

  it('never shares a loader between requests: a record changed between two requests is read fresh', async () => {
    const uuid = (await harness.gql<{ nodes: { uuid: string }[] }>('query($ids: [ID!]!) { nodes(ids: $ids) { ... on VmInstance { uuid } } }', {
      ids: [vmIds[5]],
    })).data!.nodes[0]!.uuid;
    // Two different documents, so no response cache stands between the reads and the loaders.
    const read = (selection: string) =>
      harness.gql<{ vmInstance: { name: string } }>(`query($uuid: Uuid!) { vmInstance(uuid: $uuid) { ${selection} } }`, { uuid });
    const before = (await read('name')).data!.vmInstance.name;
    harness.simulator.store.vms.getAny(uuid)!.name = `${before}-renamed`;
    expect((await read('name uuid')).data!.vmInstance.name).toBe(`${before}-renamed`);
  });
});
