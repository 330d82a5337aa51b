/**
 * A newer upstream's value answers the enum's fallback, with no error: a proxy in front of the
 * simulator plays that upstream (it rewrites fields of the records it names in every JSON answer),
 * and a client sees `OTHER` (or `UNKNOWN`) with the text in `<field>Raw`, while operators see the
 * value counted in `/metrics` and logged once.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildSchema, isInputObjectType, isObjectType, type GraphQLNamedType } from 'graphql';
import { pino } from 'pino';
import { Counter, Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../../src/app.js';
import { defaultConfig } from '../../../src/config/index.js';
import { createUnrecognizedValues, VALUES_PAST_CAP } from '../../../src/observability/unrecognized-values.js';
import { createSimulator, type Simulator } from '../../../src/simulator/server.js';
import { credentialHeaders, type GraphQLResponse } from '../../support/harness.js';

/** A proxy to `target` that sets `rewrites.get(uuid)` on every JSON object of that uuid it passes on. */
async function startNewerUpstream(target: string, rewrites: Map<string, Record<string, unknown>>): Promise<{ url: string; close(): Promise<void> }> {
  const rewrite = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(rewrite);
    if (typeof value !== 'object' || value === null) return;
    const record = value as Record<string, unknown>;
    const changes = typeof record.uuid === 'string' ? rewrites.get(record.uuid) : undefined;
    if (changes !== undefined) Object.assign(record, changes);
    Object.values(record).forEach(rewrite);
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers = Object.fromEntries(Object.entries(request.headers).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[0] !== 'host'));
      const body = chunks.length === 0 ? undefined : Buffer.concat(chunks);
      void fetch(`${target}${request.url ?? '/'}`, { method: request.method, headers, body })
        .then(async (answer) => {
          const text = await answer.text();
          let sent = text;
          if (answer.headers.get('content-type')?.includes('json') && text !== '') {
            const parsed: unknown = JSON.parse(text);
            rewrite(parsed);
            sent = JSON.stringify(parsed);
          }
          const passed = [...answer.headers].filter(([name]) => !['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive'].includes(name));
          response.writeHead(answer.status, Object.fromEntries(passed));
          response.end(sent);
        })
        .catch(() => response.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('a newer upstream\'s enum values', () => {
  let simulator: Simulator;
  let upstream: Awaited<ReturnType<typeof startNewerUpstream>>;
  let app: App;
  let url: string;
  const logLines: Record<string, unknown>[] = [];
  const rewrites = new Map<string, Record<string, unknown>>();

  async function gql<T>(query: string, variables?: Record<string, unknown>): Promise<GraphQLResponse<T>> {
    const response = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...credentialHeaders(simulator.credentials) },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.status, ...((await response.json()) as object) } as GraphQLResponse<T>;
  }

  /** The samples of the unrecognized-values counter in the gateway's `/metrics`, by `enum/value`. */
  async function unrecognizedCounts(): Promise<Record<string, number>> {
    const text = await (await fetch(`${url}/metrics`)).text();
    const counts: Record<string, number> = {};
    for (const line of text.split('\n')) {
      const match = /^gateway_upstream_unrecognized_values_total\{enum="([^"]*)",value="([^"]*)"\} (\S+)$/.exec(line);
      if (match) counts[`${match[1]}/${match[2]}`] = Number(match[3]);
    }
    return counts;
  }

  beforeAll(async () => {
    simulator = createSimulator({ asyncDelayMs: 5 });
    const simulatorUrl = await simulator.start(0, '127.0.0.1');
    upstream = await startNewerUpstream(simulatorUrl, rewrites);
    const logger = pino({ level: 'info' }, { write: (line: string) => void logLines.push(JSON.parse(line) as Record<string, unknown>) });
    app = createApp({ ...defaultConfig, port: 0, host: '127.0.0.1', upstreamUrl: upstream.url }, { logger });
    url = await app.start();
  });

  afterAll(async () => {
    await app.stop();
    await upstream.close();
    await simulator.stop();
  });

  it('every value the simulator plays is one the enums know: a broad read answers no fallback and counts none', async () => {
    const response = await gql<Record<string, { nodes: Record<string, unknown>[] }>>(`{
      vmInstances(first: 100) { nodes { state type platform architecture hypervisorType allocatorStrategy
        nics { type state driverType hypervisorType } volumes { type format state status } } }
      hosts(first: 100) { nodes { state status architecture hypervisorType ipmiPowerStatus cpuStatus gpuStatus
        networkFacts { bondings { mode xmitHashPolicy miiStatus type bondingType } nics { interfaceType } } } }
      hbaDevices(first: 100) { nodes { portState hbaType speed supportedSpeeds } }
      fiberChannelLuns(first: 100) { nodes { type state } }
      volumes(first: 100) { nodes { type format state status } }
      snsApplicationPlatforms(first: 100) { nodes { type state } }
      snsApplicationEndpoints(first: 100) { nodes { type state } }
    }`);
    expect(response.errors).toBeUndefined();
    // `UNKNOWN` and `OTHER` are also values of the spec (a monitor's `Unknown`, a platform's `Other`):
    // the counter, which only a fallback moves, says none was answered.
    expect(await unrecognizedCounts()).toEqual({});
    expect(JSON.stringify(response.data)).not.toMatch(/"speed":null/);
  });

  it('a VM of a kind, architecture and state this API does not know answers OTHER/UNKNOWN with no error, its text readable, and the other VMs as usual', async () => {
    const vms = [...simulator.store.vms.list(simulator.credentials.tenantId)];
    const future = vms[0]!;
    rewrites.set(future.uuid, { type: 'FutureVm', architecture: 'riscv64', state: 'Hibernating' });
    try {
      const response = await gql<{ vmInstances: { nodes: { uuid: string; type: string; typeRaw: string; architecture: string; architectureRaw: string; state: string; stateRaw: string }[] } }>(
        '{ vmInstances(first: 100) { nodes { uuid type typeRaw architecture architectureRaw state stateRaw } } }',
      );
      expect(response.errors).toBeUndefined();
      const nodes = response.data!.vmInstances.nodes;
      expect(nodes.find((node) => node.uuid === future.uuid)).toEqual({
        uuid: future.uuid,
        type: 'OTHER',
        typeRaw: 'FutureVm',
        // CpuArchitecture has a value `OTHER` of its own (the spec's `Other`): its fallback is UNKNOWN.
        architecture: 'UNKNOWN',
        architectureRaw: 'riscv64',
        state: 'OTHER',
        stateRaw: 'Hibernating',
      });
      const others = nodes.filter((node) => node.uuid !== future.uuid);
      expect(others.length).toBeGreaterThan(10);
      for (const node of others) {
        const held = vms.find((vm) => vm.uuid === node.uuid)!;
        expect({ state: node.state, stateRaw: node.stateRaw }).toEqual({ state: held.state.toUpperCase(), stateRaw: held.state });
        expect(node.type).toBe('USER_VM');
      }
    } finally {
      rewrites.delete(future.uuid);
    }
  });

  it('each unknown value is counted by enum and value each time it is read, and logged once', async () => {
    const hosts = [...simulator.store.hosts.list(simulator.credentials.tenantId)];
    const host = hosts[1]!;
    rewrites.set(host.uuid, { status: 'Maintenance', cpuStatus: 'Degraded', hypervisorType: 'Firecracker' });
    try {
      const before = await unrecognizedCounts();
      for (let run = 0; run < 3; run++) {
        // A document of its own each run: the response cache would answer a repeated one without reading.
        const response = await gql<Record<string, unknown>>(
          `query ($uuid: Uuid!) { run${run}: host(uuid: $uuid) { status statusRaw cpuStatus cpuStatusRaw hypervisorType hypervisorTypeRaw } }`,
          { uuid: host.uuid },
        );
        expect(response.errors).toBeUndefined();
        expect(response.data![`run${run}`]).toEqual({
          status: 'OTHER',
          statusRaw: 'Maintenance',
          // HwMonitorStatus has a value `UNKNOWN` (the spec's `Unknown`), not `OTHER`.
          cpuStatus: 'OTHER',
          cpuStatusRaw: 'Degraded',
          hypervisorType: 'OTHER',
          hypervisorTypeRaw: 'Firecracker',
        });
      }
      const after = await unrecognizedCounts();
      for (const key of ['HostStatus/Maintenance', 'HwMonitorStatus/Degraded', 'HypervisorType/Firecracker']) {
        expect({ key, counted: (after[key] ?? 0) - (before[key] ?? 0) }).toEqual({ key, counted: 3 });
      }
      const logged = logLines.filter((line) => line.enum === 'HostStatus' && line.value === 'Maintenance');
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatchObject({ level: 40, msg: expect.stringContaining('"Maintenance" for HostStatus') });
    } finally {
      rewrites.delete(host.uuid);
    }
  });

  it('a field the upstream leaves out is null, with its Raw null and no error', async () => {
    const host = [...simulator.store.hosts.list(simulator.credentials.tenantId)][2]!;
    rewrites.set(host.uuid, { memoryStatus: null, state: null });
    try {
      const response = await gql<{ host: Record<string, unknown> }>('query ($uuid: Uuid!) { host(uuid: $uuid) { memoryStatus memoryStatusRaw state stateRaw } }', { uuid: host.uuid });
      expect(response.errors).toBeUndefined();
      expect(response.data!.host).toEqual({ memoryStatus: null, memoryStatusRaw: null, state: null, stateRaw: null });
    } finally {
      rewrites.delete(host.uuid);
    }
  });

  it('a filter naming the fallback is BAD_USER_INPUT before any upstream request; a write naming it is a VALIDATION user error and starts no job', async () => {
    simulator.resetStats();
    const filtered = await gql<{ vmInstances: null }>('{ vmInstances(filter: { stateIn: [RUNNING, OTHER] }) { totalCount } }');
    expect(filtered.data?.vmInstances).toBeNull();
    expect(filtered.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'filter', field: 'stateIn' });
    expect(simulator.stats().total).toBe(0);

    const vm = [...simulator.store.vms.list(simulator.credentials.tenantId)].find((candidate) => candidate.vmNics.length > 0)!;
    const written = await gql<{ updateVmNicDriver: { job: unknown; userErrors: { field: string[]; code: string }[] } }>(
      'mutation ($input: UpdateVmNicDriverInput!) { updateVmNicDriver(input: $input) { job { id } userErrors { field code } } }',
      { input: { vmInstanceUuid: vm.uuid, vmNicUuid: vm.vmNics[0]!.uuid, driverType: 'OTHER' } },
    );
    expect(written.errors).toBeUndefined();
    expect(written.data!.updateVmNicDriver).toEqual({ job: null, userErrors: [{ field: ['input', 'driverType'], code: 'VALIDATION' }] });
    expect(simulator.stats().total).toBe(0);
  });
});

