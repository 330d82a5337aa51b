/**
 * The host-bond, CBT task, directory and SNS mutations against the simulator over real HTTP:
 * the exact upstream request each one makes (method, path, query, body, the gateway's own
 * X-Job-UUID and X-Web-Hook), the state read back afterwards, upstream failures in the payload's
 * `error`, and bad GraphQL input rejected before any upstream request.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/simulator/server.js';
import { errorCodes, startHarness, WEBHOOK_MODES, type Harness } from '../support/harness.js';

interface UpstreamErrorShape {
  code: string;
  description: string | null;
  details: string | null;
  cause: { code: string; cause: { code: string } | null } | null;
}

interface PayloadBase {
  clientMutationId: string | null;
  error: UpstreamErrorShape | null;
  job: { id: string; status: string; operation: string };
}

const COMMON_FIELDS = 'clientMutationId error { code description details cause { code cause { code } } } job { id status operation }';

/** A uuid no record of the estate has. */
const UNKNOWN_UUID = 'f'.repeat(32);

describe.each(WEBHOOK_MODES)('host bond, CBT task, directory and SNS mutations (webhooks $mode)', ({ dropWebhooks }) => {
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
    harness.simulator.configure({ dropWebhooks, asyncDelayMs: 5 });
  });

  function take<T extends { uuid: string }>(records: Iterable<T>, accept: (record: T) => boolean, what: string): T {
    for (const record of records) {
      if (!taken.has(record.uuid) && accept(record)) {
        taken.add(record.uuid);
        return record;
      }
    }
    throw new Error(`the estate has no ${what} left`);
  }

  async function mutate<P extends PayloadBase>(name: string, selection: string, input: Record<string, unknown>): Promise<P> {
    const inputType = `${name.charAt(0).toUpperCase()}${name.slice(1)}Input`;
    const response = await harness.gql<Record<string, P>>(
      `mutation($input: ${inputType}!) { ${name}(input: $input) { ${COMMON_FIELDS} ${selection} } }`,
      { input },
    );
    expect(response.errors).toBeUndefined();
    return response.data![name]!;
  }

  /** The write request that carried this job, as the simulator received it. */
  function sentFor(jobId: string): JournalEntry {
    const entries = harness.simulator.journal().filter((entry) => entry.headers['x-job-uuid'] === jobId && entry.operation !== 'PollJob');
    expect(entries).toHaveLength(1);
    const entry = entries[0]!;
    expect(entry.headers['x-web-hook']).toMatch(new RegExp(`^${harness.url}/webhooks/jobs/${jobId}/[A-Za-z0-9_-]{20,}$`));
    return entry;
  }

  /** Asserts the exact request: operation, method, path, raw query, parsed body. */
  function expectSent(jobId: string, expected: { operation: string; method: string; path: string; query?: string; body: unknown }): void {
    const { operation, method, path, query, body } = sentFor(jobId);
    expect({ operation, method, path, query, body }).toEqual({ query: '', ...expected });
  }

  function liveVmWithoutTask(state: 'Running' | 'Stopped'): string {
    const vm = take(
      harness.simulator.store.vms.list(tenantId),
      (candidate) =>
        candidate.state === state &&
        harness.simulator.store.cbtTasks.by('vmInstanceUuid', candidate.uuid, tenantId).length === 0 &&
        harness.simulator.store.volumesOfVm(candidate).length > 0,
      `${state} VM without a CBT task`,
    );
    return vm.uuid;
  }

  interface CbtTaskPayload extends PayloadBase {
    cbtTask: { uuid: string; name: string; status: string } | null;
  }

  /** A new task (status Created) on a fresh VM in the given state, made through createCbtTask. */
  async function newTask(state: 'Running' | 'Stopped'): Promise<{ taskUuid: string; vmUuid: string }> {
    const vmUuid = liveVmWithoutTask(state);
    const payload = await mutate<CbtTaskPayload>('createCbtTask', 'cbtTask { uuid name status }', {
      name: `task-of-${vmUuid.slice(0, 6)}`,
      taskType: 'VM',
      resourceUuids: [vmUuid],
    });
    expect(payload.error).toBeNull();
    return { taskUuid: payload.cbtTask!.uuid, vmUuid };
  }

  async function readTask(uuid: string): Promise<{ status: string } | null> {
    const response = await harness.gql<{ cbtTask: { status: string } | null }>('query($uuid: Uuid!) { cbtTask(uuid: $uuid) { status } }', { uuid });
    return response.data!.cbtTask;
  }

  async function waitForJob<T>(id: string, selection: string): Promise<{ status: string } & T> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const response = await harness.gql<{ job: { status: string } & T }>(`query($id: ID!) { job(id: $id) { status ${selection} } }`, { id });
      const job = response.data!.job;
      if (job.status !== 'RUNNING' || Date.now() > deadline) return job;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  // -------------------------------------------------------------------------------------------
  describe('setIpOnHostNetworkBonding', () => {
    const SELECTION = 'bonding { id uuid hostUuid ipAddresses gateway }';
    interface Payload extends PayloadBase {
      bonding: { id: string; uuid: string; hostUuid: string; ipAddresses: string[]; gateway: string | null } | null;
    }

    function bondOf(connected: boolean): { bondUuid: string; hostUuid: string } {
      const host = take(
        harness.simulator.store.hosts.list(tenantId),
        (candidate) => (candidate.status === 'Connected') === connected,
        connected ? 'connected host' : 'disconnected host',
      );
      const bond = harness.simulator.store.bondings.by('hostUuid', host.uuid, tenantId)[0];
      if (!bond) throw new Error(`host ${host.uuid} has no bond`);
      return { bondUuid: bond.uuid, hostUuid: host.uuid };
    }

    it('posts the address in params and returns the bond with it, as network facts then read', async () => {
      const { bondUuid, hostUuid } = bondOf(true);
      const payload = await mutate<Payload>('setIpOnHostNetworkBonding', SELECTION, {
        bondingUuid: bondUuid,
        ipAddress: '10.20.30.40',
        netmask: '255.255.255.0',
        isDefaultRoute: true,
        clientMutationId: 'bond-1',
      });
      expect(payload).toMatchObject({
        clientMutationId: 'bond-1',
        error: null,
        job: { status: 'SUCCEEDED', operation: 'SET_IP_ON_HOST_NETWORK_BONDING' },
        bonding: { uuid: bondUuid, hostUuid, ipAddresses: ['10.20.30.40/24'], gateway: '10.20.30.1' },
      });
      expectSent(payload.job.id, {
        operation: 'SetIpOnHostNetworkBonding',
        method: 'POST',
        path: `/svc/v1/hosts/bondings/${bondUuid}/ip`,
        body: { params: { ipAddress: '10.20.30.40', netmask: '255.255.255.0', isDefaultRoute: true } },
      });

      const readBack = await harness.gql<{ host: { networkFacts: { bondings: { uuid: string; ipAddresses: string[]; gateway: string | null }[] } } }>(
        'query($uuid: Uuid!) { host(uuid: $uuid) { networkFacts { bondings { uuid ipAddresses gateway } } } }',
        { uuid: hostUuid },
      );
      expect(readBack.data!.host.networkFacts.bondings).toContainEqual({ uuid: bondUuid, ipAddresses: ['10.20.30.40/24'], gateway: '10.20.30.1' });
      // The payload's bond is the same node the network facts give.
      const node = await harness.gql<{ node: { uuid: string } }>('query($id: ID!) { node(id: $id) { ... on HostNetworkBonding { uuid } } }', {
        id: payload.bonding!.id,
      });
      expect(node.data!.node.uuid).toBe(bondUuid);
    });

    it('reports a disconnected host as SYS.1006 caused by HOST.1010, and leaves the bond alone', async () => {
      const { bondUuid } = bondOf(false);
      const before = [...harness.simulator.store.bondings.get(tenantId, bondUuid)!.ipAddresses];
      const payload = await mutate<Payload>('setIpOnHostNetworkBonding', SELECTION, {
        bondingUuid: bondUuid,
        ipAddress: '10.20.31.40',
        netmask: '255.255.255.0',
      });
      expect(payload).toMatchObject({ bonding: null, error: { code: 'SYS.1006', cause: { code: 'HOST.1010' } }, job: { status: 'FAILED' } });
      expect(harness.simulator.store.bondings.get(tenantId, bondUuid)!.ipAddresses).toEqual(before);
    });

    it('reports an unknown bond as SYS.1003 and an address without netmask as SYS.1007', async () => {
      const unknown = await mutate<Payload>('setIpOnHostNetworkBonding', SELECTION, { bondingUuid: UNKNOWN_UUID, ipAddress: '10.0.0.1', netmask: '255.0.0.0' });
      expect(unknown).toMatchObject({ bonding: null, error: { code: 'SYS.1003' }, job: { status: 'FAILED' } });

      const { bondUuid } = bondOf(true);
      const invalid = await mutate<Payload>('setIpOnHostNetworkBonding', SELECTION, { bondingUuid: bondUuid, ipAddress: '10.0.0.1' });
      expect(invalid).toMatchObject({ bonding: null, error: { code: 'SYS.1007' } });
      expectSent(invalid.job.id, {
        operation: 'SetIpOnHostNetworkBonding',
        method: 'POST',
        path: `/svc/v1/hosts/bondings/${bondUuid}/ip`,
        body: { params: { ipAddress: '10.0.0.1' } },
      });
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('CBT tasks', () => {
    const TASK = 'cbtTask { uuid name status }';

    it('createCbtTask posts the spec parameters and gives a CREATED task', async () => {
      const vmUuid = liveVmWithoutTask('Running');
      const payload = await mutate<CbtTaskPayload>('createCbtTask', TASK, {
        name: 'nightly-backup',
        description: 'tracks the whole VM',
        taskType: 'VM',
        resourceUuids: [vmUuid],
        vmInstanceUuid: vmUuid,
        systemTags: ['backup::nightly'],
      });
      expect(payload).toMatchObject({ error: null, job: { status: 'SUCCEEDED' }, cbtTask: { name: 'nightly-backup', status: 'CREATED' } });
      const taskUuid = payload.cbtTask!.uuid;
      expectSent(payload.job.id, {
        operation: 'CreateCbtTask',
        method: 'POST',
        path: '/svc/v1/cbt-task/create',
        body: {
          params: { name: 'nightly-backup', description: 'tracks the whole VM', taskType: 'VM', resourceUuids: [vmUuid], vmInstanceUuid: vmUuid },
          systemTags: ['backup::nightly'],
        },
      });
      expect(await readTask(taskUuid)).toEqual({ status: 'CREATED' });
      expect(harness.simulator.store.cbtTasks.get(tenantId, taskUuid)?.vmInstanceUuid).toBe(vmUuid);
    });

    it('createCbtTask reports a VM that already has a task, and an unknown taskType, as SYS.1007', async () => {
      const { vmUuid } = await newTask('Running');
      const again = await mutate<CbtTaskPayload>('createCbtTask', TASK, { name: 'again', taskType: 'VM', resourceUuids: [vmUuid] });
      expect(again).toMatchObject({ cbtTask: null, error: { code: 'SYS.1007' }, job: { status: 'FAILED' } });
      expect(again.error!.details).toContain(vmUuid);

      const otherVm = liveVmWithoutTask('Running');
      const badType = await mutate<CbtTaskPayload>('createCbtTask', TASK, { name: 'bad', taskType: 'Cluster', resourceUuids: [otherVm] });
      expect(badType).toMatchObject({ cbtTask: null, error: { code: 'SYS.1007' } });
      expect(harness.simulator.store.cbtTasks.by('vmInstanceUuid', otherVm, tenantId)).toEqual([]);
    });

    it('enableCbtTask makes the task RUNNING and answers the backup infos of its volumes', async () => {
      const { taskUuid, vmUuid } = await newTask('Running');
      const payload = await mutate<CbtTaskPayload & { volumeCbtBackupInfos: Record<string, unknown>[] | null }>(
        'enableCbtTask',
        `${TASK} volumeCbtBackupInfos`,
        { uuid: taskUuid, bitmapName: 'bitmap-enable' },
      );
      expect(payload).toMatchObject({ error: null, job: { status: 'SUCCEEDED' }, cbtTask: { uuid: taskUuid, status: 'RUNNING' } });
      const volumes = harness.simulator.store.volumesOfVm(harness.simulator.store.vms.get(tenantId, vmUuid)!);
      expect(payload.volumeCbtBackupInfos).toHaveLength(volumes.length);
      expect(payload.volumeCbtBackupInfos).toContainEqual(expect.objectContaining({ volumeUuid: volumes[0]!.uuid, bitmapName: 'bitmap-enable' }));
      expectSent(payload.job.id, {
        operation: 'EnableCbtTask',
        method: 'POST',
        path: `/svc/v1/cbt-task/enable/${taskUuid}`,
        body: { params: { bitmapName: 'bitmap-enable' } },
      });
      expect(await readTask(taskUuid)).toEqual({ status: 'RUNNING' });
    });

    it('enableCbtTask with async: true returns RUNNING at once; job(id) then gives the typed payload', async () => {
      const { taskUuid } = await newTask('Stopped');
      // Long enough for the STARTING read-back below to land while the job still runs.
      harness.simulator.configure({ asyncDelayMs: 1500 });
      const started = await mutate<CbtTaskPayload>('enableCbtTask', TASK, { uuid: taskUuid, async: true, clientMutationId: 'async-enable' });
      expect(started).toMatchObject({ clientMutationId: 'async-enable', cbtTask: null, error: null, job: { status: 'RUNNING', operation: 'ENABLE_CBT_TASK' } });
      expect(await readTask(taskUuid)).toEqual({ status: 'STARTING' });

      const job = await waitForJob<{ payload: { cbtTask: { uuid: string; status: string }; volumeCbtBackupInfos: unknown[] } }>(
        started.job.id,
        'payload { ... on EnableCbtTaskPayload { cbtTask { uuid status } volumeCbtBackupInfos } }',
      );
      expect(job).toEqual({
        status: 'SUCCEEDED',
        payload: { cbtTask: { uuid: taskUuid, status: 'RUNNING' }, volumeCbtBackupInfos: expect.arrayContaining([expect.objectContaining({ bitmapName: expect.any(String) })]) },
      });
      expectSent(started.job.id, { operation: 'EnableCbtTask', method: 'POST', path: `/svc/v1/cbt-task/enable/${taskUuid}`, body: { params: {} } });
      expect(await readTask(taskUuid)).toEqual({ status: 'RUNNING' });
    });

    it('disableCbtTask makes the task STOPPED', async () => {
      const { taskUuid } = await newTask('Running');
      const payload = await mutate<CbtTaskPayload>('disableCbtTask', TASK, { uuid: taskUuid, force: true });
      expect(payload).toMatchObject({ error: null, job: { status: 'SUCCEEDED' }, cbtTask: { uuid: taskUuid, status: 'STOPPED' } });
      expectSent(payload.job.id, {
        operation: 'DisableCbtTask',
        method: 'POST',
        path: `/svc/v1/cbt-task/disable/${taskUuid}`,
        body: { params: { force: true } },
      });
      expect(await readTask(taskUuid)).toEqual({ status: 'STOPPED' });
    });

    it('disableCbtTask and enableCbtTask report an unknown task as SYS.1003', async () => {
      for (const name of ['disableCbtTask', 'enableCbtTask']) {
        const payload = await mutate<CbtTaskPayload>(name, TASK, { uuid: UNKNOWN_UUID });
        expect(payload).toMatchObject({ cbtTask: null, error: { code: 'SYS.1003' }, job: { status: 'FAILED' } });
      }
    });

    interface DeletePayload extends PayloadBase {
      deletedCbtTaskUuid: string | null;
    }

    it('deleteCbtTask sends force and deleteMode in the body and the task is gone', async () => {
      const running = take(harness.simulator.store.cbtTasks.list(tenantId), (task) => task.status === 'Running', 'running CBT task');
      const payload = await mutate<DeletePayload>('deleteCbtTask', 'deletedCbtTaskUuid', { uuid: running.uuid, force: true, deleteMode: 'ENFORCING' });
      expect(payload).toMatchObject({ error: null, job: { status: 'SUCCEEDED' }, deletedCbtTaskUuid: running.uuid });
      expectSent(payload.job.id, {
        operation: 'DeleteCbtTask',
        method: 'DELETE',
        path: `/svc/v1/cbt-task/${running.uuid}`,
        body: { params: { force: true, deleteMode: 'Enforcing' } },
      });
      const readBack = await harness.gql<{ cbtTask: null }>('query($uuid: Uuid!) { cbtTask(uuid: $uuid) { status } }', { uuid: running.uuid });
      expect(readBack.data!.cbtTask).toBeNull();
      expect(errorCodes(readBack)).toEqual(['NOT_FOUND']);
    });

    it('deleteCbtTask of a running task without force fails with SYS.1006 and keeps it; an unknown one is SYS.1003', async () => {
      const running = take(harness.simulator.store.cbtTasks.list(tenantId), (task) => task.status === 'Running', 'running CBT task');
      const refused = await mutate<DeletePayload>('deleteCbtTask', 'deletedCbtTaskUuid', { uuid: running.uuid });
      expect(refused).toMatchObject({ deletedCbtTaskUuid: null, error: { code: 'SYS.1006' }, job: { status: 'FAILED' } });
      // No parameter besides the path: no body at all.
      expectSent(refused.job.id, { operation: 'DeleteCbtTask', method: 'DELETE', path: `/svc/v1/cbt-task/${running.uuid}`, body: null });
      expect(await readTask(running.uuid)).toEqual({ status: 'RUNNING' });

      const unknown = await mutate<DeletePayload>('deleteCbtTask', 'deletedCbtTaskUuid', { uuid: UNKNOWN_UUID, deleteMode: 'PERMISSIVE' });
      expect(unknown).toMatchObject({ deletedCbtTaskUuid: null, error: { code: 'SYS.1003' } });
    });

    const EXPORT = 'volumeInfos { volume { uuid vmInstanceUuid } bitmapBase64 target nbdPort nbdServer mode bitmapName } vmInstance { uuid state }';
    interface ExportPayload extends PayloadBase {
      volumeInfos:
        | {
            volume: { uuid: string; vmInstanceUuid: string };
            bitmapBase64: string;
            target: string;
            nbdPort: number;
            nbdServer: string;
            mode: string;
            bitmapName: string;
          }[]
        | null;
      vmInstance: { uuid: string; state: string } | null;
    }

    it('exportNbdVolumes exports the volumes of a stopped VM; exporting them again needs force', async () => {
      const { vmUuid } = await newTask('Stopped');
      const store = harness.simulator.store;
      const vm = store.vms.get(tenantId, vmUuid)!;
      const volume = store.volumesOfVm(vm)[0]!;
      const host = store.hosts.get(tenantId, (vm.hostUuid ?? vm.lastHostUuid)!)!;

      const payload = await mutate<ExportPayload>('exportNbdVolumes', EXPORT, { volumeUuids: [volume.uuid], vmInstanceUuid: vmUuid });
      expect(payload).toMatchObject({ error: null, job: { status: 'SUCCEEDED' }, vmInstance: { uuid: vmUuid, state: 'Stopped' } });
      expect(payload.volumeInfos).toEqual([
        {
          volume: { uuid: volume.uuid, vmInstanceUuid: vmUuid },
          bitmapBase64: expect.stringMatching(/^[A-Za-z0-9+/]+=*$/),
          target: expect.stringContaining(volume.uuid),
          nbdPort: 10809,
          nbdServer: host.managementIp,
          mode: 'full',
          bitmapName: expect.any(String),
        },
      ]);
      expectSent(payload.job.id, {
        operation: 'ExportNbdVolumes',
        method: 'POST',
        path: '/svc/v1/cbt-task/exportvolume',
        body: { params: { volumeUuids: [volume.uuid], vmInstanceUuid: vmUuid } },
      });

      const again = await mutate<ExportPayload>('exportNbdVolumes', EXPORT, { volumeUuids: [volume.uuid], vmInstanceUuid: vmUuid });
      expect(again).toMatchObject({ volumeInfos: null, vmInstance: null, error: { code: 'SYS.1006' }, job: { status: 'FAILED' } });
      const forced = await mutate<ExportPayload>('exportNbdVolumes', EXPORT, { volumeUuids: [volume.uuid], vmInstanceUuid: vmUuid, force: true });
      expect(forced).toMatchObject({ error: null, volumeInfos: [{ volume: { uuid: volume.uuid } }] });
      expectSent(forced.job.id, {
        operation: 'ExportNbdVolumes',
        method: 'POST',
        path: '/svc/v1/cbt-task/exportvolume',
        body: { params: { volumeUuids: [volume.uuid], vmInstanceUuid: vmUuid, force: true } },
      });
    });

    it('exportNbdVolumes of a running VM fails with SYS.1006 caused by VM.1010', async () => {
      const { vmUuid } = await newTask('Running');
      const volume = harness.simulator.store.volumesOfVm(harness.simulator.store.vms.get(tenantId, vmUuid)!)[0]!;
      const payload = await mutate<ExportPayload>('exportNbdVolumes', EXPORT, { volumeUuids: [volume.uuid], vmInstanceUuid: vmUuid });
      expect(payload).toMatchObject({ volumeInfos: null, error: { code: 'SYS.1006', cause: { code: 'VM.1010' } }, job: { status: 'FAILED' } });
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('deleteDirectory', () => {
    interface Payload extends PayloadBase {
      deletedDirectoryUuid: string | null;
    }

    /** The directory's items in the cursor family, asked of the upstream directly. */
    async function cursorDirectories(uuids: string[]): Promise<string[]> {
      const query = new URLSearchParams({ resourceType: 'directory', filter: `uuid:in:${uuids.join(',')}` });
      const response = await fetch(`${harness.simulator.url}/api/v1/resources/cursor-query?${query}`, {
        headers: { authorization: harness.headers['x-resources-authorization'], 'x-tenant-id': tenantId },
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { items: { uuid: string }[] };
      return body.items.map((item) => item.uuid);
    }

    it('sends uuid in the body and the directory leaves the cursor family', async () => {
      const leaf = take(harness.simulator.store.directories.list(tenantId), (directory) => directory.parentUuid !== null, 'leaf directory');
      expect(await cursorDirectories([leaf.uuid])).toEqual([leaf.uuid]);
      const payload = await mutate<Payload>('deleteDirectory', 'deletedDirectoryUuid', { uuid: leaf.uuid });
      expect(payload).toMatchObject({ error: null, job: { status: 'SUCCEEDED' }, deletedDirectoryUuid: leaf.uuid });
      expectSent(payload.job.id, { operation: 'DeleteDirectory', method: 'DELETE', path: '/svc/v1/delete/directory', body: { params: { uuid: leaf.uuid } } });
      expect(await cursorDirectories([leaf.uuid])).toEqual([]);
      expect(harness.simulator.store.directories.get(tenantId, leaf.uuid)).toBeUndefined();
    });

    it('a directory with sub-directories needs ENFORCING, which deletes the subtree', async () => {
      const store = harness.simulator.store;
      const root = take(
        store.directories.list(tenantId),
        (directory) => directory.parentUuid === null && store.directories.by('parentUuid', directory.uuid, tenantId).length > 0,
        'directory with sub-directories',
      );
      const subtree = [root.uuid, ...store.directories.by('parentUuid', root.uuid, tenantId).map((child) => child.uuid)];

      const refused = await mutate<Payload>('deleteDirectory', 'deletedDirectoryUuid', { uuid: root.uuid, deleteMode: 'PERMISSIVE' });
      expect(refused).toMatchObject({ deletedDirectoryUuid: null, error: { code: 'SYS.1006' }, job: { status: 'FAILED' } });
      expect((await cursorDirectories(subtree)).sort()).toEqual([...subtree].sort());

      const payload = await mutate<Payload>('deleteDirectory', 'deletedDirectoryUuid', { uuid: root.uuid, deleteMode: 'ENFORCING' });
      expect(payload).toMatchObject({ error: null, deletedDirectoryUuid: root.uuid });
      expectSent(payload.job.id, {
        operation: 'DeleteDirectory',
        method: 'DELETE',
        path: '/svc/v1/delete/directory',
        body: { params: { uuid: root.uuid, deleteMode: 'Enforcing' } },
      });
      expect(await cursorDirectories(subtree)).toEqual([]);
    });

    it('reports an unknown directory as SYS.1003', async () => {
      const payload = await mutate<Payload>('deleteDirectory', 'deletedDirectoryUuid', { uuid: UNKNOWN_UUID });
      expect(payload).toMatchObject({ deletedDirectoryUuid: null, error: { code: 'SYS.1003' }, job: { status: 'FAILED' } });
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('SNS', () => {
    function endpointNamed(name: string): { uuid: string; receivers: string[] } {
      const endpoint = take(harness.simulator.store.snsEndpoints.list(tenantId), (candidate) => candidate.name === name, `endpoint ${name}`);
      return { uuid: endpoint.uuid, receivers: [...endpoint.receivers] };
    }

    interface PlatformPayload extends PayloadBase {
      platform: { uuid: string; state: string } | null;
    }

    async function platformState(uuid: string): Promise<string> {
      const response = await harness.gql<{ snsApplicationPlatforms: { nodes: { state: string }[] } }>(
        'query($uuid: Uuid!) { snsApplicationPlatforms(filter: { uuids: [$uuid] }) { nodes { state } } }',
        { uuid },
      );
      return response.data!.snsApplicationPlatforms.nodes[0]!.state;
    }

    it('changeSnsApplicationPlatformState disables and enables a platform through its action key', async () => {
      const platform = take(harness.simulator.store.snsPlatforms.list(tenantId), (candidate) => candidate.type === 'SMS', 'SMS platform');
      const disabled = await mutate<PlatformPayload>('changeSnsApplicationPlatformState', 'platform { uuid state }', {
        uuid: platform.uuid,
        stateEvent: 'DISABLE',
      });
      expect(disabled).toMatchObject({ error: null, job: { status: 'SUCCEEDED' }, platform: { uuid: platform.uuid, state: 'Disabled' } });
      expectSent(disabled.job.id, {
        operation: 'ChangeSNSApplicationPlatformState',
        method: 'PUT',
        path: `/svc/v1/sns/application-platforms/${platform.uuid}/actions`,
        body: { changeSNSApplicationPlatformState: { stateEvent: 'disable' } },
      });
      expect(await platformState(platform.uuid)).toBe('Disabled');

      const enabled = await mutate<PlatformPayload>('changeSnsApplicationPlatformState', 'platform { uuid state }', {
        uuid: platform.uuid,
        stateEvent: 'ENABLE',
      });
      expect(enabled).toMatchObject({ error: null, platform: { state: 'Enabled' } });
      expectSent(enabled.job.id, {
        operation: 'ChangeSNSApplicationPlatformState',
        method: 'PUT',
        path: `/svc/v1/sns/application-platforms/${platform.uuid}/actions`,
        body: { changeSNSApplicationPlatformState: { stateEvent: 'enable' } },
      });
      expect(await platformState(platform.uuid)).toBe('Enabled');
    });

    it('changeSnsApplicationPlatformState reports an unknown platform as SYS.1003', async () => {
      const payload = await mutate<PlatformPayload>('changeSnsApplicationPlatformState', 'platform { uuid state }', {
        uuid: UNKNOWN_UUID,
        stateEvent: 'ENABLE',
      });
      expect(payload).toMatchObject({ platform: null, error: { code: 'SYS.1003' }, job: { status: 'FAILED' } });
    });

    interface EndpointPayload extends PayloadBase {
      endpoint: { uuid: string; name: string; description: string | null; url: string | null; username: string | null; type: string } | null;
    }
    const ENDPOINT = 'endpoint { uuid name description url username type }';

    it('updateSnsHttpEndpoint sends every given field in the action object and the endpoint reads back changed', async () => {
      const { uuid } = endpointNamed('pager-webhook');
      const changes = {
        url: 'https://pager.example.org/hook?team=ops',
        username: 'pager-bot',
        password: 's3cret',
        name: 'pager-webhook-v2',
        description: 'moved to the new pager',
      };
      const payload = await mutate<EndpointPayload>('updateSnsHttpEndpoint', ENDPOINT, { uuid, ...changes });
      const { password: _password, ...visible } = changes;
      expect(payload).toMatchObject({ error: null, job: { status: 'SUCCEEDED' }, endpoint: { uuid, type: 'HTTP', ...visible } });
      expectSent(payload.job.id, {
        operation: 'UpdateSNSHttpEndpoint',
        method: 'PUT',
        path: `/svc/v1/sns/application-endpoints/http/${uuid}/actions`,
        body: { updateSNSHttpEndpoint: changes },
      });
      const readBack = await harness.gql<{ snsApplicationEndpoints: { nodes: Record<string, unknown>[] } }>(
        'query($uuid: Uuid!) { snsApplicationEndpoints(filter: { uuids: [$uuid] }) { nodes { url username name description } } }',
        { uuid },
      );
      expect(readBack.data!.snsApplicationEndpoints.nodes).toEqual([visible]);
      expect(harness.simulator.store.snsEndpoints.get(tenantId, uuid)!.password).toBe('s3cret');
    });

    it('updateSnsHttpEndpoint reports a non-http URL as SYS.1007 and an endpoint of another type as SYS.1003', async () => {
      const { uuid } = endpointNamed('ops-webhook');
      const before = harness.simulator.store.snsEndpoints.get(tenantId, uuid)!.url;
      const invalid = await mutate<EndpointPayload>('updateSnsHttpEndpoint', ENDPOINT, { uuid, url: 'ftp://files.example.org/' });
      expect(invalid).toMatchObject({ endpoint: null, error: { code: 'SYS.1007' }, job: { status: 'FAILED' } });
      expect(harness.simulator.store.snsEndpoints.get(tenantId, uuid)!.url).toBe(before);

      const mail = endpointNamed('ops-mail');
      const wrongType = await mutate<EndpointPayload>('updateSnsHttpEndpoint', ENDPOINT, { uuid: mail.uuid, name: 'renamed' });
      expect(wrongType).toMatchObject({ endpoint: null, error: { code: 'SYS.1003' } });
    });

    interface ReceiverPayload extends PayloadBase {
      endpoint: { uuid: string; receivers: { phoneNumber: string }[] } | null;
    }
    const RECEIVERS = 'endpoint { uuid receivers { phoneNumber } }';

    async function receiversOf(uuid: string): Promise<string[]> {
      const response = await harness.gql<{ snsApplicationEndpoints: { nodes: { receivers: { phoneNumber: string }[] }[] } }>(
        'query($uuid: Uuid!) { snsApplicationEndpoints(filter: { uuids: [$uuid] }) { nodes { receivers { phoneNumber } } } }',
        { uuid },
      );
      return response.data!.snsApplicationEndpoints.nodes[0]!.receivers.map((receiver) => receiver.phoneNumber);
    }

    it('removeSnsSmsReceiver URL-encodes the phone number, sends deleteMode in body and query, and the receiver is gone', async () => {
      const { uuid, receivers } = endpointNamed('oncall-sms');
      const [removed, ...kept] = receivers;
      expect(removed).toMatch(/^\+/);
      const payload = await mutate<ReceiverPayload>('removeSnsSmsReceiver', RECEIVERS, {
        endpointUuid: uuid,
        phoneNumber: removed,
        deleteMode: 'ENFORCING',
      });
      expect(payload).toMatchObject({ error: null, job: { status: 'SUCCEEDED' } });
      expect(payload.endpoint).toEqual({ uuid, receivers: kept.map((phoneNumber) => ({ phoneNumber })) });
      expectSent(payload.job.id, {
        operation: 'RemoveSNSSmsReceiver',
        method: 'DELETE',
        path: `/svc/v1/sns/sms-endpoints/${uuid}/receivers/${encodeURIComponent(removed!)}`,
        query: 'deleteMode=Enforcing',
        body: { params: { deleteMode: 'Enforcing' } },
      });
      expect(await receiversOf(uuid)).toEqual(kept);
    });

    it('removeSnsSmsReceiver without deleteMode sends neither body nor query; an unknown number is SYS.1003', async () => {
      const { uuid, receivers } = endpointNamed('manager-sms');
      const payload = await mutate<ReceiverPayload>('removeSnsSmsReceiver', RECEIVERS, { endpointUuid: uuid, phoneNumber: receivers[1] });
      expect(payload).toMatchObject({ error: null, job: { status: 'SUCCEEDED' } });
      expectSent(payload.job.id, {
        operation: 'RemoveSNSSmsReceiver',
        method: 'DELETE',
        path: `/svc/v1/sns/sms-endpoints/${uuid}/receivers/${encodeURIComponent(receivers[1]!)}`,
        body: null,
      });
      expect(await receiversOf(uuid)).toEqual(receivers.filter((number) => number !== receivers[1]));

      const unknown = await mutate<ReceiverPayload>('removeSnsSmsReceiver', RECEIVERS, { endpointUuid: uuid, phoneNumber: '+10000000000' });
      expect(unknown).toMatchObject({ endpoint: null, error: { code: 'SYS.1003' }, job: { status: 'FAILED' } });
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('bad GraphQL input', () => {
    it.each([
      ['a malformed Uuid', 'deleteDirectory', 'deletedDirectoryUuid', { uuid: 'NOT-A-UUID' }, /input\.uuid.*Uuid must be 32 lowercase hexadecimal characters/],
      ['an upper-case Uuid', 'deleteCbtTask', 'deletedCbtTaskUuid', { uuid: 'A'.repeat(32) }, /input\.uuid.*Uuid must be 32 lowercase hexadecimal characters/],
      ['a malformed Uuid in a list', 'exportNbdVolumes', 'vmInstance { uuid }', { volumeUuids: ['123'], vmInstanceUuid: UNKNOWN_UUID }, /input\.volumeUuids\[0\].*Uuid must be/],
      ['an unknown DeleteMode', 'deleteDirectory', 'deletedDirectoryUuid', { uuid: UNKNOWN_UUID, deleteMode: 'Permissive' }, /input\.deleteMode.*"Permissive".*DeleteMode/],
      ['an unknown SnsStateEvent', 'changeSnsApplicationPlatformState', 'platform { uuid }', { uuid: UNKNOWN_UUID, stateEvent: 'enable' }, /input\.stateEvent.*"enable".*SnsStateEvent/],
      ['a missing required field', 'createCbtTask', 'cbtTask { uuid }', { name: 'x', resourceUuids: [UNKNOWN_UUID] }, /Field "taskType" of required type .* was not provided/],
    ])('rejects %s before any upstream request, naming the input at fault', async (_case, name, selection, input, message) => {
      harness.resetStats();
      const inputType = `${name.charAt(0).toUpperCase()}${name.slice(1)}Input`;
      const response = await harness.gql(`mutation($input: ${inputType}!) { ${name}(input: $input) { ${selection} } }`, { input });
      expect(response.errors).toHaveLength(1);
      expect(response.errors?.[0]?.message).toMatch(message);
      expect(response.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(response.data ?? null).toBeNull();
      expect(harness.upstreamRequests()).toBe(0);
    });

    it('refuses a phone number that is a dot segment as a VALIDATION user error on its input field, without a job or an upstream request', async () => {
      harness.resetStats();
      const payload = await mutate<PayloadBase & { status: string; userErrors: unknown[] }>('removeSnsSmsReceiver', 'status userErrors { message field code upstream { code } } endpoint { uuid } job { id }', {
        endpointUuid: UNKNOWN_UUID,
        phoneNumber: '..',
        clientMutationId: 'dots',
      });
      expect(payload).toEqual({
        clientMutationId: 'dots',
        status: 'FAILED',
        userErrors: [{ message: 'phoneNumber ".." is not a phone number.', field: ['input', 'phoneNumber'], code: 'VALIDATION', upstream: null }],
        endpoint: null,
        error: null,
        job: null,
      });
      expect(harness.upstreamRequests()).toBe(0);
    });

    it('rejects a bad enum literal as a validation error', async () => {
      harness.resetStats();
      const response = await harness.gql(`mutation { deleteDirectory(input: { uuid: "${UNKNOWN_UUID}", deleteMode: SOFT }) { deletedDirectoryUuid } }`);
      expect(response.errors?.[0]?.message).toMatch(/SOFT/);
      expect(harness.upstreamRequests()).toBe(0);
    });
  });
});
