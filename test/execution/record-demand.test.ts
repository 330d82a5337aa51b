/**
 * A query's reads decode only the record fields it selects (`useRecordDemand`, `upstream/demand.ts`).
 * The property that matters: no answer changes. Every field of every record-backed type, reached
 * the ways a client reaches it, is asked of two gateways on one simulator, one decoding whole
 * records (`DECODE_SELECTED_FIELDS=false`) and one decoding what the query selects; the answers
 * and the upstream requests they cost must be the same.
 */
import {
  getNamedType,
  isInterfaceType,
  isLeafType,
  isNonNullType,
  isObjectType,
  parse,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLOutputType,
} from 'graphql';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { DASHBOARD_QUERY } from '../../bench/dashboard.js';
import { defaultConfig, type GatewayConfig } from '../../src/config/index.js';
import { recordDemandOf } from '../../src/execution/record-demand.js';
import { schema } from '../../src/schema/index.js';
import { createSimulator, type Simulator } from '../../src/simulator/server.js';
import { DecodeError, RecordDecoder } from '../../src/upstream/decode.js';
import { demandOf, FULL_DEMAND } from '../../src/upstream/demand.js';
import { credentialHeaders, type CredentialHeaders, type GraphQLResponse } from '../support/harness.js';

/** A selection of every leaf field without required arguments, one level down (connections: their nodes). */
function selectionOf(type: GraphQLOutputType): string {
  const named: GraphQLNamedType = getNamedType(type);
  if (isLeafType(named)) return '';
  if (!isObjectType(named) && !isInterfaceType(named)) return '{ __typename }';
  const fields = named.getFields();
  if (fields.nodes !== undefined) {
    return `{ ${fields.totalCount ? 'totalCount ' : ''}nodes ${leavesOf(getNamedType(fields.nodes.type))} }`;
  }
  return leavesOf(named);
}

/** The least a field can be asked for: what it returns must still be found, but none of its fields read. */
function minimalSelectionOf(type: GraphQLOutputType): string {
  const named = getNamedType(type);
  if (isLeafType(named)) return '';
  if ((isObjectType(named) || isInterfaceType(named)) && named.getFields().nodes !== undefined) return '{ nodes { __typename } }';
  return '{ __typename }';
}

function leavesOf(type: GraphQLNamedType): string {
  if (!isObjectType(type) && !isInterfaceType(type)) return '{ __typename }';
  const leaves = Object.values(type.getFields()).filter((field) => isLeafType(getNamedType(field.type)) && !hasRequiredArgs(field));
  return `{ __typename ${leaves.map((field) => field.name).join(' ')} }`;
}

function hasRequiredArgs(field: GraphQLField<unknown, unknown>): boolean {
  return field.args.some((arg) => isNonNullType(arg.type) && arg.defaultValue === undefined);
}

/** Where a client meets each record-backed type: a query with a hole for the selection. */
const PATHS: ReadonlyArray<readonly [typeName: string, path: (selection: string) => string]> = [
  ['VmInstance', (s) => `{ vmInstances(first: 30) { nodes { ${s} } } }`],
  ['VmNic', (s) => `{ vmInstances(first: 30) { nodes { nics { ${s} } } } }`],
  ['UsedIp', (s) => `{ vmInstances(first: 30) { nodes { nics { usedIps { ${s} } } } } }`],
  ['VmCdRom', (s) => `{ vmInstances(first: 30) { nodes { cdRoms { ${s} } } } }`],
  ['Volume', (s) => `{ vmInstances(first: 30) { nodes { volumes { ${s} } } } }`],
  ['Volume', (s) => `{ volumes(first: 10) { nodes { ${s} } } }`],
  ['Host', (s) => `{ hosts(first: 5) { nodes { ${s} } } }`],
  ['Host', (s) => `{ vmInstances(first: 30) { nodes { host { ${s} } } } }`],
  ['HbaDevice', (s) => `{ hosts(first: 5) { nodes { hbaDevices { nodes { ${s} } } } } }`],
  ['HbaDevice', (s) => `{ hbaDevices(first: 10) { nodes { ${s} } } }`],
  ['VolumeSnapshotGroup', (s) => `{ vmInstances(first: 30) { nodes { snapshotGroups { nodes { ${s} } } } } }`],
  ['VolumeSnapshotGroup', (s) => `{ volumeSnapshotGroups(first: 10) { nodes { ${s} } } }`],
  ['VolumeSnapshotRef', (s) => `{ volumeSnapshotGroups(first: 10) { nodes { volumeSnapshotRefs { ${s} } } } }`],
];

