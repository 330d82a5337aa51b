import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator/server.js';

const UUID = /^[0-9a-f]{32}$/;
const TIMESTAMP = /^(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{1,2}, \d{4} (1[0-2]|[1-9]):[0-5]\d:[0-5]\d (AM|PM)$/;

type FieldKind = 'string' | 'uuid' | 'timestamp' | 'integer' | 'boolean' | 'list' | 'object';
/** Field → kind; a trailing `?` on the kind marks a field the service may omit (null). */
type Shape = Record<string, `${FieldKind}` | `${FieldKind}?`>;

/** Asserts `value` has exactly the fields of `shape` (optional ones may be absent) with their JSON types. */
function expectShape(value: unknown, shape: Shape, label: string): asserts value is Record<string, unknown> {
  expect(typeof value, label).toBe('object');
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) expect(Object.keys(shape), `${label}: unexpected field ${key}`).toContain(key);
  for (const [field, spec] of Object.entries(shape)) {
    const optional = spec.endsWith('?');
    const kind = spec.replace('?', '') as FieldKind;
    const fieldValue = record[field];
    const where = `${label}.${field}`;
    if (fieldValue === undefined) {
      expect(optional, `${where} is missing`).toBe(true);
      continue;
    }
    expect(fieldValue, `${where} must be omitted rather than null`).not.toBeNull();
    switch (kind) {
      case 'string':
        expect(typeof fieldValue, where).toBe('string');
        break;
      case 'uuid':
        expect(fieldValue, where).toMatch(UUID);
        break;
      case 'timestamp':
        expect(fieldValue, where).toMatch(TIMESTAMP);
        break;
      case 'integer':
        expect(Number.isInteger(fieldValue), `${where}=${String(fieldValue)}`).toBe(true);
        break;
      case 'boolean':
        expect(typeof fieldValue, where).toBe('boolean');
        break;
      case 'list':
        expect(Array.isArray(fieldValue), where).toBe(true);
        break;
      case 'object':
        expect(typeof fieldValue, where).toBe('object');
        break;
    }
  }
}

const HOST_NIC: Shape = {
  uuid: 'uuid',
  hostUuid: 'uuid',
  bondingUuid: 'uuid?',
  interfaceName: 'string',
  interfaceType: 'string',
  gateway: 'string?',
  mac: 'string',
  callBackIp: 'string?',
  pciDeviceAddress: 'string?',
  offloadStatus: 'string?',
  description: 'string?',
  speed: 'integer?',
  slaveActive: 'boolean',
  carrierActive: 'boolean',
  ipAddresses: 'list',
  createDate: 'timestamp',
  lastOpDate: 'timestamp',
};

const BONDING: Shape = {
  uuid: 'uuid',
  hostUuid: 'uuid',
  bondingName: 'string',
  bondingType: 'string',
  speed: 'integer?',
  miimon: 'integer?',
  mode: 'string?',
  xmitHashPolicy: 'string?',
  miiStatus: 'string?',
  mac: 'string?',
  gateway: 'string?',
  callBackIp: 'string?',
  type: 'string?',
  description: 'string?',
  ipAddresses: 'list',
  allSlavesActive: 'boolean',
  createDate: 'timestamp',
  lastOpDate: 'timestamp',
  slaves: 'list',
};

const HBA: Shape = {
  uuid: 'uuid',
  name: 'string',
  hostUuid: 'uuid',
  portName: 'string',
  portState: 'string',
  hbaType: 'string',
  speed: 'string',
  supportedSpeeds: 'string',
  symbolicName: 'string',
  supportedClasses: 'string',
  createDate: 'timestamp',
  lastOpDate: 'timestamp',
};

const LUN: Shape = {
  uuid: 'uuid',
  name: 'string',
  fiberChannelStorageUuid: 'uuid',
  wwid: 'string',
  wwn: 'string',
  serial: 'string',
  vendor: 'string',
  model: 'string',
  type: 'string',
  path: 'string',
  size: 'integer',
  state: 'string',
  createDate: 'timestamp',
  lastOpDate: 'timestamp',
  scsiLunHostRefs: 'list',
  scsiLunVmInstanceRefs: 'list',
};

