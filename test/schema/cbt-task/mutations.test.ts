/**
 * The CBT task mutations against the simulator over real HTTP: the exact upstream request each one
 * makes, the task read back afterwards, and upstream refusals in the payload's `error`.
 */
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { errorCodes, WEBHOOK_MODES, type Harness } from '../../support/harness.js';
import { mutationSuite, UNKNOWN_UUID, type PayloadBase } from '../../support/mutation-suite.js';

describe.each(WEBHOOK_MODES)('CBT task mutations (webhooks $mode)', ({ dropWebhooks }) => {
  const suite = mutationSuite(dropWebhooks);
  const { take, mutate, expectSent, waitForJob } = suite;
  let harness: Harness;
  let tenantId: string;

  beforeAll(() => {
    ({ harness, tenantId } = suite);
  });

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
      // Held upstream, so that the STARTING read-back below lands while the job still runs; let go
      // however the test ends, or the file's later writes would never finish.
      harness.simulator.configure({ holdJobs: true });
      onTestFinished(() => harness.simulator.configure({ holdJobs: false }));
      const started = await mutate<CbtTaskPayload>('enableCbtTask', TASK, { uuid: taskUuid, async: true, clientMutationId: 'async-enable' });
      expect(started).toMatchObject({ clientMutationId: 'async-enable', cbtTask: null, error: null, job: { status: 'RUNNING', operation: 'ENABLE_CBT_TASK' } });
      expect(await readTask(taskUuid)).toEqual({ status: 'STARTING' });
      harness.simulator.configure({ holdJobs: false });

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
      expect(payload).toMatchObject({ error: null, job: { status: 'SUCCEEDED' }, vmInstance: { uuid: vmUuid, state: 'STOPPED' } });
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
});
