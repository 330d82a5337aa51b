/**
 * Building a request from an operation's declaration (`request.ts`): each parameter goes where its
 * declaration says, on the path, the query string or in the body.
 */
import { describe, expect, it } from 'vitest';
import {
  CursorNext,
  DeleteCbtTask,
  DeleteDirectory,
  DeleteVolumeSnapshotGroup,
  DestroyVmInstance,
  DetachL3NetworkFromVm,
  GetPrimaryStorageCapacity,
  PollJob,
  RecoverVmInstance,
  RemoveSNSSmsReceiver,
  SetIpOnHostNetworkBonding,
  UpdateVmNicDriver,
  buildBody,
  buildPath,
  buildQuery,
  matchPathOf,
} from '../../../src/upstream/operations/index.js';

const UUID = '0123456789abcdef0123456789abcdef';

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