const CBT_TASK: Shape = {
  uuid: 'uuid',
  name: 'string',
  description: 'string?',
  status: 'string',
  createDate: 'timestamp',
  lastOpDate: 'timestamp',
};

const SNAPSHOT_GROUP: Shape = {
  uuid: 'uuid',
  name: 'string',
  description: 'string?',
  snapshotCount: 'integer',
  vmInstanceUuid: 'uuid',
  createDate: 'timestamp',
  lastOpDate: 'timestamp',
  volumeSnapshotRefs: 'list',
};

const SNAPSHOT_REF: Shape = {
  volumeSnapshotUuid: 'uuid',
  volumeSnapshotGroupUuid: 'uuid',
  volumeUuid: 'uuid',
  volumeName: 'string',
  volumeType: 'string',
  volumeSnapshotInstallPath: 'string',
  volumeSnapshotName: 'string',
  deviceId: 'integer',
  snapshotDeleted: 'boolean',
  createDate: 'timestamp',
  lastOpDate: 'timestamp',
};

const ATTACHABLE_VOLUME: Shape = {
  uuid: 'uuid',
  name: 'string',
  description: 'string?',
  actualSize: 'integer',
  size: 'integer',
  diskOfferingUuid: 'uuid?',
  format: 'string',
  installPath: 'string',
  isShareable: 'boolean',
  primaryStorageUuid: 'uuid',
  state: 'string',
  status: 'string',
  type: 'string',
  createDate: 'timestamp',
  lastOpDate: 'timestamp',
};

const EMAIL_ADDRESS: Shape = {
  uuid: 'uuid',
  emailAddress: 'string',
  endpointUuid: 'uuid',
  createDate: 'timestamp',
  lastOpDate: 'timestamp',
};

let simulator: Simulator;
let tenantId: string;
let secondTenantId: string;

interface Answer {
  status: number;
  text: string;
  json: Record<string, unknown>;
}

async function call(path: string, session: string | null = simulator.credentials.session): Promise<Answer> {
  const response = await fetch(`${simulator.url}${path}`, {
    headers: session === null ? {} : { authorization: `OAuth ${session}` },
  });
  const text = await response.text();
  let json: Record<string, unknown> = {};
  if ((response.headers.get('content-type') ?? '').startsWith('application/json')) json = JSON.parse(text) as Record<string, unknown>;
  return { status: response.status, text, json };
}

function inventories(answer: Answer): Record<string, unknown>[] {
  expect(answer.status, answer.text).toBe(200);
  expect(answer.json.success).toBe(true);
  expect(Array.isArray(answer.json.inventories)).toBe(true);
  return answer.json.inventories as Record<string, unknown>[];
}

beforeAll(async () => {
  simulator = createSimulator({ seed: 7, hosts: 8, vms: 60 });
  await simulator.start(0);
  tenantId = simulator.credentials.tenantId;
  secondTenantId = simulator.credentials.second.tenantId;
});

afterAll(async () => {
  await simulator.stop();
});