describe('the unknown-value counter', () => {
  it('keeps at most its cap of values per enum as labels and counts the rest together, logging each kept value once', async () => {
    const registry = new Registry();
    const counter = new Counter<'enum' | 'value'>({ name: 'unknown_values_total', help: 'test', labelNames: ['enum', 'value'], registers: [registry] });
    const warnings: unknown[] = [];
    const observe = createUnrecognizedValues({ counter, logger: { warn: (...args: unknown[]) => void warnings.push(args) } as never, maxValuesPerEnum: 3 });
    for (const value of ['a', 'b', 'a', 'c', 'd', 'e', 'a']) observe('VmState', value);
    observe('HostStatus', 'x');
    const samples = (await counter.get()).values.map(({ labels, value }) => [`${String(labels.enum)}/${String(labels.value)}`, value]);
    expect(Object.fromEntries(samples)).toEqual({ 'VmState/a': 3, 'VmState/b': 1, 'VmState/c': 1, [`VmState/${VALUES_PAST_CAP}`]: 2, 'HostStatus/x': 1 });
    // a, b, c, the cap reached, and x.
    expect(warnings).toHaveLength(5);
  });
});

describe('the committed SDL', () => {
  const sdl = buildSchema(readFileSync(new URL('../../../schema/schema.graphql', import.meta.url), 'utf8'));
  const typeOf = (coordinate: string): string => {
    const [typeName, fieldName] = coordinate.split('.') as [string, string];
    const type: GraphQLNamedType | undefined = sdl.getType(typeName) ?? undefined;
    if (!isObjectType(type) && !isInputObjectType(type)) return 'none';
    const field = type.getFields()[fieldName];
    return field === undefined ? 'none' : String(field.type);
  };

  it('types the value sets as enums, the filters as the same enums, and speeds as numbers in Mbit/s', () => {
    const expected: Record<string, string> = {
      'VmInstance.state': 'VmState',
      'VmInstance.hypervisorType': 'HypervisorType',
      'VmInstance.allocatorStrategy': 'VmAllocatorStrategy',
      'Host.state': 'ResourceState',
      'Host.status': 'HostStatus',
      'Host.architecture': 'CpuArchitecture',
      'Host.ipmiPowerStatus': 'IpmiPowerStatus',
      'Volume.state': 'ResourceState',
      'Volume.status': 'VolumeStatus',
      'Volume.format': 'VolumeFormat',
      'HbaDevice.portState': 'HbaPortState',
      'HbaDevice.hbaType': 'HbaType',
      'HbaDevice.speed': 'Long',
      'HbaDevice.supportedSpeeds': '[Long!]!',
      'HostNic.speed': 'Long',
      'HostNetworkBonding.mode': 'BondingMode',
      'HostNetworkBonding.xmitHashPolicy': 'XmitHashPolicy',
      'HostNetworkBonding.miiStatus': 'MiiStatus',
      'HostNetworkBonding.type': 'HostNetworkBondingType',
      'FiberChannelLun.state': 'ResourceState',
      'FiberChannelLun.type': 'FiberChannelLunType',
      'VmNic.state': 'VmNicState',
      'VmNic.type': 'VmNicType',
      'SnsApplicationPlatform.state': 'ResourceState',
      'SnsApplicationEndpoint.state': 'ResourceState',
      'Directory.type': 'DirectoryType',
      'VmInstanceFilter.stateIn': '[VmState!]',
      'HostFilter.statusIn': '[HostStatus!]',
      'HostFilter.stateIn': '[ResourceState!]',
      'VolumeFilter.statusIn': '[VolumeStatus!]',
      'HbaDeviceFilter.portStateIn': '[HbaPortState!]',
      'FiberChannelLunFilter.stateIn': '[ResourceState!]',
      'SnsApplicationPlatformFilter.stateIn': '[ResourceState!]',
    };
    expect(Object.fromEntries(Object.keys(expected).map((coordinate) => [coordinate, typeOf(coordinate)]))).toEqual(expected);
    for (const coordinate of ['VmInstance.stateRaw', 'Host.architectureRaw', 'HbaDevice.speedRaw', 'VmInstance.typeRaw']) expect(typeOf(coordinate)).toBe('String');
  });
});
