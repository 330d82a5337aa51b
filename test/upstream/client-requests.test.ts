/**
 * The upstream client's requests as the upstream receives them (undici's MockAgent): paths on
 * either family's base, q= and filter= conditions, paging and sorting, headers, and the reads of
 * the catalogue from their declarations.
 */
import { describe, expect, it } from 'vitest';
import { GetHostBlockDevices, GetHostNetworkFacts, GetHostSensors, GetPrimaryStorageCapacity, GetVmAttachableDataVolume } from '../../src/upstream/operations/index.js';
import { RES, SESSION, TOKEN, U1, U2, UP, failure, paramsOf, useMockUpstream } from './mock-upstream.js';

const upstream = useMockUpstream();

describe('request building', () => {
  it('builds q conditions, paging and sorting with every reserved character percent-encoded', async () => {
    const seen = upstream.capture(UP, 200, { inventories: [], total: 0 });
    await upstream.client.query(
      SESSION,
      'fiberChannelLuns',
      {
        conditions: [
          { field: 'uuid', op: '?=', value: [U1, U2] },
          { field: 'name', op: '~=', value: '%lun a+b%' },
          { field: 'state', op: '!=', value: 'Disabled' },
          { field: 'wwid', op: 'not null' },
        ],
        limit: 50,
        start: 100,
        sort: { field: 'createDate', direction: 'desc' },
        replyWithCount: true,
      },
      { requestId: 'req-1' },
    );
    expect(seen).toHaveLength(1);
    const [request] = seen;
    expect(request?.method).toBe('GET');
    expect(request?.path.split('?')[0]).toBe('/svc/v1/storage-devices/fiber-channel/luns');
    // Raw encoding: `?`, `=`, `,`, `%`, `+`, space and `!` never appear bare in a value.
    expect(request?.path.split('?')[1]).toBe(
      `q=uuid%3F%3D${U1}%2C${U2}&q=name~%3D%25lun%20a%2Bb%25&q=state!%3DDisabled&q=wwid%20not%20null` +
        '&limit=50&start=100&sort=-createDate&replyWithCount=true',
    );
    expect(paramsOf(request?.path ?? '')).toEqual([
      ['q', `uuid?=${U1},${U2}`],
      ['q', 'name~=%lun a+b%'],
      ['q', 'state!=Disabled'],
      ['q', 'wwid not null'],
      ['limit', '50'],
      ['start', '100'],
      ['sort', '-createDate'],
      ['replyWithCount', 'true'],
    ]);
    expect(request?.headers.authorization).toBe(SESSION.authorization);
    expect(request?.headers['x-request-id']).toBe('req-1');
    expect(request?.headers['x-tenant-id']).toBeUndefined();
    expect(request?.headers['content-type']).toBeUndefined();
  });

  it('sends an ascending sort as %2B so it does not decode to a space', async () => {
    const seen = upstream.capture(UP, 200, { inventories: [] });
    await upstream.client.query(SESSION, 'cbtTasks', { sort: { field: 'name', direction: 'asc' } });
    expect(seen[0]?.path).toBe('/svc/v1/cbt-task?sort=%2Bname');
  });

  it.each([
    ['http://upstream.test', '/svc/v1/volume-snapshots/group'],
    ['http://upstream.test/', '/svc/v1/volume-snapshots/group'],
    ['http://upstream.test/zone-a/api', '/zone-a/api/svc/v1/volume-snapshots/group'],
    ['http://upstream.test/zone-a/api/', '/zone-a/api/svc/v1/volume-snapshots/group'],
  ])('appends svc/v1 to the base %s', async (upstreamUrl, expected) => {
    const prefixed = upstream.makeClient({ upstreamUrl });
    const seen = upstream.capture(UP, 200, { inventories: [] });
    await prefixed.query(SESSION, 'volumeSnapshotGroups', {});
    expect(seen[0]?.path).toBe(expected);
    await prefixed.close();
  });

  it('answers an empty "in" list without a request, and drops an empty "not in"', async () => {
    await expect(upstream.client.query(SESSION, 'hbaDevices', { conditions: [{ field: 'uuid', op: '?=', value: [] }], replyWithCount: true })).resolves.toEqual({
      inventories: [],
      total: 0,
    });
    await expect(upstream.client.cursorQuery(TOKEN, { resourceType: 'vm', filter: [{ field: 'uuid', op: 'in', value: [] }] })).resolves.toEqual({
      items: [],
      total: 0,
      nextCursor: null,
      hasMore: false,
      keys: new Map(),
    });
    const seen = upstream.capture(UP, 200, { inventories: [] });
    await upstream.client.query(SESSION, 'hbaDevices', { conditions: [{ field: 'uuid', op: '!?=', value: [] }] });
    expect(seen[0]?.path).toBe('/svc/v1/storage-devices/hba');
  });

  it('sends cursor queries to the cursor family with repeated filters, the bearer token and X-Tenant-ID', async () => {
    const seen = upstream.capture(RES, 200, { items: [], total: 0, nextCursor: null, hasMore: false });
    await upstream.client.cursorQuery(
      TOKEN,
      {
        resourceType: 'vm',
        sort: 'name',
        order: 'desc',
        pageSize: 50,
        filter: [
          { field: 'state', op: 'eq', value: 'Running' },
          { field: 'uuid', op: 'in', value: [U1, U2] },
          { field: 'name', op: 'like', value: 'web 1%' },
        ],
      },
      { requestId: 'req-2' },
    );
    const [request] = seen;
    expect(request?.path.split('?')[0]).toBe('/api/v1/resources/cursor-query');
    expect(paramsOf(request?.path ?? '')).toEqual([
      ['resourceType', 'vm'],
      ['sort', 'name'],
      ['order', 'desc'],
      ['pageSize', '50'],
      ['filter', 'state:eq:Running'],
      ['filter', `uuid:in:${U1},${U2}`],
      ['filter', 'name:like:web 1%'],
    ]);
    expect(request?.headers.authorization).toBe('Bearer tok-1');
    expect(request?.headers['x-tenant-id']).toBe('tenant-a');
    expect(request?.headers['x-request-id']).toBe('req-2');
  });

  it('omits X-Tenant-ID when the caller sent none, and encodes the opaque cursor', async () => {
    const seen = upstream.capture(RES, 200, { items: [], total: 0, nextCursor: null, hasMore: false });
    const cursor = 'eyJhIjoxfQ==.sig+/x';
    await upstream.client.cursorNext({ authorization: 'Bearer tok-1' }, { resourceType: 'host', cursor, pageSize: 5 });
    expect(seen[0]?.path).toBe(`/api/v1/resources/cursor-next?cursor=${encodeURIComponent(cursor)}&pageSize=5`);
    expect(paramsOf(seen[0]?.path ?? '')).toEqual([
      ['cursor', cursor],
      ['pageSize', '5'],
    ]);
    expect(seen[0]?.headers['x-tenant-id']).toBeUndefined();
  });

  it('uses the origin of upstreamUrl for the cursor family when cursorUrl is not given', async () => {
    const defaulted = upstream.makeClient({ upstreamUrl: `${UP}/some/prefix/`, cursorUrl: undefined });
    const seen = upstream.capture(UP, 200, { items: [], total: 0, nextCursor: null, hasMore: false });
    await defaulted.cursorQuery(TOKEN, { resourceType: 'directory' });
    expect(seen[0]?.path).toBe('/api/v1/resources/cursor-query?resourceType=directory');
    await defaulted.close();
  });

  it('sends capacity lists as repeated query parameters', async () => {
    const seen = upstream.capture(UP, 200, {
      success: true,
      totalCapacity: 1000,
      availableCapacity: 400.0,
      totalPhysicalCapacity: '2000',
      availablePhysicalCapacity: 900,
    });
    const capacity = await upstream.client.read(SESSION, GetPrimaryStorageCapacity, { zoneUuids: [U1, U2], primaryStorageUuids: [U2], all: false });
    expect(seen[0]?.path.split('?')[0]).toBe('/svc/v1/primary-storage/capacities');
    expect(paramsOf(seen[0]?.path ?? '')).toEqual([
      ['zoneUuids', U1],
      ['zoneUuids', U2],
      ['primaryStorageUuids', U2],
      ['all', 'false'],
    ]);
    expect(capacity).toEqual({ totalCapacity: 1000, availableCapacity: 400, totalPhysicalCapacity: 2000, availablePhysicalCapacity: 900 });
  });

  it('reads the host and VM GET operations from their spec paths', async () => {
    const facts = upstream.capture(UP, 200, { success: true, bondings: [], nics: [] });
    const blocks = upstream.capture(UP, 200, { success: true, error: null, blockDevices: [{ name: 'sda' }] });
    const sensors = upstream.capture(UP, 200, { sensors: [{ name: 'cpu0', value: 41 }] });
    const candidates = upstream.capture(UP, 200, { inventories: [{ uuid: U2, name: 'data-1', size: 10737418240, isShareable: false }] });
    await upstream.client.read(SESSION, GetHostNetworkFacts, { hostUuid: U1 });
    expect(await upstream.client.read(SESSION, GetHostBlockDevices, { uuid: U1 })).toEqual({ blockDevices: [{ name: 'sda' }] });
    expect(await upstream.client.read(SESSION, GetHostSensors, { uuid: U1 })).toEqual({ sensors: [{ name: 'cpu0', value: 41 }] });
    const volumes = await upstream.client.read(SESSION, GetVmAttachableDataVolume, { vmInstanceUuid: U2 });
    expect(facts[0]?.path).toBe(`/svc/v1/hosts/network-facts/${U1}`);
    expect(blocks[0]?.path).toBe(`/svc/v1/hosts/${U1}/get-block-devices`);
    expect(sensors[0]?.path).toBe(`/svc/v1/hosts/${U1}/get-sensors`);
    expect(candidates[0]?.path).toBe(`/svc/v1/vm-instances/${U2}/data-volume-candidates`);
    expect(volumes).toHaveLength(1);
    expect(volumes[0]).toMatchObject({ uuid: U2, name: 'data-1', size: 10737418240, isShareable: false, vmInstanceUuid: null });
  });

  it('encodes path parameters and refuses dot segments before any request', async () => {
    const seen = upstream.capture(UP, 200, { bondings: [], nics: [] });
    await upstream.client.read(SESSION, GetHostNetworkFacts, { hostUuid: 'a/b?c' });
    expect(seen[0]?.path).toBe('/svc/v1/hosts/network-facts/a%2Fb%3Fc');
    const error = await failure(upstream.client.read(SESSION, GetHostSensors, { uuid: '..' }));
    expect(error.code).toBe('UPSTREAM_BAD_REQUEST');
  });
});
