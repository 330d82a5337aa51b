/**
 * `SIM_VERSION`: the simulator plays an older upstream release (fields it did not have are absent
 * from its answers, operations it did not have answer 404), and a gateway told the same release
 * (`UPSTREAM_VERSION`) serves a schema every field of which works against it.
 */
import {
  buildClientSchema,
  getIntrospectionQuery,
  getNamedType,
  isLeafType,
  isObjectType,
  isNonNullType,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
  type IntrospectionQuery,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator/server.js';
import { startHarness, type Harness } from '../support/harness.js';

const OLD = '4.7.0';
const HW_MONITOR_FIELDS = ['cpuStatus', 'memoryStatus', 'diskStatus', 'nicStatus', 'gpuStatus', 'powerSupplyStatus', 'fanStatus', 'raidStatus', 'temperatureStatus'];

async function cursorItems(simulator: Simulator, resourceType: string): Promise<Record<string, unknown>[]> {
  const { token, tenantId } = simulator.credentials;
  const response = await fetch(`${simulator.url}/api/v1/resources/cursor-query?resourceType=${resourceType}&pageSize=1000`, {
    headers: { authorization: `Bearer ${token}`, 'x-tenant-id': tenantId },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { items: Record<string, unknown>[] }).items;
}

async function resourceFamily(simulator: Simulator, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${simulator.url}/svc/v1/${path}`, {
    method,
    headers: { authorization: `OAuth ${simulator.credentials.session}`, 'content-type': 'application/json;charset=UTF-8' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

describe(`a simulator playing ${OLD}`, () => {
  let old: Simulator;
  let newest: Simulator;
  beforeAll(async () => {
    old = createSimulator({ version: OLD, asyncDelayMs: 5 });
    newest = createSimulator({ asyncDelayMs: 5 });
    await Promise.all([old.start(0, '127.0.0.1'), newest.start(0, '127.0.0.1')]);
  });
  afterAll(() => Promise.all([old.stop(), newest.stop()]));

  it('answers host records without nqn, hostname or hardware monitor statuses, which the newest release has', async () => {
    const newer = ['nqn', 'hostname', ...HW_MONITOR_FIELDS];
    const current = await cursorItems(newest, 'host');
    // Not vacuous: the same estate at the newest release carries every one of them.
    for (const field of newer) expect(current.some((host) => host[field] !== undefined), field).toBe(true);
    const hosts = await cursorItems(old, 'host');
    expect(hosts.length).toBe(current.length);
    for (const host of hosts) {
      expect(Object.keys(host).filter((key) => newer.includes(key))).toEqual([]);
      expect(typeof host.name).toBe('string');
    }
  });

  it('leaves out of a VM the fields and embedded records newer than the release', async () => {
    const vms = await cursorItems(old, 'vm');
    const nics = vms.flatMap((vm) => (vm.vmNics as Record<string, unknown>[] | undefined) ?? []);
    expect(nics.length).toBeGreaterThan(0);
    // usedIps (4.10.0) go; the 3.17.13 item fields stay.
    expect(nics.filter((nic) => nic.usedIps !== undefined)).toEqual([]);
    expect(nics.every((nic) => typeof nic.mac === 'string' && typeof nic.driverType === 'string')).toBe(true);
    const volumes = vms.flatMap((vm) => (vm.allVolumes as Record<string, unknown>[] | undefined) ?? []);
    expect(volumes.length).toBeGreaterThan(0);
    expect(volumes.filter((volume) => volume.encrypted !== undefined)).toEqual([]);
  });

  it('answers 404 to the operations the release did not have, as to an unknown route', async () => {
    const host = (await cursorItems(old, 'host'))[0]!;
    old.resetStats();
    const answers = await Promise.all([
      resourceFamily(old, 'PUT', `hosts/nqn/${String(host.uuid)}/actions`, { updateHostNqn: { nqn: 'nqn.2014-08.org.nvmexpress:uuid:x' } }),
      resourceFamily(old, 'GET', `hosts/${String(host.uuid)}/get-sensors`),
      resourceFamily(old, 'GET', 'storage-devices/hba'),
      resourceFamily(old, 'GET', 'cbt-task'),
      resourceFamily(old, 'POST', 'cbt-task/create', { params: { name: 'x', taskType: 'VM', resourceUuids: [] } }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([404, 404, 404, 404, 404]);
    expect(await answers[0]!.text()).toBe('Not Found');
    expect(old.stats().byOperation).toEqual({ Unknown: 5 });
    // The release's own operations still answer.
    expect((await resourceFamily(old, 'GET', `hosts/network-facts/${String(host.uuid)}`)).status).toBe(200);
    expect((await resourceFamily(newest, 'GET', 'storage-devices/hba')).status).toBe(200);
  });

  it('ignores a write parameter newer than the release: a migration given only volumeMigrationAOs (5.1.0) names no destination', async () => {
    /** Migrates a VM's root volume by `volumeMigrationAOs` alone, and polls the job to its end. */
    async function migrateByItems(simulator: Simulator): Promise<number> {
      const tenant = simulator.credentials.tenantId;
      const vm = [...simulator.store.vms.all()].find((candidate) => candidate.tenantId === tenant && candidate.state === 'Stopped')!;
      const root = simulator.store.volumes.get(tenant, vm.rootVolumeUuid)!;
      const destination = [...simulator.store.primaryStorages.all()].find(
        (storage) => storage.tenantId === tenant && storage.zoneUuid === vm.zoneUuid && storage.uuid !== root.primaryStorageUuid,
      )!;
      const answer = await resourceFamily(simulator, 'PUT', `vm-instances/${vm.uuid}/actions`, {
        primaryStorageMigrateVm: { volumeMigrationAOs: [{ volumeUuid: root.uuid, dstPrimaryStorageUuid: destination.uuid }] },
      });
      expect(answer.status).toBe(202);
      const { location } = (await answer.json()) as { location: string };
      for (let attempt = 0; attempt < 200; attempt++) {
        const poll = await fetch(location);
        if (poll.status !== 202) return poll.status;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error('the migration did not finish');
    }
    expect(await migrateByItems(newest)).toBe(200);
    expect(await migrateByItems(old)).toBe(503);
  });

  it('refuses a release it cannot read', () => {
    expect(() => createSimulator({ version: 'latest' })).toThrow(/SIM_VERSION/);
  });
});

/** Every field of `type` a query can select without arguments it must give, a level deep into objects. */
function selectionOf(type: GraphQLObjectType, depth: number, seen: ReadonlySet<string>): string {
  const parts: string[] = [];
  for (const field of Object.values(type.getFields()) as GraphQLField<unknown, unknown>[]) {
    if (field.args.some((arg) => isNonNullType(arg.type) && arg.defaultValue === undefined)) continue;
    const named = getNamedType(field.type);
    const first = field.args.some((arg) => arg.name === 'first') ? '(first: 2)' : '';
    if (isLeafType(named)) {
      parts.push(field.name);
    } else if (isObjectType(named) && depth > 0 && !seen.has(named.name)) {
      const inner = named.getFields().nodes !== undefined ? `totalCount nodes { ${selectionOf(getNamedType(named.getFields().nodes!.type) as GraphQLObjectType, depth - 1, new Set([...seen, named.name]))} }` : selectionOf(named, depth - 1, new Set([...seen, named.name]));
      if (inner !== '') parts.push(`${field.name}${first} { ${inner} }`);
    }
  }
  return parts.join(' ');
}

describe(`UPSTREAM_VERSION=${OLD} against SIM_VERSION=${OLD}`, () => {
  let harness: Harness;
  let served: GraphQLSchema;
  beforeAll(async () => {
    harness = await startHarness({ simulator: { version: OLD }, config: { upstreamVersion: OLD, maxCost: 10_000_000, maxTokens: 100_000 } });
    const answer = await harness.gql<IntrospectionQuery>(getIntrospectionQuery());
    served = buildClientSchema(answer.data!);
  });
  afterAll(() => harness.close());

  it('serves no nqn, hostname or hardware monitor statuses', () => {
    const host = served.getType('Host') as GraphQLObjectType;
    expect(Object.keys(host.getFields()).filter((name) => ['nqn', 'hostname', ...HW_MONITOR_FIELDS].includes(name))).toEqual([]);
    expect(served.getType('HwMonitorStatus')).toBeUndefined();
    expect(served.getMutationType()?.getFields().updateHostNqn).toBeUndefined();
  });

  for (const [root, type] of [
    ['hosts(first: 3)', 'Host'],
    ['vmInstances(first: 5)', 'VmInstance'],
    ['volumes(first: 5)', 'Volume'],
    ['volumeSnapshotGroups(first: 3)', 'VolumeSnapshotGroup'],
    ['fiberChannelLuns(first: 3)', 'FiberChannelLun'],
    ['snsApplicationPlatforms(first: 3)', 'SnsApplicationPlatform'],
  ] as const) {
    it(`answers every remaining field of ${type} and of what it holds, without an error`, async () => {
      const selection = selectionOf(served.getType(type) as GraphQLObjectType, 2, new Set([type]));
      expect(selection).not.toMatch(/\bnqn\b|\bhostname\b|\bcpuStatus\b|\busedIps\b|\bhbaDevices\b|\bencrypted\b/);
      const answer = await harness.gql<{ list: { nodes: Record<string, unknown>[] } }>(`{ list: ${root} { totalCount nodes { ${selection} } } }`);
      expect(answer.errors).toBeUndefined();
      expect(answer.data!.list.nodes.length).toBeGreaterThan(0);
    });
  }

  it('runs a write the release has, end to end', async () => {
    const facts = await harness.gql<{ hosts: { nodes: { networkFacts: { bondings: { uuid: string }[] } | null }[] } }>(
      '{ hosts(first: 10) { nodes { networkFacts { bondings { uuid } } } } }',
    );
    const bond = facts.data!.hosts.nodes.flatMap((host) => host.networkFacts?.bondings ?? [])[0];
    expect(bond).toBeDefined();
    const answer = await harness.gql<{ setIpOnHostNetworkBonding: { error: unknown; bonding: { ipAddresses: string[] } | null } }>(
      `mutation { setIpOnHostNetworkBonding(input: { bondingUuid: "${bond!.uuid}", ipAddress: "192.168.10.5", netmask: "255.255.255.0" }) { error { code } bonding { ipAddresses } } }`,
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data!.setIpOnHostNetworkBonding.error).toBeNull();
    expect(answer.data!.setIpOnHostNetworkBonding.bonding?.ipAddresses).toContain('192.168.10.5/24');
  });
});
