/**
 * The upstream client's decoding over undici's MockAgent (closed sets, 1.0-style integers,
 * timestamps in the configured zone, a large page), its readiness ping and its request hook.
 */
import { describe, expect, it } from 'vitest';
import { readable } from '../support/readable.js';
import { UnrecognizedValue } from '../../src/upstream/define-record.js';
import { GetHostNetworkFacts } from '../../src/upstream/operations/index.js';
import { RES, SESSION, TEXT_HEADERS, TOKEN, U1, U2, UP, useMockUpstream } from './mock-upstream.js';

const upstream = useMockUpstream();

describe('decoding', () => {
  const nic = (interfaceType: string | undefined, n: number): Record<string, unknown> => ({
    uuid: `${String(n).repeat(32)}`,
    hostUuid: U1,
    interfaceName: `eth${n}`,
    ...(interfaceType === undefined ? {} : { interfaceType }),
    speed: 10000.0,
    carrierActive: true,
    futureField: { anything: 1 },
  });

  it('normalizes every interfaceType spelling, keeps an unknown one as its text and leaves an absent one null', async () => {
    upstream.capture(UP, 200, {
      success: true,
      bondings: [{ uuid: U2, bondingName: 'bond0', miimon: 100.0, allSlavesActive: true, slaves: [nic('bondSlave', 1), nic('bondingSlave', 2)] }],
      nics: [nic('nomaster', 3), nic('noMaster', 4), nic('bridgeSlave', 5), nic(undefined, 6), nic('vlanSlave', 7)],
    });
    const facts = await upstream.client.read(SESSION, GetHostNetworkFacts, { hostUuid: U1 });
    expect(readable(readable(facts.bondings)[0]?.slaves ?? []).map((s) => s.interfaceType)).toEqual(['bondingSlave', 'bondingSlave']);
    expect(readable(facts.nics).map((s) => s.interfaceType)).toEqual(['noMaster', 'noMaster', 'bridgeSlave', null, new UnrecognizedValue('vlanSlave')]);
    expect(facts.bondings[0]).toMatchObject({ miimon: 100, allSlavesActive: true, bondingType: null, ipAddresses: [] });
    expect(facts.nics[0]).toMatchObject({ speed: 10000, gateway: null, ipAddresses: [], createDate: null });
    expect(facts.nics[0]).not.toHaveProperty('futureField');
  });

  it('reads 1.0-style integers as integers, including from the wire text', async () => {
    upstream.capture(UP, 200, '{"inventories":[{"uuid":"' + U1 + '","snapshotCount":3.0,"volumeSnapshotRefs":[{"volumeSnapshotUuid":"' + U2 + '","deviceId":1.0,"snapshotDeleted":false}]}]}');
    const [group] = readable((await upstream.client.query(SESSION, 'volumeSnapshotGroups', {})).inventories);
    expect(group?.snapshotCount).toBe(3);
    expect(Number.isInteger(group?.snapshotCount)).toBe(true);
    expect(readable(group?.volumeSnapshotRefs ?? [])[0]).toMatchObject({ deviceId: 1, snapshotDeleted: false, volumeName: null });
  });

  it('lowers an upper-case uuid and keeps a lower-case one', () => {
    expect(upstream.client.decoder.volume({ uuid: 'ABCDEF0123456789ABCDEF0123456789' }).uuid).toBe('abcdef0123456789abcdef0123456789');
    expect(upstream.client.decoder.volume({ uuid: 'abcdef0123456789abcdef0123456789' }).uuid).toBe('abcdef0123456789abcdef0123456789');
    expect(() => upstream.client.decoder.volume({ uuid: 'ABCDEF0123456789ABCDEF012345678' })).toThrow(/expected a uuid/);
  });

  it("gives a VM's embedded NICs, used IPs and CD-ROMs the VM's uuid when the upstream leaves it out", () => {
    const U3 = '3'.repeat(32);
    const U4 = '4'.repeat(32);
    const usedIp = (uuid: string) => ({ uuid, ip: '10.0.0.9' });
    const vm = upstream.client.decoder.vmInstance({
      uuid: U1,
      vmNics: [
        { uuid: U2, usedIps: [usedIp(U3)] },
        { uuid: U3, vmInstanceUuid: U4, usedIps: [usedIp(U4)] },
      ],
      vmCdRoms: [{ uuid: U4 }],
    });
    expect(readable(vm.vmNics).map((nic) => nic.vmInstanceUuid)).toEqual([U1, U4]);
    expect(readable(vm.vmNics).map((nic) => readable(nic.usedIps)[0]?.vmInstanceUuid)).toEqual([U1, U4]);
    expect(readable(vm.vmCdRoms)[0]?.vmInstanceUuid).toBe(U1);
    // A NIC on its own (a VmNicInventory) has no VM to fall back on.
    expect(upstream.client.decoder.vmNic({ uuid: U2, usedIps: [usedIp(U3)] })).toMatchObject({ vmInstanceUuid: null, usedIps: [{ vmInstanceUuid: null }] });
  });

  it('decodes unknown closed-set values as their text, told apart from known ones and from none', async () => {
    upstream.capture(RES, 200, {
      items: [{ uuid: U1, cpuStatus: 'Normal', fanStatus: 'Error', gpuStatus: 'Melting', state: 'Enabled' }],
      total: 1,
      nextCursor: null,
      hasMore: false,
    });
    const page = await upstream.client.cursorQuery(TOKEN, { resourceType: 'host' });
    expect(page.items[0]).toMatchObject({ cpuStatus: 'Normal', fanStatus: 'Error', gpuStatus: new UnrecognizedValue('Melting'), raidStatus: null, state: 'Enabled' });
    expect(readable(page.items)[0]!.gpuStatus).toBeInstanceOf(UnrecognizedValue);
  });

  it("decodes a NIC's driverType in lower case, and keeps one outside the spec's set as its text", () => {
    const drivers = ['virtio', 'E1000', 'Rtl8139', 'ne2k_pci', undefined].map((driverType) => upstream.client.decoder.vmNic({ uuid: U2, driverType }).driverType);
    expect(drivers).toEqual(['virtio', 'e1000', 'rtl8139', new UnrecognizedValue('ne2k_pci'), null]);
  });

  function dates(zone: string, texts: string[]): Promise<Array<string | undefined>> {
    const zoned = upstream.makeClient({ upstreamTimezone: zone });
    upstream.capture(UP, 200, { inventories: texts.map((createDate, i) => ({ uuid: String(i + 1).repeat(32), createDate })) });
    return zoned.query(SESSION, 'snsEmailAddresses', {}).then(async (result) => {
      await zoned.close();
      return readable(result.inventories).map((record) => (record.createDate === null ? undefined : new Date(record.createDate).toISOString()));
    });
  }

  it('reads timestamp text as UTC by default, with 12 AM as midnight and 12 PM as noon', async () => {
    expect(
      await dates('UTC', ['Jan 5, 2024 3:04:05 PM', 'Jan 5, 2024 12:00:00 AM', 'Jan 5, 2024 12:30:00 PM', 'Dec 31, 2023 11:59:59 PM', 'Feb 29, 2024 1:02:03 AM']),
    ).toEqual(['2024-01-05T15:04:05.000Z', '2024-01-05T00:00:00.000Z', '2024-01-05T12:30:00.000Z', '2023-12-31T23:59:59.000Z', '2024-02-29T01:02:03.000Z']);
  });

  it('reads timestamp text in a DST zone with the offset of its own date', async () => {
    expect(
      await dates('Europe/Berlin', [
        'Jul 15, 2024 2:30:00 PM', // CEST, UTC+2
        'Jan 15, 2024 2:30:00 PM', // CET, UTC+1
        'Jan 15, 2024 12:15:00 AM', // midnight CET: the previous UTC day
        'Jul 15, 2024 12:15:00 PM', // noon CEST
        'Mar 31, 2024 2:30:00 AM', // skipped by the spring change: moved past the gap, as java.time does
        'Oct 27, 2024 2:30:00 AM', // repeated by the autumn change: the earlier instant
      ]),
    ).toEqual([
      '2024-07-15T12:30:00.000Z',
      '2024-01-15T13:30:00.000Z',
      '2024-01-14T23:15:00.000Z',
      '2024-07-15T10:15:00.000Z',
      '2024-03-31T01:30:00.000Z',
      '2024-10-27T00:30:00.000Z',
    ]);
  });

  it('refuses an unknown timezone when the client is created', () => {
    expect(() => upstream.makeClient({ upstreamTimezone: 'Mars/Olympus_Mons' })).toThrow(RangeError);
  });

  it('decodes a page of 10,000 VMs with NICs and volumes quickly', async () => {
    const vm = (i: number): Record<string, unknown> => ({
      uuid: i.toString(16).padStart(32, '0'),
      name: `vm-${i}`,
      state: 'Running',
      memorySize: 2147483648,
      cpuNum: 2.0,
      createDate: `Mar ${1 + (i % 28)}, 2024 ${1 + (i % 12)}:0${i % 10}:00 ${i % 2 ? 'AM' : 'PM'}`,
      lastOpDate: 'Mar 3, 2024 4:05:06 PM',
      vmNics: [{ uuid: (i + 1e6).toString(16).padStart(32, '0'), ip: '10.0.0.1', deviceId: 0.0, usedIps: [], createDate: 'Mar 3, 2024 4:05:06 PM' }],
      allVolumes: [
        { uuid: (i + 2e6).toString(16).padStart(32, '0'), size: 10737418240, type: 'Root', createDate: 'Mar 3, 2024 4:05:06 PM' },
        { uuid: (i + 3e6).toString(16).padStart(32, '0'), size: 1073741824, type: 'Data', createDate: 'Mar 3, 2024 4:05:06 PM' },
      ],
      vmCdRoms: [],
    });
    const zoned = upstream.makeClient({ upstreamTimezone: 'America/New_York', maxResponseBytes: 64 * 1024 * 1024 });
    upstream.capture(RES, 200, { items: Array.from({ length: 10_000 }, (_, i) => vm(i)), total: 10_000, nextCursor: null, hasMore: false });
    const started = performance.now();
    const page = await zoned.cursorQuery(TOKEN, { resourceType: 'vm', pageSize: 1000 });
    const elapsed = performance.now() - started;
    expect(page.items).toHaveLength(10_000);
    expect(readable(readable(page.items)[9_999]?.allVolumes ?? [])[1]?.size).toBe(1073741824);
    expect(new Date(readable(page.items)[0]!.createDate!).toISOString()).toBe('2024-03-01T18:00:00.000Z') // 1 PM EST (UTC-5);
    expect(elapsed).toBeLessThan(5000);
    // Decoding alone (no HTTP, no JSON parsing): 10,000 VMs, 40,000 timestamps in a DST zone.
    const wire = Array.from({ length: 10_000 }, (_, i) => vm(i));
    const decodeStarted = performance.now();
    const decoded = zoned.decoder.list(wire, 'items', zoned.decoder.vmInstance);
    const decodeElapsed = performance.now() - decodeStarted;
    expect(decoded).toHaveLength(10_000);
    expect(decodeElapsed).toBeLessThan(1000);
    await zoned.close();
  });
});

describe('ping and the request hook', () => {
  it('counts any HTTP answer as reachable and a failed connection as not', async () => {
    upstream.capture(UP, 404, 'Not Found', TEXT_HEADERS);
    expect(await upstream.client.ping()).toBe(true);
    upstream.agent
      .get(UP)
      .intercept({ path: () => true })
      .replyWithError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }));
    expect(await upstream.client.ping()).toBe(false);
  });

  it('survives a hook that throws', async () => {
    const noisy = upstream.makeClient({
      onRequest: () => {
        throw new Error('metrics down');
      },
    });
    upstream.capture(UP, 200, { inventories: [] });
    await expect(noisy.query(SESSION, 'cbtTasks', {})).resolves.toEqual({ inventories: [], total: null });
    await noisy.close();
  });
});
