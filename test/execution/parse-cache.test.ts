import { describe, expect, it } from 'vitest';
import { createParseCaches, createSizeBoundedCache, PARSE_CACHE_MAX_CHARS, PARSE_CACHE_MAX_DOCUMENT_CHARS } from '../../src/execution/parse-cache.js';

describe('size-bounded parse caches', () => {
  it('holds at most its size in document text, dropping the least recently used first', () => {
    const cache = createSizeBoundedCache<number>(1_000, 400);
    for (let index = 0; index < 10; index += 1) cache.set(`${index}`.padEnd(300, 'x'), index);
    expect(cache.chars).toBeLessThanOrEqual(1_000);
    expect(cache.size).toBe(3);
    // A hit makes an entry the most recent: the next insertion drops another.
    expect(cache.get('7'.padEnd(300, 'x'))).toBe(7);
    cache.set('a'.padEnd(300, 'x'), 10);
    expect(cache.get('7'.padEnd(300, 'x'))).toBe(7);
    expect(cache.get('8'.padEnd(300, 'x'))).toBeUndefined();
  });

  it('never keeps a document over its largest size', () => {
    const cache = createSizeBoundedCache<number>(1_000, 400);
    cache.set('x'.repeat(401), 1);
    expect(cache.size).toBe(0);
    expect(cache.get('x'.repeat(401))).toBeUndefined();
  });

  it('keeps 300 distinct 500 KB documents out of the caches yoga is given', () => {
    const { documentCache, errorCache } = createParseCaches();
    expect(PARSE_CACHE_MAX_DOCUMENT_CHARS).toBeLessThan(500_000);
    for (let index = 0; index < 300; index += 1) {
      const text = `{ a${index}${'x'.repeat(500_000)}`;
      errorCache.set(text, new Error('Syntax Error'));
      expect(errorCache.get(text)).toBeUndefined();
      expect(documentCache.get(text)).toBeUndefined();
    }
    expect(PARSE_CACHE_MAX_CHARS).toBeLessThan(16 * 1024 * 1024);
  });
});
