import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FiberChannelLun, HbaDevice } from '../../../src/simulator/model.js';
import { enumValue } from '../../support/expected.js';
import { errorCodes, startHarness, type GraphQLResponse, type Harness } from '../../support/harness.js';

interface Page<T> {
  totalCount: number;
  edges: { cursor: string; node: T }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; endCursor: string | null };
}

interface HbaNode {
  id: string;
  uuid: string;
  name: string;
  hostUuid: string;
  portName: string;
  portState: string;
  hbaType: string;
  speed: number | null;
  speedRaw: string | null;
  supportedSpeeds: number[];
  supportedSpeedsRaw: string | null;
  symbolicName: string;
  supportedClasses: string;
  createDate: string;
  lastOpDate: string;
  host: { uuid: string; name: string } | null;
}

interface LunNode {
  id: string;
  uuid: string;
  name: string;
  fiberChannelStorageUuid: string;
  wwid: string;
  wwn: string;
  serial: string;
  vendor: string;
  model: string;
  type: string;
  path: string;
  size: number;
  state: string;
  createDate: string;
  lastOpDate: string;
  scsiLunHostRefs: { scsiLunUuid: string; hostUuid: string; createDate: string; lastOpDate: string; host: { uuid: string } | null }[];
  scsiLunVmInstanceRefs: { scsiLunUuid: string; vmInstanceUuid: string; createDate: string; vmInstance: { uuid: string } | null }[];
  hosts: { uuid: string; name: string }[] | null;
  vmInstances: { uuid: string; name: string }[] | null;
}

const HBA_FIELDS = `id uuid name hostUuid portName portState hbaType speed speedRaw supportedSpeeds supportedSpeedsRaw symbolicName supportedClasses
  createDate lastOpDate host { uuid name }`;

const LUN_FIELDS = `id uuid name fiberChannelStorageUuid wwid wwn serial vendor model type path size state createDate lastOpDate
  scsiLunHostRefs { scsiLunUuid hostUuid createDate lastOpDate host { uuid } }
  scsiLunVmInstanceRefs { scsiLunUuid vmInstanceUuid createDate vmInstance { uuid } }
  hosts { uuid name } vmInstances { uuid name }`;

/** `16 Gbit` → 16000. */
const gbitTextInMbits = (text: string): number => Number(/^(\d+) Gbit$/.exec(text)![1]) * 1000;

const MISSING_UUID = '0123456789abcdef0123456789abcdef';

function expectHbaMatches(node: HbaNode, device: HbaDevice, hostName: string): void {
  expect(node).toEqual({
    id: expect.any(String),
    uuid: device.uuid,
    name: device.name,
    hostUuid: device.hostUuid,
    portName: device.portName,
    portState: enumValue(device.portState),
    hbaType: enumValue(device.hbaType),
    // The simulator writes Gbit speeds (`16 Gbit`); the API answers Mbit/s, the unit of HostNic.speed.
    speed: gbitTextInMbits(device.speed),
    speedRaw: device.speed,
    supportedSpeeds: device.supportedSpeeds.split(', ').map(gbitTextInMbits),
    supportedSpeedsRaw: device.supportedSpeeds,
    symbolicName: device.symbolicName,
    supportedClasses: device.supportedClasses,
    createDate: device.createDate.toISOString(),
    lastOpDate: device.lastOpDate.toISOString(),
    host: { uuid: device.hostUuid, name: hostName },
  });
}

