/**
 * The filters operators search by, on the root lists and on the nested connections: each key
 * reaches the upstream as a condition of its own family (the cursor family's `filter=`, the
 * resource family's `q=`), read off the simulator's journal, and the answer is what the estate
 * holds, so nothing is filtered in the gateway.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/simulator/server.js';
import { startHarness, type Harness } from '../support/harness.js';

describe('list filters', () => {
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

  /** The upstream requests of one GraphQL query, its response, and the uuids it answered at `root`. */
  async function read(query: string, root: string, variables: Record<string, unknown> = {}) {
    harness.resetStats();
    const response = await harness.gql<Record<string, { nodes: { uuid: string }[] }>>(query, variables);
    expect(response.errors).toBeUndefined();
    return { journal: [...harness.simulator.journal()], uuids: response.data![root]!.nodes.map((node) => node.uuid).sort() };
  }

  /** Every condition one request sent: `filter=` of the cursor family, `q=` of the resource family. */
  function conditionsOf(entry: JournalEntry): string[] {
    const params = new URLSearchParams(entry.query);
    return [...params.getAll('filter'), ...params.getAll('q')];
  }

  const sorted = (records: Iterable<{ uuid: string }>) => [...records].map((record) => record.uuid).sort();

  const root = [
    {
      key: 'hosts.managementIp',
      query: 'query($v: String) { hosts(first: 100, filter: { managementIp: $v }) { nodes { uuid } } }',
      list: 'hosts',
      pick: () => [...store().hosts.list(tenantId)][2]!.managementIp,
      expected: (value: unknown) => sorted([...store().hosts.list(tenantId)].filter((host) => host.managementIp === value)),
      condition: (value: unknown) => `managementIp:eq:${String(value)}`,
    },
    {
      key: 'hosts.hostname',
      query: 'query($v: String) { hosts(first: 100, filter: { hostname: $v }) { nodes { uuid } } }',
      list: 'hosts',
      pick: () => [...store().hosts.list(tenantId)].find((host) => host.hostname !== null)!.hostname,
      expected: (value: unknown) => sorted([...store().hosts.list(tenantId)].filter((host) => host.hostname === value)),
      condition: (value: unknown) => `hostname:eq:${String(value)}`,
    },
    {
      key: 'hosts.statusIn',
      query: 'query($v: [HostStatus!]) { hosts(first: 100, filter: { statusIn: $v }) { nodes { uuid } } }',
      list: 'hosts',
      pick: () => ['CONNECTED', 'DISCONNECTED'],
      expected: () => sorted([...store().hosts.list(tenantId)].filter((host) => ['Connected', 'Disconnected'].includes(host.status))),
      condition: () => 'status:in:Connected,Disconnected',
    },
    {
      key: 'hbaDevices.portName',
      query: 'query($v: String) { hbaDevices(first: 100, filter: { portName: $v }) { nodes { uuid } } }',
      list: 'hbaDevices',
      pick: () => [...store().hbas.list(tenantId)][1]!.portName,
      expected: (value: unknown) => sorted([...store().hbas.list(tenantId)].filter((hba) => hba.portName === value)),
      condition: (value: unknown) => `portName=${String(value)}`,
    },
    {
      key: 'fiberChannelLuns.wwid',
      query: 'query($v: String) { fiberChannelLuns(first: 100, filter: { wwid: $v }) { nodes { uuid } } }',
      list: 'fiberChannelLuns',
      pick: () => [...store().luns.list(tenantId)][0]!.wwid,
      expected: (value: unknown) => sorted([...store().luns.list(tenantId)].filter((lun) => lun.wwid === value)),
      condition: (value: unknown) => `wwid=${String(value)}`,
    },
    {
      key: 'fiberChannelLuns.wwn',
      query: 'query($v: String) { fiberChannelLuns(first: 100, filter: { wwn: $v }) { nodes { uuid } } }',
      list: 'fiberChannelLuns',
      pick: () => [...store().luns.list(tenantId)][1]!.wwn,
      expected: (value: unknown) => sorted([...store().luns.list(tenantId)].filter((lun) => lun.wwn === value)),
      condition: (value: unknown) => `wwn=${String(value)}`,
    },
    {
      key: 'fiberChannelLuns.serial',
      query: 'query($v: String) { fiberChannelLuns(first: 100, filter: { serial: $v }) { nodes { uuid } } }',
      list: 'fiberChannelLuns',
      pick: () => [...store().luns.list(tenantId)][0]!.serial,
      expected: (value: unknown) => sorted([...store().luns.list(tenantId)].filter((lun) => lun.serial === value)),
      condition: (value: unknown) => `serial=${String(value)}`,
    },
    {
      key: 'fiberChannelLuns.hostUuid',
      query: 'query($v: Uuid) { fiberChannelLuns(first: 100, filter: { hostUuid: $v }) { nodes { uuid } } }',
      list: 'fiberChannelLuns',
      pick: () => [...store().luns.list(tenantId)].find((lun) => lun.scsiLunHostRefs.length > 0)!.scsiLunHostRefs[0]!.hostUuid,
      expected: (value: unknown) => sorted([...store().luns.list(tenantId)].filter((lun) => lun.scsiLunHostRefs.some((ref) => ref.hostUuid === value))),
      condition: (value: unknown) => `scsiLunHostRefs.hostUuid=${String(value)}`,
    },
    {
      key: 'vmInstances.rootVolumeUuid',
      query: 'query($v: Uuid) { vmInstances(first: 100, filter: { rootVolumeUuid: $v }) { nodes { uuid } } }',
      list: 'vmInstances',
      pick: () => [...store().vms.list(tenantId)][5]!.rootVolumeUuid,
      expected: (value: unknown) => sorted([...store().vms.list(tenantId)].filter((vm) => vm.rootVolumeUuid === value)),
      condition: (value: unknown) => `rootVolumeUuid:eq:${String(value)}`,
    },
    {
      key: 'vmInstances.instanceOfferingUuid',
      query: 'query($v: Uuid) { vmInstances(first: 100, filter: { instanceOfferingUuid: $v }) { nodes { uuid } } }',
      list: 'vmInstances',
      pick: () => [...store().vms.list(tenantId)].find((vm) => vm.instanceOfferingUuid !== null)!.instanceOfferingUuid,
      expected: (value: unknown) => sorted([...store().vms.list(tenantId)].filter((vm) => vm.instanceOfferingUuid === value)),
      condition: (value: unknown) => `instanceOfferingUuid:eq:${String(value)}`,
    },
    {
      key: 'vmInstances.defaultL3NetworkUuid',
      query: 'query($v: Uuid) { vmInstances(first: 100, filter: { defaultL3NetworkUuid: $v }) { nodes { uuid } } }',
      list: 'vmInstances',
      pick: () => [...store().vms.list(tenantId)].find((vm) => vm.defaultL3NetworkUuid !== null)!.defaultL3NetworkUuid,
      expected: (value: unknown) => sorted([...store().vms.list(tenantId)].filter((vm) => vm.defaultL3NetworkUuid === value)),
      condition: (value: unknown) => `defaultL3NetworkUuid:eq:${String(value)}`,
    },
    {
      key: 'vmInstances.stateIn',
      query: 'query($v: [VmState!]) { vmInstances(first: 100, filter: { stateIn: $v }) { nodes { uuid } } }',
      list: 'vmInstances',
      pick: () => ['STOPPED', 'DESTROYED'],
      expected: () => sorted([...store().vms.list(tenantId)].filter((vm) => ['Stopped', 'Destroyed'].includes(vm.state))),
      condition: () => 'state:in:Stopped,Destroyed',
    },
    {
      key: 'vmInstances.typeIn',
      query: 'query($v: [VmInstanceType!]) { vmInstances(first: 100, filter: { typeIn: $v }) { nodes { uuid } } }',
      list: 'vmInstances',
      pick: () => ['USER_VM', 'APPLIANCE_VM'],
      expected: () => sorted([...store().vms.list(tenantId)].filter((vm) => ['UserVm', 'ApplianceVm'].includes(vm.type))),
      condition: () => 'type:in:UserVm,ApplianceVm',
    },
    {
      key: 'volumes.diskOfferingUuid',
      query: 'query($v: Uuid) { volumes(first: 100, filter: { diskOfferingUuid: $v }) { nodes { uuid } } }',
      list: 'volumes',
      pick: () => [...store().volumes.list(tenantId)].find((volume) => volume.diskOfferingUuid !== null)!.diskOfferingUuid,
      expected: (value: unknown) => sorted([...store().volumes.list(tenantId)].filter((volume) => volume.diskOfferingUuid === value)),
      condition: (value: unknown) => `diskOfferingUuid:eq:${String(value)}`,
    },
    {
      key: 'volumes.typeIn',
      query: 'query($v: [VolumeType!]) { volumes(first: 100, filter: { typeIn: $v }) { nodes { uuid } } }',
      list: 'volumes',
      pick: () => ['DATA'],
      expected: () => sorted([...store().volumes.list(tenantId)].filter((volume) => volume.type === 'Data')),
      condition: () => 'type:eq:Data',
    },
    {
      key: 'cbtTasks.statusIn',
      query: 'query($v: [CbtTaskStatus!]) { cbtTasks(first: 100, filter: { statusIn: $v }) { nodes { uuid } } }',
      list: 'cbtTasks',
      pick: () => ['CREATED', 'RUNNING'],
      expected: () => sorted([...store().cbtTasks.list(tenantId)].filter((task) => ['Created', 'Running'].includes(task.status))),
      condition: () => 'status?=Created,Running',
    },
    {
      key: 'snsApplicationEndpoints.typeIn',
      query: 'query($v: [SnsEndpointType!]) { snsApplicationEndpoints(first: 100, filter: { typeIn: $v }) { nodes { uuid } } }',
      list: 'snsApplicationEndpoints',
      pick: () => ['HTTP', 'SMS'],
      expected: () => sorted([...store().snsEndpoints.list(tenantId)].filter((endpoint) => ['HTTP', 'SMS'].includes(endpoint.type))),
      condition: () => 'type:in:HTTP,SMS',
    },
  ];

  it.each(root)('$key reaches the upstream as a condition, one request, and answers what the estate holds', async ({ query, list, pick, expected, condition }) => {
    const value = pick();
    const { journal, uuids } = await read(query, list, { v: value });
    expect(journal).toHaveLength(1);
    expect(conditionsOf(journal[0]!)).toContain(condition(value));
    expect(uuids).toEqual(expected(value));
    expect(uuids.length).toBeGreaterThan(0);
  });

  it('a multi-value filter with no value matches nothing, without asking the upstream', async () => {
    const { journal, uuids } = await read('{ hosts(first: 10, filter: { stateIn: [] }) { nodes { uuid } } }', 'hosts');
    expect(uuids).toEqual([]);
    expect(journal.filter((entry) => entry.operation === 'CursorQuery')).toHaveLength(0);
  });

  describe('nested connections', () => {
    it('Host.vmInstances takes filter and orderBy: one CursorQuery for every host, the host condition and the filter together, in the order asked', async () => {
      harness.resetStats();
      const response = await harness.gql<{ hosts: { nodes: { uuid: string; vmInstances: { nodes: { uuid: string; name: string; state: string }[] } }[] } }>(
        '{ hosts(first: 100) { nodes { uuid vmInstances(first: 100, filter: { stateIn: [RUNNING] }, orderBy: { field: NAME, direction: DESC }) { nodes { uuid name state } } } } }',
      );
      expect(response.errors).toBeUndefined();
      const vmQueries = harness.simulator.journal().filter((entry) => entry.operation === 'CursorQuery' && new URLSearchParams(entry.query).get('resourceType') === 'vm');
      expect(vmQueries).toHaveLength(1);
      const params = new URLSearchParams(vmQueries[0]!.query);
      expect(params.getAll('filter')).toEqual(expect.arrayContaining(['state:eq:Running', expect.stringMatching(/^hostUuid:in:/)]));
      expect({ sort: params.get('sort'), order: params.get('order') }).toEqual({ sort: 'name', order: 'desc' });
      for (const host of response.data!.hosts.nodes) {
        const expected = store()
          .vms.by('hostUuid', host.uuid, tenantId)
          .filter((vm) => vm.state === 'Running')
          .map((vm) => vm.name)
          .sort()
          .reverse();
        expect(host.vmInstances.nodes.map((vm) => vm.name)).toEqual(expected);
      }
    });

    it('two aliases of Host.vmInstances with other filters are read apart, each answering its own', async () => {
      harness.resetStats();
      const response = await harness.gql<{ hosts: { nodes: { uuid: string; running: { totalCount: number }; stopped: { totalCount: number } }[] } }>(
        '{ hosts(first: 100) { nodes { uuid running: vmInstances(filter: { state: RUNNING }) { totalCount } stopped: vmInstances(filter: { state: STOPPED }) { totalCount } } } }',
      );
      expect(response.errors).toBeUndefined();
      for (const host of response.data!.hosts.nodes) {
        const vms = store().vms.by('hostUuid', host.uuid, tenantId);
        expect({ running: host.running.totalCount, stopped: host.stopped.totalCount }).toEqual({
          running: vms.filter((vm) => vm.state === 'Running').length,
          stopped: vms.filter((vm) => vm.state === 'Stopped').length,
        });
      }
      const vmQueries = harness.simulator.journal().filter((entry) => entry.operation === 'CursorQuery' && new URLSearchParams(entry.query).get('resourceType') === 'vm');
      expect(vmQueries).toHaveLength(2);
    });

    it('Host.hbaDevices takes a filter, sent with the hosts in one QueryHBADevice', async () => {
      const hba = [...store().hbas.list(tenantId)][0]!;
      harness.resetStats();
      const response = await harness.gql<{ hosts: { nodes: { uuid: string; hbaDevices: { nodes: { uuid: string }[] } }[] } }>(
        'query($wwpn: String) { hosts(first: 100) { nodes { uuid hbaDevices(filter: { portName: $wwpn }) { nodes { uuid } } } } }',
        { wwpn: hba.portName },
      );
      expect(response.errors).toBeUndefined();
      const queries = harness.simulator.journal().filter((entry) => entry.operation === 'QueryHBADevice');
      expect(queries).toHaveLength(1);
      expect(conditionsOf(queries[0]!)).toContain(`portName=${hba.portName}`);
      const found = response.data!.hosts.nodes.flatMap((host) => host.hbaDevices.nodes.map((node) => node.uuid));
      expect(found).toEqual([hba.uuid]);
    });

    it('VmInstance.snapshotGroups and SnsApplicationPlatform.endpoints take filters too', async () => {
      const group = [...store().snapshotGroups.list(tenantId)][0]!;
      harness.resetStats();
      const vm = await harness.gql<{ vmInstance: { snapshotGroups: { nodes: { uuid: string }[] } } }>(
        'query($uuid: Uuid!, $name: String) { vmInstance(uuid: $uuid) { snapshotGroups(filter: { nameContains: $name }) { nodes { uuid } } } }',
        { uuid: group.vmInstanceUuid, name: group.name },
      );
      expect(vm.data?.vmInstance.snapshotGroups.nodes.map((node) => node.uuid)).toContain(group.uuid);
      const sent = harness.simulator.journal().filter((entry) => entry.operation === 'QueryVolumeSnapshotGroup');
      expect(conditionsOf(sent[0]!)).toContain(`name~=%${group.name}%`);

      harness.resetStats();
      const platforms = await harness.gql<{ snsApplicationPlatforms: { nodes: { endpoints: { nodes: { type: string }[] } }[] } }>(
        '{ snsApplicationPlatforms(first: 10) { nodes { endpoints(filter: { typeIn: [EMAIL] }) { nodes { type } } } } }',
      );
      expect(platforms.errors).toBeUndefined();
      const endpoints = platforms.data!.snsApplicationPlatforms.nodes.flatMap((platform) => platform.endpoints.nodes);
      expect(endpoints.length).toBe([...store().snsEndpoints.list(tenantId)].filter((endpoint) => endpoint.type === 'Email').length);
      expect(endpoints.every((endpoint) => endpoint.type === 'EMAIL')).toBe(true);
    });
  });

  it('snsApplicationEndpoint(uuid:) and snsApplicationPlatform(uuid:) find one record each', async () => {
    const endpoint = [...store().snsEndpoints.list(tenantId)][0]!;
    const platform = [...store().snsPlatforms.list(tenantId)][0]!;
    const response = await harness.gql<{ snsApplicationEndpoint: { uuid: string; name: string }; snsApplicationPlatform: { uuid: string; name: string }; missing: null }>(
      `query($e: Uuid!, $p: Uuid!) {
        snsApplicationEndpoint(uuid: $e) { uuid name }
        snsApplicationPlatform(uuid: $p) { uuid name }
        missing: snsApplicationPlatform(uuid: "${'f'.repeat(32)}") { uuid }
      }`,
      { e: endpoint.uuid, p: platform.uuid },
    );
    expect(response.data).toEqual({ snsApplicationEndpoint: { uuid: endpoint.uuid, name: endpoint.name }, snsApplicationPlatform: { uuid: platform.uuid, name: platform.name }, missing: null });
    expect(response.errors).toEqual([expect.objectContaining({ path: ['missing'], extensions: expect.objectContaining({ code: 'NOT_FOUND' }) })]);
  });
});
