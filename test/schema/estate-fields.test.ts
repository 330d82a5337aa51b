/**
 * The spec's optional fields that the demo estate used to leave empty everywhere: each now
 * carries a value in some records and none in others, and the gateway returns each one through
 * GraphQL exactly (null where the upstream record has none).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostNic, Volume } from '../../src/simulator/model.js';
import { startHarness, type Harness } from '../support/harness.js';

/** Expects `pairs` (gateway value, estate value) to match one by one, with both values and nulls present. */
function expectSomeOfEach(label: string, pairs: [unknown, unknown][]): void {
  expect(pairs.map(([answered]) => answered), label).toEqual(pairs.map(([, kept]) => kept));
  expect(pairs.some(([, kept]) => kept !== null), `${label}: some records carry a value`).toBe(true);
  expect(pairs.some(([, kept]) => kept === null), `${label}: some records carry none`).toBe(true);
}

function isoOf(date: Date | null): string | null {
  return date === null ? null : date.toISOString();
}

describe('fields the estate fills in some records and not others', () => {
  let harness: Harness;
  const tenant = (): string => harness.simulator.credentials.tenantId;

  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('a VM NIC\'s metaData, a volume\'s volumeQos and lastDetachDate, a CD-ROM\'s description', async () => {
    interface Vm {
      uuid: string;
      nics: { uuid: string; metaData: string | null }[];
      volumes: { uuid: string; volumeQos: string | null; lastDetachDate: string | null }[];
      cdRoms: { uuid: string; description: string | null }[];
    }
    const response = await harness.gql<{ vmInstances: { nodes: Vm[] } }>(
      '{ vmInstances(first: 100) { nodes { uuid nics { uuid metaData } volumes { uuid volumeQos lastDetachDate } cdRoms { uuid description } } } }',
    );
    expect(response.errors).toBeUndefined();
    const store = harness.simulator.store;
    const vms = new Map([...store.vms.list(tenant())].map((vm) => [vm.uuid, vm]));
    const volumes = new Map<string, Volume>([...store.volumes.list(tenant())].map((volume) => [volume.uuid, volume]));
    const nodes = response.data!.vmInstances.nodes;
    expect(nodes.length).toBe(vms.size);

    const nics = nodes.flatMap((vm) => vm.nics.map((nic) => [nic.metaData, vms.get(vm.uuid)!.vmNics.find((kept) => kept.uuid === nic.uuid)!.metaData] as [unknown, unknown]));
    expectSomeOfEach('VmNic.metaData', nics);
    const attached = nodes.flatMap((vm) => vm.volumes);
    expectSomeOfEach('Volume.volumeQos', attached.map((volume) => [volume.volumeQos, volumes.get(volume.uuid)!.volumeQos]));
    expectSomeOfEach(
      'Volume.lastDetachDate',
      attached.map((volume) => [volume.lastDetachDate, isoOf(volumes.get(volume.uuid)!.lastDetachDate)]),
    );
    const cdRoms = nodes.flatMap((vm) => vm.cdRoms.map((cdRom) => [cdRom.description, vms.get(vm.uuid)!.vmCdRoms.find((kept) => kept.uuid === cdRom.uuid)!.description] as [unknown, unknown]));
    expectSomeOfEach('VmCdRom.description', cdRoms);
  });

  it('an attachable data volume\'s description', async () => {
    const vms = [...harness.simulator.store.vms.list(tenant())].slice(0, 20).map((vm) => vm.uuid);
    const aliases = vms.map((uuid, index) => `v${index}: vmInstance(uuid: "${uuid}") { attachableDataVolumes { uuid description } }`).join('\n');
    const response = await harness.gql<Record<string, { attachableDataVolumes: { uuid: string; description: string | null }[] }>>(`{ ${aliases} }`);
    expect(response.errors).toBeUndefined();
    const volumes = new Map<string, Volume>([...harness.simulator.store.volumes.list(tenant())].map((volume) => [volume.uuid, volume]));
    const candidates = Object.values(response.data!).flatMap((vm) => vm.attachableDataVolumes);
    expectSomeOfEach('attachable description', candidates.map((volume) => [volume.description, volumes.get(volume.uuid)!.description]));
  });

  it('a host network bond\'s gateway and description, and its slaves\' gateway and description', async () => {
    interface Nic {
      uuid: string;
      gateway: string | null;
      description: string | null;
    }
    interface Host {
      networkFacts: { bondings: (Nic & { slaves: Nic[] })[] };
    }
    const response = await harness.gql<{ hosts: { nodes: Host[] } }>(
      '{ hosts(first: 50) { nodes { networkFacts { bondings { uuid gateway description slaves { uuid gateway description } } } } } }',
    );
    expect(response.errors).toBeUndefined();
    const store = harness.simulator.store;
    const bonds = new Map([...store.bondings.list(tenant())].map((bond) => [bond.uuid, bond]));
    const hostNics = new Map<string, HostNic>([...store.hostNics.list(tenant())].map((nic) => [nic.uuid, nic]));
    const answered = response.data!.hosts.nodes.flatMap((host) => host.networkFacts.bondings);
    expect(answered.length).toBe(bonds.size);
    expectSomeOfEach('bond gateway', answered.map((bond) => [bond.gateway, bonds.get(bond.uuid)!.gateway]));
    expectSomeOfEach('bond description', answered.map((bond) => [bond.description, bonds.get(bond.uuid)!.description]));
    const slaves = answered.flatMap((bond) => bond.slaves);
    expectSomeOfEach('slave gateway', slaves.map((slave) => [slave.gateway, hostNics.get(slave.uuid)!.gateway]));
    expectSomeOfEach('slave description', slaves.map((slave) => [slave.description, hostNics.get(slave.uuid)!.description]));
  });

  it('a snapshot-group deletion result\'s error on its failed items, null on the others, in a small estate too', async () => {
    // Seed 2 at this size drew no snapshot already deleted: the estate still makes one.
    const small = await startHarness({ simulator: { seed: 2, vms: 10, hosts: 2 } });
    try {
      await expectDeletionResults(small);
    } finally {
      await small.close();
    }
    await expectDeletionResults(harness);
  });
});

