/**
 * The upstream client against the real simulator over HTTP: every read method decodes the
 * simulator's real answers, errors map to their codes, writes run as jobs, and retries survive
 * the simulator's injected faults. Nothing is mocked.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readable } from '../support/readable.js';
import { createSimulator, type Simulator } from '../../src/simulator/server.js';
import {
  type CursorCredential,
  type CursorPage,
  type CursorResourceType,
  type CursorResourceTypes,
  type CursorFilter,
  type InterfaceType,
  type ResourceCredential,
  type UpstreamClient,
  type UpstreamRequestError,
} from '../../src/upstream/index.js';
import {
  ChangeSNSApplicationPlatformState,
  CursorQuery,
  DeleteDirectory,
  GetHostBlockDevices,
  GetHostNetworkFacts,
  GetHostSensors,
  GetPrimaryStorageCapacity,
  GetVmAttachableDataVolume,
  RecoverVmInstance,
} from '../../src/upstream/operations/index.js';
import { createTestUpstreamClient } from '../support/upstream-client.js';

const UUID = /^[0-9a-f]{32}$/;
const INTERFACE_TYPES: ReadonlySet<InterfaceType | null> = new Set<InterfaceType | null>(['noMaster', 'bridgeSlave', 'bondingSlave', null]);

let simulator: Simulator;
let client: UpstreamClient;
let session: ResourceCredential;
let token: CursorCredential;

async function failure(promise: Promise<unknown>): Promise<UpstreamRequestError> {
  try {
    await promise;
  } catch (error) {
    return error as UpstreamRequestError;
  }
  throw new Error('expected the call to fail');
}

/** Walks a whole cursor query, page by page, as the spec says: while hasMore, follow nextCursor. */
async function walk<K extends CursorResourceType>(
  upstream: UpstreamClient,
  credential: CursorCredential,
  resourceType: K,
  pageSize: number,
  filter: CursorFilter[] = [],
): Promise<{ items: CursorResourceTypes[K][]; pages: CursorPage<CursorResourceTypes[K]>[] }> {
  const pages = [await upstream.cursorQuery(credential, { resourceType, pageSize, filter })];
  let last = pages[0];
  while (last?.hasMore && last.nextCursor !== null) {
    last = await upstream.cursorNext(credential, { resourceType, cursor: last.nextCursor, pageSize });
    pages.push(last);
  }
  return { items: pages.flatMap((page) => readable(page.items)), pages };
}

beforeAll(async () => {
  simulator = createSimulator({ seed: 7, hosts: 4, vms: 45, asyncDelayMs: 5 });
  const url = await simulator.start(0, '127.0.0.1');
  client = createTestUpstreamClient({ upstreamUrl: url, upstreamTimeoutMs: 5000, retryBaseDelayMs: 1 });
  session = { authorization: `OAuth ${simulator.credentials.session}` };
  token = { authorization: `Bearer ${simulator.credentials.token}`, tenantId: simulator.credentials.tenantId };
});

afterAll(async () => {
  await client.close();
  await simulator.stop();
});

beforeEach(() => {
  simulator.configure({ faultRate: 0, latencyMs: 0 });
  simulator.resetStats();
});

