import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Host, VmInstance } from '../../../src/simulator/model.js';
import { enumValue, expectedVolume, iso, VOLUME_FIELDS } from '../../support/expected.js';
import { errorCodes, startHarness, type Harness } from '../../support/harness.js';


const DRIVERS: Record<string, string> = { virtio: 'VIRTIO', e1000: 'E1000', rtl8139: 'RTL8139' };

const VM_FIELDS = /* GraphQL */ `
  id uuid name description zoneUuid clusterUuid imageUuid hostUuid lastHostUuid instanceOfferingUuid
  rootVolumeUuid defaultL3NetworkUuid platform architecture type hypervisorType memorySize cpuNum cpuSpeed
  allocatorStrategy state guestOsType createDate lastOpDate
`;

function expectedVm(vm: VmInstance): Record<string, unknown> {
  return {
    uuid: vm.uuid,
    name: vm.name,
    description: vm.description,
    zoneUuid: vm.zoneUuid,
    clusterUuid: vm.clusterUuid,
    imageUuid: vm.imageUuid,
    hostUuid: vm.hostUuid,
    lastHostUuid: vm.lastHostUuid,
    instanceOfferingUuid: vm.instanceOfferingUuid,
    rootVolumeUuid: vm.rootVolumeUuid,
    defaultL3NetworkUuid: vm.defaultL3NetworkUuid,
    platform: enumValue(vm.platform),
    architecture: enumValue(vm.architecture),
    type: enumValue(vm.type),
    hypervisorType: enumValue(vm.hypervisorType),
    memorySize: vm.memorySize,
    cpuNum: vm.cpuNum,
    cpuSpeed: vm.cpuSpeed,
    allocatorStrategy: enumValue(vm.allocatorStrategy),
    state: enumValue(vm.state),
    guestOsType: vm.guestOsType,
    createDate: iso(vm.createDate),
    lastOpDate: iso(vm.lastOpDate),
  };
}


interface VmPage {
  vmInstances: {
    totalCount: number;
    pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; endCursor: string | null };
    edges: { cursor: string; node: { uuid: string } }[];
  };
}

