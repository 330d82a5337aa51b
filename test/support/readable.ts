/**
 * Tests of what the decoder reads: the items of a decoded list, failing the test when one could
 * not be read (a page's or an embedded list's slot may hold an `UnreadableRecord`).
 */
import { UnreadableRecord, type Readable } from '../../src/upstream/wire.js';

export function readable<T>(items: readonly Readable<T>[]): T[] {
  for (const item of items) if (item instanceof UnreadableRecord) throw item;
  return items as T[];
}
