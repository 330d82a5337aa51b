import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Directory, Host, VmInstance, VmNic, Volume } from '../../../src/simulator/model.js';
import { createSimulator, type Simulator } from '../../../src/simulator/server.js';
import { WRITE_OPERATIONS, beginWrite } from '../../../src/simulator/writes/index.js';

type Json = Record<string, unknown>;

const TIMESTAMP = /^[A-Z][a-z]{2} \d{1,2}, \d{4} \d{1,2}:\d{2}:\d{2} (AM|PM)$/;
const UUID = /^[0-9a-f]{32}$/;
/** A well-formed uuid no record has. */
const UNKNOWN = 'deadbeef'.repeat(4);

let sim: Simulator;

beforeEach(async () => {
  sim = createSimulator({ seed: 7, hosts: 6, vms: 60, asyncDelayMs: 5 });
  await sim.start(0);
});

afterEach(async () => {
  await sim.stop();
});

// ---------------------------------------------------------------------------------------------
// HTTP helpers

interface Send {
  body?: unknown;
  rawBody?: string;
  /** Resource-family session; null sends no Authorization header. */
  session?: string | null;
}

async function api(method: string, path: string, send: Send = {}): Promise<{ status: number; text: string; contentType: string }> {
  const headers: Record<string, string> = { 'content-type': 'application/json;charset=UTF-8' };
  const session = send.session === undefined ? sim.credentials.session : send.session;
  if (session !== null) headers.authorization = `OAuth ${session}`;
  const body = send.rawBody ?? (send.body === undefined ? undefined : JSON.stringify(send.body));
  const response = await fetch(`${sim.url}/svc/v1/${path}`, { method, headers, body });
  return { status: response.status, text: await response.text(), contentType: response.headers.get('content-type') ?? '' };
}

interface Finished {
  status: number;
  body: Json;
  /** The poll answer's raw text (to see the spec's `1.0` integers). */
  text: string;
}

