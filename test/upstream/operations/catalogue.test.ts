/**
 * The operations catalogue (`operations/index.ts`): it covers every operation of the spec, each as
 * the upstream (here the simulator's router) recognises it.
 */
import { describe, expect, it } from 'vitest';
import { matchRead } from '../../../src/simulator/reads.js';
import { matchWrite } from '../../../src/simulator/writes/index.js';
import {
  CursorNext,
  CursorQuery,
  OPERATIONS,
  buildBody,
  buildPath,
  type AnyOperation,
  type DestroyVmInstance,
  type ParamsOf,
} from '../../../src/upstream/operations/index.js';

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
