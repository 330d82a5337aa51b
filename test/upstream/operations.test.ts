/**
 * The operations catalogue: it covers every operation of the spec, each as the upstream (here the
 * simulator's router) recognises it, and its builders put each parameter where its declaration
 * says.
 */
import { describe, expect, it } from 'vitest';
import { matchRead } from '../../src/simulator/reads.js';
import { matchWrite } from '../../src/simulator/writes/index.js';
import {
  CursorNext,
  CursorQuery,
  DeleteCbtTask,
  DeleteDirectory,
  DeleteVolumeSnapshotGroup,
  DestroyVmInstance,
  DetachL3NetworkFromVm,
  GetPrimaryStorageCapacity,
  OPERATIONS,
  PollJob,
  RecoverVmInstance,
  RemoveSNSSmsReceiver,
  SetIpOnHostNetworkBonding,
  UpdateVmNicDriver,
  buildBody,
  buildPath,
  buildQuery,
  matchPathOf,
  type AnyOperation,
  type ParamsOf,
} from '../../src/upstream/operations/index.js';

/** The spec's operations (its "Endpoints" section), by name. */
const SPEC_READS = [
  'GetHostBlockDevices',
  'GetHostSensors',
  'GetHostNetworkFacts',
  'QueryHBADevice',
  'QueryFiberChannelLun',
  'GetPrimaryStorageCapacity',
  'QueryCbtTask',
  'QueryVolumeSnapshotGroup',
  'GetVmAttachableDataVolume',
  'QuerySNSEmailAddress',
  'CursorQuery',
  'CursorNext',
];
const SPEC_WRITES = [
  'UpdateHostNqn',
  'SetIpOnHostNetworkBonding',
  'CreateCbtTask',
  'DeleteCbtTask',
  'DisableCbtTask',
  'EnableCbtTask',
  'ExportNbdVolumes',
  'CreateVolumeSnapshotGroup',
  'DeleteVolumeSnapshotGroup',
  'UpdateVolumeSnapshotGroup',
  'PrimaryStorageMigrateVm',
  'CreateVmInstanceFromVolumeSnapshotGroup',
  'DetachL3NetworkFromVm',
  'DeleteVmSshKey',
  'SetVmBootVolume',
  'RecoverVmInstance',
  'UpdateVmNicDriver',
  'DestroyVmInstance',
  'DeleteDirectory',
  'ChangeSNSApplicationPlatformState',
  'UpdateSNSHttpEndpoint',
  'RemoveSNSSmsReceiver',
];

const UUID = '0123456789abcdef0123456789abcdef';

/** Every path parameter of `operation` set to a uuid. */
function pathParams(operation: AnyOperation): Record<string, string> {
  return Object.fromEntries(operation.pathParts.flatMap((part) => ('param' in part ? [[part.param, UUID]] : [])));
}

describe('the operations catalogue', () => {
  it('declares each of the spec\'s 34 operations once: 12 reads and 22 writes', () => {
    const names = OPERATIONS.map((operation) => operation.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.filter((_, index) => OPERATIONS[index]?.method === 'GET').sort()).toEqual([...SPEC_READS].sort());
    expect(names.filter((_, index) => OPERATIONS[index]?.method !== 'GET').sort()).toEqual([...SPEC_WRITES].sort());
  });

  it('sends every resource-family operation where the upstream recognises it by the same name', () => {
    for (const operation of OPERATIONS.filter((candidate) => candidate.family === 'resource')) {
      const path = buildPath(operation, pathParams(operation));
      const recognised =
        operation.method === 'GET'
          ? matchRead(path)?.route.operation
          : matchWrite(operation.method, `/svc/v1/${path}`, buildBody(operation, pathParams(operation)) ?? {})?.operation;
      expect({ operation: operation.name, recognised }).toEqual({ operation: operation.name, recognised: operation.name });
    }
  });

  it('sends the cursor family\'s two operations below api/v1/resources', () => {
    expect([CursorQuery.family, CursorQuery.path, CursorNext.family, CursorNext.path]).toEqual(['cursor', 'cursor-query', 'cursor', 'cursor-next']);
  });

  it('types the parameters: leaving out a path parameter does not compile', () => {
    // @ts-expect-error uuid is a path parameter of DestroyVmInstance
    const missing: ParamsOf<typeof DestroyVmInstance> = { deleteMode: 'Enforcing' };
    const complete: ParamsOf<typeof DestroyVmInstance> = { uuid: UUID, deleteMode: 'Enforcing' };
    expect(complete.uuid).not.toBe(missing.deleteMode);
  });
});