/** Submits a write, expects 202, and polls its job until it is final. */
async function finish(method: string, path: string, send: Send = {}): Promise<Finished> {
  const submitted = await api(method, path, send);
  expect(submitted.status, submitted.text).toBe(202);
  const { location } = JSON.parse(submitted.text) as { location: string };
  const deadline = Date.now() + 5000;
  for (;;) {
    const polled = await fetch(location);
    const text = await polled.text();
    if (polled.status !== 202) return { status: polled.status, body: JSON.parse(text) as Json, text };
    if (Date.now() > deadline) throw new Error(`job of ${method} ${path} did not finish`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function succeed(method: string, path: string, body?: unknown, session?: string): Promise<Finished> {
  const done = await finish(method, path, { body, session });
  expect(done.status, done.text).toBe(200);
  return done;
}

/** Expects the job to fail with `code`; answers its ErrorCode. */
async function failWith(code: string, method: string, path: string, body?: unknown, session?: string): Promise<Json> {
  const done = await finish(method, path, { body, session });
  expect(done.status, done.text).toBe(503);
  const error = done.body.error as Json;
  expect(error.code, done.text).toBe(code);
  return error;
}

/** Expects a REST-layer rejection: 400 plain text, no job. */
async function rejected(method: string, path: string, send: Send): Promise<string> {
  const answer = await api(method, path, send);
  expect(answer.status, answer.text).toBe(400);
  expect(answer.contentType).toMatch(/^text\/plain/);
  return answer.text;
}

/** One record of the cursor family, or undefined. */
async function cursorItem(resourceType: string, uuid: string, token = sim.credentials.token): Promise<Json | undefined> {
  const query = new URLSearchParams({ resourceType, filter: `uuid:eq:${uuid}` });
  const response = await fetch(`${sim.url}/api/v1/resources/cursor-query?${query.toString()}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(response.status).toBe(200);
  const { items } = (await response.json()) as { items: Json[] };
  return items[0];
}

/** `inventories` of a resource-family GET. */
async function inventories(path: string): Promise<Json[]> {
  const answer = await api('GET', path);
  expect(answer.status, answer.text).toBe(200);
  return (JSON.parse(answer.text) as { inventories: Json[] }).inventories;
}

function inventoryOf(done: Finished): Json {
  expect(done.body.success).toBe(true);
  return done.body.inventory as Json;
}

// ---------------------------------------------------------------------------------------------
// Fixtures, picked from the first tenant's generated estate

function tenantId(): string {
  return sim.credentials.tenantId;
}

function pick<T>(records: Iterable<T>, wanted: (record: T) => boolean, what: string): T {
  for (const record of records) if (wanted(record)) return record;
  throw new Error(`the estate has no ${what}`);
}

function vmWhere(wanted: (vm: VmInstance) => boolean, what: string): VmInstance {
  return pick(sim.store.vms.list(tenantId()), wanted, what);
}

function volumesOf(vm: VmInstance): Volume[] {
  return sim.store.volumesOfVm(vm);
}

function hasTask(vm: VmInstance): boolean {
  return sim.store.cbtTasks.by('vmInstanceUuid', vm.uuid, tenantId()).length > 0;
}

function connectedHost(): Host {
  return pick(sim.store.hosts.list(tenantId()), (host) => host.status === 'Connected', 'connected host');
}

async function createTask(vm: VmInstance): Promise<Json> {
  const done = await succeed('POST', 'cbt-task/create', { params: { name: `cbt-${vm.name}`, taskType: 'VM', resourceUuids: [vm.uuid] } });
  return inventoryOf(done);
}

// ---------------------------------------------------------------------------------------------
// Every operation: its request with a given primary uuid

interface WriteCall {
  method: string;
  path: string;
  body?: unknown;
}

const CALLS: Record<string, (uuid: string) => WriteCall> = {
  UpdateHostNqn: (uuid) => ({ method: 'PUT', path: `hosts/nqn/${uuid}/actions`, body: { updateHostNqn: { nqn: 'nqn.2014-08.org.example:host-1' } } }),
  SetIpOnHostNetworkBonding: (uuid) => ({ method: 'POST', path: `hosts/bondings/${uuid}/ip`, body: { params: { ipAddress: '10.9.9.9', netmask: '255.255.255.0' } } }),
  CreateCbtTask: (uuid) => ({ method: 'POST', path: 'cbt-task/create', body: { params: { name: 'x', taskType: 'VM', resourceUuids: [uuid] } } }),
  DeleteCbtTask: (uuid) => ({ method: 'DELETE', path: `cbt-task/${uuid}` }),
  DisableCbtTask: (uuid) => ({ method: 'POST', path: `cbt-task/disable/${uuid}`, body: { params: {} } }),
  EnableCbtTask: (uuid) => ({ method: 'POST', path: `cbt-task/enable/${uuid}`, body: { params: {} } }),
  ExportNbdVolumes: (uuid) => ({ method: 'POST', path: 'cbt-task/exportvolume', body: { params: { vmInstanceUuid: uuid, volumeUuids: [uuid] } } }),
  CreateVolumeSnapshotGroup: (uuid) => ({ method: 'POST', path: 'volume-snapshots/group', body: { params: { rootVolumeUuid: uuid, name: 'g' } } }),
  DeleteVolumeSnapshotGroup: (uuid) => ({ method: 'DELETE', path: `volume-snapshots/group/${uuid}?deleteMode=Permissive` }),
  UpdateVolumeSnapshotGroup: (uuid) => ({ method: 'PUT', path: `volume-snapshots/group/${uuid}/actions`, body: { updateVolumeSnapshotGroup: { name: 'n' } } }),
  PrimaryStorageMigrateVm: (uuid) => ({ method: 'PUT', path: `vm-instances/${uuid}/actions`, body: { primaryStorageMigrateVm: { dstPrimaryStorageUuid: UNKNOWN } } }),
  SetVmBootVolume: (uuid) => ({ method: 'PUT', path: `vm-instances/${uuid}/actions`, body: { setVmBootVolume: { volumeUuid: UNKNOWN } } }),
  RecoverVmInstance: (uuid) => ({ method: 'PUT', path: `vm-instances/${uuid}/actions`, body: { recoverVmInstance: {} } }),
  UpdateVmNicDriver: (uuid) => ({ method: 'PUT', path: `vm-instances/${uuid}/actions`, body: { updateVmNicDriver: { vmNicUuid: UNKNOWN, driverType: 'virtio' } } }),
  CreateVmInstanceFromVolumeSnapshotGroup: (uuid) => ({ method: 'POST', path: `vm-instances/from/volume-snapshots/group/${uuid}`, body: { params: { name: 'clone' } } }),
  DetachL3NetworkFromVm: (uuid) => ({ method: 'DELETE', path: `vm-instances/nics/${uuid}` }),
  DeleteVmSshKey: (uuid) => ({ method: 'DELETE', path: `vm-instances/${uuid}/ssh-keys` }),
  DestroyVmInstance: (uuid) => ({ method: 'DELETE', path: `vm-instances/${uuid}` }),
  DeleteDirectory: (uuid) => ({ method: 'DELETE', path: 'delete/directory', body: { params: { uuid } } }),
  ChangeSNSApplicationPlatformState: (uuid) => ({ method: 'PUT', path: `sns/application-platforms/${uuid}/actions`, body: { changeSNSApplicationPlatformState: { stateEvent: 'disable' } } }),
  UpdateSNSHttpEndpoint: (uuid) => ({ method: 'PUT', path: `sns/application-endpoints/http/${uuid}/actions`, body: { updateSNSHttpEndpoint: { name: 'n' } } }),
  RemoveSNSSmsReceiver: (uuid) => ({ method: 'DELETE', path: `sns/sms-endpoints/${uuid}/receivers/%2B8613800000000` }),
};

describe('every write operation', () => {
  it('covers the 22 operations of the spec', () => {
    expect(Object.keys(CALLS).sort()).toEqual([...WRITE_OPERATIONS].sort());
    expect(WRITE_OPERATIONS).toHaveLength(22);
  });

  it.each(Object.entries(CALLS))('%s: an unknown uuid fails the job with SYS.1003', async (_name, call) => {
    const { method, path, body } = call(UNKNOWN);
    const error = await failWith('SYS.1003', method, path, body);
    expect(error.description).toEqual(expect.any(String));
    expect(String(error.details)).toContain(UNKNOWN);
  });

  it.each(Object.entries(CALLS))('%s: without Authorization it is a 400 plain text and runs nothing', async (name, call) => {
    const { method, path, body } = call(UNKNOWN);
    sim.resetStats();
    const text = await rejected(method, path, { body, session: null });
    expect(text).toMatch(/Authorization/);
    expect(sim.stats().byOperation[name]).toBe(1);
    expect(sim.jobs.deliveries).toHaveLength(0);
  });

  it.each(Object.entries(CALLS))('%s: a malformed JSON body is a 400 plain text', async (_name, call) => {
    const { method, path } = call(UNKNOWN);
    await rejected(method, path, { rawBody: '{"params": {' });
  });

  it.each(Object.entries(CALLS))('%s: an unknown session fails with 503 ID.1001', async (_name, call) => {
    const { method, path, body } = call(UNKNOWN);
    const answer = await api(method, path, { body, session: 'a'.repeat(32) });
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'ID.1001' } });
  });
});

describe('routing of shared action paths', () => {
  it('rejects a PUT on vm-instances/{uuid}/actions without a known action key with 400 text', async () => {
    const vm = vmWhere(() => true, 'VM');
    const text = await rejected('PUT', `vm-instances/${vm.uuid}/actions`, { body: { rebootVmInstance: {} } });
    expect(text).toContain('recoverVmInstance');
  });

  it('rejects a body that carries two action keys', async () => {
    const vm = vmWhere(() => true, 'VM');
    await rejected('PUT', `vm-instances/${vm.uuid}/actions`, { body: { recoverVmInstance: {}, setVmBootVolume: { volumeUuid: UNKNOWN } } });
  });
});

// ---------------------------------------------------------------------------------------------
// Hosts

describe('UpdateHostNqn', () => {
  it('sets the NQN and answers the HostInventory the queries answer', async () => {
    const host = connectedHost();
    const nqn = 'nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555';
    const before = await cursorItem('host', host.uuid);
    const inventory = inventoryOf(await succeed('PUT', `hosts/nqn/${host.uuid}/actions`, { updateHostNqn: { nqn } }));
    expect(inventory).toMatchObject({ uuid: host.uuid, nqn, name: host.name, managementIp: host.managementIp, state: 'Enabled', status: 'Connected' });
    expect(inventory.lastOpDate).toMatch(TIMESTAMP);
    expect(inventory.createDate).toBe(before?.createDate);
    expect(inventory.lastOpDate).not.toBe(before?.lastOpDate);
    expect(await cursorItem('host', host.uuid)).toEqual(inventory);
  });

  it('rejects a value that is not an NQN (SYS.1007) and a non-string (400)', async () => {
    const host = connectedHost();
    const error = await failWith('SYS.1007', 'PUT', `hosts/nqn/${host.uuid}/actions`, { updateHostNqn: { nqn: 'iqn.2001-04.com.example' } });
    expect(error.details).toMatch(/nqn/);
    await failWith('SYS.1007', 'PUT', `hosts/nqn/${host.uuid}/actions`, { updateHostNqn: {} });
    await rejected('PUT', `hosts/nqn/${host.uuid}/actions`, { body: { updateHostNqn: { nqn: 42 } } });
    expect((await cursorItem('host', host.uuid))?.nqn).toBe(host.nqn);
  });

  it('fails on a disconnected host with SYS.1006 caused by HOST.1010', async () => {
    const host = connectedHost();
    sim.store.hosts.update(host, { status: 'Disconnected' });
    const error = await failWith('SYS.1006', 'PUT', `hosts/nqn/${host.uuid}/actions`, { updateHostNqn: { nqn: 'nqn.2014-08.org.example:x' } });
    expect(error.cause).toMatchObject({ code: 'HOST.1010' });
  });

  it("does not see another tenant's host", async () => {
    const host = connectedHost();
    await failWith('SYS.1003', 'PUT', `hosts/nqn/${host.uuid}/actions`, { updateHostNqn: { nqn: 'nqn.2014-08.org.example:x' } }, sim.credentials.second.session);
  });
});

describe('SetIpOnHostNetworkBonding', () => {
  it('sets the address and default route, visible in the network facts', async () => {
    const host = connectedHost();
    const bond = pick(sim.store.bondings.by('hostUuid', host.uuid, tenantId()), () => true, 'bond');
    const done = await succeed('POST', `hosts/bondings/${bond.uuid}/ip`, {
      params: { ipAddress: '192.168.50.10', netmask: '255.255.255.0', isDefaultRoute: true },
    });
    const inventory = inventoryOf(done);
    expect(inventory).toMatchObject({
      uuid: bond.uuid,
      hostUuid: host.uuid,
      bondingName: 'bond0',
      ipAddresses: ['192.168.50.10/24'],
      gateway: '192.168.50.1',
      allSlavesActive: expect.any(Boolean),
    });
    expect(inventory.slaves).toHaveLength(2);
    expect(inventory.lastOpDate).toMatch(TIMESTAMP);
    const facts = await api('GET', `hosts/network-facts/${host.uuid}`);
    const bondings = (JSON.parse(facts.text) as { bondings: Json[] }).bondings;
    expect(bondings.find((item) => item.uuid === bond.uuid)?.ipAddresses).toEqual(['192.168.50.10/24']);
  });

  it('clears the addresses when none is given', async () => {
    const host = connectedHost();
    const bond = pick(sim.store.bondings.by('hostUuid', host.uuid, tenantId()), () => true, 'bond');
    const inventory = inventoryOf(await succeed('POST', `hosts/bondings/${bond.uuid}/ip`, { params: {} }));
    expect(inventory.ipAddresses).toEqual([]);
    expect(inventory.gateway).toBeUndefined();
  });

  it('rejects a bad address (SYS.1007), an address without netmask (SYS.1007) and a non-boolean (400)', async () => {
    const bond = pick(sim.store.bondings.by('hostUuid', connectedHost().uuid, tenantId()), () => true, 'bond');
    await failWith('SYS.1007', 'POST', `hosts/bondings/${bond.uuid}/ip`, { params: { ipAddress: '300.1.1.1', netmask: '255.255.255.0' } });
    await failWith('SYS.1007', 'POST', `hosts/bondings/${bond.uuid}/ip`, { params: { ipAddress: '10.1.1.1' } });
    await failWith('SYS.1007', 'POST', `hosts/bondings/${bond.uuid}/ip`, { params: { ipAddress: '10.1.1.1', netmask: '255.0.255.0' } });
    await rejected('POST', `hosts/bondings/${bond.uuid}/ip`, { body: { params: { isDefaultRoute: 'yes' } } });
  });
});

// ---------------------------------------------------------------------------------------------
// CBT tasks

describe('CreateCbtTask', () => {
  it('creates a Created task for a VM, readable through QueryCbtTask', async () => {
    const vm = vmWhere((candidate) => !hasTask(candidate), 'VM without a CBT task');
    const done = await succeed('POST', 'cbt-task/create', {
      params: { name: 'nightly', description: 'nightly backup', taskType: 'VM', resourceUuids: [vm.uuid] },
      systemTags: [],
    });
    const inventory = inventoryOf(done);
    expect(Object.keys(inventory).sort()).toEqual(['createDate', 'description', 'lastOpDate', 'name', 'status', 'uuid']);
    expect(inventory).toMatchObject({ name: 'nightly', description: 'nightly backup', status: 'Created' });
    expect(inventory.uuid).toMatch(UUID);
    expect(inventory.createDate).toMatch(TIMESTAMP);
    expect(await inventories(`cbt-task/${String(inventory.uuid)}`)).toEqual([inventory]);
    const stored = sim.store.cbtTasks.get(tenantId(), String(inventory.uuid));
    expect(stored?.volumeUuids.sort()).toEqual(volumesOf(vm).map((volume) => volume.uuid).sort());
  });

  it('honours resourceUuid and fails for a VM that already has a task (SYS.1007)', async () => {
    const vm = vmWhere((candidate) => !hasTask(candidate), 'VM without a CBT task');
    const chosen = '0123456789abcdef0123456789abcdef';
    const inventory = inventoryOf(
      await succeed('POST', 'cbt-task/create', { params: { name: 'a', taskType: 'VM', resourceUuids: [vm.uuid], resourceUuid: chosen } }),
    );
    expect(inventory.uuid).toBe(chosen);
    const error = await failWith('SYS.1007', 'POST', 'cbt-task/create', { params: { name: 'b', taskType: 'VM', resourceUuids: [vm.uuid] } });
    expect(error.details).toContain(chosen);
  });

  it('rejects a bad taskType or a missing name (SYS.1007) and a non-list resourceUuids (400)', async () => {
    const vm = vmWhere((candidate) => !hasTask(candidate), 'VM without a CBT task');
    await failWith('SYS.1007', 'POST', 'cbt-task/create', { params: { name: 'a', taskType: 'Disk', resourceUuids: [vm.uuid] } });
    await failWith('SYS.1007', 'POST', 'cbt-task/create', { params: { taskType: 'VM', resourceUuids: [vm.uuid] } });
    await failWith('SYS.1007', 'POST', 'cbt-task/create', { params: { name: 'a', taskType: 'VM', resourceUuids: ['not-a-uuid'] } });
    await rejected('POST', 'cbt-task/create', { body: { params: { name: 'a', taskType: 'VM', resourceUuids: vm.uuid } } });
    expect(hasTask(vm)).toBe(false);
  });
});

describe('EnableCbtTask, DisableCbtTask and DeleteCbtTask', () => {
  it('enable gives Running with volumeCbtBackupInfos; disable gives Stopped', async () => {
    const vm = vmWhere((candidate) => !hasTask(candidate) && volumesOf(candidate).length > 1, 'VM with data volumes and no task');
    const task = await createTask(vm);
    const enabled = await succeed('POST', `cbt-task/enable/${String(task.uuid)}`, { params: { bitmapName: 'bm-1' } });
    expect(inventoryOf(enabled)).toMatchObject({ uuid: task.uuid, status: 'Running' });
    const infos = enabled.body.volumeCbtBackupInfos as Json[];
    expect(infos.map((info) => info.volumeUuid).sort()).toEqual(volumesOf(vm).map((volume) => volume.uuid).sort());
    for (const info of infos) expect(info).toMatchObject({ bitmapName: 'bm-1', installPath: expect.any(String), volumeName: expect.any(String) });
    expect((await inventories(`cbt-task/${String(task.uuid)}`))[0]?.status).toBe('Running');

    const disabled = inventoryOf(await succeed('POST', `cbt-task/disable/${String(task.uuid)}`, { params: { force: false } }));
    expect(disabled).toMatchObject({ uuid: task.uuid, name: task.name, status: 'Stopped' });
    expect((await inventories(`cbt-task/${String(task.uuid)}`))[0]).toEqual(disabled);
  });

  it('beginWrite shows an enabling task as Starting while its job runs', async () => {
    const vm = vmWhere((candidate) => !hasTask(candidate), 'VM without a task');
    const task = await createTask(vm);
    const uuid = String(task.uuid);
    const tenant = sim.store.tenants[0];
    if (tenant === undefined) throw new Error('no tenant');
    beginWrite({ operation: 'EnableCbtTask', params: { uuid }, body: {}, query: new URLSearchParams(), tenant }, sim.store);
    expect((await inventories(`cbt-task/${uuid}`))[0]?.status).toBe('Starting');
    await succeed('POST', `cbt-task/enable/${uuid}`, { params: {} });
    expect((await inventories(`cbt-task/${uuid}`))[0]?.status).toBe('Running');
  });

  it("enabling the task of a destroyed VM fails with VM.1010 and leaves the task Failed", async () => {
    const vm = vmWhere((candidate) => !hasTask(candidate), 'VM without a task');
    const task = await createTask(vm);
    await succeed('DELETE', `vm-instances/${vm.uuid}`);
    const error = await failWith('SYS.1006', 'POST', `cbt-task/enable/${String(task.uuid)}`, { params: {} });
    expect(error.cause).toMatchObject({ code: 'VM.1010' });
    expect((await inventories(`cbt-task/${String(task.uuid)}`))[0]?.status).toBe('Failed');
  });

  it('delete answers {} and the task is gone; a Running task needs force or Enforcing', async () => {
    const vm = vmWhere((candidate) => !hasTask(candidate), 'VM without a task');
    const task = await createTask(vm);
    const uuid = String(task.uuid);
    await succeed('POST', `cbt-task/enable/${uuid}`, { params: {} });
    const error = await failWith('SYS.1006', 'DELETE', `cbt-task/${uuid}`);
    expect(error.details).toMatch(/Running/);
    await failWith('SYS.1007', 'DELETE', `cbt-task/${uuid}?deleteMode=Sometimes`);
    expect(await inventories(`cbt-task/${uuid}`)).toHaveLength(1);
    const done = await succeed('DELETE', `cbt-task/${uuid}?deleteMode=Enforcing`);
    expect(done.body).toEqual({});
    expect(await inventories(`cbt-task/${uuid}`)).toEqual([]);

    const other = await createTask(vmWhere((candidate) => !hasTask(candidate), 'another VM without a task'));
    await succeed('POST', `cbt-task/enable/${String(other.uuid)}`, { params: {} });
    expect((await succeed('DELETE', `cbt-task/${String(other.uuid)}`, { params: { force: true } })).body).toEqual({});
    expect(await inventories(`cbt-task/${String(other.uuid)}`)).toEqual([]);
  });

  it('rejects wrongly typed parameters with 400', async () => {
    const vm = vmWhere((candidate) => !hasTask(candidate), 'VM without a task');
    const task = await createTask(vm);
    await rejected('POST', `cbt-task/disable/${String(task.uuid)}`, { body: { params: { force: 'yes' } } });
    await rejected('POST', `cbt-task/enable/${String(task.uuid)}`, { body: { params: { bitmapName: 7 } } });
    await rejected('DELETE', `cbt-task/${String(task.uuid)}`, { body: { force: 'yes' } });
    expect((await inventories(`cbt-task/${String(task.uuid)}`))[0]?.status).toBe('Created');
  });
});

describe('ExportNbdVolumes', () => {
  it('exports a stopped VM\'s volumes once, again only with force', async () => {
    const vm = vmWhere((candidate) => candidate.state === 'Stopped' && !hasTask(candidate), 'stopped VM without a task');
    await createTask(vm);
    const volumeUuids = volumesOf(vm).map((volume) => volume.uuid);
    const done = await succeed('POST', 'cbt-task/exportvolume', { params: { vmInstanceUuid: vm.uuid, volumeUuids } });
    const infos = done.body.volumeInfos as Json[];
    expect(Object.keys(done.body)).toEqual(['volumeInfos']);
    expect(infos).toHaveLength(volumeUuids.length);
    const host = sim.store.hosts.get(tenantId(), vm.lastHostUuid ?? '');
    infos.forEach((info, index) => {
      expect(info).toMatchObject({
        volume: { uuid: volumeUuids[index], vmInstanceUuid: vm.uuid },
        nbdServer: host?.managementIp,
        nbdPort: 10809 + index,
        mode: 'full',
        bitmapName: expect.any(String),
        target: expect.any(String),
      });
      expect(Buffer.from(String(info.bitmapBase64), 'base64').length).toBeGreaterThan(0);
    });
    const error = await failWith('SYS.1006', 'POST', 'cbt-task/exportvolume', { params: { vmInstanceUuid: vm.uuid, volumeUuids } });
    expect(error.details).toMatch(/already exported/);
    await succeed('POST', 'cbt-task/exportvolume', { params: { vmInstanceUuid: vm.uuid, volumeUuids, force: true } });
  });

  it('fails while the VM is Running (VM.1010), without a task (SYS.1006), without volumes (SYS.1007)', async () => {
    const running = vmWhere((candidate) => candidate.state === 'Running' && !hasTask(candidate), 'running VM without a task');
    await createTask(running);
    const volumeUuids = [running.rootVolumeUuid];
    const error = await failWith('SYS.1006', 'POST', 'cbt-task/exportvolume', { params: { vmInstanceUuid: running.uuid, volumeUuids } });
    expect(error.cause).toMatchObject({ code: 'VM.1010' });
    const stopped = vmWhere((candidate) => candidate.state === 'Stopped' && !hasTask(candidate), 'stopped VM without a task');
    await failWith('SYS.1006', 'POST', 'cbt-task/exportvolume', { params: { vmInstanceUuid: stopped.uuid, volumeUuids: [stopped.rootVolumeUuid] } });
    await failWith('SYS.1007', 'POST', 'cbt-task/exportvolume', { params: { vmInstanceUuid: stopped.uuid } });
    await failWith('SYS.1007', 'POST', 'cbt-task/exportvolume', { params: { vmInstanceUuid: stopped.uuid, volumeUuids: [running.rootVolumeUuid] } });
  });
});

// ---------------------------------------------------------------------------------------------
// Volume snapshot groups

describe('CreateVolumeSnapshotGroup', () => {
  it('snapshots every volume of the VM; the group reads back identically, snapshotCount as N.0', async () => {
    const vm = vmWhere((candidate) => candidate.state !== 'Destroyed' && volumesOf(candidate).length > 1, 'VM with data volumes');
    const volumes = volumesOf(vm);
    const done = await succeed('POST', 'volume-snapshots/group', { params: { rootVolumeUuid: vm.rootVolumeUuid, name: 'before-upgrade', description: 'd' } });
    const inventory = inventoryOf(done);
    expect(inventory).toMatchObject({ name: 'before-upgrade', description: 'd', vmInstanceUuid: vm.uuid, snapshotCount: volumes.length });
    expect(done.text).toContain(`"snapshotCount":${volumes.length}.0`);
    const refs = inventory.volumeSnapshotRefs as Json[];
    expect(refs.map((ref) => ref.volumeUuid)).toEqual(volumes.map((volume) => volume.uuid));
    for (const ref of refs) {
      expect(ref).toMatchObject({ volumeSnapshotGroupUuid: inventory.uuid, snapshotDeleted: false, volumeSnapshotUuid: expect.stringMatching(UUID) });
      expect(ref.createDate).toMatch(TIMESTAMP);
    }
    expect(refs[0]).toMatchObject({ volumeType: 'Root', deviceId: 0 });
    expect(await inventories(`volume-snapshots/group/${String(inventory.uuid)}`)).toEqual([inventory]);
  });

  it('rejects a data volume as root and a missing name (SYS.1007)', async () => {
    const vm = vmWhere((candidate) => volumesOf(candidate).length > 1, 'VM with data volumes');
    const data = volumesOf(vm)[1] as Volume;
    await failWith('SYS.1007', 'POST', 'volume-snapshots/group', { params: { rootVolumeUuid: data.uuid, name: 'x' } });
    await failWith('SYS.1007', 'POST', 'volume-snapshots/group', { params: { rootVolumeUuid: vm.rootVolumeUuid } });
  });
});

describe('DeleteVolumeSnapshotGroup', () => {
  it('answers one result per snapshot, SYS.1001 for one already deleted, and removes the group', async () => {
    const group = pick(sim.store.snapshotGroups.list(tenantId()), (candidate) => candidate.volumeSnapshotRefs.length > 1, 'group with 2+ refs');
    group.volumeSnapshotRefs.forEach((ref, index) => {
      ref.snapshotDeleted = index === 1;
    });
    const done = await succeed('DELETE', `volume-snapshots/group/${group.uuid}?deleteMode=Permissive`);
    expect(done.body.success).toBe(true);
    const results = done.body.results as Json[];
    expect(results).toHaveLength(group.volumeSnapshotRefs.length);
    results.forEach((result, index) => {
      const ref = group.volumeSnapshotRefs[index];
      expect(result).toMatchObject({ snapshotUuid: ref?.volumeSnapshotUuid, volumeUuid: ref?.volumeUuid, success: index !== 1 });
      if (index === 1) expect(result.error).toMatchObject({ code: 'SYS.1001' });
      else expect(result.error).toBeUndefined();
    });
    expect(await inventories(`volume-snapshots/group/${group.uuid}`)).toEqual([]);
  });

  it('rejects an unknown deleteMode (SYS.1007) and keeps the group', async () => {
    const group = pick(sim.store.snapshotGroups.list(tenantId()), () => true, 'group');
    await failWith('SYS.1007', 'DELETE', `volume-snapshots/group/${group.uuid}?deleteMode=Later`);
    expect(await inventories(`volume-snapshots/group/${group.uuid}`)).toHaveLength(1);
  });
});

describe('UpdateVolumeSnapshotGroup', () => {
  it('renames the group', async () => {
    const group = pick(sim.store.snapshotGroups.list(tenantId()), () => true, 'group');
    const inventory = inventoryOf(
      await succeed('PUT', `volume-snapshots/group/${group.uuid}/actions`, { updateVolumeSnapshotGroup: { name: 'renamed', description: 'new' } }),
    );
    expect(inventory).toMatchObject({ uuid: group.uuid, name: 'renamed', description: 'new', vmInstanceUuid: group.vmInstanceUuid });
    expect(await inventories(`volume-snapshots/group/${group.uuid}`)).toEqual([inventory]);
  });

  it('rejects an empty name (SYS.1007) and a non-string (400)', async () => {
    const group = pick(sim.store.snapshotGroups.list(tenantId()), () => true, 'group');
    await failWith('SYS.1007', 'PUT', `volume-snapshots/group/${group.uuid}/actions`, { updateVolumeSnapshotGroup: { name: ' ' } });
    await rejected('PUT', `volume-snapshots/group/${group.uuid}/actions`, { body: { updateVolumeSnapshotGroup: { name: ['x'] } } });
    expect((await inventories(`volume-snapshots/group/${group.uuid}`))[0]?.name).toBe(group.name);
  });
});

// ---------------------------------------------------------------------------------------------
// VM instances

describe('PrimaryStorageMigrateVm', () => {
  function migratable(): { vm: VmInstance; root: Volume; destination: string } {
    for (const vm of sim.store.vms.list(tenantId())) {
      if (vm.state !== 'Stopped') continue;
      const root = sim.store.volumes.get(tenantId(), vm.rootVolumeUuid) as Volume;
      const destination = [...sim.store.primaryStorages.list(tenantId())].find(
        (storage) => storage.zoneUuid === vm.zoneUuid && storage.uuid !== root.primaryStorageUuid,
      );
      if (destination !== undefined) return { vm, root, destination: destination.uuid };
    }
    throw new Error('the estate has no stopped VM with another primary storage in its zone');
  }

  async function capacity(uuid: string): Promise<number> {
    const answer = await api('GET', `primary-storage/capacities?primaryStorageUuids=${uuid}`);
    return (JSON.parse(answer.text) as { availableCapacity: number }).availableCapacity;
  }

  it('moves the root volume to the destination storage and accounts its capacity', async () => {
    const { vm, root, destination } = migratable();
    const freeBefore = await capacity(destination);
    const inventory = inventoryOf(
      await succeed('PUT', `vm-instances/${vm.uuid}/actions`, { primaryStorageMigrateVm: { dstPrimaryStorageUuid: destination, bandwidth: 100 } }),
    );
    expect(inventory).toMatchObject({ uuid: vm.uuid, state: 'Stopped' });
    const rootItem = (inventory.allVolumes as Json[]).find((volume) => volume.uuid === root.uuid);
    expect(rootItem?.primaryStorageUuid).toBe(destination);
    expect((await cursorItem('volume', root.uuid))?.primaryStorageUuid).toBe(destination);
    expect(await cursorItem('vm', vm.uuid)).toEqual(inventory);
    expect(await capacity(destination)).toBe(freeBefore - root.actualSize);
  });

  it('needs a Stopped VM (VM.1010), a destination (SYS.1007) and typed parameters (400)', async () => {
    const running = vmWhere((candidate) => candidate.state === 'Running', 'running VM');
    const destination = pick(sim.store.primaryStorages.list(tenantId()), (storage) => storage.zoneUuid === running.zoneUuid && storage.uuid !== sim.store.volumes.get(tenantId(), running.rootVolumeUuid)?.primaryStorageUuid, 'other storage');
    const error = await failWith('SYS.1006', 'PUT', `vm-instances/${running.uuid}/actions`, { primaryStorageMigrateVm: { dstPrimaryStorageUuid: destination.uuid } });
    expect(error.cause).toMatchObject({ code: 'VM.1010' });
    const { vm } = migratable();
    await failWith('SYS.1007', 'PUT', `vm-instances/${vm.uuid}/actions`, { primaryStorageMigrateVm: {} });
    await rejected('PUT', `vm-instances/${vm.uuid}/actions`, { body: { primaryStorageMigrateVm: { dstPrimaryStorageUuid: destination.uuid, bandwidth: 'fast' } } });
  });
});

describe('SetVmBootVolume', () => {
  it('makes the volume device 0 and first in allVolumes', async () => {
    const vm = vmWhere((candidate) => candidate.state !== 'Destroyed' && volumesOf(candidate).length > 1, 'VM with data volumes');
    const [root, data] = volumesOf(vm) as [Volume, Volume];
    const dataDevice = data.deviceId;
    const inventory = inventoryOf(await succeed('PUT', `vm-instances/${vm.uuid}/actions`, { setVmBootVolume: { volumeUuid: data.uuid } }));
    const volumes = inventory.allVolumes as Json[];
    expect(volumes[0]).toMatchObject({ uuid: data.uuid, deviceId: 0 });
    expect(volumes.find((volume) => volume.uuid === root.uuid)?.deviceId).toBe(dataDevice);
    expect(inventory.rootVolumeUuid).toBe(root.uuid);
    const read = await cursorItem('vm', vm.uuid);
    expect((read?.allVolumes as Json[])[0]?.uuid).toBe(data.uuid);
  });

  it("rejects another VM's volume and a missing volumeUuid (SYS.1007)", async () => {
    const [vm, other] = [...sim.store.vms.list(tenantId())] as [VmInstance, VmInstance];
    await failWith('SYS.1007', 'PUT', `vm-instances/${vm.uuid}/actions`, { setVmBootVolume: { volumeUuid: other.rootVolumeUuid } });
    await failWith('SYS.1007', 'PUT', `vm-instances/${vm.uuid}/actions`, { setVmBootVolume: {} });
  });
});

describe('DestroyVmInstance and RecoverVmInstance', () => {
  it('destroy leaves the VM Destroyed and queryable; recover makes it Stopped', async () => {
    const vm = vmWhere((candidate) => candidate.state === 'Running', 'running VM');
    const destroyed = await succeed('DELETE', `vm-instances/${vm.uuid}`, { deleteMode: 'Permissive' });
    expect(destroyed.body).toEqual({});
    const gone = await cursorItem('vm', vm.uuid);
    expect(gone).toMatchObject({ uuid: vm.uuid, state: 'Destroyed', lastHostUuid: expect.stringMatching(UUID) });
    expect(gone?.hostUuid).toBeUndefined();
    const recovered = inventoryOf(await succeed('PUT', `vm-instances/${vm.uuid}/actions`, { recoverVmInstance: {} }));
    expect(recovered).toMatchObject({ uuid: vm.uuid, state: 'Stopped', name: vm.name });
    expect(recovered.lastOpDate).toMatch(TIMESTAMP);
    expect(await cursorItem('vm', vm.uuid)).toEqual(recovered);
  });

  it('recovering a VM that is not Destroyed fails with SYS.1006 caused by VM.1010', async () => {
    const vm = vmWhere((candidate) => candidate.state === 'Running', 'running VM');
    const error = await failWith('SYS.1006', 'PUT', `vm-instances/${vm.uuid}/actions`, { recoverVmInstance: {} });
    expect(error.cause).toMatchObject({ code: 'VM.1010' });
    expect(String((error.cause as Json).details)).toContain('Running');
    expect((await cursorItem('vm', vm.uuid))?.state).toBe('Running');
  });

  it('rejects an unknown deleteMode (SYS.1007) and a non-object action (400)', async () => {
    const vm = vmWhere((candidate) => candidate.state === 'Running', 'running VM');
    await failWith('SYS.1007', 'DELETE', `vm-instances/${vm.uuid}?deleteMode=Gently`);
    await rejected('PUT', `vm-instances/${vm.uuid}/actions`, { body: { recoverVmInstance: 'now' } });
    expect((await cursorItem('vm', vm.uuid))?.state).toBe('Running');
  });
});

describe('UpdateVmNicDriver', () => {
  it('changes the driver and answers the VmNicInventory', async () => {
    const vm = vmWhere((candidate) => candidate.state !== 'Destroyed' && candidate.vmNics.length > 0, 'VM with a NIC');
    const nic = vm.vmNics[0];
    if (nic === undefined) throw new Error('no NIC');
    const driverType = nic.driverType === 'e1000' ? 'rtl8139' : 'e1000';
    const done = await succeed('PUT', `vm-instances/${vm.uuid}/actions`, { updateVmNicDriver: { vmNicUuid: nic.uuid, driverType } });
    const inventory = inventoryOf(done);
    expect(inventory).toMatchObject({ uuid: nic.uuid, vmInstanceUuid: vm.uuid, l3NetworkUuid: nic.l3NetworkUuid, ip: nic.ip, driverType });
    expect(inventory.usedIps).toEqual([expect.objectContaining({ vmNicUuid: nic.uuid, ip: nic.ip })]);
    const read = await cursorItem('vm', vm.uuid);
    expect((read?.vmNics as Json[]).find((item) => item.uuid === nic.uuid)).toEqual(inventory);
  });

  it("rejects an unknown driverType (SYS.1007) and another VM's NIC (SYS.1007)", async () => {
    const [vm, other] = [...sim.store.vms.list(tenantId())].filter((candidate) => candidate.vmNics.length > 0) as [VmInstance, VmInstance];
    const nic = vm.vmNics[0]?.uuid;
    const error = await failWith('SYS.1007', 'PUT', `vm-instances/${vm.uuid}/actions`, { updateVmNicDriver: { vmNicUuid: nic, driverType: 'ne2k' } });
    expect(error.details).toContain('virtio');
    await failWith('SYS.1007', 'PUT', `vm-instances/${other.uuid}/actions`, { updateVmNicDriver: { vmNicUuid: nic, driverType: 'virtio' } });
    await failWith('SYS.1007', 'PUT', `vm-instances/${vm.uuid}/actions`, { updateVmNicDriver: { vmNicUuid: nic } });
  });
});

describe('CreateVmInstanceFromVolumeSnapshotGroup', () => {
  it('creates a stopped VM on the given network with volumes from the refs (CreateStopped)', async () => {
    const group = pick(sim.store.snapshotGroups.list(tenantId()), (candidate) => candidate.volumeSnapshotRefs.length > 1, 'group with 2+ refs');
    group.volumeSnapshotRefs.forEach((ref) => {
      ref.snapshotDeleted = false;
    });
    const source = sim.store.vms.get(tenantId(), group.vmInstanceUuid) as VmInstance;
    const l3 = pick(sim.store.l3Networks.by('zoneUuid', source.zoneUuid, tenantId()), () => true, 'l3 network');
    const done = await succeed('POST', `vm-instances/from/volume-snapshots/group/${group.uuid}`, {
      params: { name: 'restored', description: 'from group', strategy: 'CreateStopped', l3NetworkUuids: [l3.uuid], cpuNum: 2, memorySize: 2 * 1024 ** 3 },
    });
    const inventory = inventoryOf(done);
    expect(inventory).toMatchObject({
      name: 'restored',
      description: 'from group',
      state: 'Stopped',
      zoneUuid: source.zoneUuid,
      cpuNum: 2,
      memorySize: 2 * 1024 ** 3,
      type: 'UserVm',
      defaultL3NetworkUuid: l3.uuid,
    });
    expect(inventory.uuid).toMatch(UUID);
    expect(inventory.uuid).not.toBe(source.uuid);
    expect(inventory.hostUuid).toBeUndefined();
    const nics = inventory.vmNics as Json[];
    expect(nics).toHaveLength(1);
    expect(nics[0]).toMatchObject({ l3NetworkUuid: l3.uuid, vmInstanceUuid: inventory.uuid, deviceId: 0, driverType: 'virtio' });
    const volumes = inventory.allVolumes as Json[];
    expect(volumes).toHaveLength(group.volumeSnapshotRefs.length);
    expect(volumes[0]).toMatchObject({ uuid: inventory.rootVolumeUuid, type: 'Root', deviceId: 0, vmInstanceUuid: inventory.uuid });
    expect(volumes.slice(1).every((volume) => volume.type === 'Data')).toBe(true);
    expect(await cursorItem('vm', String(inventory.uuid))).toEqual(inventory);
  });

  it('starts the VM on a host by default (InstantStart) with unique addresses', async () => {
    const group = pick(sim.store.snapshotGroups.list(tenantId()), () => true, 'group');
    const first = inventoryOf(await succeed('POST', `vm-instances/from/volume-snapshots/group/${group.uuid}`, { params: { name: 'one' } }));
    const second = inventoryOf(await succeed('POST', `vm-instances/from/volume-snapshots/group/${group.uuid}`, { params: { name: 'two' } }));
    for (const vm of [first, second]) {
      expect(vm).toMatchObject({ state: 'Running', hostUuid: expect.stringMatching(UUID) });
      expect((await cursorItem('vm', String(vm.uuid)))?.state).toBe('Running');
    }
    const ips = [first, second].flatMap((vm) => (vm.vmNics as Json[]).map((nic) => nic.ip));
    expect(new Set(ips).size).toBe(ips.length);
  });

  it('rejects an unknown strategy or type and a missing name (SYS.1007)', async () => {
    const group = pick(sim.store.snapshotGroups.list(tenantId()), () => true, 'group');
    const path = `vm-instances/from/volume-snapshots/group/${group.uuid}`;
    await failWith('SYS.1007', 'POST', path, { params: { name: 'x', strategy: 'Later' } });
    await failWith('SYS.1007', 'POST', path, { params: { name: 'x', type: 'Container' } });
    await failWith('SYS.1007', 'POST', path, { params: {} });
    await rejected('POST', path, { body: { params: { name: 'x', cpuNum: 'two' } } });
  });
});

describe('DetachL3NetworkFromVm', () => {
  it('removes the NIC from its VM and answers the VM', async () => {
    const vm = vmWhere((candidate) => candidate.state !== 'Destroyed' && candidate.vmNics.length > 1, 'VM with two NICs');
    const [kept, detached] = vm.vmNics as [VmNic, VmNic, ...VmNic[]];
    const inventory = inventoryOf(await succeed('DELETE', `vm-instances/nics/${detached.uuid}`));
    expect(inventory.uuid).toBe(vm.uuid);
    expect((inventory.vmNics as Json[]).map((nic) => nic.uuid)).toEqual([kept.uuid]);
    expect(((await cursorItem('vm', vm.uuid))?.vmNics as Json[]).map((nic) => nic.uuid)).toEqual([kept.uuid]);
    await failWith('SYS.1003', 'DELETE', `vm-instances/nics/${detached.uuid}`);
  });

  it('rejects a malformed NIC uuid (SYS.1007)', async () => {
    await failWith('SYS.1007', 'DELETE', 'vm-instances/nics/not-a-uuid');
  });
});

describe('DeleteVmSshKey', () => {
  it('clears the key and answers the VM', async () => {
    const vm = vmWhere((candidate) => candidate.state !== 'Destroyed' && candidate.sshKey !== null, 'VM with an SSH key');
    const before = await cursorItem('vm', vm.uuid);
    const inventory = inventoryOf(await succeed('DELETE', `vm-instances/${vm.uuid}/ssh-keys`));
    expect(inventory).toMatchObject({ uuid: vm.uuid, state: vm.state, name: vm.name });
    expect(inventory).not.toHaveProperty('sshKey');
    expect(sim.store.vms.get(tenantId(), vm.uuid)?.sshKey).toBeNull();
    const after = await cursorItem('vm', vm.uuid);
    expect(after).toEqual(inventory);
    expect(after?.lastOpDate).not.toBe(before?.lastOpDate);
  });

  it('rejects a malformed uuid (SYS.1007)', async () => {
    await failWith('SYS.1007', 'DELETE', 'vm-instances/xyz/ssh-keys');
  });
});

describe('VM writes are tenant-scoped', () => {
  const vmCalls: Record<string, (vm: VmInstance, store: Simulator['store']) => WriteCall> = {
    PrimaryStorageMigrateVm: (vm, store) => ({ method: 'PUT', path: `vm-instances/${vm.uuid}/actions`, body: { primaryStorageMigrateVm: { dstPrimaryStorageUuid: [...store.primaryStorages.list(vm.tenantId)][0]?.uuid } } }),
    SetVmBootVolume: (vm) => ({ method: 'PUT', path: `vm-instances/${vm.uuid}/actions`, body: { setVmBootVolume: { volumeUuid: vm.rootVolumeUuid } } }),
    RecoverVmInstance: (vm) => ({ method: 'PUT', path: `vm-instances/${vm.uuid}/actions`, body: { recoverVmInstance: {} } }),
    UpdateVmNicDriver: (vm) => ({ method: 'PUT', path: `vm-instances/${vm.uuid}/actions`, body: { updateVmNicDriver: { vmNicUuid: vm.vmNics[0]?.uuid, driverType: 'e1000' } } }),
    DetachL3NetworkFromVm: (vm) => ({ method: 'DELETE', path: `vm-instances/nics/${vm.vmNics[0]?.uuid ?? ''}` }),
    DeleteVmSshKey: (vm) => ({ method: 'DELETE', path: `vm-instances/${vm.uuid}/ssh-keys` }),
    DestroyVmInstance: (vm) => ({ method: 'DELETE', path: `vm-instances/${vm.uuid}` }),
    CreateVmInstanceFromVolumeSnapshotGroup: (vm, store) => ({
      method: 'POST',
      path: `vm-instances/from/volume-snapshots/group/${store.snapshotGroups.by('vmInstanceUuid', vm.uuid, vm.tenantId)[0]?.uuid ?? UNKNOWN}`,
      body: { params: { name: 'stolen' } },
    }),
  };

  it.each(Object.entries(vmCalls))("%s: the second tenant cannot touch the first tenant's VM", async (_name, call) => {
    const vm = vmWhere(
      (candidate) => candidate.state === 'Running' && candidate.vmNics.length > 0 && sim.store.snapshotGroups.by('vmInstanceUuid', candidate.uuid, tenantId()).length > 0,
      'running VM with a NIC and a snapshot group',
    );
    const before = await cursorItem('vm', vm.uuid);
    const vmCount = sim.store.vms.count(sim.credentials.second.tenantId);
    const { method, path, body } = call(vm, sim.store);
    await failWith('SYS.1003', method, path, body, sim.credentials.second.session);
    expect(await cursorItem('vm', vm.uuid)).toEqual(before);
    expect(await cursorItem('vm', vm.uuid, sim.credentials.second.token)).toBeUndefined();
    expect(sim.store.vms.count(sim.credentials.second.tenantId)).toBe(vmCount);
  });

  it("the owner's write succeeds where the other tenant's failed", async () => {
    const vm = vmWhere((candidate) => candidate.state === 'Running', 'running VM');
    await failWith('SYS.1003', 'DELETE', `vm-instances/${vm.uuid}`, undefined, sim.credentials.second.session);
    await succeed('DELETE', `vm-instances/${vm.uuid}`);
    expect((await cursorItem('vm', vm.uuid))?.state).toBe('Destroyed');
  });
});

// ---------------------------------------------------------------------------------------------
// Directories and notifications

describe('DeleteDirectory', () => {
  it('deletes a leaf directory named in the body or in the query string', async () => {
    const leaves = [...sim.store.directories.list(tenantId())].filter((directory) => directory.parentUuid !== null);
    const [first, second] = leaves as [Directory, Directory, ...Directory[]];
    expect((await succeed('DELETE', 'delete/directory', { params: { uuid: first.uuid } })).body).toEqual({});
    expect(await cursorItem('directory', first.uuid)).toBeUndefined();
    expect((await succeed('DELETE', `delete/directory?uuid=${second.uuid}&deleteMode=Permissive`)).body).toEqual({});
    expect(await cursorItem('directory', second.uuid)).toBeUndefined();
  });

  it('deletes a directory with children only with deleteMode=Enforcing', async () => {
    const root = pick(sim.store.directories.list(tenantId()), (directory) => directory.parentUuid === null, 'root directory');
    const children = sim.store.directories.by('parentUuid', root.uuid, tenantId());
    expect(children.length).toBeGreaterThan(0);
    await failWith('SYS.1006', 'DELETE', 'delete/directory', { uuid: root.uuid });
    expect(await cursorItem('directory', root.uuid)).toBeDefined();
    await succeed('DELETE', 'delete/directory', { uuid: root.uuid, deleteMode: 'Enforcing' });
    for (const directory of [root, ...children]) expect(await cursorItem('directory', directory.uuid)).toBeUndefined();
  });

  it('rejects a missing uuid and an unknown deleteMode (SYS.1007)', async () => {
    const leaf = pick(sim.store.directories.list(tenantId()), (directory) => directory.parentUuid !== null, 'leaf directory');
    await failWith('SYS.1007', 'DELETE', 'delete/directory', { params: {} });
    await failWith('SYS.1007', 'DELETE', 'delete/directory', { params: { uuid: leaf.uuid, deleteMode: 'Soft' } });
    expect(await cursorItem('directory', leaf.uuid)).toBeDefined();
  });
});

describe('ChangeSNSApplicationPlatformState', () => {
  it('disable gives Disabled, enable gives Enabled', async () => {
    const platform = pick(sim.store.snsPlatforms.list(tenantId()), () => true, 'SNS platform');
    const path = `sns/application-platforms/${platform.uuid}/actions`;
    const disabled = inventoryOf(await succeed('PUT', path, { changeSNSApplicationPlatformState: { stateEvent: 'disable' } }));
    expect(disabled).toMatchObject({ uuid: platform.uuid, name: platform.name, type: platform.type, state: 'Disabled' });
    expect(disabled.createDate).toMatch(TIMESTAMP);
    expect(await cursorItem('sns-application-platform', platform.uuid)).toEqual(disabled);
    const enabled = inventoryOf(await succeed('PUT', path, { changeSNSApplicationPlatformState: { stateEvent: 'enable' } }));
    expect(enabled.state).toBe('Enabled');
    expect((await cursorItem('sns-application-platform', platform.uuid))?.state).toBe('Enabled');
  });

  it('rejects an unknown stateEvent (SYS.1007)', async () => {
    const platform = pick(sim.store.snsPlatforms.list(tenantId()), () => true, 'SNS platform');
    await failWith('SYS.1007', 'PUT', `sns/application-platforms/${platform.uuid}/actions`, { changeSNSApplicationPlatformState: { stateEvent: 'toggle' } });
    await failWith('SYS.1007', 'PUT', `sns/application-platforms/${platform.uuid}/actions`, { changeSNSApplicationPlatformState: {} });
  });
});

describe('UpdateSNSHttpEndpoint', () => {
  it('updates url, username and name; the password never shows', async () => {
    const endpoint = pick(sim.store.snsEndpoints.list(tenantId()), (candidate) => candidate.type === 'HTTP', 'HTTP endpoint');
    const inventory = inventoryOf(
      await succeed('PUT', `sns/application-endpoints/http/${endpoint.uuid}/actions`, {
        updateSNSHttpEndpoint: { url: 'https://hooks.example.org/new', username: 'bot2', password: 's3cret', name: 'renamed' },
      }),
    );
    expect(inventory).toMatchObject({ uuid: endpoint.uuid, type: 'HTTP', url: 'https://hooks.example.org/new', username: 'bot2', name: 'renamed', platformUuid: endpoint.platformUuid });
    expect(JSON.stringify(inventory)).not.toContain('s3cret');
    expect(await cursorItem('sns-application-endpoint', endpoint.uuid)).toEqual(inventory);
  });

  it('rejects a non-http url (SYS.1007); an SMS endpoint is not an HTTP endpoint (SYS.1003)', async () => {
    const endpoint = pick(sim.store.snsEndpoints.list(tenantId()), (candidate) => candidate.type === 'HTTP', 'HTTP endpoint');
    await failWith('SYS.1007', 'PUT', `sns/application-endpoints/http/${endpoint.uuid}/actions`, { updateSNSHttpEndpoint: { url: 'ftp://example.org' } });
    const sms = pick(sim.store.snsEndpoints.list(tenantId()), (candidate) => candidate.type === 'SMS', 'SMS endpoint');
    await failWith('SYS.1003', 'PUT', `sns/application-endpoints/http/${sms.uuid}/actions`, { updateSNSHttpEndpoint: { name: 'x' } });
    expect((await cursorItem('sns-application-endpoint', endpoint.uuid))?.url).toBe(endpoint.url);
  });
});

describe('RemoveSNSSmsReceiver', () => {
  it('removes the receiver (phone number URL-encoded in the path)', async () => {
    const endpoint = pick(sim.store.snsEndpoints.list(tenantId()), (candidate) => candidate.type === 'SMS', 'SMS endpoint');
    const [phone, ...rest] = endpoint.receivers as [string, ...string[]];
    const done = await succeed('DELETE', `sns/sms-endpoints/${endpoint.uuid}/receivers/${encodeURIComponent(phone)}?deleteMode=Permissive`);
    expect(done.body).toEqual({});
    expect((await cursorItem('sns-application-endpoint', endpoint.uuid))?.receivers).toEqual(rest.map((phoneNumber) => ({ phoneNumber })));
    await failWith('SYS.1003', 'DELETE', `sns/sms-endpoints/${endpoint.uuid}/receivers/${encodeURIComponent(phone)}`);
  });

  it('rejects an unknown deleteMode (SYS.1007)', async () => {
    const endpoint = pick(sim.store.snsEndpoints.list(tenantId()), (candidate) => candidate.type === 'SMS', 'SMS endpoint');
    const phone = endpoint.receivers[0] ?? '';
    await failWith('SYS.1007', 'DELETE', `sns/sms-endpoints/${endpoint.uuid}/receivers/${encodeURIComponent(phone)}?deleteMode=Maybe`);
    expect(((await cursorItem('sns-application-endpoint', endpoint.uuid))?.receivers as Json[]).length).toBe(endpoint.receivers.length);
  });
});