describe('decoding only the record fields a query selects', () => {
  let simulator: Simulator;
  let partial: App;
  let whole: App;
  let partialUrl: string;
  let wholeUrl: string;
  let headers: CredentialHeaders;

  async function gql(url: string, query: string): Promise<GraphQLResponse> {
    const response = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: JSON.stringify({ query }),
    });
    // The cost budget's balance in `extensions` depends on each gateway's history: not compared.
    const { data, errors } = (await response.json()) as GraphQLResponse;
    return { status: response.status, data, errors };
  }

  /** The answer and the upstream requests it took, from each gateway in turn. */
  async function both(query: string): Promise<{ partial: GraphQLResponse; whole: GraphQLResponse; requests: [number, number] }> {
    simulator.resetStats();
    const fromPartial = await gql(partialUrl, query);
    const partialRequests = simulator.stats().total;
    simulator.resetStats();
    const fromWhole = await gql(wholeUrl, query);
    return { partial: fromPartial, whole: fromWhole, requests: [partialRequests, simulator.stats().total] };
  }

  beforeAll(async () => {
    simulator = createSimulator({ asyncDelayMs: 5 });
    const upstreamUrl = await simulator.start(0, '127.0.0.1');
    // No response cache: each gateway must read the upstream for every query.
    const config: GatewayConfig = { ...defaultConfig, port: 0, host: '127.0.0.1', upstreamUrl, responseCacheTtlMs: 0 };
    partial = createApp(config, { logger: pino({ level: 'silent' }) });
    whole = createApp({ ...config, decodeSelectedFields: false }, { logger: pino({ level: 'silent' }) });
    [partialUrl, wholeUrl] = await Promise.all([partial.start(), whole.start()]);
    headers = credentialHeaders(simulator.credentials);
  });

  afterAll(async () => {
    await Promise.all([partial.stop(), whole.stop()]);
    await simulator.stop();
  });

  // Some 600 queries one after another: on a loaded two-core machine, more than the default 30 s.
  it('answers every field of every record-backed type as the whole record does, for the same upstream requests', { timeout: 120_000 }, async () => {
    let compared = 0;
    for (const [typeName, path] of PATHS) {
      const type = schema.getType(typeName);
      if (!isObjectType(type)) throw new Error(`${typeName} is not an object type`);
      for (const field of Object.values(type.getFields())) {
        if (hasRequiredArgs(field)) continue;
        // With every leaf of what the field returns, and with none: a loader's keys must be
        // decoded even when the selection names none of them.
        for (const selection of new Set([selectionOf(field.type), minimalSelectionOf(field.type)])) {
          const query = path(`${field.name} ${selection}`);
          const { partial: fromPartial, whole: fromWhole, requests } = await both(query);
          expect(fromWhole.errors, query).toBeUndefined();
          expect(fromPartial, query).toEqual(fromWhole);
          expect(requests[0], query).toBe(requests[1]);
          compared += 1;
        }
      }
    }
    // Every field of the nine types, on each of the thirteen paths (293 queries when written).
    expect(compared).toBeGreaterThan(250);
  });

  it('answers an embedded record loaded by its id (the VM it lives in is read for it)', async () => {
    const ids = await gql(wholeUrl, `{ vmInstances(first: 30) { nodes { nics { id usedIps { id } } cdRoms { id } } } }`);
    const vms = (ids.data as { vmInstances: { nodes: { nics: { id: string; usedIps: { id: string }[] }[]; cdRoms: { id: string }[] }[] } }).vmInstances.nodes;
    const nic = vms.flatMap((vm) => vm.nics)[0]!;
    const usedIp = vms.flatMap((vm) => vm.nics.flatMap((n) => n.usedIps))[0]!;
    const cdRom = vms.flatMap((vm) => vm.cdRoms)[0]!;
    for (const [id, typeName] of [[nic.id, 'VmNic'], [usedIp.id, 'UsedIp'], [cdRom.id, 'VmCdRom']] as const) {
      const type = schema.getType(typeName);
      if (!isObjectType(type)) throw new Error(typeName);
      for (const field of Object.values(type.getFields())) {
        const query = `{ node(id: ${JSON.stringify(id)}) { ... on ${typeName} { ${field.name} ${selectionOf(field.type)} } } }`;
        const { partial: fromPartial, whole: fromWhole } = await both(query);
        expect(fromWhole.errors, query).toBeUndefined();
        expect((fromWhole.data as { node: unknown }).node, query).not.toBeNull();
        expect(fromPartial, query).toEqual(fromWhole);
      }
    }
  });

  it('answers the dashboard the same', async () => {
    const { partial: fromPartial, whole: fromWhole } = await both(DASHBOARD_QUERY);
    expect(fromWhole.errors).toBeUndefined();
    expect(fromPartial).toEqual(fromWhole);
  });

  it('decodes for the dashboard only the fields it selects, and whole records for what reaches them by id', () => {
    const dashboard = recordDemandOf(schema, parse(DASHBOARD_QUERY));
    const wanted = (mask: Record<string, boolean>) => Object.keys(mask).filter((field) => mask[field]).sort();
    expect(wanted(dashboard.vmInstance)).toEqual(['allVolumes', 'hostUuid', 'name', 'rootVolumeUuid', 'state', 'uuid', 'vmNics']);
    expect(wanted(dashboard.vmNic)).toEqual(['driverType', 'ip', 'usedIps', 'uuid']);
    expect(wanted(dashboard.usedIp)).toEqual(['ip', 'uuid']);
    expect(wanted(dashboard.volume)).toEqual(['size', 'type', 'uuid']);
    expect(wanted(dashboard.vmCdRom)).toEqual(['uuid']);
    expect(wanted(dashboard.host)).toEqual(['managementIp', 'name', 'uuid']);
    // The ports and groups are grouped by host and VM: those keys are read though not selected.
    expect(wanted(dashboard.hbaDevice)).toEqual(['hostUuid', 'portName', 'uuid']);
    expect(wanted(dashboard.volumeSnapshotGroup)).toEqual(['name', 'snapshotCount', 'uuid', 'vmInstanceUuid']);
    // Not reached: the groups' lists of snapshots are not even read.
    expect(wanted(dashboard.volumeSnapshotRef)).toEqual([]);
    expect(dashboard.volumeSnapshotGroup.volumeSnapshotRefs).toBe(false);

    // A used IP reached by id: its NIC's list and the VM's NICs are read for it.
    const byId = recordDemandOf(schema, parse('{ node(id: "x") { ... on UsedIp { ip } } }'));
    expect(byId.vmInstance.vmNics).toBe(true);
    expect(byId.vmNic.usedIps).toBe(true);
    expect(byId.vmInstance.name).toBe(false);
    // A host's VMs are grouped by their hostUuid, which nothing in the selection names.
    expect(recordDemandOf(schema, parse('{ hosts { nodes { vmInstances { nodes { name } } } } }')).vmInstance.hostUuid).toBe(true);
  });

  it('neither reads nor checks a field the demand leaves out, and still checks the uuid', () => {
    const wire = { uuid: 'ab'.repeat(16), name: 'vm-1', memorySize: 'lots', createDate: 'yesterday', vmNics: 'not a list' };
    // As in production: under the test runner decoders are strict, and reading `memorySize` would throw.
    const decoder = new RecordDecoder('UTC', FULL_DEMAND, { strict: false });
    expect(() => decoder.vmInstance(wire)).toThrow(DecodeError);
    expect(() => decoder.withDemand(FULL_DEMAND).vmInstance(wire)).toThrow(DecodeError);

    const named = decoder.withDemand(demandOf({ vmInstance: new Set(['name']) }));
    const record = named.vmInstance(wire);
    expect(record.name).toBe('vm-1');
    expect(record.memorySize).toBeNull();
    expect(record.createDate).toBeNull();
    expect(record.vmNics).toEqual([]);
    expect(() => decoder.withDemand(demandOf({ vmInstance: new Set(['memorySize']) })).vmInstance(wire)).toThrow(/memorySize/);
    expect(() => named.vmInstance({ ...wire, uuid: 'not-a-uuid' })).toThrow(/uuid/);
  });
});