describe('the cursor family', () => {
  it('walks every VM once, in pages, with NICs, volumes and timestamps decoded', async () => {
    const { items, pages } = await walk(client, token, 'vm', 7);
    expect(pages[0]?.total).toBe(45);
    expect(items).toHaveLength(45);
    expect(new Set(items.map((vm) => vm.uuid)).size).toBe(45);
    expect(pages.length).toBe(Math.ceil(45 / 7));
    expect(pages.at(-1)).toMatchObject({ hasMore: false, nextCursor: null });
    for (const vm of items) {
      expect(vm.uuid).toMatch(UUID);
      // An instant (epoch milliseconds) in this century.
      expect(vm.createDate).toBeGreaterThan(Date.UTC(2000, 0, 1));
      expect(vm.createDate).toBeLessThan(Date.UTC(2100, 0, 1));
      expect(Number.isInteger(vm.cpuNum)).toBe(true);
      expect(['Running', 'Stopped', 'Destroyed']).toContain(vm.state);
      for (const nic of readable(vm.vmNics)) expect(nic.vmInstanceUuid).toBe(vm.uuid);
      if (vm.rootVolumeUuid !== null && vm.state !== 'Destroyed') expect(vm.allVolumes.map((volume) => volume.uuid)).toContain(vm.rootVolumeUuid);
    }
    // Counted by the spec's operation names: one CursorQuery, then one CursorNext per further page.
    expect(simulator.stats().byOperation).toMatchObject({ CursorQuery: 1, CursorNext: pages.length - 1 });
  });

  it('applies filters in the filter=<field>:<op>:<value> encoding', async () => {
    const all = (await walk(client, token, 'vm', 1000)).items;
    const running = (await walk(client, token, 'vm', 1000, [{ field: 'state', op: 'eq', value: 'Running' }])).items;
    expect(running.length).toBeGreaterThan(0);
    expect(running.every((vm) => vm.state === 'Running')).toBe(true);
    expect(running.length).toBe(all.filter((vm) => vm.state === 'Running').length);

    const chosen = all.slice(3, 6).map((vm) => vm.uuid);
    const page = await client.cursorQuery(token, { resourceType: 'vm', pageSize: 10, filter: [{ field: 'uuid', op: 'in', value: chosen }] });
    expect(page.items.map((vm) => vm.uuid).sort()).toEqual([...chosen].sort());
    expect(page.total).toBe(3);

    const named = all[0]?.name ?? '';
    const like = await client.cursorQuery(token, { resourceType: 'vm', pageSize: 1000, filter: [{ field: 'name', op: 'like', value: `${named.slice(0, 3)}%` }] });
    expect(like.items.every((vm) => vm.name?.startsWith(named.slice(0, 3)))).toBe(true);
    expect(like.items.map((vm) => vm.uuid)).toContain(all[0]?.uuid);
  });

  it('sorts descending by the field asked for', async () => {
    const page = await client.cursorQuery(token, { resourceType: 'vm', pageSize: 1000, sort: 'createDate', order: 'desc' });
    const times = readable(page.items).map((vm) => vm.createDate ?? 0);
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('decodes hosts, volumes, SNS platforms and endpoints, and directories', async () => {
    const hosts = (await walk(client, token, 'host', 1000)).items;
    expect(hosts).toHaveLength(4);
    for (const host of hosts) {
      expect(host.uuid).toMatch(UUID);
      expect(['Normal', 'Error', 'Unknown']).toContain(host.cpuStatus);
      expect(Number.isInteger(host.totalMemoryCapacity)).toBe(true);
    }
    const volumes = (await walk(client, token, 'volume', 1000)).items;
    expect(volumes.length).toBeGreaterThan(0);
    expect(volumes.every((volume) => volume.uuid.match(UUID) && Number.isInteger(volume.size))).toBe(true);

    const platforms = (await walk(client, token, 'sns-application-platform', 1000)).items;
    expect(platforms.length).toBeGreaterThan(0);
    const endpoints = (await walk(client, token, 'sns-application-endpoint', 1000)).items;
    expect(new Set(endpoints.map((endpoint) => endpoint.type))).toEqual(new Set(['HTTP', 'Email', 'SMS']));
    for (const endpoint of endpoints) {
      if (endpoint.type === 'SMS') {
        expect(endpoint.receivers.length).toBeGreaterThan(0);
        expect(readable(endpoint.receivers).every((receiver) => typeof receiver.phoneNumber === 'string' && receiver.phoneNumber.length > 0)).toBe(true);
      }
      if (endpoint.type === 'HTTP') expect(endpoint.url).toMatch(/^https?:\/\//);
    }
    const directories = (await walk(client, token, 'directory', 1000)).items;
    expect(directories.length).toBeGreaterThan(0);
    expect(directories.every((directory) => directory.uuid.match(UUID) && typeof directory.createDate === 'number')).toBe(true);
  });

  it('maps a bad token to UNAUTHENTICATED, a foreign tenant to FORBIDDEN, and a bad cursor or page size to a bad request', async () => {
    const unknown = await failure(client.cursorQuery({ authorization: 'Bearer nope' }, { resourceType: 'vm' }));
    expect(unknown).toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });
    expect(unknown.errorCode?.code).toBe('ID.1001');
    const foreign = await failure(
      client.cursorQuery({ authorization: token.authorization, tenantId: simulator.credentials.second.tenantId }, { resourceType: 'vm' }),
    );
    expect(foreign).toMatchObject({ code: 'FORBIDDEN', status: 403 });
    expect((await failure(client.cursorNext(token, { resourceType: 'vm', cursor: 'tampered' }))).code).toBe('UPSTREAM_BAD_REQUEST');
    expect((await failure(client.cursorQuery(token, { resourceType: 'vm', pageSize: 5000 }))).code).toBe('UPSTREAM_BAD_REQUEST');
    expect((await failure(client.cursorQuery(token, { resourceType: 'vm', filter: [{ field: 'colour', op: 'eq', value: 'red' }] }))).code).toBe(
      'UPSTREAM_BAD_REQUEST',
    );
  });

  it('uses the token’s own tenant when no X-Tenant-ID is sent, and never shows another tenant’s records', async () => {
    const mine = (await walk(client, { authorization: token.authorization }, 'host', 1000)).items.map((host) => host.uuid);
    const second = simulator.credentials.second;
    const theirs = (await walk(client, { authorization: `Bearer ${second.token}`, tenantId: second.tenantId }, 'host', 1000)).items.map(
      (host) => host.uuid,
    );
    expect(mine).toHaveLength(4);
    expect(theirs.length).toBeGreaterThanOrEqual(2);
    expect(mine.filter((uuid) => theirs.includes(uuid))).toEqual([]);
  });
});

describe('the resource family', () => {
  it('queries fibre-channel LUNs with a uuid ?= list and counts them', async () => {
    const all = await client.query(session, 'fiberChannelLuns', { replyWithCount: true });
    expect(all.total).toBe(all.inventories.length);
    expect(all.inventories.length).toBeGreaterThan(2);
    const chosen = readable(all.inventories).slice(0, 2).map((lun) => lun.uuid);
    const some = await client.query(session, 'fiberChannelLuns', { conditions: [{ field: 'uuid', op: '?=', value: chosen }], replyWithCount: true });
    expect(readable(some.inventories).map((lun) => lun.uuid).sort()).toEqual([...chosen].sort());
    expect(some.total).toBe(2);
    for (const lun of readable(all.inventories)) {
      expect(Number.isInteger(lun.size)).toBe(true);
      for (const ref of readable(lun.scsiLunHostRefs)) expect(ref).toMatchObject({ scsiLunUuid: lun.uuid });
    }
    expect(simulator.stats().byOperation.QueryFiberChannelLun).toBe(2);
  });

  it('pages and sorts a query with limit, start and sort', async () => {
    const sorted = await client.query(session, 'fiberChannelLuns', { sort: { field: 'name', direction: 'asc' } });
    const names = sorted.inventories.map((lun) => lun.name ?? '');
    expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    const page = await client.query(session, 'fiberChannelLuns', { sort: { field: 'name', direction: 'asc' }, limit: 2, start: 1 });
    expect(page.inventories.map((lun) => lun.uuid)).toEqual(sorted.inventories.slice(1, 3).map((lun) => lun.uuid));
    const descending = await client.query(session, 'fiberChannelLuns', { sort: { field: 'name', direction: 'desc' } });
    expect(descending.inventories.map((lun) => lun.uuid)).toEqual(sorted.inventories.map((lun) => lun.uuid).reverse());
  });

  it('decodes HBA devices, CBT tasks, snapshot groups and SNS email addresses', async () => {
    const hbas = await client.query(session, 'hbaDevices', {});
    expect(hbas.inventories.length).toBeGreaterThan(0);
    expect(readable(hbas.inventories).every((hba) => hba.hostUuid?.match(UUID))).toBe(true);
    const tasks = await client.query(session, 'cbtTasks', {});
    expect(readable(tasks.inventories).every((task) => ['Created', 'Starting', 'Running', 'Stopped', 'Failed'].includes(String(task.status)))).toBe(true);
    const groups = await client.query(session, 'volumeSnapshotGroups', {});
    expect(groups.inventories.length).toBeGreaterThan(0);
    for (const group of readable(groups.inventories)) {
      expect(Number.isInteger(group.snapshotCount)).toBe(true);
      expect(readable(group.volumeSnapshotRefs).length).toBe(group.snapshotCount);
      for (const ref of readable(group.volumeSnapshotRefs)) expect(Number.isInteger((ref as { deviceId?: unknown }).deviceId)).toBe(true);
    }
    const emails = await client.query(session, 'snsEmailAddresses', {});
    expect(emails.inventories.length).toBeGreaterThan(0);
    expect(readable(emails.inventories).every((email) => email.emailAddress?.includes('@'))).toBe(true);
  });

  it('sends a cursor-family read of the catalogue with the cursor credential', async () => {
    const page = await client.read(token, CursorQuery, { resourceType: 'host', pageSize: 3 });
    expect(page.items).toHaveLength(3);
    expect(page.hasMore).toBe(true);
  });

  it('reads a host’s network facts, block devices and sensors', async () => {
    const hosts = (await walk(client, token, 'host', 1000)).items;
    let bonds = 0;
    for (const host of hosts) {
      const facts = await client.read(session, GetHostNetworkFacts, { hostUuid: host.uuid });
      expect(facts.nics.length).toBeGreaterThan(0);
      for (const nic of readable(facts.nics)) {
        expect(nic.hostUuid).toBe(host.uuid);
        expect(INTERFACE_TYPES.has(nic.interfaceType as InterfaceType | null)).toBe(true);
      }
      for (const bond of readable(facts.bondings)) {
        bonds += 1;
        for (const slave of readable(bond.slaves)) {
          expect(slave.bondingUuid).toBe(bond.uuid);
          expect(slave.interfaceType).toBe('bondingSlave');
        }
      }
      const blocks = await client.read(session, GetHostBlockDevices, { uuid: host.uuid });
      expect(Array.isArray(blocks.blockDevices)).toBe(true);
      expect(blocks).not.toHaveProperty('success');
      const sensors = await client.read(session, GetHostSensors, { uuid: host.uuid });
      expect(Array.isArray(sensors.sensors)).toBe(true);
      // Any read of the catalogue goes through one generic method, named by its declaration.
      expect(await client.read(session, GetHostSensors, { uuid: host.uuid })).toEqual(sensors);
    }
    expect(bonds).toBeGreaterThan(0);
  });

  it('reads primary storage capacity and a VM’s attachable data volumes', async () => {
    const capacity = await client.read(session, GetPrimaryStorageCapacity, { all: true });
    expect(capacity.totalCapacity).toBeGreaterThan(0);
    expect(capacity.availableCapacity).toBeLessThanOrEqual(capacity.totalCapacity);
    const vms = (await walk(client, token, 'vm', 1000)).items;
    const zoneUuid = vms[0]?.zoneUuid ?? '';
    const zoned = await client.read(session, GetPrimaryStorageCapacity, { zoneUuids: [zoneUuid] });
    expect(zoned.totalCapacity).toBeGreaterThan(0);
    expect(zoned.totalCapacity).toBeLessThanOrEqual(capacity.totalCapacity);
    let candidates = 0;
    for (const vm of vms.slice(0, 10)) {
      const volumes = await client.read(session, GetVmAttachableDataVolume, { vmInstanceUuid: vm.uuid });
      candidates += volumes.length;
      for (const volume of readable(volumes)) {
        expect(volume.uuid).toMatch(UUID);
        expect(volume.type).toBe('Data');
      }
    }
    expect(candidates).toBeGreaterThanOrEqual(0);
  });

  it('maps an unknown session to UNAUTHENTICATED (ID.1001), a missing one and an unknown field to bad requests', async () => {
    const invalid = await failure(client.query({ authorization: 'OAuth 00000000000000000000000000000000' }, 'cbtTasks', {}));
    expect(invalid).toMatchObject({ code: 'UNAUTHENTICATED', status: 503 });
    expect(invalid.errorCode?.code).toBe('ID.1001');
    expect((await failure(client.query({ authorization: '' }, 'cbtTasks', {}))).code).toBe('UPSTREAM_BAD_REQUEST');
    const unknownField = await failure(client.query(session, 'cbtTasks', { conditions: [{ field: 'colour', op: '=', value: 'red' }] }));
    expect(unknownField.code).toBe('UPSTREAM_BAD_REQUEST');
  });

  it('maps a missing host to an upstream ErrorCode', async () => {
    const error = await failure(client.read(session, GetHostNetworkFacts, { hostUuid: 'f'.repeat(32) }));
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.errorCode?.code).toMatch(/^[A-Z]+\.\d+$/);
  });
});

