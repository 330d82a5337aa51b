/**
 * Records defined once (`defineRecord`): the decoder generated from a definition reads each field
 * by its kind, a demand narrows it, strict decoders refuse to answer a field they did not decode,
 * and every field of every record is found in the simulator's wire form (a field whose wire key
 * the definition misspells would otherwise decode to null without a word).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readable } from '../support/readable.js';
import { createSimulator, type Simulator } from '../../src/simulator/server.js';
import { compileDecoder, UndecodedFieldError, type CompiledDecoder } from '../../src/upstream/compile-decoder.js';
import { defineRecord, field, UnrecognizedValue, type AnyRecordDefinition, type DecodeRuntime, type RecordOf } from '../../src/upstream/define-record.js';
import { DecodeError, RecordDecoder, UnreadableRecord } from '../../src/upstream/decode.js';
import { demandOf, EMBEDDED_LISTS, FULL_DEMAND } from '../../src/upstream/demand.js';
import { GetHostNetworkFacts, GetPrimaryStorageCapacity, GetVmAttachableDataVolume, type UpstreamClient } from '../../src/upstream/index.js';
import { DEMANDED_RECORDS, RECORDS } from '../../src/upstream/records.js';
import { createTimestampParser } from '../../src/upstream/timestamps.js';
import { createTestUpstreamClient } from '../support/upstream-client.js';

const part = defineRecord('part', {
  serial: field.requiredText(),
  size: field.int(),
  owner: field.fromParent(),
});

const widget = defineRecord('widget', {
  uuid: field.uuid(),
  name: field.text(),
  count: field.int(),
  enabled: field.bool(),
  madeAt: field.timestamp(),
  tags: field.strings(),
  extra: field.json(),
  color: field.oneOf(['red', 'blue'], { anyCase: true }),
  shape: field.oneOf(['Round', 'Square']),
  parts: field.records(part, 'uuid'),
  doubled: field.custom((o) => (typeof o.count === 'number' ? o.count * 2 : null)),
});

type Widget = RecordOf<typeof widget>;

function compile(definition: AnyRecordDefinition, mask?: Record<string, boolean>, strict = false): CompiledDecoder {
  const parse = createTimestampParser('Asia/Tokyo');
  const runtime: DecodeRuntime = {
    date: (value) => (typeof value === 'string' ? parse(value) : value === undefined || value === null ? null : Number(value)),
  };
  const decoderOf = (record: AnyRecordDefinition): CompiledDecoder => compileDecoder(record, { mask: undefined, strict, runtime, decoderOf });
  return compileDecoder(definition, { mask, strict, runtime, decoderOf });
}

const UUID = 'AB'.repeat(16);
const WIRE = {
  uuid: UUID,
  name: 42,
  count: '3.0',
  enabled: 'true',
  madeAt: 'Jan 5, 2024 3:04:05 PM',
  tags: ['a', 7],
  extra: { any: 'shape' },
  color: 'BLUE',
  shape: 'Triangle',
  parts: [{ serial: 's-1', size: 2 }],
  unknownField: 'ignored',
};

describe('defineRecord', () => {
  it('decodes each kind of field from one definition', () => {
    const decoded = compile(widget)(WIRE) as Widget;
    expect(decoded).toEqual({
      uuid: 'ab'.repeat(16),
      name: '42',
      count: 3,
      enabled: true,
      madeAt: Date.UTC(2024, 0, 5, 6, 4, 5),
      tags: ['a', '7'],
      extra: { any: 'shape' },
      color: 'blue',
      shape: new UnrecognizedValue('Triangle'),
      parts: [{ serial: 's-1', size: 2, owner: 'ab'.repeat(16) }],
      doubled: null,
    });
    expect(Object.keys(decoded)).toEqual(widget.keys);
  });

  it('names the field and the path of a value of the wrong shape', () => {
    const decode = compile(widget);
    expect(() => decode({ ...WIRE, count: 1.5 }, 'items[3]')).toThrow(/items\[3\]\.count: expected an integer/);
    // An embedded item stands alone: it is unreadable in its own slot, named by its path, and the record decodes.
    const [part] = (decode({ ...WIRE, parts: [{ size: 1 }] }) as Widget).parts;
    expect(part).toBeInstanceOf(UnreadableRecord);
    expect(String((part as UnreadableRecord).message)).toMatch(/widget\.parts\[0\]\.serial: required text is missing/);
    expect(() => decode({ ...WIRE, uuid: 'nope' })).toThrow(DecodeError);
    expect(() => decode('not an object')).toThrow(/widget: expected an object/);
  });

  it('reads only the fields a demand names, and always the identity and what the parent hands down', () => {
    const mask = Object.fromEntries(widget.keys.map((key) => [key, key === 'name' || key === 'parts']));
    // Values the mask leaves out are wrong on purpose: they are neither read nor checked.
    const decoded = compile(widget, mask)({ ...WIRE, count: 'many', madeAt: 'yesterday', tags: 'not a list' }) as Widget;
    expect(decoded).toMatchObject({ uuid: 'ab'.repeat(16), name: '42', count: null, madeAt: null, tags: [], color: null });
    expect(readable(decoded.parts)[0]?.owner).toBe('ab'.repeat(16));
  });

  it('in strict mode, a field the demand left out throws when read, and the record still spreads and serializes', () => {
    const mask = Object.fromEntries(widget.keys.map((key) => [key, key === 'name']));
    const decoded = compile(widget, mask, true)(WIRE) as Widget;
    expect(decoded.uuid).toBe('ab'.repeat(16));
    expect(decoded.name).toBe('42');
    expect(() => decoded.count).toThrow(UndecodedFieldError);
    expect(() => decoded.parts).toThrow(/widget\.parts was not decoded/);
    expect(JSON.parse(JSON.stringify(decoded))).toEqual({ uuid: 'ab'.repeat(16), name: '42', doubled: null });
    expect({ ...decoded }).toEqual({ uuid: 'ab'.repeat(16), name: '42', doubled: null });
  });

  it('strict RecordDecoders throw only for what a demand narrowed away; whole records answer every field', () => {
    const strict = new RecordDecoder('UTC', FULL_DEMAND, { strict: true });
    const wire = { uuid: UUID, name: 'vm', memorySize: 1024, vmNics: [{ uuid: '12'.repeat(16), ip: '10.0.0.1' }] };
    expect(strict.vmInstance(wire).memorySize).toBe(1024);
    const named = strict.withDemand(demandOf({ vmInstance: new Set(['name']) }));
    const vm = named.vmInstance(wire);
    expect(vm.name).toBe('vm');
    expect(() => vm.memorySize).toThrow(UndecodedFieldError);
    expect(() => vm.vmNics).toThrow(UndecodedFieldError);
    // A NIC always knows its VM, even when the demand asks nothing of it.
    const nic = readable(strict.withDemand(demandOf({ vmInstance: new Set(['vmNics']), vmNic: new Set(['ip']) })).vmInstance(wire).vmNics)[0];
    expect(nic?.vmInstanceUuid).toBe('ab'.repeat(16));
    expect(() => nic?.mac).toThrow(UndecodedFieldError);
    // Types no demand narrows decode whole.
    expect(named.cbtTask({ uuid: UUID, name: 'task', status: 'Running' }).status).toBe('Running');
  });

  it('names every demanded record after its key, and the lists that embed one demanded record in another', () => {
    for (const [name, definition] of Object.entries(RECORDS)) expect(definition.name).toBe(name);
    const lists = EMBEDDED_LISTS.map(({ child, parent, list }) => `${parent}.${list}:${child}`);
    expect([...lists].sort()).toEqual([
      'vmInstance.allVolumes:volume',
      'vmInstance.vmCdRoms:vmCdRom',
      'vmInstance.vmNics:vmNic',
      'vmNic.usedIps:usedIp',
      'volumeSnapshotGroup.volumeSnapshotRefs:volumeSnapshotRef',
    ]);
    // Innermost first: a used IP's demand reaches its NIC before the NIC's reaches its VM.
    expect(lists.indexOf('vmNic.usedIps:usedIp')).toBeLessThan(lists.indexOf('vmInstance.vmNics:vmNic'));
    expect(Object.keys(DEMANDED_RECORDS)).toHaveLength(9);
  });
});

describe('every record field, from the simulator', () => {
  let simulator: Simulator;
  let client: UpstreamClient;

  beforeAll(async () => {
    simulator = createSimulator({ hosts: 6, vms: 40 });
    await simulator.start(0, '127.0.0.1');
    client = createTestUpstreamClient({ upstreamUrl: simulator.url, upstreamTimeoutMs: 5000 });
  });

  afterAll(async () => {
    await client.close();
    await simulator.stop();
  });

  /** Fields the simulator never fills, and why; any other field left null everywhere is a definition bug. */
  const NEVER_SENT: Readonly<Record<string, readonly string[]>> = {
    // The demo estate seeds endpoints without one; only UpdateSNSHttpEndpoint writes it.
    snsApplicationEndpoint: ['description'],
  };

  it('decodes every field of every record to a value somewhere in the estate', async () => {
    const session = { authorization: `OAuth ${simulator.credentials.session}` };
    const cursor = { authorization: `Bearer ${simulator.credentials.token}`, tenantId: simulator.credentials.tenantId };
    const seen = new Map<string, object[]>();
    const add = (name: string, records: readonly object[]): void => {
      seen.set(name, [...(seen.get(name) ?? []), ...records]);
    };
    const vms = readable((await client.cursorQuery(cursor, { resourceType: 'vm', pageSize: 100 })).items);
    const hosts = readable((await client.cursorQuery(cursor, { resourceType: 'host', pageSize: 100 })).items);
    add('vmInstance', vms);
    add('host', hosts);
    add('volume', (await client.cursorQuery(cursor, { resourceType: 'volume', pageSize: 100 })).items);
    add('snsApplicationPlatform', (await client.cursorQuery(cursor, { resourceType: 'sns-application-platform', pageSize: 100 })).items);
    const endpoints = readable((await client.cursorQuery(cursor, { resourceType: 'sns-application-endpoint', pageSize: 100 })).items);
    add('snsApplicationEndpoint', endpoints);
    add('directory', (await client.cursorQuery(cursor, { resourceType: 'directory', pageSize: 100 })).items);
    add('hbaDevice', (await client.query(session, 'hbaDevices', {})).inventories);
    const luns = readable((await client.query(session, 'fiberChannelLuns', {})).inventories);
    add('fiberChannelLun', luns);
    add('cbtTask', readable((await client.query(session, 'cbtTasks', {})).inventories));
    const groups = readable((await client.query(session, 'volumeSnapshotGroups', {})).inventories);
    add('volumeSnapshotGroup', groups);
    add('snsEmailAddress', readable((await client.query(session, 'snsEmailAddresses', {})).inventories));
    add('primaryStorageCapacity', [await client.read(session, GetPrimaryStorageCapacity, { all: true })]);
    for (const host of hosts) {
      const facts = await client.read(session, GetHostNetworkFacts, { hostUuid: host.uuid });
      add('hostNetworkFacts', [facts]);
      add('hostBonding', readable(facts.bondings));
      add('hostNic', [...readable(facts.nics), ...readable(facts.bondings).flatMap((bonding) => readable(bonding.slaves))]);
    }
    for (const vm of vms.slice(0, 10)) add('volume', readable(await client.read(session, GetVmAttachableDataVolume, { vmInstanceUuid: vm.uuid })));
    add('vmNic', vms.flatMap((vm) => readable(vm.vmNics)));
    add('usedIp', vms.flatMap((vm) => readable(vm.vmNics).flatMap((nic) => readable(nic.usedIps))));
    add('vmCdRom', vms.flatMap((vm) => readable(vm.vmCdRoms)));
    add('volume', vms.flatMap((vm) => readable(vm.allVolumes)));
    add('scsiLunHostRef', luns.flatMap((lun) => readable(lun.scsiLunHostRefs)));
    add('scsiLunVmInstanceRef', luns.flatMap((lun) => readable(lun.scsiLunVmInstanceRefs)));
    add('volumeSnapshotRef', groups.flatMap((group) => readable(group.volumeSnapshotRefs)));
    add('snsSmsReceiver', endpoints.flatMap((endpoint) => readable(endpoint.receivers)));

    const missing: string[] = [];
    // A deletion result comes only from a finished DeleteVolumeSnapshotGroup job (test/mutations-ops).
    for (const definition of Object.values(RECORDS).filter((record) => record.name !== 'snapshotGroupDeletionResult')) {
      const records = (seen.get(definition.name) ?? []) as Record<string, unknown>[];
      if (records.length === 0) missing.push(`${definition.name}: no record`);
      for (const key of definition.keys) {
        if (NEVER_SENT[definition.name]?.includes(key)) continue;
        const found = records.some((record) => record[key] !== null && !(Array.isArray(record[key]) && record[key].length === 0));
        if (!found) missing.push(`${definition.name}.${key}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