describe('host hardware and network reads', () => {
  it('GetHostBlockDevices answers the host block devices', async () => {
    for (const host of simulator.store.hosts.list(tenantId)) {
      const answer = await call(`/svc/v1/hosts/${host.uuid}/get-block-devices`);
      expect(answer.status).toBe(200);
      const devices = answer.json.blockDevices as Record<string, unknown>[];
      expect(devices.length).toBe(simulator.store.blockDevices.by('hostUuid', host.uuid, tenantId).length);
      expect(devices.length).toBeGreaterThan(0);
      for (const device of devices) {
        expectShape(
          device,
          {
            name: 'string',
            type: 'string',
            size: 'integer',
            model: 'string',
            serialNumber: 'string',
            wwn: 'string?',
            mountPoint: 'string?',
            partitionTable: 'string?',
          },
          'blockDevice',
        );
      }
    }
  });

  it('GetHostSensors answers the host sensors', async () => {
    const host = simulator.store.hosts.list(tenantId).next().value!;
    const answer = await call(`/svc/v1/hosts/${host.uuid}/get-sensors`);
    expect(answer.status).toBe(200);
    const sensors = answer.json.sensors as Record<string, unknown>[];
    expect(sensors.length).toBeGreaterThan(0);
    for (const sensor of sensors) {
      expectShape(sensor, { name: 'string', type: 'string', value: 'integer', unit: 'string', status: 'string' }, 'sensor');
      expect(['Normal', 'Error', 'Unknown']).toContain(sensor.status);
    }
  });

  it('GetHostNetworkFacts answers bondings with slaves and nics with the returned interfaceType spellings', async () => {
    const seenTypes = new Set<unknown>();
    for (const host of simulator.store.hosts.list(tenantId)) {
      const answer = await call(`/svc/v1/hosts/network-facts/${host.uuid}`);
      expect(answer.status).toBe(200);
      expect(answer.json.success).toBe(true);
      const bondings = answer.json.bondings as Record<string, unknown>[];
      const nics = answer.json.nics as Record<string, unknown>[];
      expect(bondings.length).toBeGreaterThan(0);
      expect(nics.length).toBeGreaterThan(0);
      for (const bond of bondings) {
        expectShape(bond, BONDING, 'bonding');
        expect(bond.hostUuid).toBe(host.uuid);
        expect(['noBridge', 'bridgeSlave']).toContain(bond.bondingType);
        const slaves = bond.slaves as Record<string, unknown>[];
        expect(slaves.length).toBeGreaterThan(0);
        for (const slave of slaves) {
          expectShape(slave, HOST_NIC, 'slave');
          expect(slave.bondingUuid).toBe(bond.uuid);
          expect(slave.interfaceType).toBe('bondingSlave');
        }
      }
      for (const nic of nics) {
        expectShape(nic, HOST_NIC, 'nic');
        expect(nic.hostUuid).toBe(host.uuid);
        expect(nic.mac).toMatch(/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/);
        seenTypes.add(nic.interfaceType);
      }
    }
    expect([...seenTypes].sort()).toEqual(['bondingSlave', 'bridgeSlave', 'noMaster']);
  });

  it('host-scoped reads of an unknown host answer 503 SYS.1003', async () => {
    const unknown = 'f'.repeat(32);
    for (const path of [
      `/svc/v1/hosts/${unknown}/get-block-devices`,
      `/svc/v1/hosts/${unknown}/get-sensors`,
      `/svc/v1/hosts/network-facts/${unknown}`,
    ]) {
      const answer = await call(path);
      expect(answer.status, path).toBe(503);
      expect((answer.json.error as Record<string, unknown>).code).toBe('SYS.1003');
    }
  });
});

