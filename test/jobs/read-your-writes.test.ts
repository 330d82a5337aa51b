/**
 * Read your writes through the response cache: for each of the 22 mutations, a read answered
 * from the cache, the mutation, and the same read showing the change. The mutations select no
 * record of their payload, so only what the mutation declares it touches can drop the cached
 * answer (the cache plugin itself drops only the records a mutation's answer carries).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createWriteInvalidation } from '../../src/response-cache/invalidation.js';
import { createResponseCacheStore } from '../../src/response-cache/store.js';
import { schema } from '../../src/schema/index.js';
import type { CbtTask, PrimaryStorage, VmInstance } from '../../src/simulator/model.js';
import { errorCodes, startHarness, type GraphQLResponse, type Harness } from '../support/harness.js';

describe('read your writes', () => {
  let harness: Harness;
  let tenantId: string;
  /** Records taken by a test, so that no two tests work on the same one. */
  const taken = new Set<string>();

  beforeAll(async () => {
    harness = await startHarness({ config: { jobPollAfterMs: 100 } });
    tenantId = harness.simulator.credentials.tenantId;
  });

  afterAll(async () => {
    await harness.close();
  });

  beforeEach(() => {
    harness.simulator.configure({ dropWebhooks: false, asyncDelayMs: 5 });
  });

  const store = () => harness.simulator.store;

  function take<T extends { uuid: string }>(records: Iterable<T>, fits: (record: T) => boolean, what: string): T {
    for (const record of records) {
      if (!taken.has(record.uuid) && fits(record)) {
        taken.add(record.uuid);
        return record;
      }
    }
    throw new Error(`the estate has no ${what} left`);
  }

  function takeVm(what: string, fits: (vm: VmInstance) => boolean): VmInstance {
    return take(store().vms.list(tenantId), fits, `VM that ${what}`);
  }

  /** A CBT task of a fresh VM in `vmState`, put in the simulator's store directly. */
  function newTask(status: CbtTask['status'], vmState: 'Running' | 'Stopped' = 'Running'): CbtTask {
    const vm = takeVm(`is ${vmState} without a CBT task`, (candidate) =>
      candidate.state === vmState && store().cbtTasks.by('vmInstanceUuid', candidate.uuid, tenantId).length === 0,
    );
    const past = new Date(Date.now() - 86_400_000);
    return store().cbtTasks.insert({
      uuid: crypto.randomUUID().replaceAll('-', ''),
      tenantId,
      name: `ryw-${vm.name}`,
      description: null,
      status,
      taskType: 'VM',
      vmInstanceUuid: vm.uuid,
      volumeUuids: store().volumesOfVm(vm).map((volume) => volume.uuid),
      bitmapName: null,
      exportedVolumeUuids: new Set(),
      createDate: past,
      lastOpDate: past,
    });
  }

  async function read<T>(query: string, variables?: Record<string, unknown>): Promise<GraphQLResponse<T>> {
    return harness.gql<T>(query, variables);
  }

  /** Reads twice: the second answer comes from the cache (no upstream request) and is the first. */
  async function cachedRead<T>(query: string, variables?: Record<string, unknown>): Promise<T> {
    const first = await read<T>(query, variables);
    expect(first.errors, JSON.stringify(first.errors)).toBeUndefined();
    harness.resetStats();
    const again = await read<T>(query, variables);
    expect(harness.upstreamRequests()).toBe(0);
    expect(again.data).toEqual(first.data);
    return first.data!;
  }

  /** Reads a third time, after the write: answers the data, which must come from the upstream. */
  async function freshRead<T>(query: string, variables?: Record<string, unknown>): Promise<GraphQLResponse<T>> {
    harness.resetStats();
    const response = await read<T>(query, variables);
    expect(harness.upstreamRequests()).toBeGreaterThan(0);
    return response;
  }

  /** Runs a mutation that succeeds, selecting none of its payload's records. */
  async function write(name: string, input: Record<string, unknown>): Promise<{ id: string; status: string }> {
    const inputType = `${name.charAt(0).toUpperCase()}${name.slice(1)}Input`;
    const response = await harness.gql<Record<string, { error: unknown; job: { id: string; status: string } }>>(
      `mutation($input: ${inputType}!) { ${name}(input: $input) { error { code details } job { id status } } }`,
      { input },
    );
    expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
    const payload = response.data![name]!;
    if (input.async !== true) expect(payload).toMatchObject({ error: null, job: { status: 'SUCCEEDED' } });
    return payload.job;
  }

  async function waitForJob(id: string): Promise<string> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const response = await read<{ job: { status: string } }>('query($id: ID!) { job(id: $id) { status } }', { id });
      const status = response.data!.job.status;
      if (status !== 'RUNNING' || Date.now() > deadline) return status;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  describe('hosts', () => {
    it('updateHostNqn: the host read afterwards has the new NQN', async () => {
      const host = take(store().hosts.list(tenantId), (candidate) => candidate.status === 'Connected', 'connected host');
      const query = 'query($uuid: Uuid!) { host(uuid: $uuid) { nqn } }';
      await cachedRead(query, { uuid: host.uuid });
      const nqn = `nqn.2014-08.org.example:ryw-${Date.now()}`;
      await write('updateHostNqn', { uuid: host.uuid, nqn });
      expect((await freshRead(query, { uuid: host.uuid })).data).toEqual({ host: { nqn } });
    });

    it('setIpOnHostNetworkBonding: the host\'s network facts read afterwards show the address', async () => {
      const bond = take(
        store().bondings.list(tenantId),
        (candidate) => store().hosts.get(tenantId, candidate.hostUuid)?.status === 'Connected',
        'bond of a connected host',
      );
      const query = 'query($uuid: Uuid!) { host(uuid: $uuid) { networkFacts { bondings { uuid ipAddresses } } } }';
      await cachedRead(query, { uuid: bond.hostUuid });
      await write('setIpOnHostNetworkBonding', { bondingUuid: bond.uuid, ipAddress: '192.0.2.77', netmask: '255.255.255.0' });
      const after = await freshRead<{ host: { networkFacts: { bondings: { uuid: string; ipAddresses: string[] }[] } } }>(query, {
        uuid: bond.hostUuid,
      });
      expect(after.data!.host.networkFacts.bondings.find((candidate) => candidate.uuid === bond.uuid)?.ipAddresses).toEqual(['192.0.2.77/24']);
    });
  });

  describe('CBT tasks', () => {
    it('createCbtTask: the count of tasks read afterwards has one more', async () => {
      const vm = takeVm('runs without a CBT task', (candidate) =>
        candidate.state === 'Running' && store().cbtTasks.by('vmInstanceUuid', candidate.uuid, tenantId).length === 0,
      );
      const query = '{ cbtTasks(first: 1) { totalCount } }';
      const before = await cachedRead<{ cbtTasks: { totalCount: number } }>(query);
      await write('createCbtTask', { name: 'ryw-created', taskType: 'VM', resourceUuids: [vm.uuid] });
      expect((await freshRead(query)).data).toEqual({ cbtTasks: { totalCount: before.cbtTasks.totalCount + 1 } });
    });

    it('deleteCbtTask: the task read afterwards is gone', async () => {
      const task = newTask('Created');
      const query = 'query($uuid: Uuid!) { cbtTask(uuid: $uuid) { uuid status } }';
      expect(await cachedRead(query, { uuid: task.uuid })).toEqual({ cbtTask: { uuid: task.uuid, status: 'CREATED' } });
      await write('deleteCbtTask', { uuid: task.uuid });
      const after = await freshRead(query, { uuid: task.uuid });
      expect(after.data).toEqual({ cbtTask: null });
      expect(errorCodes(after)).toEqual(['NOT_FOUND']);
    });

    it('disableCbtTask: the count of STOPPED tasks read afterwards has one more', async () => {
      const task = newTask('Running');
      const query = '{ cbtTasks(first: 1, filter: { status: STOPPED }) { totalCount } }';
      const before = await cachedRead<{ cbtTasks: { totalCount: number } }>(query);
      await write('disableCbtTask', { uuid: task.uuid });
      expect((await freshRead(query)).data).toEqual({ cbtTasks: { totalCount: before.cbtTasks.totalCount + 1 } });
    });

    it('enableCbtTask: the count of RUNNING tasks read afterwards has one more', async () => {
      const task = newTask('Stopped');
      const query = '{ cbtTasks(first: 1, filter: { status: RUNNING }) { totalCount } }';
      const before = await cachedRead<{ cbtTasks: { totalCount: number } }>(query);
      await write('enableCbtTask', { uuid: task.uuid });
      expect((await freshRead(query)).data).toEqual({ cbtTasks: { totalCount: before.cbtTasks.totalCount + 1 } });
    });

    it('exportNbdVolumes: the VM\'s task, which the input does not name, reads afterwards as just changed', async () => {
      const task = newTask('Created', 'Stopped');
      const query = 'query($uuid: Uuid!) { cbtTask(uuid: $uuid) { lastOpDate } }';
      const before = await cachedRead<{ cbtTask: { lastOpDate: string } }>(query, { uuid: task.uuid });
      await write('exportNbdVolumes', { vmInstanceUuid: task.vmInstanceUuid, volumeUuids: task.volumeUuids.slice(0, 1) });
      const after = await freshRead<{ cbtTask: { lastOpDate: string } }>(query, { uuid: task.uuid });
      expect(Date.parse(after.data!.cbtTask.lastOpDate)).toBeGreaterThan(Date.parse(before.cbtTask.lastOpDate));
    });

    it('an asynchronous deleteCbtTask drops the cached task when its job finishes, not before', async () => {
      const task = newTask('Created');
      const query = 'query($uuid: Uuid!) { cbtTask(uuid: $uuid) { uuid status } }';
      await cachedRead(query, { uuid: task.uuid });
      // No webhook: the gateway learns the result by polling, well after the mutation answered.
      harness.simulator.configure({ dropWebhooks: true });
      const job = await write('deleteCbtTask', { uuid: task.uuid, async: true });
      expect(job.status).toBe('RUNNING');
      expect(await waitForJob(job.id)).toBe('SUCCEEDED');
      const after = await freshRead(query, { uuid: task.uuid });
      expect(errorCodes(after)).toEqual(['NOT_FOUND']);
    });

    it('a failed enableCbtTask still drops the cached task it left FAILED', async () => {
      const task = newTask('Created');
      const query = 'query($uuid: Uuid!) { cbtTask(uuid: $uuid) { status } }';
      expect(await cachedRead(query, { uuid: task.uuid })).toEqual({ cbtTask: { status: 'CREATED' } });
      // The VM went away behind the gateway's back: enabling fails, and the task is marked FAILED.
      store().vms.update(store().vms.get(tenantId, task.vmInstanceUuid)!, { state: 'Destroyed' });
      const response = await harness.gql<{ enableCbtTask: { error: { code: string } | null; job: { status: string } } }>(
        'mutation($input: EnableCbtTaskInput!) { enableCbtTask(input: $input) { error { code } job { status } } }',
        { input: { uuid: task.uuid } },
      );
      expect(response.data?.enableCbtTask.job.status).toBe('FAILED');
      expect((await freshRead(query, { uuid: task.uuid })).data).toEqual({ cbtTask: { status: 'FAILED' } });
    });
  });

  describe('VM instances', () => {
    /** A stopped VM with a primary storage of its zone that none of its volumes is on. */
    function stoppedVmAndFreeStorage(): { vm: VmInstance; destination: PrimaryStorage } {
      let destination: PrimaryStorage | undefined;
      const vm = takeVm('is stopped with a free destination storage in its zone', (candidate) => {
        if (candidate.state !== 'Stopped') return false;
        const volumes = store().volumesOfVm(candidate);
        destination = [...store().primaryStorages.list(tenantId)].find(
          (storage) =>
            storage.zoneUuid === candidate.zoneUuid &&
            volumes.every((volume) => volume.primaryStorageUuid !== storage.uuid) &&
            storage.availableCapacity > volumes.reduce((sum, volume) => sum + volume.actualSize, 0),
        );
        return destination !== undefined;
      });
      return { vm, destination: destination! };
    }

    it('primaryStorageMigrateVm: the root volume (named by no input) and both storages\' capacity read afterwards changed', async () => {
      const { vm, destination } = stoppedVmAndFreeStorage();
      const source = store().volumes.get(tenantId, vm.rootVolumeUuid)!.primaryStorageUuid;
      const query = `query($volume: Uuid!, $storages: [Uuid!]) {
        volume(uuid: $volume) { primaryStorageUuid }
        primaryStorageCapacity(primaryStorageUuids: $storages) { availableCapacity }
      }`;
      const variables = { volume: vm.rootVolumeUuid, storages: [destination.uuid] };
      const before = await cachedRead<{ primaryStorageCapacity: { availableCapacity: number } }>(query, variables);
      expect(source).not.toBe(destination.uuid);
      await write('primaryStorageMigrateVm', { vmInstanceUuid: vm.uuid, dstPrimaryStorageUuid: destination.uuid });
      const after = await freshRead<{ volume: { primaryStorageUuid: string }; primaryStorageCapacity: { availableCapacity: number } }>(
        query,
        variables,
      );
      expect(after.data!.volume.primaryStorageUuid).toBe(destination.uuid);
      expect(after.data!.primaryStorageCapacity.availableCapacity).toBeLessThan(before.primaryStorageCapacity.availableCapacity);
    });

    it('createVmInstanceFromVolumeSnapshotGroup: the count of VMs and of volumes read afterwards grew', async () => {
      const group = [...store().snapshotGroups.list(tenantId)].find(
        (candidate) =>
          candidate.volumeSnapshotRefs.some((ref) => ref.volumeType === 'Root' && !ref.snapshotDeleted) &&
          store().vms.get(tenantId, candidate.vmInstanceUuid) !== undefined,
      )!;
      const query = '{ vmInstances(first: 1) { totalCount } volumes(first: 1) { totalCount } }';
      const before = await cachedRead<{ vmInstances: { totalCount: number }; volumes: { totalCount: number } }>(query);
      await write('createVmInstanceFromVolumeSnapshotGroup', { volumeSnapshotGroupUuid: group.uuid, name: 'ryw-restored', strategy: 'CREATE_STOPPED' });
      const after = await freshRead<typeof before>(query);
      expect(after.data!.vmInstances.totalCount).toBe(before.vmInstances.totalCount + 1);
      expect(after.data!.volumes.totalCount).toBeGreaterThan(before.volumes.totalCount);
    });

    it('detachL3NetworkFromVm: the NIC read afterwards by its global id is gone', async () => {
      const vm = takeVm('runs with two NICs', (candidate) => candidate.state === 'Running' && candidate.vmNics.length === 2);
      const nic = vm.vmNics[1]!;
      const ids = await read<{ vmInstance: { nics: { id: string; uuid: string }[] } }>(
        'query($uuid: Uuid!) { vmInstance(uuid: $uuid) { nics { id uuid } } }',
        { uuid: vm.uuid },
      );
      const id = ids.data!.vmInstance.nics.find((candidate) => candidate.uuid === nic.uuid)!.id;
      const query = 'query($id: ID!) { node(id: $id) { id ... on VmNic { l3NetworkUuid } } }';
      expect(await cachedRead(query, { id })).toEqual({ node: { id, l3NetworkUuid: nic.l3NetworkUuid } });
      await write('detachL3NetworkFromVm', { vmNicUuid: nic.uuid });
      const after = await freshRead(query, { id });
      expect(after.data).toEqual({ node: null });
      expect(errorCodes(after)).toEqual(['NOT_FOUND']);
    });

    it('deleteVmSshKey: the VM read afterwards was just changed', async () => {
      const vm = takeVm('runs with an SSH key', (candidate) => candidate.state === 'Running' && candidate.sshKey !== null);
      const query = 'query($uuid: Uuid!) { vmInstance(uuid: $uuid) { lastOpDate } }';
      const before = await cachedRead<{ vmInstance: { lastOpDate: string } }>(query, { uuid: vm.uuid });
      await write('deleteVmSshKey', { uuid: vm.uuid });
      const after = await freshRead<{ vmInstance: { lastOpDate: string } }>(query, { uuid: vm.uuid });
      expect(Date.parse(after.data!.vmInstance.lastOpDate)).toBeGreaterThan(Date.parse(before.vmInstance.lastOpDate));
    });

    it('setVmBootVolume: the former boot volume (named by no input) reads afterwards off device 0', async () => {
      const vm = takeVm('runs with a data volume', (candidate) =>
        candidate.state === 'Running' && store().volumesOfVm(candidate).some((volume) => volume.type === 'Data'),
      );
      const volumes = store().volumesOfVm(vm);
      const boot = volumes.find((volume) => volume.deviceId === 0)!;
      const data = volumes.find((volume) => volume !== boot)!;
      const query = 'query($uuid: Uuid!) { volume(uuid: $uuid) { deviceId } }';
      expect(await cachedRead(query, { uuid: boot.uuid })).toEqual({ volume: { deviceId: 0 } });
      await write('setVmBootVolume', { vmInstanceUuid: vm.uuid, volumeUuid: data.uuid });
      const after = await freshRead<{ volume: { deviceId: number } }>(query, { uuid: boot.uuid });
      expect(after.data!.volume.deviceId).not.toBe(0);
    });

    it('recoverVmInstance: the count of destroyed VMs read afterwards has one less', async () => {
      const vm = takeVm('is stopped', (candidate) => candidate.state === 'Stopped');
      store().vms.update(vm, { state: 'Destroyed' });
      const query = '{ vmInstances(first: 1, filter: { state: DESTROYED }) { totalCount } }';
      const before = await cachedRead<{ vmInstances: { totalCount: number } }>(query);
      await write('recoverVmInstance', { uuid: vm.uuid });
      expect((await freshRead(query)).data).toEqual({ vmInstances: { totalCount: before.vmInstances.totalCount - 1 } });
    });

    it('updateVmNicDriver: the VM read afterwards has the NIC with its new driver', async () => {
      const vm = takeVm('runs with a virtio NIC', (candidate) => candidate.state === 'Running' && candidate.vmNics[0]?.driverType === 'virtio');
      const nic = vm.vmNics[0]!;
      const query = 'query($uuid: Uuid!) { vmInstance(uuid: $uuid) { nics { uuid driverType } } }';
      await cachedRead(query, { uuid: vm.uuid });
      await write('updateVmNicDriver', { vmInstanceUuid: vm.uuid, vmNicUuid: nic.uuid, driverType: 'E1000' });
      const after = await freshRead<{ vmInstance: { nics: { uuid: string; driverType: string }[] } }>(query, { uuid: vm.uuid });
      expect(after.data!.vmInstance.nics.find((candidate) => candidate.uuid === nic.uuid)?.driverType).toBe('E1000');
    });

    it('destroyVmInstance: the count of its host\'s VMs read afterwards has one less', async () => {
      const vm = takeVm('runs on a host', (candidate) => candidate.state === 'Running' && candidate.hostUuid !== null);
      const host = vm.hostUuid;
      const query = 'query($uuid: Uuid!) { host(uuid: $uuid) { vmInstances(first: 1) { totalCount } } }';
      const before = await cachedRead<{ host: { vmInstances: { totalCount: number } } }>(query, { uuid: host });
      await write('destroyVmInstance', { uuid: vm.uuid });
      const after = await freshRead<typeof before>(query, { uuid: host });
      expect(after.data!.host.vmInstances.totalCount).toBe(before.host.vmInstances.totalCount - 1);
    });

    it('does not cache a read that was under way while a write to its records finished', async () => {
      const vm = takeVm('runs on a host with a virtio NIC', (candidate) =>
        candidate.state === 'Running' && candidate.hostUuid !== null && candidate.vmNics[0]?.driverType === 'virtio',
      );
      const nic = vm.vmNics[0]!;
      // Two upstream rounds, one after the other: the VM (with its NICs), then its host.
      const query = 'query($uuid: Uuid!) { vmInstance(uuid: $uuid) { nics { uuid driverType } host { name } } }';
      const driverOf = (response: GraphQLResponse<{ vmInstance: { nics: { uuid: string; driverType: string }[] } }>) =>
        response.data!.vmInstance.nics.find((candidate) => candidate.uuid === nic.uuid)?.driverType;
      harness.simulator.configure({ latencyMs: 400 });
      try {
        // The read takes the VM before the write changes it, and ends after the write's job did.
        const underway = read<{ vmInstance: { nics: { uuid: string; driverType: string }[] } }>(query, { uuid: vm.uuid });
        await new Promise((resolve) => setTimeout(resolve, 100));
        await write('updateVmNicDriver', { vmInstanceUuid: vm.uuid, vmNicUuid: nic.uuid, driverType: 'E1000' });
        expect(driverOf(await underway)).toBe('VIRTIO');
      } finally {
        harness.simulator.configure({ latencyMs: 0 });
      }
      expect(driverOf(await read(query, { uuid: vm.uuid }))).toBe('E1000');
    });

    it('keeps serving from the cache a VM that a write to another VM did not touch', async () => {
      const [touched, untouched] = [1, 2].map(() =>
        takeVm('runs with an SSH key', (candidate) => candidate.state === 'Running' && candidate.sshKey !== null),
      );
      const query = 'query($uuid: Uuid!) { vmInstance(uuid: $uuid) { uuid state } }';
      await cachedRead(query, { uuid: untouched!.uuid });
      await write('deleteVmSshKey', { uuid: touched!.uuid });
      harness.resetStats();
      expect((await read(query, { uuid: untouched!.uuid })).data).toEqual({ vmInstance: { uuid: untouched!.uuid, state: 'RUNNING' } });
      expect(harness.upstreamRequests()).toBe(0);
    });
  });

  describe('volume snapshot groups', () => {
    it('createVolumeSnapshotGroup: the count of the VM\'s snapshot groups read afterwards has one more', async () => {
      const vm = takeVm('runs', (candidate) => candidate.state === 'Running');
      const query = 'query($uuid: Uuid!) { vmInstance(uuid: $uuid) { snapshotGroups(first: 1) { totalCount } } }';
      const before = await cachedRead<{ vmInstance: { snapshotGroups: { totalCount: number } } }>(query, { uuid: vm.uuid });
      await write('createVolumeSnapshotGroup', { rootVolumeUuid: vm.rootVolumeUuid, name: 'ryw-group' });
      expect((await freshRead(query, { uuid: vm.uuid })).data).toEqual({
        vmInstance: { snapshotGroups: { totalCount: before.vmInstance.snapshotGroups.totalCount + 1 } },
      });
    });

    it('deleteVolumeSnapshotGroup: the group read afterwards is gone', async () => {
      const group = take(store().snapshotGroups.list(tenantId), () => true, 'snapshot group');
      const query = 'query($uuid: Uuid!) { volumeSnapshotGroup(uuid: $uuid) { uuid name } }';
      await cachedRead(query, { uuid: group.uuid });
      await write('deleteVolumeSnapshotGroup', { uuid: group.uuid });
      const after = await freshRead(query, { uuid: group.uuid });
      expect(after.data).toEqual({ volumeSnapshotGroup: null });
      expect(errorCodes(after)).toEqual(['NOT_FOUND']);
    });

    it('updateVolumeSnapshotGroup: a search by the new name read afterwards counts the group', async () => {
      const group = take(store().snapshotGroups.list(tenantId), () => true, 'snapshot group');
      const query = '{ volumeSnapshotGroups(first: 1, filter: { nameContains: "ryw-renamed" }) { totalCount } }';
      expect(await cachedRead(query)).toEqual({ volumeSnapshotGroups: { totalCount: 0 } });
      await write('updateVolumeSnapshotGroup', { uuid: group.uuid, name: 'ryw-renamed' });
      expect((await freshRead(query)).data).toEqual({ volumeSnapshotGroups: { totalCount: 1 } });
    });
  });

  describe('directories and SNS', () => {
    it('deleteDirectory: no field reads directories, so every cached answer is still served from the cache', async () => {
      const directory = take(store().directories.list(tenantId), (candidate) => store().directories.by('parentUuid', candidate.uuid, tenantId).length === 0, 'leaf directory');
      const query = '{ vmInstances(first: 3) { totalCount nodes { uuid } } hosts(first: 3) { totalCount } }';
      const before = await cachedRead(query);
      await write('deleteDirectory', { uuid: directory.uuid });
      expect(store().directories.get(tenantId, directory.uuid)).toBeUndefined();
      harness.resetStats();
      expect((await read(query)).data).toEqual(before);
      expect(harness.upstreamRequests()).toBe(0);
    });

    it('changeSnsApplicationPlatformState: the count of disabled platforms read afterwards has one more', async () => {
      const platform = take(store().snsPlatforms.list(tenantId), (candidate) => candidate.state === 'Enabled', 'enabled SNS platform');
      const query = '{ snsApplicationPlatforms(first: 1, filter: { state: DISABLED }) { totalCount } }';
      const before = await cachedRead<{ snsApplicationPlatforms: { totalCount: number } }>(query);
      await write('changeSnsApplicationPlatformState', { uuid: platform.uuid, stateEvent: 'DISABLE' });
      expect((await freshRead(query)).data).toEqual({ snsApplicationPlatforms: { totalCount: before.snsApplicationPlatforms.totalCount + 1 } });
    });

    it('updateSnsHttpEndpoint: a search by the new name read afterwards counts the endpoint', async () => {
      const endpoint = take(store().snsEndpoints.list(tenantId), (candidate) => candidate.type === 'HTTP', 'HTTP SNS endpoint');
      const query = '{ snsApplicationEndpoints(first: 1, filter: { nameContains: "ryw-renamed" }) { totalCount } }';
      expect(await cachedRead(query)).toEqual({ snsApplicationEndpoints: { totalCount: 0 } });
      await write('updateSnsHttpEndpoint', { uuid: endpoint.uuid, name: 'ryw-renamed-hook' });
      expect((await freshRead(query)).data).toEqual({ snsApplicationEndpoints: { totalCount: 1 } });
    });

    it('removeSnsSmsReceiver: the endpoint read afterwards has lost the receiver', async () => {
      const endpoint = take(store().snsEndpoints.list(tenantId), (candidate) => candidate.type === 'SMS' && candidate.receivers.length > 1, 'SMS endpoint');
      const phoneNumber = endpoint.receivers[0]!;
      const query = 'query($uuids: [Uuid!]) { snsApplicationEndpoints(first: 1, filter: { uuids: $uuids }) { nodes { receivers { phoneNumber } } } }';
      await cachedRead(query, { uuids: [endpoint.uuid] });
      await write('removeSnsSmsReceiver', { endpointUuid: endpoint.uuid, phoneNumber });
      const after = await freshRead<{ snsApplicationEndpoints: { nodes: { receivers: { phoneNumber: string }[] }[] } }>(query, {
        uuids: [endpoint.uuid],
      });
      expect(after.data!.snsApplicationEndpoints.nodes[0]!.receivers.map((receiver) => receiver.phoneNumber)).not.toContain(phoneNumber);
    });
  });

  it('refuses a mutation declaration that leaves out a record type its payload returns', () => {
    const cache = createResponseCacheStore({ responseCacheMaxEntries: 10 });
    expect(() => createWriteInvalidation(cache, schema, new Map([['destroyVmInstance', { types: [] }]]))).toThrow(/VmInstance/);
    expect(() => createWriteInvalidation(cache, schema, new Map([['deleteCbtTask', { types: ['CbtTsk'] }]]))).toThrow(/CbtTsk/);
  });
});