async function expectDeletionResults(harness: Harness): Promise<void> {
  const tenant = (): string => harness.simulator.credentials.tenantId;
  const group = [...harness.simulator.store.snapshotGroups.list(tenant())].find(
    (candidate) => candidate.volumeSnapshotRefs.some((ref) => ref.snapshotDeleted) && candidate.volumeSnapshotRefs.some((ref) => !ref.snapshotDeleted),
  );
  expect(group, 'the estate has a group with a snapshot already deleted').toBeDefined();
  const response = await harness.gql<{ deleteVolumeSnapshotGroup: { results: { snapshotUuid: string; success: boolean; error: Record<string, unknown> | null }[] } }>(
    'mutation ($uuid: Uuid!) { deleteVolumeSnapshotGroup(input: { uuid: $uuid }) { results { snapshotUuid success error { code description details } } } }',
    { uuid: group!.uuid },
  );
  expect(response.errors).toBeUndefined();
  const results = response.data!.deleteVolumeSnapshotGroup.results;
  expect(results).toHaveLength(group!.volumeSnapshotRefs.length);
  for (const ref of group!.volumeSnapshotRefs) {
    const result = results.find((candidate) => candidate.snapshotUuid === ref.volumeSnapshotUuid)!;
    expect(result.success).toBe(!ref.snapshotDeleted);
    if (ref.snapshotDeleted) {
      expect(result.error).toEqual({
        code: 'SYS.1001',
        description: 'An internal error happened in system',
        details: `snapshot[uuid:${ref.volumeSnapshotUuid}] was already deleted`,
      });
    } else {
      expect(result.error).toBeNull();
    }
  }
}
