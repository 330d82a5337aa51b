/**
 * Counts kept by key (places held per credential, per address): a key goes once its count is back
 * to zero, so a map of keys nobody holds any more does not grow.
 */

/** The count under `key`; 0 when none is kept. */
export function countOf<K>(counts: ReadonlyMap<K, number>, key: K): number {
  return counts.get(key) ?? 0;
}

/** Adds `delta` (negative to take away) to the count under `key`; the key goes when it falls to zero or below. */
export function addCount<K>(counts: Map<K, number>, key: K, delta: number): void {
  const count = countOf(counts, key) + delta;
  if (count > 0) counts.set(key, count);
  else counts.delete(key);
}
