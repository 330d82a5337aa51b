/**
 * The VM instance and volume snapshot group mutations end to end: the exact upstream request
 * each one makes (method, path, body, the gateway's X-Job-UUID and X-Web-Hook), the state read
 * back through queries afterwards, upstream failures in the payload's `error`, GraphQL input
 * rejected before any upstream request, and the asynchronous form.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../../src/simulator/server.js';
import type { PrimaryStorage, VmInstance, Volume, VolumeSnapshotGroup } from '../../../src/simulator/model.js';
import { errorCodes, startHarness, WEBHOOK_MODES, type GraphQLResponse, type Harness } from '../../support/harness.js';

const GIB = 1024 ** 3;
const ERROR_FIELDS = 'error { code details cause { code } }';
const JOB_FIELDS = 'job { id status operation }';

interface Job {
  id: string;
  status: string;
  operation: string;
}

interface UpstreamError {
  code: string;
  details: string | null;
  cause: { code: string } | null;
}

interface Payload {
  error: UpstreamError | null;
  job: Job;
  [field: string]: unknown;
}

describe.each(WEBHOOK_MODES)('VM instance and snapshot group mutations (webhooks $mode)', ({ dropWebhooks }) => {
  let harness: Harness;
  const taken = new Set<string>();

  beforeAll(async () => {
    harness = await startHarness({ config: { jobPollAfterMs: 100 } });
  });

  afterAll(async () => {
    await harness.close();
  });

  beforeEach(() => {
    harness.simulator.configure({ dropWebhooks, asyncDelayMs: 5 });
  });

  const tenantId = () => harness.simulator.credentials.tenantId;
  const store = () => harness.simulator.store;

  /** A VM of the estate no other test of this file uses. */
  function takeVm(description: string, fits: (vm: VmInstance) => boolean): VmInstance {
    const vm = [...store().vms.list(tenantId())].find((candidate) => !taken.has(candidate.uuid) && fits(candidate));
    if (!vm) throw new Error(`the estate has no unused VM that ${description}`);
    taken.add(vm.uuid);
    return vm;
  }

  function dataVolumesOf(vm: VmInstance): Volume[] {
    return store().volumesOfVm(vm).filter((volume) => volume.type === 'Data');
  }

  /** Runs a mutation and returns its payload; fails the test on GraphQL errors. */
  async function mutate(name: string, input: Record<string, unknown>, selection: string): Promise<Payload> {
    const typeName = `${name.charAt(0).toUpperCase()}${name.slice(1)}Input`;
    const response = await harness.gql<Record<string, Payload>>(
      `mutation($input: ${typeName}!) { ${name}(input: $input) { clientMutationId ${selection} ${ERROR_FIELDS} ${JOB_FIELDS} } }`,
      { input },
    );
    expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
    return response.data![name]!;
  }

  /** The request the simulator received for a job (the gateway's X-Job-UUID is the job id). */
  function sentFor(job: Job): JournalEntry {
    const entries = harness.simulator.journal().filter((entry) => entry.headers['x-job-uuid'] === job.id);
    expect(entries).toHaveLength(1);
    const entry = entries[0]!;
    expect(entry.headers['x-web-hook']).toMatch(new RegExp(`^${harness.url}/webhooks/jobs/${job.id}/[A-Za-z0-9_-]{20,}$`));
    return entry;
  }

  async function readVm<T = Record<string, unknown>>(uuid: string, selection: string): Promise<T> {
    const response = await harness.gql<{ vmInstance: T }>(`query($uuid: Uuid!) { vmInstance(uuid: $uuid) { ${selection} } }`, { uuid });
    expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
    return response.data!.vmInstance;
  }

  function randomUuid(): string {
    return crypto.randomUUID().replaceAll('-', '');
  }

  describe('VM instances', () => {
    it('primaryStorageMigrateVm sends the action with volumeMigrationAOs and moves the volumes', async () => {
      let destination: PrimaryStorage | undefined;
      const vm = takeVm('is stopped, has a data volume and a free destination storage in its zone', (candidate) => {
        if (candidate.state !== 'Stopped' || dataVolumesOf(candidate).length === 0) return false;
        const volumes = store().volumesOfVm(candidate);
        destination = [...store().primaryStorages.list(tenantId())].find(
          (storage) =>
            storage.zoneUuid === candidate.zoneUuid &&
            volumes.every((volume) => volume.primaryStorageUuid !== storage.uuid) &&
            storage.availableCapacity > volumes.reduce((sum, volume) => sum + volume.actualSize, 0),
        );
        return destination !== undefined;
      });
      const data = dataVolumesOf(vm)[0]!;
      const payload = await mutate(
        'primaryStorageMigrateVm',
        {
          vmInstanceUuid: vm.uuid,
          dstPrimaryStorageUuid: destination!.uuid,
          bandwidth: 200,
          volumeMigrationAOs: [{ volumeUuid: data.uuid, dstPrimaryStorageUuid: destination!.uuid, withSnapshots: true }],
          clientMutationId: 'migrate-1',
        },
        'vmInstance { uuid state volumes { uuid primaryStorageUuid } }',
      );
      expect(payload.error).toBeNull();
      expect(payload.job.status).toBe('SUCCEEDED');
      expect(payload.clientMutationId).toBe('migrate-1');

      const sent = sentFor(payload.job);
      expect(sent).toMatchObject({ operation: 'PrimaryStorageMigrateVm', method: 'PUT', path: `/svc/v1/vm-instances/${vm.uuid}/actions` });
      expect(sent.body).toEqual({
        primaryStorageMigrateVm: {
          dstPrimaryStorageUuid: destination!.uuid,
          bandwidth: 200,
          volumeMigrationAOs: [{ volumeUuid: data.uuid, dstPrimaryStorageUuid: destination!.uuid, withSnapshots: true }],
        },
      });

      const moved = [vm.rootVolumeUuid, data.uuid].sort();
      const inPayload = (payload.vmInstance as { volumes: { uuid: string; primaryStorageUuid: string }[] }).volumes;
      expect(inPayload.filter((volume) => moved.includes(volume.uuid)).map((volume) => volume.primaryStorageUuid)).toEqual([
        destination!.uuid,
        destination!.uuid,
      ]);
      const readBack = await readVm<{ volumes: { uuid: string; primaryStorageUuid: string }[] }>(vm.uuid, 'volumes { uuid primaryStorageUuid }');
      for (const uuid of moved) {
        expect(readBack.volumes.find((volume) => volume.uuid === uuid)?.primaryStorageUuid).toBe(destination!.uuid);
      }
    });

    it('primaryStorageMigrateVm marks withDataVolumes and withSnapshots deprecated in favour of volumeMigrationAOs', async () => {
      const response = await harness.gql<{ __type: { inputFields: { name: string; isDeprecated: boolean; deprecationReason: string | null }[] } }>(
        '{ __type(name: "PrimaryStorageMigrateVmInput") { inputFields(includeDeprecated: true) { name isDeprecated deprecationReason } } }',
      );
      const fields = new Map(response.data!.__type.inputFields.map((field) => [field.name, field]));
      for (const name of ['withDataVolumes', 'withSnapshots']) {
        expect(fields.get(name)?.isDeprecated, name).toBe(true);
        expect(fields.get(name)?.deprecationReason).toContain('volumeMigrationAOs');
      }
      expect(fields.get('volumeMigrationAOs')?.isDeprecated).toBe(false);
    });

    it('primaryStorageMigrateVm of a running VM fails with VM.1010 beneath', async () => {
      const vm = takeVm('is running', (candidate) => candidate.state === 'Running');
      const storage = [...store().primaryStorages.list(tenantId())].find(
        (candidate) => candidate.zoneUuid === vm.zoneUuid && candidate.uuid !== store().volumes.get(tenantId(), vm.rootVolumeUuid)?.primaryStorageUuid,
      );
      const payload = await mutate('primaryStorageMigrateVm', { vmInstanceUuid: vm.uuid, dstPrimaryStorageUuid: storage!.uuid }, 'vmInstance { uuid }');
      expect(payload).toMatchObject({ vmInstance: null, error: { code: 'SYS.1006', cause: { code: 'VM.1010' } }, job: { status: 'FAILED' } });
    });

    it('createVmInstanceFromVolumeSnapshotGroup posts the params (Map of data volume tags) and gives a VM one can query', async () => {
      const group = [...store().snapshotGroups.list(tenantId())].find(
        (candidate: VolumeSnapshotGroup) =>
          candidate.volumeSnapshotRefs.some((ref) => ref.volumeType === 'Root' && !ref.snapshotDeleted) &&
          store().vms.get(tenantId(), candidate.vmInstanceUuid) !== undefined,
      );
      expect(group, 'the estate has a snapshot group with its root snapshot').toBeDefined();
      const refs = group!.volumeSnapshotRefs.filter((ref) => !ref.snapshotDeleted);
      const tagged = refs.find((ref) => ref.volumeType === 'Data') ?? refs[0]!;
      const payload = await mutate(
        'createVmInstanceFromVolumeSnapshotGroup',
        {
          volumeSnapshotGroupUuid: group!.uuid,
          name: 'restored-from-group',
          strategy: 'CREATE_STOPPED',
          type: 'USER_VM',
          cpuNum: 2,
          memorySize: 4 * GIB,
          dataVolumeSystemTags: [{ snapshotUuid: tagged.volumeSnapshotUuid, systemTags: ['capability::virtio-scsi'] }],
          volumeSnapshotEncryptions: refs.map((ref) => ({ volumeSnapshotUuid: ref.volumeSnapshotUuid, encrypted: false })),
          systemTags: ['resourceConfig::vm::test'],
        },
        'vmInstance { uuid name state cpuNum memorySize rootVolume { uuid } volumes { uuid } }',
      );
      expect(payload.error).toBeNull();
      const created = payload.vmInstance as { uuid: string; name: string; state: string; cpuNum: number; memorySize: number; volumes: unknown[] };
      expect(created).toMatchObject({ name: 'restored-from-group', state: 'STOPPED', cpuNum: 2, memorySize: 4 * GIB });
      expect(created.volumes).toHaveLength(refs.length);
      taken.add(created.uuid);

      const sent = sentFor(payload.job);
      expect(sent).toMatchObject({
        operation: 'CreateVmInstanceFromVolumeSnapshotGroup',
        method: 'POST',
        path: `/svc/v1/vm-instances/from/volume-snapshots/group/${group!.uuid}`,
      });
      expect(sent.body).toEqual({
        params: {
          name: 'restored-from-group',
          strategy: 'CreateStopped',
          type: 'UserVm',
          cpuNum: 2,
          memorySize: 4 * GIB,
          dataVolumeSystemTags: { [tagged.volumeSnapshotUuid]: ['capability::virtio-scsi'] },
          volumeSnapshotEncryptions: refs.map((ref) => ({ volumeSnapshotUuid: ref.volumeSnapshotUuid, encrypted: false })),
        },
        systemTags: ['resourceConfig::vm::test'],
      });

      const readBack = await readVm<{ name: string; state: string }>(created.uuid, 'name state');
      expect(readBack).toEqual({ name: 'restored-from-group', state: 'STOPPED' });
    });

    it('detachL3NetworkFromVm sends a DELETE of the NIC and the VM loses it', async () => {
      const vm = takeVm('is running with two NICs', (candidate) => candidate.state === 'Running' && candidate.vmNics.length === 2);
      const nic = vm.vmNics[1]!;
      const payload = await mutate('detachL3NetworkFromVm', { vmNicUuid: nic.uuid }, 'vmInstance { uuid nics { uuid } }');
      expect(payload.error).toBeNull();
      expect(payload.vmInstance).toEqual({ uuid: vm.uuid, nics: [{ uuid: vm.vmNics[0]!.uuid }] });

      const sent = sentFor(payload.job);
      expect(sent).toMatchObject({ operation: 'DetachL3NetworkFromVm', method: 'DELETE', path: `/svc/v1/vm-instances/nics/${nic.uuid}`, body: null });

      const readBack = await readVm<{ nics: { uuid: string }[] }>(vm.uuid, 'nics { uuid }');
      expect(readBack.nics.map((candidate) => candidate.uuid)).not.toContain(nic.uuid);
    });

    it('deleteVmSshKey sends a DELETE of the ssh-keys and clears the key', async () => {
      const vm = takeVm('is running with an SSH key', (candidate) => candidate.state === 'Running' && candidate.sshKey !== null);
      const payload = await mutate('deleteVmSshKey', { uuid: vm.uuid }, 'vmInstance { uuid state lastOpDate }');
      expect(payload.error).toBeNull();
      expect(payload.vmInstance).toMatchObject({ uuid: vm.uuid, state: 'RUNNING' });

      const sent = sentFor(payload.job);
      expect(sent).toMatchObject({ operation: 'DeleteVmSshKey', method: 'DELETE', path: `/svc/v1/vm-instances/${vm.uuid}/ssh-keys`, body: null });

      // The key is not part of the inventory: the simulator's record shows it went, and the VM reads back unharmed.
      expect(store().vms.get(tenantId(), vm.uuid)?.sshKey).toBeNull();
      expect(await readVm(vm.uuid, 'uuid state')).toEqual({ uuid: vm.uuid, state: 'RUNNING' });
    });

    it('setVmBootVolume sends the action and makes the volume device 0, first in volumes', async () => {
      const vm = takeVm('is running with a data volume', (candidate) => candidate.state === 'Running' && dataVolumesOf(candidate).length > 0);
      const data = dataVolumesOf(vm)[0]!;
      const payload = await mutate('setVmBootVolume', { vmInstanceUuid: vm.uuid, volumeUuid: data.uuid }, 'vmInstance { volumes { uuid deviceId } }');
      expect(payload.error).toBeNull();
      expect((payload.vmInstance as { volumes: { uuid: string; deviceId: number }[] }).volumes[0]).toEqual({ uuid: data.uuid, deviceId: 0 });

      const sent = sentFor(payload.job);
      expect(sent).toMatchObject({
        operation: 'SetVmBootVolume',
        method: 'PUT',
        path: `/svc/v1/vm-instances/${vm.uuid}/actions`,
        body: { setVmBootVolume: { volumeUuid: data.uuid } },
      });

      const readBack = await readVm<{ volumes: { uuid: string; deviceId: number }[] }>(vm.uuid, 'volumes { uuid deviceId }');
      expect(readBack.volumes[0]).toEqual({ uuid: data.uuid, deviceId: 0 });
      expect(readBack.volumes.find((volume) => volume.uuid === vm.rootVolumeUuid)?.deviceId).not.toBe(0);
    });

    it('setVmBootVolume with a volume of another VM fails with SYS.1007 in the payload', async () => {
      const vm = takeVm('is running', (candidate) => candidate.state === 'Running');
      const foreign = [...store().volumes.list(tenantId())].find((volume) => volume.vmInstanceUuid !== vm.uuid && volume.vmInstanceUuid !== null);
      const payload = await mutate('setVmBootVolume', { vmInstanceUuid: vm.uuid, volumeUuid: foreign!.uuid }, 'vmInstance { uuid }');
      expect(payload).toMatchObject({ vmInstance: null, error: { code: 'SYS.1007' }, job: { status: 'FAILED' } });
      expect(payload.error!.details).toContain(foreign!.uuid);
    });

    it('destroyVmInstance sends deleteMode in the params and recoverVmInstance brings the VM back Stopped', async () => {
      const vm = takeVm('is running', (candidate) => candidate.state === 'Running');
      const hostUuid = vm.hostUuid;
      const destroyed = await mutate('destroyVmInstance', { uuid: vm.uuid, deleteMode: 'ENFORCING' }, 'vmInstance { uuid state host { name } }');
      expect(destroyed).toMatchObject({ error: null, vmInstance: { uuid: vm.uuid, state: 'DESTROYED', host: null }, job: { status: 'SUCCEEDED' } });
      expect(sentFor(destroyed.job)).toMatchObject({
        operation: 'DestroyVmInstance',
        method: 'DELETE',
        path: `/svc/v1/vm-instances/${vm.uuid}`,
        query: '',
        body: { params: { deleteMode: 'Enforcing' } },
      });
      expect(await readVm(vm.uuid, 'state')).toEqual({ state: 'DESTROYED' });

      const recovered = await mutate('recoverVmInstance', { uuid: vm.uuid }, 'vmInstance { uuid state }');
      expect(recovered).toMatchObject({ error: null, vmInstance: { uuid: vm.uuid, state: 'STOPPED' }, job: { status: 'SUCCEEDED' } });
      expect(sentFor(recovered.job)).toMatchObject({
        operation: 'RecoverVmInstance',
        method: 'PUT',
        path: `/svc/v1/vm-instances/${vm.uuid}/actions`,
        body: { recoverVmInstance: {} },
      });
      expect(await readVm(vm.uuid, 'state lastHost { uuid }')).toEqual({ state: 'STOPPED', lastHost: { uuid: hostUuid } });
    });

    it('destroyVmInstance without deleteMode sends no body', async () => {
      const vm = takeVm('is stopped', (candidate) => candidate.state === 'Stopped');
      const payload = await mutate('destroyVmInstance', { uuid: vm.uuid }, 'vmInstance { state }');
      expect(payload).toMatchObject({ error: null, vmInstance: { state: 'DESTROYED' } });
      expect(sentFor(payload.job)).toMatchObject({ method: 'DELETE', path: `/svc/v1/vm-instances/${vm.uuid}`, body: null });
    });

    it('recoverVmInstance of a running VM comes back as SYS.1006 caused by VM.1010; the VM keeps running', async () => {
      const vm = takeVm('is running', (candidate) => candidate.state === 'Running');
      const payload = await mutate('recoverVmInstance', { uuid: vm.uuid }, 'vmInstance { state }');
      expect(payload).toMatchObject({ vmInstance: null, error: { code: 'SYS.1006', cause: { code: 'VM.1010' } }, job: { status: 'FAILED' } });
      expect(sentFor(payload.job).body).toEqual({ recoverVmInstance: {} });
      expect(await readVm(vm.uuid, 'state')).toEqual({ state: 'RUNNING' });
    });

    it('destroyVmInstance of an unknown VM comes back as SYS.1003', async () => {
      const uuid = randomUuid();
      const payload = await mutate('destroyVmInstance', { uuid }, 'vmInstance { uuid }');
      expect(payload).toMatchObject({ vmInstance: null, error: { code: 'SYS.1003', cause: null }, job: { status: 'FAILED' } });
      expect(sentFor(payload.job).path).toBe(`/svc/v1/vm-instances/${uuid}`);
    });

    it('updateVmNicDriver sends vmNicUuid inside the action object and the NIC shows the new driver', async () => {
      const vm = takeVm('is running with a virtio NIC', (candidate) => candidate.state === 'Running' && candidate.vmNics[0]?.driverType === 'virtio');
      const nic = vm.vmNics[0]!;
      const payload = await mutate(
        'updateVmNicDriver',
        { vmInstanceUuid: vm.uuid, vmNicUuid: nic.uuid, driverType: 'E1000' },
        'vmNic { uuid driverType vmInstance { uuid } } vmInstance { uuid nics { uuid driverType } }',
      );
      expect(payload.error).toBeNull();
      expect(payload.vmNic).toEqual({ uuid: nic.uuid, driverType: 'E1000', vmInstance: { uuid: vm.uuid } });
      expect((payload.vmInstance as { nics: { uuid: string; driverType: string }[] }).nics).toContainEqual({ uuid: nic.uuid, driverType: 'E1000' });

      const sent = sentFor(payload.job);
      expect(sent).toMatchObject({
        operation: 'UpdateVmNicDriver',
        method: 'PUT',
        path: `/svc/v1/vm-instances/${vm.uuid}/actions`,
        body: { updateVmNicDriver: { vmNicUuid: nic.uuid, driverType: 'e1000' } },
      });

      const readBack = await readVm<{ nics: { uuid: string; driverType: string }[] }>(vm.uuid, 'nics { uuid driverType }');
      expect(readBack.nics.find((candidate) => candidate.uuid === nic.uuid)?.driverType).toBe('E1000');
    });

    it('updateVmNicDriver of a NIC of another VM comes back as SYS.1007', async () => {
      const vm = takeVm('is running', (candidate) => candidate.state === 'Running');
      const other = takeVm('has a NIC', (candidate) => candidate.vmNics.length > 0);
      const nic = other.vmNics[0]!;
      const driverBefore = nic.driverType;
      const driverType = driverBefore === 'rtl8139' ? 'E1000' : 'RTL8139';
      const payload = await mutate('updateVmNicDriver', { vmInstanceUuid: vm.uuid, vmNicUuid: nic.uuid, driverType }, 'vmNic { uuid }');
      expect(payload).toMatchObject({ vmNic: null, error: { code: 'SYS.1007' }, job: { status: 'FAILED' } });
      expect(payload.error!.details).toContain(nic.uuid);
      const readBack = await readVm<{ nics: { uuid: string; driverType: string }[] }>(other.uuid, 'nics { uuid driverType }');
      expect(readBack.nics.find((candidate) => candidate.uuid === nic.uuid)?.driverType).toBe(driverBefore.toUpperCase());
    });
  });

  describe('volume snapshot groups', () => {
    it('createVolumeSnapshotGroup posts the params and gives a group of every volume of the VM', async () => {
      const vm = takeVm('is running', (candidate) => candidate.state === 'Running');
      const volumes = store().volumesOfVm(vm);
      const payload = await mutate(
        'createVolumeSnapshotGroup',
        { rootVolumeUuid: vm.rootVolumeUuid, name: 'before-upgrade', description: 'taken by a test' },
        'volumeSnapshotGroup { uuid name description snapshotCount vmInstance { uuid } volumeSnapshotRefs { volumeUuid } }',
      );
      expect(payload.error).toBeNull();
      const group = payload.volumeSnapshotGroup as { uuid: string; volumeSnapshotRefs: { volumeUuid: string }[] };
      expect(group).toMatchObject({ name: 'before-upgrade', description: 'taken by a test', snapshotCount: volumes.length, vmInstance: { uuid: vm.uuid } });
      expect(group.volumeSnapshotRefs.map((ref) => ref.volumeUuid).sort()).toEqual(volumes.map((volume) => volume.uuid).sort());

      expect(sentFor(payload.job)).toMatchObject({
        operation: 'CreateVolumeSnapshotGroup',
        method: 'POST',
        path: '/svc/v1/volume-snapshots/group',
        body: { params: { rootVolumeUuid: vm.rootVolumeUuid, name: 'before-upgrade', description: 'taken by a test' } },
      });

      const readBack = await harness.gql<{ vmInstance: { snapshotGroups: { nodes: { uuid: string; name: string }[] } } }>(
        'query($uuid: Uuid!) { vmInstance(uuid: $uuid) { snapshotGroups(first: 100) { nodes { uuid name } } } }',
        { uuid: vm.uuid },
      );
      expect(readBack.data!.vmInstance.snapshotGroups.nodes).toContainEqual({ uuid: group.uuid, name: 'before-upgrade' });
    });

    it('createVolumeSnapshotGroup of a data volume comes back as SYS.1007', async () => {
      const vm = takeVm('has a data volume', (candidate) => candidate.state !== 'Destroyed' && dataVolumesOf(candidate).length > 0);
      const payload = await mutate('createVolumeSnapshotGroup', { rootVolumeUuid: dataVolumesOf(vm)[0]!.uuid, name: 'wrong' }, 'volumeSnapshotGroup { uuid }');
      expect(payload).toMatchObject({ volumeSnapshotGroup: null, error: { code: 'SYS.1007' }, job: { status: 'FAILED' } });
    });

    it('updateVolumeSnapshotGroup sends the action and the group reads back renamed', async () => {
      const vm = takeVm('is running', (candidate) => candidate.state === 'Running');
      const created = await mutate('createVolumeSnapshotGroup', { rootVolumeUuid: vm.rootVolumeUuid, name: 'to-rename' }, 'volumeSnapshotGroup { uuid }');
      const { uuid } = created.volumeSnapshotGroup as { uuid: string };

      const payload = await mutate('updateVolumeSnapshotGroup', { uuid, name: 'renamed', description: 'new words' }, 'volumeSnapshotGroup { uuid name description }');
      expect(payload).toMatchObject({ error: null, volumeSnapshotGroup: { uuid, name: 'renamed', description: 'new words' } });
      expect(sentFor(payload.job)).toMatchObject({
        operation: 'UpdateVolumeSnapshotGroup',
        method: 'PUT',
        path: `/svc/v1/volume-snapshots/group/${uuid}/actions`,
        body: { updateVolumeSnapshotGroup: { name: 'renamed', description: 'new words' } },
      });

      const readBack = await harness.gql<{ volumeSnapshotGroup: { name: string; description: string } }>(
        'query($uuid: Uuid!) { volumeSnapshotGroup(uuid: $uuid) { name description } }',
        { uuid },
      );
      expect(readBack.data!.volumeSnapshotGroup).toEqual({ name: 'renamed', description: 'new words' });

      const blank = await mutate('updateVolumeSnapshotGroup', { uuid, name: '  ' }, 'volumeSnapshotGroup { uuid }');
      expect(blank).toMatchObject({ volumeSnapshotGroup: null, error: { code: 'SYS.1007' }, job: { status: 'FAILED' } });
    });

    it('deleteVolumeSnapshotGroup sends deleteMode on the query string, returns typed results, and the group is gone', async () => {
      const group = [...store().snapshotGroups.list(tenantId())].find((candidate) => candidate.volumeSnapshotRefs.some((ref) => ref.snapshotDeleted))
        ?? [...store().snapshotGroups.list(tenantId())][0]!;
      const refs = group.volumeSnapshotRefs.map((ref) => ({ ...ref }));
      const payload = await mutate(
        'deleteVolumeSnapshotGroup',
        { uuid: group.uuid, deleteMode: 'PERMISSIVE' },
        'results { snapshotUuid volumeUuid success error { code } }',
      );
      expect(payload.error).toBeNull();
      expect(payload.results).toEqual(
        refs.map((ref) => ({
          snapshotUuid: ref.volumeSnapshotUuid,
          volumeUuid: ref.volumeUuid,
          success: !ref.snapshotDeleted,
          error: ref.snapshotDeleted ? { code: 'SYS.1001' } : null,
        })),
      );

      expect(sentFor(payload.job)).toMatchObject({
        operation: 'DeleteVolumeSnapshotGroup',
        method: 'DELETE',
        path: `/svc/v1/volume-snapshots/group/${group.uuid}`,
        query: 'deleteMode=Permissive',
        body: null,
      });

      const readBack = await harness.gql('query($uuid: Uuid!) { volumeSnapshotGroup(uuid: $uuid) { uuid } }', { uuid: group.uuid });
      expect(readBack.data).toEqual({ volumeSnapshotGroup: null });
      expect(readBack.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');

      const again = await mutate('deleteVolumeSnapshotGroup', { uuid: group.uuid }, 'results { success }');
      expect(again).toMatchObject({ results: null, error: { code: 'SYS.1003' }, job: { status: 'FAILED' } });
      expect(sentFor(again.job).query).toBe('');
    });
  });

  describe('input the gateway rejects itself', () => {
    async function expectRejected(query: string, variables: Record<string, unknown>, code = 'BAD_USER_INPUT'): Promise<GraphQLResponse> {
      harness.resetStats();
      const response = await harness.gql(query, variables);
      expect(response.data ?? null).toBeNull();
      expect(errorCodes(response)).toEqual([code]);
      expect(harness.upstreamRequests()).toBe(0);
      return response;
    }

    it('rejects a driverType outside the enum with no upstream request', async () => {
      const vm = takeVm('has a NIC', (candidate) => candidate.vmNics.length > 0);
      await expectRejected('mutation($input: UpdateVmNicDriverInput!) { updateVmNicDriver(input: $input) { job { id } } }', {
        input: { vmInstanceUuid: vm.uuid, vmNicUuid: vm.vmNics[0]!.uuid, driverType: 'virtio' },
      });
      await expectRejected(`mutation { destroyVmInstance(input: { uuid: "${vm.uuid}", deleteMode: Permissive }) { job { id } } }`, {}, 'GRAPHQL_VALIDATION_FAILED');
    });

    it('rejects a malformed Uuid with BAD_USER_INPUT and no upstream request', async () => {
      await expectRejected('mutation($input: RecoverVmInstanceInput!) { recoverVmInstance(input: $input) { job { id } } }', {
        input: { uuid: 'not-a-uuid' },
      });
      await expectRejected('mutation($input: PrimaryStorageMigrateVmInput!) { primaryStorageMigrateVm(input: $input) { job { id } } }', {
        input: { vmInstanceUuid: randomUuid(), volumeMigrationAOs: [{ volumeUuid: 'ABCDEF' }] },
      });
    });
  });

  describe('asynchronous form', () => {
    it('destroyVmInstance with async: true returns RUNNING, and job(id) later shows the typed payload', async () => {
      harness.simulator.configure({ asyncDelayMs: 300 });
      const vm = takeVm('is running', (candidate) => candidate.state === 'Running');
      const started = await mutate('destroyVmInstance', { uuid: vm.uuid, async: true, clientMutationId: 'async-1' }, 'vmInstance { uuid }');
      expect(started).toMatchObject({ clientMutationId: 'async-1', vmInstance: null, error: null, job: { status: 'RUNNING', operation: 'DESTROY_VM_INSTANCE' } });
      expect(sentFor(started.job)).toMatchObject({ operation: 'DestroyVmInstance', method: 'DELETE', path: `/svc/v1/vm-instances/${vm.uuid}` });

      const query = `query($id: ID!) { job(id: $id) { status payload { ... on DestroyVmInstancePayload { vmInstance { uuid state } error { code } } } } }`;
      let job: { status: string; payload: unknown } | undefined;
      for (let attempt = 0; attempt < 100; attempt++) {
        const response = await harness.gql<{ job: { status: string; payload: unknown } }>(query, { id: started.job.id });
        job = response.data!.job;
        if (job.status !== 'RUNNING') break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(job).toEqual({
        status: 'SUCCEEDED',
        payload: { vmInstance: { uuid: vm.uuid, state: 'DESTROYED' }, error: null },
      });
    });
  });
});