describe('timestamps', () => {
  it('decodes the same instants from a simulator writing Europe/Berlin text as from one writing UTC', async () => {
    const berlin = createSimulator({ seed: 7, hosts: 4, vms: 45, timeZone: 'Europe/Berlin' });
    const berlinUrl = await berlin.start(0, '127.0.0.1');
    const berlinClient = createTestUpstreamClient({ upstreamUrl: berlinUrl, upstreamTimezone: 'Europe/Berlin' });
    try {
      const credential = { authorization: `Bearer ${berlin.credentials.token}` };
      const instants = async (upstream: UpstreamClient, cred: CursorCredential): Promise<Map<string, number | undefined>> => {
        const out = new Map<string, number | undefined>();
        for (const type of ['host', 'vm', 'volume', 'directory', 'sns-application-platform'] as const) {
          for (const record of (await walk(upstream, cred, type, 1000)).items) {
            out.set(`${record.uuid}.createDate`, record.createDate ?? undefined);
            out.set(`${record.uuid}.lastOpDate`, record.lastOpDate ?? undefined);
          }
        }
        return out;
      };
      const inBerlin = await instants(berlinClient, credential);
      const inUtc = await instants(client, token);
      expect(inBerlin.size).toBeGreaterThan(100);
      expect(inBerlin).toEqual(inUtc);
      // Both offsets were exercised: some instants fall in CEST (UTC+2), some in CET (UTC+1).
      const zoneName = new Intl.DateTimeFormat('en-US', { timeZone: 'Europe/Berlin', timeZoneName: 'short' });
      const offsets = new Set([...inUtc.values()].map((ms) => zoneName.format(ms ?? 0).split(' ').at(-1)));
      expect(offsets).toEqual(new Set(['GMT+1', 'GMT+2']));
    } finally {
      await berlinClient.close();
      await berlin.stop();
    }
  });
});

