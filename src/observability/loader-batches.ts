/**
 * `releaseDispatchedBatchesOnClear()`: makes `DataLoader#clearAll()` let go of the loader's last
 * dispatched batch as well as its cache. The app installs it (`createApp`); importing this module
 * changes nothing.
 *
 * DataLoader (2.x) keeps the last batch it dispatched on the loader, its keys and the resolve
 * functions of its promises (which hold the loaded values), until a later load starts the next
 * batch; `clearAll()` empties only the cache. A request's loaders outlive the request in Pothos'
 * context caches until a full collection (see `useReleaseLoadedRecords`), so each loader's last
 * batch kept the request's records alive, and every young-generation collection in between copied
 * them again. A dispatched batch is never used again (a later load starts a new one), so dropping
 * it changes nothing else. Measured, one client reading the dashboard: 176-368 KB per dashboard
 * survived young-generation collections before (every run); after, 61-69 KB in half the runs (the
 * scavenges' pause per dashboard 0.17-0.24 ms against 0.40-0.74 ms) and 178-207 KB in the others,
 * where something else still holds them. Measured again on issue 20 (three pairs of 8 s runs, one
 * client, a loaded machine): scavenges took 0.42-0.76 ms per dashboard with it against 0.82-1.04
 * ms without, in every pair. At 50 clients the operations in flight dominate, and it made no
 * difference there.
 *
 * It reaches into a private field, so it is pinned: it installs only on the DataLoader releases
 * it was written against (`SUPPORTED_RELEASES`), and `test/observability/loader-batches.test.ts` fails when a
 * release stops behaving as it relies on.
 */
import { createRequire } from 'node:module';
import DataLoader from 'dataloader';

/** The DataLoader releases whose private `_batch` this relies on. */
export const SUPPORTED_RELEASES = /^2\.\d+\.\d+$/;

/** The private field of DataLoader 2.x this relies on. */
interface WithBatch {
  _batch?: { hasDispatched: boolean } | null;
}

/** Marks the patched `clearAll`, so that installing twice patches once. */
const PATCHED = Symbol.for('infra-graphql-gateway.releaseDispatchedBatches');

/**
 * Installs the patch on the DataLoader the schema's loaders are made from; true once installed,
 * false on a release it was not written for (then `clearAll` is DataLoader's own).
 */
export function releaseDispatchedBatchesOnClear(): boolean {
  const clearAll = DataLoader.prototype.clearAll as DataLoader<unknown, unknown>['clearAll'] & { [PATCHED]?: true };
  if (clearAll[PATCHED]) return true;
  if (!SUPPORTED_RELEASES.test(dataLoaderRelease())) return false;
  const patched = function clearAllAndDispatchedBatch(this: DataLoader<unknown, unknown> & WithBatch) {
    if (this._batch?.hasDispatched) this._batch = null;
    return clearAll.call(this);
  };
  DataLoader.prototype.clearAll = Object.assign(patched, { [PATCHED]: true as const });
  return true;
}

/** The installed DataLoader's version. */
export function dataLoaderRelease(): string {
  return (createRequire(import.meta.url)('dataloader/package.json') as { version: string }).version;
}