describe('VmInstance', () => {
  let harness: Harness;
  let tenantId: string;
  let secondTenantId: string;
  let vms: VmInstance[];

  beforeAll(async () => {
    harness = await startHarness();
    tenantId = harness.simulator.credentials.tenantId;
    secondTenantId = harness.simulator.credentials.second.tenantId;
    vms = [...harness.simulator.store.vms.list(tenantId)];
  });

  afterAll(async () => {
    await harness.close();
  });

  const store = () => harness.simulator.store;

  it('vmInstance(uuid) returns every inventory field as the simulator holds it', async () => {
    for (const vm of [vms[0]!, vms.find((candidate) => candidate.hostUuid === null) ?? vms[1]!, vms.at(-1)!]) {
      const response = await harness.gql<{ vmInstance: Record<string, unknown> }>(
        `query ($uuid: Uuid!) { vmInstance(uuid: $uuid) { ${VM_FIELDS} } }`,
        { uuid: vm.uuid },
      );
      expect(response.errors).toBeUndefined();
      expect(response.data?.vmInstance).toEqual({ id: expect.any(String), ...expectedVm(vm) });
    }
  });

  it('follows host, lastHost, rootVolume and the embedded volumes', async () => {
    const vm = vms.find((candidate) => candidate.hostUuid !== null && store().volumesOfVm(candidate).length > 1)!;
    const host = store().hosts.get(tenantId, vm.hostUuid!)!;
    const lastHost: Host | undefined = vm.lastHostUuid ? store().hosts.get(tenantId, vm.lastHostUuid) : undefined;
    const response = await harness.gql<{
      vmInstance: {
        host: { uuid: string; name: string; managementIp: string };
        lastHost: { uuid: string; name: string } | null;
        rootVolume: Record<string, unknown>;
        volumes: Record<string, unknown>[];
      };
    }>(
      `query ($uuid: Uuid!) { vmInstance(uuid: $uuid) {
        host { uuid name managementIp } lastHost { uuid name }
        rootVolume { ${VOLUME_FIELDS} } volumes { ${VOLUME_FIELDS} }
      } }`,
      { uuid: vm.uuid },
    );
    expect(response.errors).toBeUndefined();
    const data = response.data!.vmInstance;
    expect(data.host).toEqual({ uuid: host.uuid, name: host.name, managementIp: host.managementIp });
    expect(data.lastHost).toEqual(lastHost ? { uuid: lastHost.uuid, name: lastHost.name } : null);
    const volumes = store().volumesOfVm(vm);
    expect(data.volumes).toEqual(volumes.map(expectedVolume));
    expect(data.rootVolume).toEqual(expectedVolume(store().volumes.get(tenantId, vm.rootVolumeUuid)!));
    expect(data.rootVolume.type).toBe('ROOT');
  });

  it('exposes NICs with their driver enum and used IPs, and CD-ROMs, as Node records', async () => {
    const vm = vms.find((candidate) => candidate.vmNics.some((nic) => nic.usedIps.length > 0) && candidate.vmCdRoms.length > 0)!;
    expect(vm).toBeDefined();
    const response = await harness.gql<{
      vmInstance: {
        nics: (Record<string, unknown> & { id: string; usedIps: (Record<string, unknown> & { id: string })[] })[];
        cdRoms: (Record<string, unknown> & { id: string })[];
      };
    }>(
      `query ($uuid: Uuid!) { vmInstance(uuid: $uuid) {
        nics { id uuid vmInstanceUuid l3NetworkUuid ip mac hypervisorType netmask gateway metaData driverType internalName
          type state ipVersion deviceId usedIpUuid createDate lastOpDate
          usedIps { id uuid ipRangeUuid l3NetworkUuid ip netmask gateway usedFor vmNicUuid ipVersion ipInLong createDate lastOpDate } }
        cdRoms { id uuid vmInstanceUuid isoUuid isoInstallPath name description deviceId createDate lastOpDate }
      } }`,
      { uuid: vm.uuid },
    );
    expect(response.errors).toBeUndefined();
    const data = response.data!.vmInstance;
    expect(data.nics).toEqual(
      vm.vmNics.map((nic) => ({
        id: expect.any(String),
        uuid: nic.uuid,
        vmInstanceUuid: vm.uuid,
        l3NetworkUuid: nic.l3NetworkUuid,
        ip: nic.ip,
        mac: nic.mac,
        hypervisorType: enumValue(nic.hypervisorType),
        netmask: nic.netmask,
        gateway: nic.gateway,
        metaData: nic.metaData,
        driverType: DRIVERS[nic.driverType],
        internalName: nic.internalName,
        // The upstream's spelling varies in case; the enum has one value.
        type: nic.type?.toUpperCase(),
        state: enumValue(nic.state),
        ipVersion: nic.ipVersion,
        deviceId: nic.deviceId,
        usedIpUuid: nic.usedIpUuid,
        createDate: iso(nic.createDate),
        lastOpDate: iso(nic.lastOpDate),
        usedIps: nic.usedIps.map((usedIp) => ({
          id: expect.any(String),
          uuid: usedIp.uuid,
          ipRangeUuid: usedIp.ipRangeUuid,
          l3NetworkUuid: usedIp.l3NetworkUuid,
          ip: usedIp.ip,
          netmask: usedIp.netmask,
          gateway: usedIp.gateway,
          usedFor: usedIp.usedFor,
          vmNicUuid: usedIp.vmNicUuid,
          ipVersion: usedIp.ipVersion,
          ipInLong: usedIp.ipInLong,
          createDate: iso(usedIp.createDate),
          lastOpDate: iso(usedIp.lastOpDate),
        })),
      })),
    );
    expect(data.cdRoms).toEqual(
      vm.vmCdRoms.map((cdRom) => ({
        id: expect.any(String),
        uuid: cdRom.uuid,
        vmInstanceUuid: vm.uuid,
        isoUuid: cdRom.isoUuid,
        isoInstallPath: cdRom.isoInstallPath,
        name: cdRom.name,
        description: cdRom.description,
        deviceId: cdRom.deviceId,
        createDate: iso(cdRom.createDate),
        lastOpDate: iso(cdRom.lastOpDate),
      })),
    );

    // Every embedded record's global id resolves again through node(id:).
    const nic = data.nics.find((candidate) => candidate.usedIps.length > 0)!;
    const ids = [nic.id, nic.usedIps[0]!.id, data.cdRoms[0]!.id];
    const nodes = await harness.gql<{ nodes: Record<string, unknown>[] }>(
      `query ($ids: [ID!]!) { nodes(ids: $ids) {
        __typename
        ... on VmNic { uuid vmInstance { uuid } }
        ... on UsedIp { uuid ip }
        ... on VmCdRom { uuid name }
      } }`,
      { ids },
    );
    expect(nodes.errors).toBeUndefined();
    expect(nodes.data!.nodes).toEqual([
      { __typename: 'VmNic', uuid: nic.uuid, vmInstance: { uuid: vm.uuid } },
      { __typename: 'UsedIp', uuid: nic.usedIps[0]!.uuid, ip: nic.usedIps[0]!.ip },
      { __typename: 'VmCdRom', uuid: vm.vmCdRoms[0]!.uuid, name: vm.vmCdRoms[0]!.name },
    ]);
  });

  it('resolves a VmInstance through node(id:)', async () => {
    const vm = vms[3]!;
    const first = await harness.gql<{ vmInstance: { id: string } }>(`{ vmInstance(uuid: "${vm.uuid}") { id } }`);
    const node = await harness.gql<{ node: { __typename: string; uuid: string; name: string } }>(
      `query ($id: ID!) { node(id: $id) { __typename ... on VmInstance { uuid name } } }`,
      { id: first.data!.vmInstance.id },
    );
    expect(node.data!.node).toEqual({ __typename: 'VmInstance', uuid: vm.uuid, name: vm.name });
  });

  it('answers a NIC driver the enum does not know as OTHER with its text in driverTypeRaw and no error, keeping the rest of the NIC', async () => {
    const vm = vms[5]!;
    const nic = vm.vmNics[0]!;
    const original = nic.driverType;
    nic.driverType = 'ne2k_pci';
    try {
      const response = await harness.gql<{ vmInstance: { nics: { uuid: string; driverType: string | null; driverTypeRaw: string | null; mac: string }[] } }>(
        `{ vmInstance(uuid: "${vm.uuid}") { nics { uuid driverType driverTypeRaw mac } } }`,
      );
      expect(response.errors).toBeUndefined();
      expect(response.data!.vmInstance.nics[0]).toEqual({ uuid: nic.uuid, driverType: 'OTHER', driverTypeRaw: 'ne2k_pci', mac: nic.mac });
    } finally {
      nic.driverType = original;
    }
  });

  it('vmInstances(first: 37) walked to the end returns every VM exactly once, and any edge cursor resumes right after it', async () => {
    const query = `query ($after: String) { vmInstances(first: 37, after: $after) {
      totalCount pageInfo { hasNextPage hasPreviousPage endCursor } edges { cursor node { uuid } } } }`;
    const seen: string[] = [];
    const edges: { cursor: string; uuid: string }[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const response: { data?: VmPage | null; errors?: unknown } = await harness.gql<VmPage>(query, { after });
      expect(response.errors).toBeUndefined();
      const page: VmPage['vmInstances'] = response.data!.vmInstances;
      expect(page.totalCount).toBe(store().vms.count(tenantId));
      expect(page.pageInfo.hasPreviousPage).toBe(after !== null);
      for (const edge of page.edges) {
        seen.push(edge.node.uuid);
        edges.push({ cursor: edge.cursor, uuid: edge.node.uuid });
      }
      pages += 1;
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    const expected = [...store().vms.list(tenantId)]
      .sort((a, b) => a.createDate.getTime() - b.createDate.getTime() || (a.uuid < b.uuid ? -1 : 1))
      .map((vm) => vm.uuid);
    expect(pages).toBe(Math.ceil(expected.length / 37));
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expected);

    for (const index of [0, 10, 36, 40, 73]) {
      const resumed = await harness.gql<VmPage>(
        `query ($after: String) { vmInstances(first: 5, after: $after) { totalCount pageInfo { hasNextPage hasPreviousPage endCursor } edges { cursor node { uuid } } } }`,
        { after: edges[index]!.cursor },
      );
      expect(resumed.errors).toBeUndefined();
      expect(resumed.data!.vmInstances.edges.map((edge) => edge.node.uuid)).toEqual(expected.slice(index + 1, index + 6));
    }
  });

  it('filters and orders vmInstances', async () => {
    const running = [...store().vms.list(tenantId)].filter((vm) => vm.state === 'Running');
    const byState = await harness.gql<{ vmInstances: { totalCount: number; nodes: { state: string }[] } }>(
      '{ vmInstances(first: 100, filter: { state: RUNNING }) { totalCount nodes { state } } }',
    );
    expect(byState.data!.vmInstances.totalCount).toBe(running.length);
    expect(byState.data!.vmInstances.nodes.every((vm) => vm.state === 'RUNNING')).toBe(true);

    const host = [...store().hosts.list(tenantId)][0]!;
    const onHost = store().vms.by('hostUuid', host.uuid, tenantId).map((vm) => vm.uuid).sort();
    const byHost = await harness.gql<{ vmInstances: { totalCount: number; nodes: { uuid: string }[] } }>(
      `{ vmInstances(first: 100, filter: { hostUuid: "${host.uuid}" }) { totalCount nodes { uuid } } }`,
    );
    expect(byHost.data!.vmInstances.nodes.map((vm) => vm.uuid).sort()).toEqual(onHost);

    const picked = [vms[2]!.uuid, vms[7]!.uuid, vms[9]!.uuid];
    const byUuids = await harness.gql<{ vmInstances: { nodes: { uuid: string }[] } }>(
      'query ($uuids: [Uuid!]) { vmInstances(filter: { uuids: $uuids }) { nodes { uuid } } }',
      { uuids: picked },
    );
    expect(byUuids.data!.vmInstances.nodes.map((vm) => vm.uuid).sort()).toEqual([...picked].sort());

    const fragment = vms[4]!.name.slice(0, 3);
    const byName = await harness.gql<{ vmInstances: { totalCount: number; nodes: { name: string }[] } }>(
      `{ vmInstances(first: 100, filter: { nameContains: "${fragment}", platform: LINUX }) { totalCount nodes { name } } }`,
    );
    const named = [...store().vms.list(tenantId)].filter((vm) => vm.name.includes(fragment) && vm.platform === 'Linux');
    expect(byName.data!.vmInstances.totalCount).toBe(named.length);

    const ordered = await harness.gql<{ vmInstances: { nodes: { memorySize: number; uuid: string }[] } }>(
      '{ vmInstances(first: 100, orderBy: { field: MEMORY_SIZE, direction: DESC }) { nodes { memorySize uuid } } }',
    );
    const sizes = ordered.data!.vmInstances.nodes.map((vm) => vm.memorySize);
    expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
    expect(sizes[0]).toBe(Math.max(...[...store().vms.list(tenantId)].map((vm) => vm.memorySize)));
  });

  it('pages a VM\'s snapshot groups', async () => {
    const counts = new Map<string, number>();
    for (const group of store().snapshotGroups.list(tenantId)) counts.set(group.vmInstanceUuid, (counts.get(group.vmInstanceUuid) ?? 0) + 1);
    const [vmUuid] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]!;
    const groups = store().snapshotGroups.by('vmInstanceUuid', vmUuid, tenantId);
    const all = await harness.gql<{ vmInstance: { snapshotGroups: { totalCount: number; edges: { cursor: string; node: { uuid: string; name: string; snapshotCount: number } }[] } } }>(
      `{ vmInstance(uuid: "${vmUuid}") { snapshotGroups(first: 100) { totalCount edges { cursor node { uuid name snapshotCount } } } } }`,
    );
    expect(all.errors).toBeUndefined();
    const connection = all.data!.vmInstance.snapshotGroups;
    expect(connection.totalCount).toBe(groups.length);
    expect(connection.edges.map((edge) => edge.node.uuid).sort()).toEqual(groups.map((group) => group.uuid).sort());
    for (const edge of connection.edges) {
      const group = groups.find((candidate) => candidate.uuid === edge.node.uuid)!;
      expect(edge.node).toEqual({ uuid: group.uuid, name: group.name, snapshotCount: group.snapshotCount });
    }
    if (groups.length > 1) {
      const rest = await harness.gql<{ vmInstance: { snapshotGroups: { nodes: { uuid: string }[] } } }>(
        `query ($after: String) { vmInstance(uuid: "${vmUuid}") { snapshotGroups(first: 1, after: $after) { nodes { uuid } } } }`,
        { after: connection.edges[0]!.cursor },
      );
      expect(rest.data!.vmInstance.snapshotGroups.nodes.map((node) => node.uuid)).toEqual([connection.edges[1]!.node.uuid]);
    }
  });

  it('lists attachable data volumes as the upstream decides them', async () => {
    const vm = vms[0]!;
    const zoneStorages = new Set(store().primaryStorages.by('zoneUuid', vm.zoneUuid, tenantId).map((storage) => storage.uuid));
    const expected = [...store().volumes.list(tenantId)]
      .filter(
        (volume) =>
          volume.type === 'Data' &&
          volume.vmInstanceUuid === null &&
          volume.state === 'Enabled' &&
          volume.status === 'Ready' &&
          zoneStorages.has(volume.primaryStorageUuid),
      );
    expect(expected.length).toBeGreaterThan(0);
    const response = await harness.gql<{ vmInstance: { attachableDataVolumes: Record<string, unknown>[] } }>(
      `{ vmInstance(uuid: "${vm.uuid}") { attachableDataVolumes { uuid name size actualSize format isShareable primaryStorageUuid type state status createDate vmInstanceUuid } } }`,
    );
    expect(response.errors).toBeUndefined();
    expect(response.data!.vmInstance.attachableDataVolumes).toEqual(
      expected.map((volume) => ({
        uuid: volume.uuid,
        name: volume.name,
        size: volume.size,
        actualSize: volume.actualSize,
        format: enumValue(volume.format),
        isShareable: volume.isShareable,
        primaryStorageUuid: volume.primaryStorageUuid,
        type: 'DATA',
        state: enumValue(volume.state),
        status: enumValue(volume.status),
        createDate: iso(volume.createDate),
        vmInstanceUuid: null,
      })),
    );
  });

  it('Host.vmInstances is a connection of the VMs running on each host', async () => {
    const hosts = [...store().hosts.list(tenantId)];
    const response = await harness.gql<{ hosts: { nodes: { uuid: string; vmInstances: { totalCount: number; nodes: { uuid: string; hostUuid: string }[] } }[] } }>(
      '{ hosts(first: 100) { nodes { uuid vmInstances(first: 100) { totalCount nodes { uuid hostUuid } } } } }',
    );
    expect(response.errors).toBeUndefined();
    expect(response.data!.hosts.nodes).toHaveLength(hosts.length);
    for (const host of response.data!.hosts.nodes) {
      const expected = store().vms.by('hostUuid', host.uuid, tenantId).map((vm) => vm.uuid).sort();
      expect(host.vmInstances.totalCount).toBe(expected.length);
      expect(host.vmInstances.nodes.map((vm) => vm.uuid).sort()).toEqual(expected);
    }
    expect(response.data!.hosts.nodes.some((host) => host.vmInstances.totalCount > 1)).toBe(true);

    const host = response.data!.hosts.nodes.find((candidate) => candidate.vmInstances.totalCount > 2)!;
    const paged = await harness.gql<{ host: { vmInstances: { totalCount: number; pageInfo: { hasNextPage: boolean; endCursor: string }; nodes: { uuid: string }[] } } }>(
      `{ host(uuid: "${host.uuid}") { vmInstances(first: 2) { totalCount pageInfo { hasNextPage endCursor } nodes { uuid } } } }`,
    );
    const page = paged.data!.host.vmInstances;
    expect(page.nodes).toHaveLength(2);
    expect(page.pageInfo.hasNextPage).toBe(true);
    const next = await harness.gql<{ host: { vmInstances: { nodes: { uuid: string }[] } } }>(
      `query ($after: String) { host(uuid: "${host.uuid}") { vmInstances(first: 100, after: $after) { nodes { uuid } } } }`,
      { after: page.pageInfo.endCursor },
    );
    const walked = [...page.nodes, ...next.data!.host.vmInstances.nodes].map((vm) => vm.uuid);
    expect(walked.sort()).toEqual(host.vmInstances.nodes.map((vm) => vm.uuid).sort());
  });

  describe('errors', () => {
    it('fails without credentials as UNAUTHENTICATED, with no upstream request', async () => {
      harness.resetStats();
      const response = await harness.gql('{ vmInstances(first: 5) { totalCount } }', undefined, {});
      expect(errorCodes(response)).toEqual(['UNAUTHENTICATED']);
      expect(harness.upstreamRequests()).toBe(0);

      const one = await harness.gql(`{ vmInstance(uuid: "${vms[0]!.uuid}") { name } }`, undefined, {});
      expect(errorCodes(one)).toEqual(['UNAUTHENTICATED']);
      expect(harness.upstreamRequests()).toBe(0);
    });

    it('answers NOT_FOUND for an unknown uuid', async () => {
      const response = await harness.gql<{ vmInstance: null }>(`{ vmInstance(uuid: "${'ab'.repeat(16)}") { name } }`);
      expect(response.data?.vmInstance).toBeNull();
      expect(errorCodes(response)).toEqual(['NOT_FOUND']);
    });

    it('rejects a malformed Uuid before any upstream request', async () => {
      harness.resetStats();
      const literal = await harness.gql('{ vmInstance(uuid: "ABC-not-a-uuid") { name } }');
      expect(errorCodes(literal)).toContain('BAD_USER_INPUT');
      const variable = await harness.gql('query ($uuid: Uuid!) { vmInstance(uuid: $uuid) { name } }', { uuid: `${vms[0]!.uuid.slice(0, 31)}g` });
      expect(errorCodes(variable)).toEqual(['BAD_USER_INPUT']);
      expect(variable.data ?? null).toBeNull();
      expect(harness.upstreamRequests()).toBe(0);
    });

    it('rejects first: 1000 as BAD_USER_INPUT, at the top and nested', async () => {
      harness.resetStats();
      const top = await harness.gql('{ vmInstances(first: 1000) { totalCount } }');
      expect(errorCodes(top)).toEqual(['BAD_USER_INPUT']);
      expect(harness.upstreamRequests()).toBe(0);
      const nested = await harness.gql<{ vmInstances: { nodes: { name: string; snapshotGroups: null }[] } }>(
        '{ vmInstances(first: 2) { nodes { name snapshotGroups(first: 1000) { totalCount } } } }',
      );
      expect(errorCodes(nested)).toEqual(['BAD_USER_INPUT', 'BAD_USER_INPUT']);
      expect(nested.data!.vmInstances.nodes.map((vm) => vm.name)).toHaveLength(2);
    });

    it('never shows tenant 1\'s VMs to tenant 2, even in concurrent requests', async () => {
      const query = '{ vmInstances(first: 100) { totalCount nodes { uuid host { uuid } snapshotGroups { nodes { uuid } } } } }';
      const responses = await Promise.all(
        Array.from({ length: 12 }, (_, index) => harness.gql<{ vmInstances: { totalCount: number; nodes: { uuid: string; host: { uuid: string } | null }[] } }>(
          query,
          undefined,
          index % 2 === 0 ? harness.headers : harness.secondHeaders,
        )),
      );
      responses.forEach((response, index) => {
        expect(response.errors).toBeUndefined();
        const owner = index % 2 === 0 ? tenantId : secondTenantId;
        const connection = response.data!.vmInstances;
        expect(connection.totalCount).toBe(store().vms.count(owner));
        for (const vm of connection.nodes) {
          expect(store().vms.get(owner, vm.uuid)).toBeDefined();
          if (vm.host) expect(store().hosts.get(owner, vm.host.uuid)).toBeDefined();
        }
      });
      const foreign = await harness.gql(`{ vmInstance(uuid: "${vms[0]!.uuid}") { name } }`, undefined, harness.secondHeaders);
      expect(errorCodes(foreign)).toEqual(['NOT_FOUND']);
    });

    it('keeps partial data when a nested field fails', async () => {
      // Only the cursor family's credentials: the VMs load, fields that need the resource API fail alone.
      const cursorOnly = { 'x-resources-authorization': harness.headers['x-resources-authorization']!, 'x-tenant-id': harness.headers['x-tenant-id']! };
      const response = await harness.gql<{ vmInstances: { nodes: { name: string; snapshotGroups: null; attachableDataVolumes: null; host: { name: string } | null }[] } }>(
        '{ vmInstances(first: 3) { nodes { name host { name } snapshotGroups { totalCount } attachableDataVolumes { uuid } } } }',
        undefined,
        cursorOnly,
      );
      expect(response.data!.vmInstances.nodes.map((vm) => vm.name)).toEqual(
        [...store().vms.list(tenantId)]
          .sort((a, b) => a.createDate.getTime() - b.createDate.getTime() || (a.uuid < b.uuid ? -1 : 1))
          .slice(0, 3)
          .map((vm) => vm.name),
      );
      for (const vm of response.data!.vmInstances.nodes) {
        expect(vm.snapshotGroups).toBeNull();
        expect(vm.attachableDataVolumes).toBeNull();
      }
      expect(new Set(errorCodes(response))).toEqual(new Set(['UNAUTHENTICATED']));
      expect(response.errors!.map((error) => error.path?.at(-1)).sort()).toEqual([
        'attachableDataVolumes',
        'attachableDataVolumes',
        'attachableDataVolumes',
        'snapshotGroups',
        'snapshotGroups',
        'snapshotGroups',
      ]);
    });

    it('fails only the VM whose host is gone, not the other VMs of the batch', async () => {
      const [gone, kept] = vms.filter((vm) => vm.hostUuid !== null);
      const originalHost = gone!.hostUuid;
      store().vms.update(gone!, { hostUuid: 'f'.repeat(32) });
      try {
        const response = await harness.gql<{ vmInstances: { nodes: { uuid: string; name: string; host: { uuid: string } | null }[] } }>(
          'query ($uuids: [Uuid!]) { vmInstances(filter: { uuids: $uuids }) { nodes { uuid name host { uuid } } } }',
          { uuids: [gone!.uuid, kept!.uuid] },
        );
        const byUuid = new Map(response.data!.vmInstances.nodes.map((vm) => [vm.uuid, vm]));
        expect(byUuid.get(gone!.uuid)).toEqual({ uuid: gone!.uuid, name: gone!.name, host: null });
        expect(byUuid.get(kept!.uuid)?.host).toEqual({ uuid: kept!.hostUuid });
        expect(errorCodes(response)).toEqual(['NOT_FOUND']);
      } finally {
        store().vms.update(gone!, { hostUuid: originalHost });
      }
    });
  });
});