describe('writes and jobs', () => {
  it('submits a write, polls its job to success and decodes the result', async () => {
    const platforms = (await walk(client, token, 'sns-application-platform', 1000)).items;
    const platform = platforms[0];
    if (platform === undefined) throw new Error('the estate has no SNS platform');
    const jobUuid = crypto.randomUUID().replaceAll('-', '');
    const accepted = await client.submit(
      session,
      {
        operation: ChangeSNSApplicationPlatformState,
        params: { uuid: platform.uuid, stateEvent: 'disable' },
        jobUuid,
      },
      { requestId: 'req-write-1' },
    );
    expect(accepted.jobUuid).toBe(jobUuid);
    expect(accepted.location).toMatch(new RegExp(`/svc/v1/api-jobs/${jobUuid}$`));
    const entry = simulator.journal().find((request) => request.operation === 'ChangeSNSApplicationPlatformState');
    expect(entry?.headers).toMatchObject({ 'x-job-uuid': jobUuid, 'x-request-id': 'req-write-1' });

    let poll = await client.pollJob(accepted.location ?? '');
    for (let i = 0; poll.status === 'running' && i < 100; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      poll = await client.pollJob(accepted.location ?? '');
    }
    expect(poll.status).toBe('succeeded');
    const decoded = client.decoder.snsApplicationPlatform(poll.status === 'succeeded' ? poll.body.inventory : null);
    expect(decoded).toMatchObject({ uuid: platform.uuid, state: 'Disabled' });

    // The same job uuid twice is refused, and the refusal is not retried.
    simulator.resetStats();
    const duplicate = await failure(
      client.submit(session, {
        operation: ChangeSNSApplicationPlatformState,
        params: { uuid: platform.uuid, stateEvent: 'enable' },
        jobUuid,
      }),
    );
    expect(duplicate.code).toBe('UPSTREAM_BAD_REQUEST');
    expect(simulator.stats().byOperation.ChangeSNSApplicationPlatformState).toBe(1);
  });

  it('reports a failed job with its ErrorCode chain', async () => {
    const running = (await walk(client, token, 'vm', 1000, [{ field: 'state', op: 'eq', value: 'Running' }])).items[0];
    if (running === undefined) throw new Error('the estate has no running VM');
    // RecoverVmInstance fails with VM.1010 for a VM that is not Destroyed.
    const accepted = await client.submit(session, {
      operation: RecoverVmInstance,
      params: { uuid: running.uuid },
      jobUuid: crypto.randomUUID().replaceAll('-', ''),
    });
    let poll = await client.pollJob(accepted.location ?? '');
    for (let i = 0; poll.status === 'running' && i < 100; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      poll = await client.pollJob(accepted.location ?? '');
    }
    expect(poll.status).toBe('failed');
    const codes: string[] = [];
    for (let error = poll.status === 'failed' ? poll.error : null; error !== null; error = error.cause) codes.push(error.code);
    expect(codes).toContain('VM.1010');
  });

  it('maps a poll of an unknown job to UPSTREAM_NOT_FOUND', async () => {
    const error = await failure(client.pollJob(`${simulator.url}/svc/v1/api-jobs/${'e'.repeat(32)}`));
    expect(error.code).toBe('UPSTREAM_NOT_FOUND');
  });
});

