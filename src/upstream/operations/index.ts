/**
 * The catalogue of the spec's operations: 12 reads and 22 writes, each declared once, plus the
 * job poll. Adding an operation of the spec means declaring it in the file of its resource and
 * listing it here.
 */
import type { ResourceCollection, ResourceCollections, QueryResult } from '../types.js';
import * as cbtTasks from './cbt-tasks.js';
import * as cursor from './cursor.js';
import type { AnyOperation, ReadOperation } from './define.js';
import * as directories from './directories.js';
import * as hosts from './hosts.js';
import * as queries from './queries.js';
import * as snapshotGroups from './snapshot-groups.js';
import * as sns from './sns.js';
import * as storage from './storage.js';
import * as vmInstances from './vm-instances.js';

export * from './cbt-tasks.js';
export * from './cursor.js';
export * from './define.js';
export * from './directories.js';
export * from './hosts.js';
export * from './jobs.js';
export * from './queries.js';
export * from './request.js';
export * from './results.js';
export * from './snapshot-groups.js';
export * from './sns.js';
export * from './storage.js';
export * from './vm-instances.js';

/** Every operation of the spec, by its name (the job poll, not one of them, is apart). */
export const OPERATIONS: readonly AnyOperation[] = [cbtTasks, cursor, directories, hosts, queries, snapshotGroups, sns, storage, vmInstances].flatMap(
  (module) => Object.values(module).filter(isOperation),
);

function isOperation(value: unknown): value is AnyOperation {
  return typeof value === 'object' && value !== null && 'pathParts' in value && 'decode' in value;
}

/** The query operation of each resource-family collection the client's `query` reads. */
export const QUERY_OPERATIONS: { readonly [C in ResourceCollection]: ReadOperation<string, queries.QueryParamLocations, QueryResult<ResourceCollections[C]>> } = {
  hbaDevices: queries.QueryHBADevice,
  fiberChannelLuns: queries.QueryFiberChannelLun,
  cbtTasks: queries.QueryCbtTask,
  volumeSnapshotGroups: queries.QueryVolumeSnapshotGroup,
  snsEmailAddresses: queries.QuerySNSEmailAddress,
};