describe('storage reads', () => {
  it('QueryHBADevice lists the tenant HBA ports, and /{uuid} one of them', async () => {
    const all = inventories(await call('/svc/v1/storage-devices/hba'));
    expect(all.length).toBe(simulator.store.hbas.count(tenantId));
    expect(all.length).toBeGreaterThan(0);
    for (const device of all) {
      expectShape(device, HBA, 'hba');
      expect(device.speed).toMatch(/^\d+ Gbit$/);
      expect(simulator.store.hosts.get(tenantId, device.hostUuid as string)).toBeDefined();
    }
    const first = all[0]!;
    const one = inventories(await call(`/svc/v1/storage-devices/hba/${first.uuid as string}`));
    expect(one).toEqual([first]);
  });

  it('QueryFiberChannelLun answers LUNs whose refs name real hosts and VMs', async () => {
    const luns = inventories(await call('/svc/v1/storage-devices/fiber-channel/luns'));
    expect(luns.length).toBe(simulator.store.luns.count(tenantId));
    let vmRefs = 0;
    for (const lun of luns) {
      expectShape(lun, LUN, 'lun');
      for (const ref of lun.scsiLunHostRefs as unknown[]) {
        expectShape(ref, { scsiLunUuid: 'uuid', hostUuid: 'uuid', createDate: 'timestamp', lastOpDate: 'timestamp' }, 'hostRef');
        expect(ref.scsiLunUuid).toBe(lun.uuid);
        expect(simulator.store.hosts.get(tenantId, ref.hostUuid as string)).toBeDefined();
      }
      for (const ref of lun.scsiLunVmInstanceRefs as unknown[]) {
        expectShape(ref, { scsiLunUuid: 'uuid', vmInstanceUuid: 'uuid', createDate: 'timestamp' }, 'vmRef');
        expect(simulator.store.vms.get(tenantId, ref.vmInstanceUuid as string)).toBeDefined();
        vmRefs++;
      }
    }
    expect(vmRefs).toBeGreaterThan(0);
  });

  it('GetPrimaryStorageCapacity sums the selected primary storages', async () => {
    const storages = [...simulator.store.primaryStorages.list(tenantId)];
    const sum = (list: typeof storages) => ({
      totalCapacity: list.reduce((total, storage) => total + storage.totalCapacity, 0),
      availableCapacity: list.reduce((total, storage) => total + storage.availableCapacity, 0),
      totalPhysicalCapacity: list.reduce((total, storage) => total + storage.totalPhysicalCapacity, 0),
      availablePhysicalCapacity: list.reduce((total, storage) => total + storage.availablePhysicalCapacity, 0),
    });
    const all = await call('/svc/v1/primary-storage/capacities?all=true');
    expect(all.status).toBe(200);
    expect(all.json).toEqual({ success: true, ...sum(storages) });

    const [a, b] = storages as [(typeof storages)[0], (typeof storages)[0]];
    const repeated = await call(`/svc/v1/primary-storage/capacities?primaryStorageUuids=${a.uuid}&primaryStorageUuids=${b.uuid}`);
    const commas = await call(`/svc/v1/primary-storage/capacities?primaryStorageUuids=${a.uuid},${b.uuid}`);
    expect(repeated.json).toEqual({ success: true, ...sum([a, b]) });
    expect(commas.json).toEqual(repeated.json);

    const zoneUuid = a.zoneUuid;
    const inZone = storages.filter((storage) => storage.zoneUuid === zoneUuid);
    const byZone = await call(`/svc/v1/primary-storage/capacities?zoneUuids=${zoneUuid}`);
    expect(byZone.json).toEqual({ success: true, ...sum(inZone) });

    const clusterUuid = a.clusterUuids[0]!;
    const inCluster = storages.filter((storage) => storage.clusterUuids.includes(clusterUuid));
    const byCluster = await call(`/svc/v1/primary-storage/capacities?clusterUuids=${clusterUuid}`);
    expect(byCluster.json).toEqual({ success: true, ...sum(inCluster) });
    for (const value of Object.values(sum(storages))) expect(Number.isInteger(value)).toBe(true);
  });

  it('GetPrimaryStorageCapacity without any selection is an invalid argument', async () => {
    const answer = await call('/svc/v1/primary-storage/capacities');
    expect(answer.status).toBe(503);
    expect((answer.json.error as Record<string, unknown>).code).toBe('SYS.1007');
    expect((await call('/svc/v1/primary-storage/capacities?all=maybe')).status).toBe(400);
  });
});

