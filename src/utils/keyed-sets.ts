/**
 * Listeners kept by key (a job's owner, a topic): each key holds a set of them, and the key goes
 * once its last listener leaves, so a map of keys nobody listens to any more does not grow.
 */

/** Adds `member` to the set under `key`; the function returned removes it, and the key with its last member. */
export function joinKeyedSet<K, V>(sets: Map<K, Set<V>>, key: K, member: V): () => void {
  let set = sets.get(key);
  if (!set) sets.set(key, (set = new Set()));
  set.add(member);
  return () => {
    set.delete(member);
    if (set.size === 0 && sets.get(key) === set) sets.delete(key);
  };
}
