/**
 * The `Host` type as a client reads it: its inventory fields as the simulator holds them, and its
 * network facts (bonds and NICs), which point back at their host and are read once per host.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Host } from '../../../src/simulator/model.js';
import { enumValue, iso } from '../../support/expected.js';
import { errorCodes, startHarness, type Harness } from '../../support/harness.js';

interface NicNode {
  uuid: string;
  hostUuid: string;
  interfaceName: string;
  bondingUuid: string | null;
  host: { uuid: string } | null;
}

interface FactsNode {
  bondings: { id: string; uuid: string; bondingName: string; host: { uuid: string } | null; slaves: NicNode[] }[];
  nics: NicNode[];
}

const NIC_FIELDS = 'uuid hostUuid interfaceName bondingUuid host { uuid }';
const FACTS_FIELDS = `networkFacts { bondings { id uuid bondingName host { uuid } slaves { ${NIC_FIELDS} } } nics { ${NIC_FIELDS} } }`;

describe('Host', () => {
  let harness: Harness;
  let tenantId: string;

  beforeAll(async () => {
    harness = await startHarness();
    tenantId = harness.simulator.credentials.tenantId;
  });

  afterAll(async () => {
    await harness.close();
  });

  const store = () => harness.simulator.store;
  const hostsWithBonds = (): Host[] => [...store().hosts.list(tenantId)].filter((host) => store().bondings.by('hostUuid', host.uuid, tenantId).length > 0);

  it('host(uuid) answers the inventory fields the simulator holds, its closed sets as enums', async () => {
    const host = [...store().hosts.list(tenantId)][0]!;
    const response = await harness.gql<{ host: Record<string, unknown> }>(
      `query ($uuid: Uuid!) { host(uuid: $uuid) {
        uuid name managementIp state status hypervisorType architecture cpuNum totalMemoryCapacity nqn hostname cpuStatus createDate
      } }`,
      { uuid: host.uuid },
    );
    expect(response.errors).toBeUndefined();
    expect(response.data!.host).toEqual({
      uuid: host.uuid,
      name: host.name,
      managementIp: host.managementIp,
      state: enumValue(host.state),
      status: enumValue(host.status),
      hypervisorType: enumValue(host.hypervisorType),
      architecture: enumValue(host.architecture),
      cpuNum: host.cpuNum,
      totalMemoryCapacity: host.totalMemoryCapacity,
      nqn: host.nqn,
      hostname: host.hostname,
      cpuStatus: enumValue(host.cpuStatus),
      createDate: iso(host.createDate),
    });
  });

  it('networkFacts answers the host\'s bonds with their slaves and its NICs, each pointing back at the host', async () => {
    const host = hostsWithBonds()[0]!;
    const response = await harness.gql<{ host: { networkFacts: FactsNode } }>(`query ($uuid: Uuid!) { host(uuid: $uuid) { ${FACTS_FIELDS} } }`, { uuid: host.uuid });
    expect(response.errors).toBeUndefined();
    const facts = response.data!.host.networkFacts;
    const bonds = store().bondings.by('hostUuid', host.uuid, tenantId);
    expect(facts.bondings.map((bond) => bond.uuid).sort()).toEqual(bonds.map((bond) => bond.uuid).sort());
    const nics = store().nicsOfHost(host);
    // `nics` holds every NIC of the host, a bond's slaves included.
    expect(facts.nics.map((nic) => nic.uuid).sort()).toEqual(nics.map((nic) => nic.uuid).sort());
    const slaves = facts.bondings.flatMap((bond) => bond.slaves);
    expect(slaves.length).toBeGreaterThan(0);
    expect(facts.nics.map((nic) => nic.uuid)).toEqual(expect.arrayContaining(slaves.map((slave) => slave.uuid)));
    for (const bond of facts.bondings) {
      expect(bond.host).toEqual({ uuid: host.uuid });
      for (const slave of bond.slaves) expect(slave.bondingUuid).toBe(bond.uuid);
    }
    for (const nic of [...facts.nics, ...slaves]) expect(nic).toMatchObject({ hostUuid: host.uuid, host: { uuid: host.uuid } });
  });

  it('a bond found by node(id:) is the one its host\'s network facts hold', async () => {
    const host = hostsWithBonds()[0]!;
    const listed = await harness.gql<{ host: { networkFacts: FactsNode } }>(`query ($uuid: Uuid!) { host(uuid: $uuid) { ${FACTS_FIELDS} } }`, { uuid: host.uuid });
    const bond = listed.data!.host.networkFacts.bondings[0]!;
    const found = await harness.gql<{ node: { uuid: string; bondingName: string } | null }>(
      'query ($id: ID!) { node(id: $id) { ... on HostNetworkBonding { uuid bondingName } } }',
      { id: bond.id },
    );
    expect(found.errors).toBeUndefined();
    expect(found.data!.node).toEqual({ uuid: bond.uuid, bondingName: bond.bondingName });
  });

  it('a page of hosts reads its network facts with one GetHostNetworkFacts per host, whatever is selected under them', async () => {
    harness.resetStats();
    const response = await harness.gql<{ hosts: { nodes: { networkFacts: FactsNode }[] } }>(`{ hosts(first: 5) { nodes { uuid ${FACTS_FIELDS} } } }`);
    expect(response.errors).toBeUndefined();
    const factsReads = harness.simulator.journal().filter((entry) => entry.operation === 'GetHostNetworkFacts');
    expect(factsReads).toHaveLength(response.data!.hosts.nodes.length);
  });

  it('host(uuid) of a host that does not exist is null with NOT_FOUND', async () => {
    const response = await harness.gql<{ host: null }>('{ host(uuid: "fedcba9876543210fedcba9876543210") { uuid } }');
    expect(response.data!.host).toBeNull();
    expect(errorCodes(response)).toEqual(['NOT_FOUND']);
  });
});