describe('CBT, snapshot group, VM and SNS reads', () => {
  it('QueryCbtTask answers tasks with their statuses', async () => {
    const tasks = inventories(await call('/svc/v1/cbt-task'));
    expect(tasks.length).toBe(simulator.store.cbtTasks.count(tenantId));
    for (const task of tasks) {
      expectShape(task, CBT_TASK, 'cbtTask');
      expect(['Created', 'Starting', 'Running', 'Stopped', 'Failed']).toContain(task.status);
    }
    const one = inventories(await call(`/svc/v1/cbt-task/${tasks[0]!.uuid as string}`));
    expect(one).toEqual([tasks[0]]);
  });

  it('QueryVolumeSnapshotGroup renders snapshotCount and ref deviceId with a decimal point', async () => {
    const answer = await call('/svc/v1/volume-snapshots/group');
    const groups = inventories(answer);
    expect(groups.length).toBeGreaterThan(0);
    expect(answer.text).toMatch(/"snapshotCount":\d+\.0[,}]/);
    expect(answer.text).toMatch(/"deviceId":\d+\.0[,}]/);
    expect(answer.text).not.toMatch(/"snapshotCount":\d+[,}]/);
    for (const group of groups) {
      expectShape(group, SNAPSHOT_GROUP, 'group');
      const refs = group.volumeSnapshotRefs as unknown[];
      expect(group.snapshotCount).toBe(refs.length);
      const vm = simulator.store.vms.get(tenantId, group.vmInstanceUuid as string);
      expect(vm).toBeDefined();
      for (const ref of refs) {
        expectShape(ref, SNAPSHOT_REF, 'snapshotRef');
        expect(ref.volumeSnapshotGroupUuid).toBe(group.uuid);
        expect(simulator.store.volumes.get(tenantId, ref.volumeUuid as string)?.vmInstanceUuid).toBe(vm!.uuid);
      }
    }
  });

  it('GetVmAttachableDataVolume answers the unattached data volumes of the VM zone', async () => {
    const store = simulator.store;
    let answered = 0;
    for (const vm of [...store.vms.list(tenantId)].slice(0, 10)) {
      const candidates = inventories(await call(`/svc/v1/vm-instances/${vm.uuid}/data-volume-candidates`));
      const zoneStorages = new Set(store.primaryStorages.by('zoneUuid', vm.zoneUuid, tenantId).map((storage) => storage.uuid));
      const expected = [...store.volumes.list(tenantId)].filter(
        (volume) => volume.type === 'Data' && volume.vmInstanceUuid === null && zoneStorages.has(volume.primaryStorageUuid),
      );
      expect(candidates.map((volume) => volume.uuid).sort()).toEqual(expected.map((volume) => volume.uuid).sort());
      for (const volume of candidates) {
        expectShape(volume, ATTACHABLE_VOLUME, 'attachableVolume');
        expect(volume.type).toBe('Data');
      }
      answered += candidates.length;
    }
    expect(answered).toBeGreaterThan(0);
    const unknown = await call(`/svc/v1/vm-instances/${'e'.repeat(32)}/data-volume-candidates`);
    expect(unknown.status).toBe(503);
    expect((unknown.json.error as Record<string, unknown>).code).toBe('SYS.1003');
  });

  it('QuerySNSEmailAddress answers addresses of Email endpoints, by uuid and endpointUuid', async () => {
    const addresses = inventories(await call('/svc/v1/sns/application-endpoints/emails/email-addresses'));
    expect(addresses.length).toBe(simulator.store.snsEmails.count(tenantId));
    for (const address of addresses) {
      expectShape(address, EMAIL_ADDRESS, 'emailAddress');
      expect(address.emailAddress).toMatch(/^[^@]+@[^@]+$/);
      expect(simulator.store.snsEndpoints.get(tenantId, address.endpointUuid as string)?.type).toBe('Email');
    }
    const first = addresses[0]!;
    const byPath = inventories(await call(`/svc/v1/sns/application-endpoints/emails/email-addresses/${first.uuid as string}`));
    expect(byPath).toEqual([first]);
    const combined = inventories(
      await call(
        `/svc/v1/sns/application-endpoints/emails/email-addresses?q=uuid=${first.uuid as string}&q=endpointUuid=${first.endpointUuid as string}`,
      ),
    );
    expect(combined).toEqual([first]);
    const mismatched = inventories(
      await call(`/svc/v1/sns/application-endpoints/emails/email-addresses?q=uuid=${first.uuid as string}&q=endpointUuid=${'0'.repeat(32)}`),
    );
    expect(mismatched).toEqual([]);
  });
});

