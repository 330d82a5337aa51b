/**
 * Yoga's parse caches, bounded by size. Yoga keeps the parsed documents and the parse errors of
 * the last 1,024 document texts each, for an hour, whatever their size: with a body up to
 * `MAX_BODY_BYTES`, 300 requests of a 500 KB document that does not parse took a gateway from
 * 228 MiB to 1,167 MiB, where it stayed. Here each cache holds at most `maxChars` characters of
 * document text (its parsed form or error is a few times that), and a document longer than
 * `maxDocumentChars` is parsed every time it comes, never kept: real clients send the same few
 * documents of a few KB, which are the ones worth keeping.
 *
 * Written here rather than taken from `lru-cache` (what yoga uses, with a count bound only) to add
 * no dependency: a `Map` keeps insertion order, so re-inserting on each hit makes its first key
 * the least recently used (`utils/recently-used.ts`).
 */
import type { DocumentNode } from 'graphql';
import { getRecentlyUsed } from '../utils/recently-used.js';

/** What yoga's `parserAndValidationCache` takes for each of its caches. */
export interface TextKeyedCache<T> {
  get(key: string): T | undefined;
  set(key: string, value: T): void;
}

export interface ParseCacheOptions {
  /** Characters of document text each cache holds at most. @default PARSE_CACHE_MAX_CHARS */
  maxChars?: number;
  /** Longest document kept, in characters; longer ones are parsed on every request. @default PARSE_CACHE_MAX_DOCUMENT_CHARS */
  maxDocumentChars?: number;
}

/** Document text each parse cache holds at most: hundreds of typical operations. */
export const PARSE_CACHE_MAX_CHARS = 2 * 1024 * 1024;

/** Longest document a parse cache keeps: a large generated query still fits. */
export const PARSE_CACHE_MAX_DOCUMENT_CHARS = 64 * 1024;

/** The caches of yoga's `parserAndValidationCache` option: documents and parse errors, each bounded by size. */
export function createParseCaches(options: ParseCacheOptions = {}): { documentCache: TextKeyedCache<DocumentNode>; errorCache: TextKeyedCache<unknown> } {
  const maxChars = options.maxChars ?? PARSE_CACHE_MAX_CHARS;
  const maxDocumentChars = options.maxDocumentChars ?? PARSE_CACHE_MAX_DOCUMENT_CHARS;
  return {
    documentCache: createSizeBoundedCache<DocumentNode>(maxChars, maxDocumentChars),
    // A text that does not parse is worth less than one that does: a quarter of the room.
    errorCache: createSizeBoundedCache<unknown>(Math.floor(maxChars / 4), maxDocumentChars),
  };
}

/** A least-recently-used cache keyed by text, holding at most `maxChars` characters of keys, none over `maxKeyChars`. */
export function createSizeBoundedCache<T>(maxChars: number, maxKeyChars: number): TextKeyedCache<T> & { readonly size: number; readonly chars: number } {
  const entries = new Map<string, T>();
  let chars = 0;
  return {
    get size() {
      return entries.size;
    },
    get chars() {
      return chars;
    },
    get: (key) => getRecentlyUsed(entries, key),
    set(key, value) {
      if (key.length > maxKeyChars || key.length > maxChars) return;
      if (entries.delete(key)) chars -= key.length;
      entries.set(key, value);
      chars += key.length;
      for (const oldest of entries.keys()) {
        if (chars <= maxChars) break;
        entries.delete(oldest);
        chars -= oldest.length;
      }
    },
  };
}
