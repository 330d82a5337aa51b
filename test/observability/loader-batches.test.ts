/**
 * `loader-batches.ts` reaches into DataLoader's private `_batch`: these tests pin what it relies
 * on, so that a DataLoader release that changes it fails here rather than silently keeping every
 * request's records until a full collection.
 */
import DataLoader from 'dataloader';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { dataLoaderRelease, releaseDispatchedBatchesOnClear, SUPPORTED_RELEASES } from '../../src/observability/loader-batches.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** A record loaded through a fresh loader, then the loader cleared: is the record still alive? */
async function keptAfterClear(): Promise<boolean> {
  const loader = new DataLoader<string, { uuid: string; name: string }>(async (keys) => keys.map((uuid) => ({ uuid, name: `vm-${uuid}` })));
  const record = new WeakRef(await loader.load('a'));
  loader.clearAll();
  // A WeakRef keeps its target until the current job ends.
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  // The loader itself lives on, as a finished request's loaders do in Pothos' context caches.
  expect(loader).toBeDefined();
  return record.deref() !== undefined;
}

describe('releaseDispatchedBatchesOnClear', () => {
  it('is written for the installed DataLoader release', () => {
    expect(dataLoaderRelease()).toMatch(SUPPORTED_RELEASES);
  });

  it('is needed: a cleared DataLoader keeps what its last batch loaded', async () => {
    // If this fails, DataLoader lets go by itself: delete loader-batches.ts.
    expect(await keptAfterClear()).toBe(true);
  });

  it('makes clearAll let go of what the last batch loaded, installed once however often it is called', async () => {
    expect(releaseDispatchedBatchesOnClear()).toBe(true);
    const patched = DataLoader.prototype.clearAll;
    expect(releaseDispatchedBatchesOnClear()).toBe(true);
    expect(DataLoader.prototype.clearAll).toBe(patched);
    expect(await keptAfterClear()).toBe(false);
  });

  it('still serves loads after a clear', async () => {
    releaseDispatchedBatchesOnClear();
    const loader = new DataLoader<number, number>(async (keys) => keys.map((key) => key * 2));
    expect(await loader.load(1)).toBe(2);
    loader.clearAll();
    expect(await Promise.all([loader.load(1), loader.load(2)])).toEqual([2, 4]);
  });
});
