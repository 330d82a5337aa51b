/**
 * Least-recently-used bookkeeping on a plain `Map`, for the small bounded caches that would not
 * pay for a dependency: a `Map` keeps insertion order, so re-inserting a key on each hit makes the
 * first key the least recently used, the one to drop.
 */

/** The value of `key`, which becomes the most recently used; undefined when `map` holds none. */
export function getRecentlyUsed<K, V>(map: Map<K, V>, key: K): V | undefined {
  const value = map.get(key);
  if (value !== undefined) {
    map.delete(key);
    map.set(key, value);
  }
  return value;
}
