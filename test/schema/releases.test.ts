/**
 * `UPSTREAM_VERSION`: the served schema holds what that upstream release has, by the spec's
 * "Since" values. What each release allows is read from the spec's text (`support/spec-releases.ts`,
 * over the committed copy `fixtures/spec.txt`), mapped to GraphQL names by the small tables below,
 * and compared with the schema a running gateway introspects to. Every element of the built schema
 * must have a known release, or nothing could say whether a release has it.
 */
import { buildClientSchema, getIntrospectionQuery, isInputObjectType, isObjectType, printSchema, type GraphQLSchema, type IntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { schema } from '../../src/schema/index.js';
import { releasesOf, schemaForRelease } from '../../src/schema/releases.js';
import { compareReleases, existsIn, NEWEST_RELEASE, newerOf } from '../../src/upstream/releases.js';
import { startHarness, type Harness } from '../support/harness.js';
import { parseSpecReleases, type SpecReleases } from '../support/spec-releases.js';

const spec: SpecReleases = parseSpecReleases();

/** The GraphQL type that shows each record the spec dates. */
const TYPE_OF_SPEC_RECORD: Readonly<Record<string, string>> = {
  HostInventory: 'Host',
  HostNetworkBondingInventory: 'HostNetworkBonding',
  'Slave NIC record': 'HostNic',
  'bondings items': 'HostNetworkBonding',
  'slaves and nics items': 'HostNic',
  'FC HBA device': 'HbaDevice',
  'Fibre-channel LUN': 'FiberChannelLun',
  CbtTaskInventory: 'CbtTask',
  VolumeSnapshotGroupInventory: 'VolumeSnapshotGroup',
  'volumeSnapshotRefs item': 'VolumeSnapshotRef',
  VmInstanceInventory: 'VmInstance',
  'vmNics item': 'VmNic',
  VmNicInventory: 'VmNic',
  'usedIps item': 'UsedIp',
  'allVolumes item': 'Volume',
  'vmCdRoms item': 'VmCdRom',
  SNSApplicationEndpointInventory: 'SnsApplicationEndpoint',
  SNSApplicationPlatformInventory: 'SnsApplicationPlatform',
  'SNS email address record': 'SnsEmailAddress',
};

/** Spec fields the schema shows under another name. */
const GRAPHQL_NAME: Readonly<Record<string, string>> = {
  'VmInstance.vmNics': 'nics',
  'VmInstance.allVolumes': 'volumes',
  'VmInstance.vmCdRoms': 'cdRoms',
};

/**
 * A list of records exists in a release only when its items do: the list's own release, or its
 * items' (the oldest of their fields), whichever is newer. `VmInstanceInventory.vmNics` is 0.6, a
 * vmNics item 3.17.13.
 */
const ITEMS_OF: Readonly<Record<string, string>> = {
  'VmInstanceInventory.vmNics': 'vmNics item',
  'VmInstanceInventory.allVolumes': 'allVolumes item',
  'VmInstanceInventory.vmCdRoms': 'vmCdRoms item',
  'vmNics item.usedIps': 'usedIps item',
  'VmNicInventory.usedIps': 'usedIps item',
  'HostNetworkBondingInventory.slaves': 'Slave NIC record',
  'bondings items.slaves': 'slaves and nics items',
  'VolumeSnapshotGroupInventory.volumeSnapshotRefs': 'volumeSnapshotRefs item',
};


/** The spec's GET operations, each with the GraphQL fields that read it and the record those return. */
const READ_FIELDS: Readonly<Record<string, readonly { coordinate: string; returns?: string }[]>> = {
  QueryHBADevice: [{ coordinate: 'Query.hbaDevices' }, { coordinate: 'Query.hbaDevice' }, { coordinate: 'Host.hbaDevices' }],
  QueryFiberChannelLun: [{ coordinate: 'Query.fiberChannelLuns' }, { coordinate: 'Query.fiberChannelLun' }],
  QueryCbtTask: [{ coordinate: 'Query.cbtTasks' }, { coordinate: 'Query.cbtTask' }],
  QueryVolumeSnapshotGroup: [{ coordinate: 'Query.volumeSnapshotGroups' }, { coordinate: 'Query.volumeSnapshotGroup' }, { coordinate: 'VmInstance.snapshotGroups' }],
  QuerySNSEmailAddress: [{ coordinate: 'Query.snsEmailAddresses' }, { coordinate: 'Query.snsEmailAddress' }, { coordinate: 'SnsApplicationEndpoint.emailAddresses', returns: 'SNSApplicationEndpointInventory' }],
  GetHostBlockDevices: [{ coordinate: 'Host.blockDevices' }],
  GetHostSensors: [{ coordinate: 'Host.sensors' }],
  GetHostNetworkFacts: [{ coordinate: 'Host.networkFacts' }],
  GetPrimaryStorageCapacity: [{ coordinate: 'Query.primaryStorageCapacity' }],
  // The spec leaves the candidate record's fields undated; the schema shows it as a Volume, which
  // the spec dates by the allVolumes item.
  GetVmAttachableDataVolume: [{ coordinate: 'VmInstance.attachableDataVolumes', returns: 'allVolumes item' }],
  CursorQuery: [
    { coordinate: 'Query.hosts', returns: 'HostInventory' },
    { coordinate: 'Query.host', returns: 'HostInventory' },
    { coordinate: 'Query.vmInstances', returns: 'VmInstanceInventory' },
    { coordinate: 'Query.vmInstance', returns: 'VmInstanceInventory' },
    { coordinate: 'Query.volumes', returns: 'allVolumes item' },
    { coordinate: 'Query.volume', returns: 'allVolumes item' },
    { coordinate: 'Query.snsApplicationPlatforms', returns: 'SNSApplicationPlatformInventory' },
    { coordinate: 'Query.snsApplicationEndpoints', returns: 'SNSApplicationEndpointInventory' },
    { coordinate: 'Host.vmInstances', returns: 'VmInstanceInventory' },
  ],
  CursorNext: [],
};

/** Mutation names the contract spells differently from lowerCamelCase of the operation. */
const MUTATION_OF: Readonly<Record<string, string>> = {
  ChangeSNSApplicationPlatformState: 'changeSnsApplicationPlatformState',
  UpdateSNSHttpEndpoint: 'updateSnsHttpEndpoint',
  RemoveSNSSmsReceiver: 'removeSnsSmsReceiver',
};

function olderOf(a: string | undefined, b: string): string {
  return a === undefined || compareReleases(b, a) < 0 ? b : a;
}

/** The oldest release of any field of spec record `record`: when it first exists. */
function recordSince(record: string): string {
  const dated = spec.fields.filter((field) => field.record === record);
  if (dated.length === 0) throw new Error(`the spec dates no field of ${record}`);
  return dated.map((field) => field.since).reduce((a, b) => olderOf(a, b));
}

/** What the spec allows, by schema coordinate (`Host.nqn`, `Mutation.updateHostNqn`, `type:HbaDevice`): the release that brings it. */
function expectedReleases(full: GraphQLSchema): { expected: Map<string, string>; notExposed: string[] } {
  const expected = new Map<string, string>();
  const notExposed: string[] = [];
  const expect = (coordinate: string, since: string) => expected.set(coordinate, olderOf(expected.get(coordinate), since));
  for (const { record, field, since } of spec.fields) {
    const type = TYPE_OF_SPEC_RECORD[record];
    if (type === undefined) throw new Error(`no GraphQL type is mapped to the spec's ${record}`);
    const name = GRAPHQL_NAME[`${type}.${field}`] ?? field;
    const items = ITEMS_OF[`${record}.${field}`];
    const fieldSince = items === undefined ? since : (newerOf(since, recordSince(items)) ?? since);
    const objectType = full.getType(type);
    if (!isObjectType(objectType) || objectType.getFields()[name] === undefined) {
      notExposed.push(`${type}.${name}`);
      continue;
    }
    expect(`${type}.${name}`, fieldSince);
    expect(`type:${type}`, fieldSince);
  }
  for (const [closedSet, since] of spec.closedSets) expect(`type:${closedSet}`, since);
  for (const operation of spec.operations) {
    if (operation.method === 'GET') {
      const fields = READ_FIELDS[operation.name];
      if (fields === undefined) throw new Error(`no GraphQL field is mapped to the spec's ${operation.name}`);
      for (const { coordinate, returns } of fields) expect(coordinate, returns === undefined ? operation.since : (newerOf(operation.since, recordSince(returns)) ?? operation.since));
      continue;
    }
    const mutation = MUTATION_OF[operation.name] ?? operation.name.charAt(0).toLowerCase() + operation.name.slice(1);
    expect(`Mutation.${mutation}`, operation.since);
    const input = `${mutation.charAt(0).toUpperCase()}${mutation.slice(1)}Input`;
    for (const [param, since] of operation.params) expect(`${input}.${param}`, newerOf(operation.since, since) ?? since);
  }
  return { expected, notExposed: [...new Set(notExposed)].sort() };
}

/** Whether `schema` has the element at `coordinate`. */
function has(served: GraphQLSchema, coordinate: string): boolean {
  if (coordinate.startsWith('type:')) return served.getType(coordinate.slice(5)) !== undefined;
  const [typeName = '', field = ''] = coordinate.split('.');
  const type = served.getType(typeName);
  return (isObjectType(type) || isInputObjectType(type)) && type.getFields()[field] !== undefined;
}

/** The elements whose presence in `served` is not what the spec allows in `release`. */
function mismatches(served: GraphQLSchema, expected: ReadonlyMap<string, string>, release: string): string[] {
  const wrong: string[] = [];
  for (const [coordinate, since] of expected) {
    const allowed = existsIn(since, release);
    if (has(served, coordinate) !== allowed) wrong.push(`${coordinate} (since ${since}) ${allowed ? 'missing' : 'served'} in ${release}`);
  }
  return wrong;
}

describe('the release of every schema element', () => {
  it('is known for every type field, argument, input field and enum value of the built schema', () => {
    expect(releasesOf(schema).unknown).toEqual([]);
  });

  it('is newest, when UPSTREAM_VERSION is unset, at the newest release the spec names', () => {
    const newest = spec.releases.reduce((a, b) => (compareReleases(a, b) >= 0 ? a : b));
    expect(NEWEST_RELEASE).toBe(newest);
  });

  it('maps every dated record field and operation of the spec to an element of the schema', () => {
    const { expected, notExposed } = expectedReleases(schema);
    expect(notExposed).toEqual([]);
    // Far from vacuous: the records' fields, the operations, their dated parameters.
    expect(expected.size).toBeGreaterThan(250);
  });

  it('agrees with the "Since x." a description ends with, or its parent\'s where it says none', () => {
    const { of } = releasesOf(schema);
    const said = (description: string | null | undefined) => /Since (\d+(?:\.\d+)*)\.\s*$/.exec(description ?? '')?.[1];
    const disagreeing: string[] = [];
    // An element that says no release has its parent's: a field its type's, an argument its field's
    // (`since-once.ts` says each release once).
    const check = (coordinate: string, description: string | null | undefined, inherited: string | undefined): string | undefined => {
      const own = said(description);
      const prose = own ?? inherited;
      if (prose !== undefined && of.get(coordinate) !== prose) disagreeing.push(`${coordinate}: ${prose} / ${String(of.get(coordinate))}`);
      return prose;
    };
    for (const type of Object.values(schema.getTypeMap())) {
      if (isObjectType(type)) {
        for (const field of Object.values(type.getFields())) {
          const fieldRelease = check(`${type.name}.${field.name}`, field.description, said(type.description));
          for (const arg of field.args) check(`${type.name}.${field.name}(${arg.name}:)`, arg.description, fieldRelease);
        }
      } else if (isInputObjectType(type)) {
        for (const field of Object.values(type.getFields())) check(`${type.name}.${field.name}`, field.description, said(type.description));
      }
    }
    expect(disagreeing.sort()).toEqual([]);
  });

  it('for the newest release leaves the schema as it is', () => {
    expect(printSchema(schemaForRelease(schema, NEWEST_RELEASE))).toBe(printSchema(schema));
  });
});

describe('UPSTREAM_VERSION', () => {
  it('refuses what is not a release', () => {
    expect(() => loadConfig({ UPSTREAM_VERSION: 'auto' })).toThrow(ConfigError);
    expect(() => loadConfig({ UPSTREAM_VERSION: '4.7' })).not.toThrow();
    expect(() => loadConfig({ UPSTREAM_VERSION: '4.7.0; drop' })).toThrow(ConfigError);
  });

  const { expected } = expectedReleases(schema);
  for (const release of ['3.5.0', '4.7.0', undefined]) {
    describe(`at ${release ?? 'unset (newest)'}`, () => {
      let harness: Harness;
      let served: GraphQLSchema;
      beforeAll(async () => {
        harness = await startHarness({ config: { upstreamVersion: release } });
        const answer = await harness.gql<IntrospectionQuery>(getIntrospectionQuery());
        expect(answer.errors).toBeUndefined();
        served = buildClientSchema(answer.data!);
      });
      afterAll(() => harness.close());

      it('introspects to exactly what the spec\'s Since values allow', () => {
        expect(mismatches(served, expected, release ?? NEWEST_RELEASE)).toEqual([]);
      });
    });
  }
});

describe('a query for what the served release does not have', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ config: { upstreamVersion: '4.7.0' } });
  });
  afterAll(() => harness.close());

  it('fails validation naming the field and the release that brought it, before any upstream request', async () => {
    harness.resetStats();
    const answer = await harness.gql('{ hosts(first: 2) { nodes { name nqn } } }');
    expect(answer.status).toBe(400);
    expect(answer.data).toBeUndefined();
    expect(answer.errors).toHaveLength(1);
    expect(answer.errors![0]!.message).toBe('Field "Host.nqn" is not available: it came with upstream release 4.10.6, and this gateway serves release 4.7.0 (UPSTREAM_VERSION).');
    expect(answer.errors![0]!.extensions).toMatchObject({ code: 'NOT_IN_UPSTREAM_RELEASE', coordinate: 'Host.nqn', since: '4.10.6', upstreamVersion: '4.7.0' });
    expect(harness.upstreamRequests()).toBe(0);
  });

  it('names a mutation input field the release does not take', async () => {
    const answer = await harness.gql(
      'mutation { primaryStorageMigrateVm(input: { vmInstanceUuid: "0123456789abcdef0123456789abcdef", enableMigrationTls: true }) { job { id } } }',
    );
    expect(answer.errors?.map((error) => error.extensions?.coordinate)).toEqual(['PrimaryStorageMigrateVmInput.enableMigrationTls']);
    expect(answer.errors![0]!.message).toContain('upstream release 5.0.0');
  });

  it('names a field whose type the release does not have at all', async () => {
    const answer = await harness.gql('{ host(uuid: "0123456789abcdef0123456789abcdef") { hbaDevices { totalCount } } }');
    expect(answer.errors?.map((error) => [error.extensions?.code, error.extensions?.since])).toEqual([['NOT_IN_UPSTREAM_RELEASE', '5.3.0']]);
  });

  it('names the release of the records an embedded list holds', async () => {
    const answer = await harness.gql('{ vmInstances(first: 1) { nodes { nics { mac usedIps { ip } } } } }');
    expect(answer.errors?.map((error) => error.message)).toEqual([
      'Field "VmNic.usedIps" is not available: it came with upstream release 4.10.0, and this gateway serves release 4.7.0 (UPSTREAM_VERSION).',
    ]);
  });

  it('still says "Cannot query field" for a field no release has', async () => {
    const answer = await harness.gql('{ hosts(first: 1) { nodes { noSuchField } } }');
    expect(answer.errors?.[0]?.message).toMatch(/^Cannot query field "noSuchField" on type "Host"/);
    expect(answer.errors?.[0]?.extensions?.code).not.toBe('NOT_IN_UPSTREAM_RELEASE');
  });
});