function expectLunMatches(node: LunNode, lun: FiberChannelLun, hostName: (uuid: string) => string, vmName: (uuid: string) => string): void {
  expect(node).toEqual({
    id: expect.any(String),
    uuid: lun.uuid,
    name: lun.name,
    fiberChannelStorageUuid: lun.fiberChannelStorageUuid,
    wwid: lun.wwid,
    wwn: lun.wwn,
    serial: lun.serial,
    vendor: lun.vendor,
    model: lun.model,
    type: enumValue(lun.type),
    path: lun.path,
    size: lun.size,
    state: enumValue(lun.state),
    createDate: lun.createDate.toISOString(),
    lastOpDate: lun.lastOpDate.toISOString(),
    scsiLunHostRefs: lun.scsiLunHostRefs.map((ref) => ({
      scsiLunUuid: lun.uuid,
      hostUuid: ref.hostUuid,
      createDate: ref.createDate.toISOString(),
      lastOpDate: ref.lastOpDate.toISOString(),
      host: { uuid: ref.hostUuid },
    })),
    scsiLunVmInstanceRefs: lun.scsiLunVmInstanceRefs.map((ref) => ({
      scsiLunUuid: lun.uuid,
      vmInstanceUuid: ref.vmInstanceUuid,
      createDate: ref.createDate.toISOString(),
      vmInstance: { uuid: ref.vmInstanceUuid },
    })),
    hosts: lun.scsiLunHostRefs.map((ref) => ({ uuid: ref.hostUuid, name: hostName(ref.hostUuid) })),
    vmInstances: lun.scsiLunVmInstanceRefs.map((ref) => ({ uuid: ref.vmInstanceUuid, name: vmName(ref.vmInstanceUuid) })),
  });
}