describe('building a request from a declaration', () => {
  it('recognises a path built from a declaration by the same template, whatever comes before its root', () => {
    const matchJobPath = matchPathOf(PollJob, 'svc/v1/');
    expect(matchJobPath(`/svc/v1/${buildPath(PollJob, { jobUuid: UUID })}`)).toEqual({ jobUuid: UUID });
    expect(matchJobPath(`/proxy/prefix/svc/v1/api-jobs/${UUID}/`)).toEqual({ jobUuid: UUID });
    // An id that needed escaping was not built here; neither is another path.
    expect(matchJobPath('/svc/v1/api-jobs/a%2Fb')).toBeUndefined();
    expect(matchJobPath(`/svc/v1/api-jobs/${UUID}/extra`)).toBeUndefined();
    expect(matchJobPath(`/svc/v2/api-jobs/${UUID}`)).toBeUndefined();
    expect(matchJobPath(`/xsvc/v1/api-jobs/${UUID}`)).toBeUndefined();
  });

  it('path: each parameter is one percent-encoded segment', () => {
    expect(buildPath(RemoveSNSSmsReceiver, { endpointUuid: UUID, phoneNumber: '+86 138/0' })).toBe(`sns/sms-endpoints/${UUID}/receivers/%2B86%20138%2F0`);
    expect(buildPath(PollJob, { jobUuid: UUID })).toBe(`api-jobs/${UUID}`);
  });

  it('path: an empty, `.` or `..` parameter is refused before anything is sent', () => {
    for (const value of ['', '.', '..']) {
      expect(() => buildPath(DestroyVmInstance, { uuid: value })).toThrow(expect.objectContaining({ code: 'UPSTREAM_BAD_REQUEST', operation: 'DestroyVmInstance' }));
    }
  });

  it('query: declared order, a list repeats its key, absent values are left out, nothing else is sent', () => {
    const params = { zoneUuids: ['z1', 'z2'], clusterUuids: undefined, primaryStorageUuids: null, all: false, other: 'x' };
    expect(buildQuery(GetPrimaryStorageCapacity, params)).toEqual([
      ['zoneUuids', 'z1'],
      ['zoneUuids', 'z2'],
      ['all', 'false'],
    ]);
    expect(buildBody(GetPrimaryStorageCapacity, params)).toBeUndefined();
  });

  it('local: a parameter the decoder reads is never sent', () => {
    expect(buildQuery(CursorNext, { cursor: 'c', pageSize: 10, resourceType: 'vm' })).toEqual([
      ['cursor', 'c'],
      ['pageSize', '10'],
    ]);
  });

  it('POST: the parameters go in `params`, without null or undefined ones, tags beside them when they are lists', () => {
    const params = { bondingUuid: UUID, ipAddress: '10.0.0.5', netmask: null, isDefaultRoute: false };
    expect(buildBody(SetIpOnHostNetworkBonding, params, { systemTags: ['a'], userTags: 'not a list' })).toEqual({
      params: { ipAddress: '10.0.0.5', isDefaultRoute: false },
      systemTags: ['a'],
    });
    expect(buildPath(SetIpOnHostNetworkBonding, params)).toBe(`hosts/bondings/${UUID}/ip`);
  });

  it('PUT: the parameters go in the action object under its key, even when there are none', () => {
    expect(buildBody(UpdateVmNicDriver, { vmInstanceUuid: UUID, vmNicUuid: 'n1', driverType: 'virtio' }, { userTags: ['u'] })).toEqual({
      updateVmNicDriver: { vmNicUuid: 'n1', driverType: 'virtio' },
      userTags: ['u'],
    });
    expect(buildBody(RecoverVmInstance, { uuid: UUID })).toEqual({ recoverVmInstance: {} });
  });

  it('DELETE: the body carries `params` only when there is something to carry', () => {
    expect(buildBody(DeleteCbtTask, { uuid: UUID, force: true, deleteMode: undefined })).toEqual({ params: { force: true } });
    expect(buildBody(DeleteCbtTask, { uuid: UUID })).toBeUndefined();
    expect(buildBody(DetachL3NetworkFromVm, { vmNicUuid: UUID }, { systemTags: ['s'] })).toEqual({ params: {}, systemTags: ['s'] });
    expect(buildBody(DeleteDirectory, { uuid: UUID, deleteMode: 'Enforcing' })).toEqual({ params: { uuid: UUID, deleteMode: 'Enforcing' } });
  });

  it('DELETE: a parameter the spec sends on the query string goes there, not in the body', () => {
    const params = { uuid: UUID, deleteMode: 'Enforcing' };
    expect(buildQuery(DeleteVolumeSnapshotGroup, params)).toEqual([['deleteMode', 'Enforcing']]);
    expect(buildBody(DeleteVolumeSnapshotGroup, params)).toBeUndefined();
  });

  it('body+query: a parameter the spec sends both ways goes both ways', () => {
    const params = { endpointUuid: UUID, phoneNumber: '+1', deleteMode: 'Permissive' };
    expect(buildQuery(RemoveSNSSmsReceiver, params)).toEqual([['deleteMode', 'Permissive']]);
    expect(buildBody(RemoveSNSSmsReceiver, params)).toEqual({ params: { deleteMode: 'Permissive' } });
  });
});