describe('resource-family query language', () => {
  it('supports the comparison, set, like and null operators', async () => {
    const tasks = [...simulator.store.cbtTasks.list(tenantId)];
    const running = tasks.filter((task) => task.status === 'Running');
    expect(inventories(await call('/svc/v1/cbt-task?q=status=Running')).length).toBe(running.length);
    expect(inventories(await call('/svc/v1/cbt-task?q=status!=Running')).length).toBe(tasks.length - running.length);
    const inSet = tasks.filter((task) => task.status === 'Running' || task.status === 'Created');
    expect(inventories(await call('/svc/v1/cbt-task?q=status?=Running,Created')).length).toBe(inSet.length);
    expect(inventories(await call('/svc/v1/cbt-task?q=status!?=Running,Created')).length).toBe(tasks.length - inSet.length);
    expect(inventories(await call(`/svc/v1/cbt-task?q=${encodeURIComponent('name~=cbt-%')}`)).length).toBe(tasks.length);
    expect(inventories(await call(`/svc/v1/cbt-task?q=${encodeURIComponent('name!~=cbt-%')}`)).length).toBe(0);
    const described = tasks.filter((task) => task.description !== null).length;
    expect(inventories(await call(`/svc/v1/cbt-task?q=${encodeURIComponent('description is null')}`)).length).toBe(tasks.length - described);
    expect(inventories(await call(`/svc/v1/cbt-task?q=${encodeURIComponent('description not null')}`)).length).toBe(described);

    const luns = [...simulator.store.luns.list(tenantId)];
    const big = luns.filter((lun) => lun.size > 1024 ** 4).length;
    expect(inventories(await call(`/svc/v1/storage-devices/fiber-channel/luns?q=size>${1024 ** 4}`)).length).toBe(big);
    expect(inventories(await call(`/svc/v1/storage-devices/fiber-channel/luns?q=size<=${1024 ** 4}`)).length).toBe(luns.length - big);
  });

  it('compares timestamps given as the service timestamp text', async () => {
    const tasks = [...simulator.store.cbtTasks.list(tenantId)];
    const pivot = tasks[0]!;
    const text = simulator.store.wire.time(pivot.createDate);
    const after = tasks.filter((task) => task.createDate.getTime() >= pivot.createDate.getTime()).length;
    expect(inventories(await call(`/svc/v1/cbt-task?q=${encodeURIComponent(`createDate>=${text}`)}`)).length).toBe(after);
  });

  it('pages with limit and start, sorts with sort=+f|-f and counts with replyWithCount', async () => {
    const names = [...simulator.store.cbtTasks.list(tenantId)].map((task) => task.name).sort();
    const ascending = await call(`/svc/v1/cbt-task?sort=${encodeURIComponent('+name')}&limit=2&start=1&replyWithCount=true`);
    expect(inventories(ascending).map((task) => task.name)).toEqual(names.slice(1, 3));
    expect(ascending.json.total).toBe(names.length);
    const descending = inventories(await call('/svc/v1/cbt-task?sort=-name&limit=3'));
    expect(descending.map((task) => task.name)).toEqual([...names].reverse().slice(0, 3));
    const counted = await call('/svc/v1/cbt-task?count=true');
    expect(counted.json).toEqual({ success: true, total: names.length });
  });

  it('answers 400 plain text for a malformed condition, an unknown field or a bad paging value', async () => {
    for (const query of ['q=status', 'q=status~Running', 'q=nosuchfield=1', 'q=size=big', 'limit=-1', 'sort=+nosuchfield']) {
      const path = query.startsWith('q=size') ? '/svc/v1/storage-devices/fiber-channel/luns' : '/svc/v1/cbt-task';
      const answer = await call(`${path}?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.text.length, query).toBeGreaterThan(0);
      expect(() => JSON.parse(answer.text) as unknown, query).toThrow();
    }
  });

  it('answers an empty list for an unknown uuid', async () => {
    expect(inventories(await call(`/svc/v1/cbt-task/${'a'.repeat(32)}`))).toEqual([]);
    expect(inventories(await call(`/svc/v1/volume-snapshots/group/${'a'.repeat(32)}`))).toEqual([]);
  });
});

describe('credentials and tenants', () => {
  it('a missing Authorization header is a 400 plain text; an unknown session is 503 ID.1001', async () => {
    const missing = await call('/svc/v1/cbt-task', null);
    expect(missing.status).toBe(400);
    expect(missing.text).toMatch(/Authorization/);
    const unknown = await call('/svc/v1/cbt-task', '0'.repeat(32));
    expect(unknown.status).toBe(503);
    expect((unknown.json.error as Record<string, unknown>).code).toBe('ID.1001');
  });

  it("the second tenant never sees the first tenant's records", async () => {
    const second = simulator.credentials.second.session;
    const lun = simulator.store.luns.list(tenantId).next().value!;
    expect(inventories(await call(`/svc/v1/storage-devices/fiber-channel/luns/${lun.uuid}`, second))).toEqual([]);
    const theirs = inventories(await call('/svc/v1/storage-devices/fiber-channel/luns', second));
    expect(theirs.length).toBe(simulator.store.luns.count(secondTenantId));
    for (const item of theirs) expect(simulator.store.luns.get(secondTenantId, item.uuid as string)).toBeDefined();
    for (const path of ['/svc/v1/cbt-task', '/svc/v1/volume-snapshots/group', '/svc/v1/storage-devices/hba']) {
      for (const item of inventories(await call(path, second))) {
        expect(simulator.store.cbtTasks.get(tenantId, item.uuid as string)).toBeUndefined();
        expect(simulator.store.snapshotGroups.get(tenantId, item.uuid as string)).toBeUndefined();
        expect(simulator.store.hbas.get(tenantId, item.uuid as string)).toBeUndefined();
      }
    }
    const host = simulator.store.hosts.list(tenantId).next().value!;
    const facts = await call(`/svc/v1/hosts/network-facts/${host.uuid}`, second);
    expect(facts.status).toBe(503);
    const capacity = await call('/svc/v1/primary-storage/capacities?all=true', second);
    const theirStorages = [...simulator.store.primaryStorages.list(secondTenantId)];
    expect(capacity.json.totalCapacity).toBe(theirStorages.reduce((total, storage) => total + storage.totalCapacity, 0));
  });
});

describe('routing', () => {
  it('answers 404 for an unknown route and 405 for a known path with the wrong method', async () => {
    expect((await call('/svc/v1/no-such-collection')).status).toBe(404);
    expect((await call('/elsewhere')).status).toBe(404);
    const host = simulator.store.hosts.list(tenantId).next().value!;
    expect((await call(`/svc/v1/hosts/nqn/${host.uuid}/actions`)).status).toBe(405);
    const post = await fetch(`${simulator.url}/svc/v1/storage-devices/hba`, {
      method: 'POST',
      headers: { authorization: `OAuth ${simulator.credentials.session}` },
      body: '{}',
    });
    expect(post.status).toBe(405);
  });

  it('answers 400 plain text for a malformed JSON body', async () => {
    const host = simulator.store.hosts.list(tenantId).next().value!;
    const response = await fetch(`${simulator.url}/svc/v1/hosts/nqn/${host.uuid}/actions`, {
      method: 'PUT',
      headers: { authorization: `OAuth ${simulator.credentials.session}`, 'content-type': 'application/json' },
      body: '{"updateHostNqn": ',
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
  });
});