describe('HBA devices and fibre-channel LUNs', () => {
  let harness: Harness;
  let tenantId: string;
  let secondTenantId: string;

  beforeAll(async () => {
    // 30 hosts give about 45 HBA ports: several pages of 7, and 20+ hosts for the batching check.
    harness = await startHarness({ simulator: { hosts: 30, vms: 60 } });
    tenantId = harness.simulator.store.tenants[0]!.id;
    secondTenantId = harness.simulator.store.tenants[1]!.id;
  });

  afterAll(async () => {
    await harness.close();
  });

  const store = () => harness.simulator.store;
  const hostName = (uuid: string) => store().hosts.get(tenantId, uuid)!.name;
  const vmName = (uuid: string) => store().vms.get(tenantId, uuid)!.name;

  describe('hbaDevices', () => {
    it('returns every HBA port with the simulator\'s values and its host', async () => {
      const devices = [...store().hbas.list(tenantId)];
      expect(devices.length).toBeGreaterThan(30);
      const response = await harness.gql<{ hbaDevices: Page<HbaNode> }>(`{ hbaDevices(first: 100) { totalCount edges { node { ${HBA_FIELDS} } } } }`);
      expect(response.errors).toBeUndefined();
      const page = response.data!.hbaDevices;
      expect(page.totalCount).toBe(devices.length);
      expect(page.edges).toHaveLength(devices.length);
      for (const { node } of page.edges) {
        const device = store().hbas.get(tenantId, node.uuid);
        expect(device).toBeDefined();
        expectHbaMatches(node, device!, hostName(device!.hostUuid));
      }
    });

    it('walking pages of 7 returns every port exactly once, and an interior cursor continues right after its edge', async () => {
      const expected = store().hbas.count(tenantId);
      const seen: string[] = [];
      const cursors: string[] = [];
      let after: string | null = null;
      let pages = 0;
      for (;;) {
        const response: GraphQLResponse<{ hbaDevices: Page<{ uuid: string }> }> = await harness.gql(
          'query ($after: String) { hbaDevices(first: 7, after: $after) { totalCount edges { cursor node { uuid } } pageInfo { hasNextPage hasPreviousPage endCursor } } }',
          { after },
        );
        expect(response.errors).toBeUndefined();
        const page: Page<{ uuid: string }> = response.data!.hbaDevices;
        expect(page.totalCount).toBe(expected);
        expect(page.pageInfo.hasPreviousPage).toBe(after !== null);
        expect(page.edges.length).toBeLessThanOrEqual(7);
        for (const edge of page.edges) {
          seen.push(edge.node.uuid);
          cursors.push(edge.cursor);
        }
        pages += 1;
        if (!page.pageInfo.hasNextPage) break;
        expect(page.edges).toHaveLength(7);
        after = page.pageInfo.endCursor;
      }
      expect(pages).toBe(Math.ceil(expected / 7));
      expect(new Set(seen).size).toBe(seen.length);
      expect(new Set(seen)).toEqual(new Set([...store().hbas.list(tenantId)].map((device) => device.uuid)));

      // Edge 10 sits inside the second page; `after` it starts at edge 11.
      const interior = await harness.gql<{ hbaDevices: Page<{ uuid: string }> }>(
        'query ($after: String) { hbaDevices(first: 5, after: $after) { edges { node { uuid } } } }',
        { after: cursors[9] },
      );
      expect(interior.data!.hbaDevices.edges.map((edge) => edge.node.uuid)).toEqual(seen.slice(10, 15));
    });

    it('filters by host, port state, type and uuids on the upstream, and sorts', async () => {
      const all = [...store().hbas.list(tenantId)];
      const host = all[0]!.hostUuid;
      const byHost = await harness.gql<{ hbaDevices: Page<{ uuid: string }> }>(
        'query ($host: Uuid) { hbaDevices(filter: { hostUuid: $host }) { totalCount edges { node { uuid } } } }',
        { host },
      );
      const hostDevices = all.filter((device) => device.hostUuid === host).map((device) => device.uuid);
      expect(byHost.data!.hbaDevices.totalCount).toBe(hostDevices.length);
      expect(byHost.data!.hbaDevices.edges.map((edge) => edge.node.uuid).sort()).toEqual([...hostDevices].sort());

      const online = await harness.gql<{ hbaDevices: Page<{ portState: string }> }>(
        '{ hbaDevices(first: 100, filter: { portState: ONLINE, hbaType: FC }) { totalCount edges { node { portState } } } }',
      );
      expect(online.data!.hbaDevices.totalCount).toBe(all.filter((device) => device.portState === 'Online').length);
      expect(online.data!.hbaDevices.totalCount).toBeLessThan(all.length);
      expect(online.data!.hbaDevices.edges.every((edge) => edge.node.portState === 'ONLINE')).toBe(true);

      const two = [all[3]!.uuid, all[5]!.uuid];
      const byUuids = await harness.gql<{ hbaDevices: Page<{ uuid: string }> }>(
        'query ($uuids: [Uuid!]) { hbaDevices(filter: { uuids: $uuids }) { totalCount edges { node { uuid } } } }',
        { uuids: two },
      );
      expect(byUuids.data!.hbaDevices.edges.map((edge) => edge.node.uuid).sort()).toEqual([...two].sort());

      const sorted = await harness.gql<{ hbaDevices: Page<{ portName: string }> }>(
        '{ hbaDevices(first: 100, orderBy: { field: PORT_NAME, direction: DESC }) { edges { node { portName } } } }',
      );
      const names = sorted.data!.hbaDevices.edges.map((edge) => edge.node.portName);
      expect(names).toEqual(all.map((device) => device.portName).sort().reverse());
    });

    it('hbaDevice(uuid) and node(id) return one port', async () => {
      const device = [...store().hbas.list(tenantId)][4]!;
      const response = await harness.gql<{ hbaDevice: HbaNode }>(`query ($uuid: Uuid!) { hbaDevice(uuid: $uuid) { ${HBA_FIELDS} } }`, {
        uuid: device.uuid,
      });
      expect(response.errors).toBeUndefined();
      expectHbaMatches(response.data!.hbaDevice, device, hostName(device.hostUuid));
      const byId = await harness.gql<{ node: { __typename: string; uuid: string } }>(
        'query ($id: ID!) { node(id: $id) { __typename ... on HbaDevice { uuid } } }',
        { id: response.data!.hbaDevice.id },
      );
      expect(byId.data!.node).toEqual({ __typename: 'HbaDevice', uuid: device.uuid });
    });

    it('an unknown uuid is null with NOT_FOUND', async () => {
      const response = await harness.gql<{ hbaDevice: null }>(`{ hbaDevice(uuid: "${MISSING_UUID}") { uuid } }`);
      expect(response.data!.hbaDevice).toBeNull();
      expect(errorCodes(response)).toEqual(['NOT_FOUND']);
    });
  });

  describe('Host.hbaDevices', () => {
    it('lists each host\'s ports, and pages within one host', async () => {
      const response = await harness.gql<{ hosts: { nodes: { uuid: string; hbaDevices: Page<{ uuid: string; hostUuid: string }> }[] } }>(
        '{ hosts(first: 30) { nodes { uuid hbaDevices(first: 100) { totalCount edges { cursor node { uuid hostUuid } } } } } }',
      );
      expect(response.errors).toBeUndefined();
      const hosts = response.data!.hosts.nodes;
      expect(hosts).toHaveLength(30);
      let withPorts = 0;
      for (const host of hosts) {
        const expected = store().hbas.by('hostUuid', host.uuid, tenantId).map((device) => device.uuid);
        expect(host.hbaDevices.totalCount).toBe(expected.length);
        expect(host.hbaDevices.edges.map((edge) => edge.node.uuid).sort()).toEqual([...expected].sort());
        expect(host.hbaDevices.edges.every((edge) => edge.node.hostUuid === host.uuid)).toBe(true);
        if (expected.length > 1) withPorts += 1;
      }
      expect(withPorts).toBeGreaterThan(0);

      const host = hosts.find((candidate) => candidate.hbaDevices.totalCount > 1)!;
      const second = await harness.gql<{ host: { hbaDevices: Page<{ uuid: string }> } }>(
        'query ($uuid: Uuid!, $after: String) { host(uuid: $uuid) { hbaDevices(first: 1, after: $after) { edges { node { uuid } } pageInfo { hasPreviousPage } } } }',
        { uuid: host.uuid, after: host.hbaDevices.edges[0]!.cursor },
      );
      expect(second.data!.host.hbaDevices.edges.map((edge) => edge.node.uuid)).toEqual([host.hbaDevices.edges[1]!.node.uuid]);
      expect(second.data!.host.hbaDevices.pageInfo.hasPreviousPage).toBe(true);
    });

    it('a page of 20 hosts costs the same upstream requests as a page of 2', async () => {
      const query = 'query ($first: Int) { hosts(first: $first) { nodes { uuid hbaDevices { totalCount nodes { uuid host { name } } } } } }';
      harness.resetStats();
      const small = await harness.gql(query, { first: 2 });
      expect(small.errors).toBeUndefined();
      const smallCost = harness.upstreamRequests();
      const smallOps = harness.simulator.stats().byOperation;

      harness.resetStats();
      const large = await harness.gql<{ hosts: { nodes: unknown[] } }>(query, { first: 20 });
      expect(large.errors).toBeUndefined();
      expect(large.data!.hosts.nodes).toHaveLength(20);
      expect(harness.upstreamRequests()).toBe(smallCost);
      expect(harness.simulator.stats().byOperation).toEqual(smallOps);
      expect(harness.simulator.stats().byOperation.QueryHBADevice).toBe(1);
    });

    it('first: 101 is BAD_USER_INPUT before any HBA query', async () => {
      harness.resetStats();
      const response = await harness.gql('{ hosts(first: 2) { nodes { name hbaDevices(first: 101) { totalCount } } } }');
      expect(new Set(errorCodes(response))).toEqual(new Set(['BAD_USER_INPUT']));
      expect(harness.simulator.stats().byOperation.QueryHBADevice).toBeUndefined();
    });

    it('without the resource credential the hosts survive and only hbaDevices fails', async () => {
      harness.resetStats();
      const { authorization: _omitted, ...cursorOnly } = harness.headers;
      const response = await harness.gql<{ hosts: { nodes: { name: string; hbaDevices: null }[] } }>(
        '{ hosts(first: 2) { nodes { name hbaDevices { totalCount } } } }',
        undefined,
        cursorOnly,
      );
      expect(response.data!.hosts.nodes).toHaveLength(2);
      expect(response.data!.hosts.nodes.every((host) => host.name.length > 0 && host.hbaDevices === null)).toBe(true);
      expect(new Set(errorCodes(response))).toEqual(new Set(['UNAUTHENTICATED']));
      expect(harness.simulator.stats().byOperation.QueryHBADevice).toBeUndefined();
    });
  });

  describe('fiberChannelLuns', () => {
    it('returns every LUN with its refs, hosts and VMs resolved to the right records', async () => {
      const luns = [...store().luns.list(tenantId)];
      expect(luns.some((lun) => lun.scsiLunVmInstanceRefs.length > 0)).toBe(true);
      harness.resetStats();
      const response = await harness.gql<{ fiberChannelLuns: Page<LunNode> }>(
        `{ fiberChannelLuns(first: 100) { totalCount edges { node { ${LUN_FIELDS} } } } }`,
      );
      expect(response.errors).toBeUndefined();
      const page = response.data!.fiberChannelLuns;
      expect(page.totalCount).toBe(luns.length);
      expect(page.edges).toHaveLength(luns.length);
      for (const { node } of page.edges) {
        const lun = store().luns.get(tenantId, node.uuid);
        expect(lun).toBeDefined();
        expectLunMatches(node, lun!, hostName, vmName);
      }
      // One LUN query, one host query and one VM query for the whole page.
      expect(harness.simulator.stats().byOperation).toEqual({ QueryFiberChannelLun: 1, CursorQuery: 2 });
    });

    it('filters by name, storage and state, and sorts by size', async () => {
      const luns = [...store().luns.list(tenantId)];
      const target = luns[1]!;
      const byName = await harness.gql<{ fiberChannelLuns: Page<{ uuid: string }> }>(
        'query ($name: String) { fiberChannelLuns(filter: { nameContains: $name, state: ENABLED }) { totalCount edges { node { uuid } } } }',
        { name: target.name.slice(4) },
      );
      const expected = luns.filter((lun) => lun.name.includes(target.name.slice(4)) && lun.state === 'Enabled').map((lun) => lun.uuid);
      expect(expected).toContain(target.uuid);
      expect(byName.data!.fiberChannelLuns.edges.map((edge) => edge.node.uuid).sort()).toEqual(expected.sort());

      const byStorage = await harness.gql<{ fiberChannelLuns: { totalCount: number } }>(
        'query ($storage: Uuid) { fiberChannelLuns(filter: { fiberChannelStorageUuid: $storage }) { totalCount } }',
        { storage: target.fiberChannelStorageUuid },
      );
      expect(byStorage.data!.fiberChannelLuns.totalCount).toBe(
        luns.filter((lun) => lun.fiberChannelStorageUuid === target.fiberChannelStorageUuid).length,
      );

      const none = await harness.gql<{ fiberChannelLuns: { totalCount: number } }>(
        '{ fiberChannelLuns(filter: { state: DISABLED }) { totalCount } }',
      );
      expect(none.data!.fiberChannelLuns.totalCount).toBe(0);

      const sorted = await harness.gql<{ fiberChannelLuns: Page<{ size: number }> }>(
        '{ fiberChannelLuns(first: 100, orderBy: { field: SIZE, direction: DESC }) { edges { node { size } } } }',
      );
      expect(sorted.data!.fiberChannelLuns.edges.map((edge) => edge.node.size)).toEqual(luns.map((lun) => lun.size).sort((a, b) => b - a));
    });

    it('fiberChannelLun(uuid) returns one LUN; an unknown uuid is null with NOT_FOUND', async () => {
      const lun = [...store().luns.list(tenantId)].find((candidate) => candidate.scsiLunVmInstanceRefs.length > 0)!;
      const response = await harness.gql<{ fiberChannelLun: LunNode }>(`query ($uuid: Uuid!) { fiberChannelLun(uuid: $uuid) { ${LUN_FIELDS} } }`, {
        uuid: lun.uuid,
      });
      expect(response.errors).toBeUndefined();
      expectLunMatches(response.data!.fiberChannelLun, lun, hostName, vmName);

      const missing = await harness.gql<{ fiberChannelLun: null }>(`{ fiberChannelLun(uuid: "${MISSING_UUID}") { uuid } }`);
      expect(missing.data!.fiberChannelLun).toBeNull();
      expect(errorCodes(missing)).toEqual(['NOT_FOUND']);
    });
  });

  describe('credentials and tenants', () => {
    it('without Authorization the resource-family fields fail as UNAUTHENTICATED with no upstream request', async () => {
      harness.resetStats();
      const { authorization: _omitted, ...cursorOnly } = harness.headers;
      const response = await harness.gql('{ hbaDevices { totalCount } }', undefined, cursorOnly);
      expect(errorCodes(response)).toEqual(['UNAUTHENTICATED']);
      const lun = await harness.gql(`{ fiberChannelLun(uuid: "${MISSING_UUID}") { uuid } }`, undefined, {});
      expect(errorCodes(lun)).toEqual(['UNAUTHENTICATED']);
      expect(harness.upstreamRequests()).toBe(0);
    });

    it('a malformed Uuid is rejected before any upstream request', async () => {
      harness.resetStats();
      const literal = await harness.gql('{ hbaDevice(uuid: "ABC") { uuid } }');
      expect(errorCodes(literal)).toContain('BAD_USER_INPUT');
      const variable = await harness.gql('query ($uuids: [Uuid!]) { fiberChannelLuns(filter: { uuids: $uuids }) { totalCount } }', {
        // Hex digits in either case are a uuid (RFC 9562 reads them so); a 31-digit one is not.
        uuids: ['0123456789abcdef0123456789abcde'],
      });
      expect(errorCodes(variable)).toContain('BAD_USER_INPUT');
      expect(literal.data ?? null).toBeNull();
      expect(harness.upstreamRequests()).toBe(0);
    });

    it('the second tenant sees only its own ports and LUNs', async () => {
      const response = await harness.gql<{ hbaDevices: Page<{ uuid: string }>; fiberChannelLuns: Page<{ uuid: string }> }>(
        '{ hbaDevices(first: 100) { totalCount edges { node { uuid } } } fiberChannelLuns(first: 100) { totalCount edges { node { uuid } } } }',
        undefined,
        harness.secondHeaders,
      );
      expect(response.errors).toBeUndefined();
      const hbas = response.data!.hbaDevices.edges.map((edge) => edge.node.uuid);
      const luns = response.data!.fiberChannelLuns.edges.map((edge) => edge.node.uuid);
      expect(new Set(hbas)).toEqual(new Set([...store().hbas.list(secondTenantId)].map((device) => device.uuid)));
      expect(new Set(luns)).toEqual(new Set([...store().luns.list(secondTenantId)].map((lun) => lun.uuid)));
      expect(luns.length).toBeGreaterThan(0);
      expect(hbas.some((uuid) => store().hbas.get(tenantId, uuid) !== undefined)).toBe(false);

      const firstTenantDevice = [...store().hbas.list(tenantId)][0]!;
      const firstTenantLun = [...store().luns.list(tenantId)][0]!;
      const foreign = await harness.gql<{ hbaDevice: null; fiberChannelLun: null }>(
        'query ($hba: Uuid!, $lun: Uuid!) { hbaDevice(uuid: $hba) { uuid } fiberChannelLun(uuid: $lun) { uuid } }',
        { hba: firstTenantDevice.uuid, lun: firstTenantLun.uuid },
        harness.secondHeaders,
      );
      expect(foreign.data).toEqual({ hbaDevice: null, fiberChannelLun: null });
      expect(errorCodes(foreign)).toEqual(['NOT_FOUND', 'NOT_FOUND']);
    });
  });

  it('a LUN\'s hosts leave out a host that no longer exists, while its ref stays', async () => {
    const lun = [...store().luns.list(tenantId)].find((candidate) => candidate.scsiLunHostRefs.length > 1)!;
    const gone = store().hosts.get(tenantId, lun.scsiLunHostRefs[0]!.hostUuid)!;
    store().hosts.delete(gone.uuid);
    try {
      const response = await harness.gql<{ fiberChannelLun: { hosts: { uuid: string }[]; scsiLunHostRefs: { hostUuid: string; host: { uuid: string } | null }[] } }>(
        'query ($uuid: Uuid!) { fiberChannelLun(uuid: $uuid) { hosts { uuid } scsiLunHostRefs { hostUuid host { uuid } } } }',
        { uuid: lun.uuid },
      );
      expect(response.data!.fiberChannelLun.hosts.map((host) => host.uuid)).toEqual(lun.scsiLunHostRefs.slice(1).map((ref) => ref.hostUuid));
      expect(response.data!.fiberChannelLun.scsiLunHostRefs[0]).toEqual({ hostUuid: gone.uuid, host: null });
      expect(errorCodes(response)).toEqual(['NOT_FOUND']);
    } finally {
      store().hosts.insert(gone);
    }
  });
});