describe('faults', () => {
  it('retries GETs through injected 503s and dropped connections', async () => {
    simulator.configure({ faultRate: 0.3 });
    const flaky = createTestUpstreamClient({ upstreamUrl: simulator.url, retries: 8, retryBaseDelayMs: 1, upstreamTimeoutMs: 10_000 });
    try {
      for (let i = 0; i < 30; i++) {
        const result = await flaky.query(session, 'fiberChannelLuns', { limit: 3 });
        expect(result.inventories).toHaveLength(3);
      }
    } finally {
      await flaky.close();
    }
    // Faults did happen: more requests reached the simulator than calls were made.
    expect(simulator.stats().byOperation.QueryFiberChannelLun).toBeGreaterThan(30);
  });

  it('gives up with UPSTREAM_UNAVAILABLE when every attempt fails, after exactly 1 + retries attempts', async () => {
    simulator.configure({ faultRate: 1 });
    const error = await failure(client.query(session, 'cbtTasks', {}));
    expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(simulator.stats().byOperation.QueryCbtTask).toBe(3);
  });

  it('never retries a write that met a fault', async () => {
    simulator.configure({ faultRate: 1 });
    const error = await failure(
      client.submit(session, {
        operation: DeleteDirectory,
        params: { uuid: 'a'.repeat(32) },
        jobUuid: crypto.randomUUID().replaceAll('-', ''),
      }),
    );
    expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(simulator.stats().byOperation.DeleteDirectory).toBe(1);
  });

  it('answers ping while the simulator listens', async () => {
    expect(await client.ping()).toBe(true);
  });
});
