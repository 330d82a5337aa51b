import { describe, expect, it } from 'vitest';
import { addCount, countOf } from '../../src/utils/counts.js';

describe('counts by key', () => {
  it('adds and takes away, and forgets a key whose count is back to zero', () => {
    const counts = new Map<string, number>();
    addCount(counts, 'credential', 1);
    addCount(counts, 'credential', 2);
    expect(countOf(counts, 'credential')).toBe(3);
    addCount(counts, 'credential', -3);
    expect(counts.has('credential')).toBe(false);
    expect(countOf(counts, 'credential')).toBe(0);
  });

  it('a release with nothing held keeps no key (never a negative count)', () => {
    const counts = new Map<string, number>();
    addCount(counts, 'address', -1);
    expect(counts.size).toBe(0);
  });
});
