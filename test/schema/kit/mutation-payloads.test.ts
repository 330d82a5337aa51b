/**
 * What every mutation payload promises a client (API 1.0): a nullable payload, so one mutation
 * that cannot run leaves the others' answers; `status` saying plainly how the write stands;
 * `userErrors` with a stable code, the input field to blame and the upstream's own ErrorCode;
 * `deleted<X>Id` naming the removed record as a client cache knows it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/harness.js';
import { connectedHost, nqn } from '../../support/replica-jobs.js';

const UNKNOWN_UUID = 'f'.repeat(32);

const WRITE_FIELDS = 'status userErrors { message field code upstream { code cause { code } } } job { id status }';

interface UserError {
  message: string;
  field: string[] | null;
  code: string;
  upstream: { code: string; cause: { code: string } | null } | null;
}

interface WritePayload {
  status: string;
  userErrors: UserError[];
  job: { id: string; status: string } | null;
}

describe('mutation payloads', () => {
  let harness: Harness;
  let tenantId: string;

  beforeAll(async () => {
    harness = await startHarness();
    tenantId = harness.simulator.credentials.tenantId;
  });

  afterAll(async () => {
    await harness.close();
  });

  beforeEach(() => {
    harness.simulator.configure({ asyncDelayMs: 5, dropWebhooks: false });
  });

  async function mutate<P extends WritePayload>(name: string, selection: string, input: Record<string, unknown>): Promise<P> {
    const inputType = `${name.charAt(0).toUpperCase()}${name.slice(1)}Input`;
    const response = await harness.gql<Record<string, P>>(`mutation($input: ${inputType}!) { ${name}(input: $input) { ${WRITE_FIELDS} ${selection} } }`, { input });
    expect(response.errors).toBeUndefined();
    return response.data![name]!;
  }

  function vmWithoutTask(state: string): string {
    const vm = [...harness.simulator.store.vms.list(tenantId)].find(
      (candidate) =>
        candidate.state === state &&
        harness.simulator.store.cbtTasks.by('vmInstanceUuid', candidate.uuid, tenantId).length === 0 &&
        harness.simulator.store.volumesOfVm(candidate).length > 0,
    );
    if (!vm) throw new Error(`no ${state} VM without a CBT task`);
    return vm.uuid;
  }

  describe('userErrors', () => {
    it('an upstream refusal of a bad value is VALIDATION on the input field it names, with the ErrorCode as upstream', async () => {
      const payload = await mutate<WritePayload & { host: unknown }>('updateHostNqn', 'host { nqn }', { uuid: connectedHost(harness.simulator), nqn: 'not-an-nqn' });
      expect(payload).toEqual({
        status: 'FAILED',
        userErrors: [
          {
            message: expect.stringMatching(/^One or more API argument is invalid: nqn\[not-an-nqn\] is not an NVMe qualified name/),
            field: ['input', 'nqn'],
            code: 'VALIDATION',
            upstream: { code: 'SYS.1007', cause: null },
          },
        ],
        job: { id: expect.stringMatching(/^[0-9a-f]{32}$/), status: 'FAILED' },
        host: null,
      });
    });

    it('a record that does not exist is NOT_FOUND on the input field that named it', async () => {
      const payload = await mutate<WritePayload>('updateHostNqn', 'host { nqn }', { uuid: UNKNOWN_UUID, nqn: nqn('nf') });
      expect(payload.status).toBe('FAILED');
      expect(payload.userErrors).toEqual([expect.objectContaining({ code: 'NOT_FOUND', field: ['input', 'uuid'], upstream: { code: 'SYS.1003', cause: null } })]);
    });

    it('a VM that already belongs to a CBT task is a CONFLICT on the resourceUuids item naming it', async () => {
      const vmUuid = vmWithoutTask('Running');
      const first = await mutate<WritePayload>('createCbtTask', 'cbtTask { uuid }', { name: 'first', taskType: 'VM', resourceUuids: [vmUuid] });
      expect(first).toMatchObject({ status: 'SUCCEEDED', userErrors: [] });

      const otherVm = vmWithoutTask('Stopped');
      const again = await mutate<WritePayload & { cbtTask: unknown }>('createCbtTask', 'cbtTask { uuid }', { name: 'again', taskType: 'VM', resourceUuids: [vmUuid] });
      expect(again.cbtTask).toBeNull();
      expect(again.userErrors).toEqual([expect.objectContaining({ code: 'CONFLICT', field: ['input', 'resourceUuids', '0'], upstream: { code: 'SYS.1007', cause: null } })]);
      expect(otherVm).not.toBe(vmUuid);
    });

    it('a failure whose cause is the state of a record is INVALID_STATE, the whole cause chain kept as upstream', async () => {
      const host = [...harness.simulator.store.hosts.list(tenantId)].find((candidate) => candidate.status !== 'Connected');
      if (!host) throw new Error('the estate has no disconnected host');
      const bond = harness.simulator.store.bondings.by('hostUuid', host.uuid, tenantId)[0]!;
      const payload = await mutate<WritePayload>('setIpOnHostNetworkBonding', 'bonding { uuid }', { bondingUuid: bond.uuid, ipAddress: '10.9.8.7', netmask: '255.255.255.0' });
      expect(payload.status).toBe('FAILED');
      expect(payload.userErrors).toEqual([expect.objectContaining({ code: 'INVALID_STATE', upstream: { code: 'SYS.1006', cause: { code: 'HOST.1010' } } })]);
    });

    it('a success has no user errors, and the deprecated error agrees with userErrors on a failure', async () => {
      const ok = await mutate<WritePayload & { host: { nqn: string } }>('updateHostNqn', 'host { nqn }', { uuid: connectedHost(harness.simulator), nqn: nqn('ok') });
      expect(ok).toMatchObject({ status: 'SUCCEEDED', userErrors: [], job: { status: 'SUCCEEDED' }, host: { nqn: nqn('ok') } });

      const failed = await harness.gql<{ updateHostNqn: { error: { code: string }; userErrors: UserError[] } }>(
        `mutation { updateHostNqn(input: { uuid: "${UNKNOWN_UUID}", nqn: "${nqn('x')}" }) { error { code } userErrors { upstream { code } } } }`,
      );
      expect(failed.data?.updateHostNqn.error.code).toBe(failed.data?.updateHostNqn.userErrors[0]?.upstream?.code);
    });

    it('a finished job read through Job.payload carries the same userErrors, reached through the WritePayload interface', async () => {
      const payload = await mutate<WritePayload>('updateHostNqn', '', { uuid: connectedHost(harness.simulator), nqn: 'bad', async: true });
      expect(payload).toMatchObject({ status: 'RUNNING', userErrors: [] });
      let job: { status: string; payload: WritePayload | null } | undefined;
      for (let attempt = 0; attempt < 100 && job?.status !== 'FAILED'; attempt++) {
        const response = await harness.gql<{ job: typeof job }>(
          `query($id: ID!) { job(id: $id) { status payload { __typename ... on WritePayload { status userErrors { field code } } } } }`,
          { id: payload.job!.id },
        );
        job = response.data?.job ?? undefined;
        if (job?.status !== 'FAILED') await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(job).toEqual({ status: 'FAILED', payload: { __typename: 'UpdateHostNqnPayload', status: 'FAILED', userErrors: [{ field: ['input', 'nqn'], code: 'VALIDATION' }] } });
    });
  });

  describe('deleted<X>Id', () => {
    it('deleteCbtTask answers the global id the task had, which node(id:) no longer finds', async () => {
      const vmUuid = vmWithoutTask('Running');
      const created = await mutate<WritePayload & { cbtTask: { id: string; uuid: string } }>('createCbtTask', 'cbtTask { id uuid }', { name: 'to-delete', taskType: 'VM', resourceUuids: [vmUuid] });
      const { id, uuid } = created.cbtTask;
      const deleted = await mutate<WritePayload & { deletedCbtTaskId: string; deletedCbtTaskUuid: string }>('deleteCbtTask', 'deletedCbtTaskId deletedCbtTaskUuid', { uuid, deleteMode: 'ENFORCING' });
      expect(deleted).toMatchObject({ status: 'SUCCEEDED', deletedCbtTaskId: id, deletedCbtTaskUuid: uuid });
      const refetch = await harness.gql<{ node: unknown }>('query($id: ID!) { node(id: $id) { id } }', { id });
      expect(refetch.data?.node).toBeNull();
      expect(refetch.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    });

    it('deleteVolumeSnapshotGroup answers the id and uuid of the group removed', async () => {
      const group = [...harness.simulator.store.snapshotGroups.list(tenantId)][0]!;
      const read = await harness.gql<{ volumeSnapshotGroup: { id: string } }>('query($uuid: Uuid!) { volumeSnapshotGroup(uuid: $uuid) { id } }', { uuid: group.uuid });
      const deleted = await mutate<WritePayload & { deletedVolumeSnapshotGroupId: string; deletedVolumeSnapshotGroupUuid: string }>(
        'deleteVolumeSnapshotGroup',
        'deletedVolumeSnapshotGroupId deletedVolumeSnapshotGroupUuid',
        { uuid: group.uuid },
      );
      expect(deleted).toMatchObject({ status: 'SUCCEEDED', deletedVolumeSnapshotGroupId: read.data!.volumeSnapshotGroup.id, deletedVolumeSnapshotGroupUuid: group.uuid });
    });

    it('detachL3NetworkFromVm answers the global id of the NIC it removed, as the VM listed it', async () => {
      const vm = [...harness.simulator.store.vms.list(tenantId)].find((candidate) => candidate.state === 'Running' && candidate.vmNics.length > 1)!;
      const read = await harness.gql<{ vmInstance: { nics: { id: string; uuid: string }[] } }>('query($uuid: Uuid!) { vmInstance(uuid: $uuid) { nics { id uuid } } }', { uuid: vm.uuid });
      const nic = read.data!.vmInstance.nics.at(-1)!;
      const detached = await mutate<WritePayload & { deletedVmNicId: string; deletedVmNicUuid: string }>('detachL3NetworkFromVm', 'deletedVmNicId deletedVmNicUuid', { vmNicUuid: nic.uuid });
      expect(detached).toMatchObject({ status: 'SUCCEEDED', deletedVmNicId: nic.id, deletedVmNicUuid: nic.uuid });
    });

    it('deleteDirectory answers the global id of the directory, the form node(id:) resolves directories by', async () => {
      const directories = [...harness.simulator.store.directories.list(tenantId)];
      const leaf = directories.find((candidate) => !directories.some((other) => other.parentUuid === candidate.uuid))!;
      const kept = directories.find((candidate) => candidate.uuid !== leaf.uuid)!;
      const deleted = await mutate<WritePayload & { deletedDirectoryId: string; deletedDirectoryUuid: string }>('deleteDirectory', 'deletedDirectoryId deletedDirectoryUuid', { uuid: leaf.uuid });
      expect(deleted).toMatchObject({ status: 'SUCCEEDED', deletedDirectoryUuid: leaf.uuid });

      // The gone one is NOT_FOUND; one still there, by an id of the same form, is a Directory.
      const gone = await harness.gql<{ node: unknown }>('query($id: ID!) { node(id: $id) { id } }', { id: deleted.deletedDirectoryId });
      expect(gone.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
      const sameForm = deleted.deletedDirectoryId === Buffer.from(`Directory:${leaf.uuid}`).toString('base64');
      expect(sameForm).toBe(true);
      const found = await harness.gql<{ node: unknown }>('query($id: ID!) { node(id: $id) { __typename id ... on Directory { uuid name } } }', {
        id: Buffer.from(`Directory:${kept.uuid}`).toString('base64'),
      });
      expect(found.data?.node).toEqual({ __typename: 'Directory', id: Buffer.from(`Directory:${kept.uuid}`).toString('base64'), uuid: kept.uuid, name: kept.name });
    });

    it('answers null ids while the job runs', async () => {
      harness.simulator.configure({ asyncDelayMs: 1000 });
      const group = [...harness.simulator.store.snapshotGroups.list(tenantId)][0]!;
      const running = await mutate<WritePayload & { deletedVolumeSnapshotGroupId: string | null }>('deleteVolumeSnapshotGroup', 'deletedVolumeSnapshotGroupId', { uuid: group.uuid, async: true });
      expect(running).toMatchObject({ status: 'RUNNING', userErrors: [], deletedVolumeSnapshotGroupId: null });
    });
  });
});

/**
 * A front for the simulator that answers every write to `hosts/nqn/` with 502 plain text (an
 * upstream that cannot take it, which the gateway cannot turn into a job) and passes the rest.
 */
function startFailingFront(target: { url: string }): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'GET' && req.url?.includes('/hosts/nqn/')) {
        res.writeHead(502, { 'content-type': 'text/plain' }).end('bad gateway');
        return;
      }
      void (async () => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(req.headers)) {
          if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name)) headers[name] = value;
        }
        const method = req.method ?? 'GET';
        const answer = await fetch(`${target.url}${req.url ?? '/'}`, { method, headers, body: method === 'GET' ? undefined : Buffer.concat(chunks) });
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' }).end(Buffer.from(await answer.arrayBuffer()));
      })().catch(() => req.socket.destroy());
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

describe('a document of several mutations', () => {
  let harness: Harness;
  let front: { server: Server; url: string };

  beforeAll(async () => {
    // The gateway's upstream is the front, which passes on to the harness's simulator once it is up.
    const target = { url: '' };
    front = await startFailingFront(target);
    harness = await startHarness({ config: { upstreamUrl: front.url, cursorUrl: front.url } });
    target.url = harness.simulator.url;
  });

  afterAll(async () => {
    await harness.close();
    await new Promise((resolve) => front.server.close(resolve));
  });

  it('keeps the job of the second mutation when the first cannot reach the upstream: only the first field is null', async () => {
    const tenantId = harness.simulator.credentials.tenantId;
    const platform = [...harness.simulator.store.snsPlatforms.list(tenantId)][0]!;
    const response = await harness.gql<{ first: WritePayload | null; second: WritePayload & { platform: { uuid: string } } }>(
      `mutation($host: Uuid!, $platform: Uuid!) {
        first: updateHostNqn(input: { uuid: $host, nqn: "${nqn('front')}" }) { ${WRITE_FIELDS} }
        second: changeSnsApplicationPlatformState(input: { uuid: $platform, stateEvent: ENABLE }) { ${WRITE_FIELDS} platform { uuid } }
      }`,
      { host: connectedHost(harness.simulator), platform: platform.uuid },
    );
    expect(response.data?.first).toBeNull();
    expect(response.errors).toEqual([expect.objectContaining({ path: ['first'], extensions: expect.objectContaining({ code: 'UPSTREAM_UNAVAILABLE' }) })]);
    expect(response.data?.second).toMatchObject({ status: 'SUCCEEDED', userErrors: [], job: { status: 'SUCCEEDED' }, platform: { uuid: platform.uuid } });
    const job = await harness.gql<{ job: { status: string } }>('query($id: ID!) { job(id: $id) { status } }', { id: response.data!.second.job!.id });
    expect(job.data?.job.status).toBe('SUCCEEDED');
  });
});

describe('a job that outlasts the wait of async: false', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({ config: { mutationWaitMs: 200 } });
    harness.simulator.configure({ asyncDelayMs: 2000 });
  });

  afterAll(async () => {
    await harness.close();
  });

  it('answers status RUNNING with null records and no user errors, and the job finishes later', async () => {
    const response = await harness.gql<{ updateHostNqn: WritePayload & { host: unknown } }>(
      `mutation($uuid: Uuid!) { updateHostNqn(input: { uuid: $uuid, nqn: "${nqn('slow')}" }) { ${WRITE_FIELDS} host { nqn } } }`,
      { uuid: connectedHost(harness.simulator) },
    );
    expect(response.data?.updateHostNqn).toEqual({ status: 'RUNNING', userErrors: [], job: { id: expect.any(String), status: 'RUNNING' }, host: null });
  });
});
