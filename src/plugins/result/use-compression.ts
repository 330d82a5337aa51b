/**
 * Compresses large single-result GraphQL answers (brotli or gzip, as `Accept-Encoding` allows).
 *
 * Not `useContentEncoding()` from `@whatwg-node/server`: it compresses every response, and a
 * compression stream holds back small chunks, which would stall SSE subscriptions and `@defer`
 * multipart answers until its buffer fills. Here only complete JSON bodies are compressed, once,
 * on libuv's thread pool. An answer with an ETag (one the response cache may serve again) is
 * compressed once per encoding and content: the bytes are kept by a digest of the body for its
 * next hits, least recently used dropped past `memoEntries`.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Plugin } from 'graphql-yoga';

/** Brotli quality (0-11): 4 is several times faster than brotli's own default of 11 for most of its gain. */
const DEFAULT_BROTLI_QUALITY = 4;
/** gzip level (1-9). */
const DEFAULT_GZIP_LEVEL = 6;
/** Compressed bodies of cacheable answers kept. */
const DEFAULT_MEMO_ENTRIES = 256;

export interface CompressionOptions {
  /** Smallest body (bytes) worth compressing; below it the framing costs more than it saves (`COMPRESSION_MIN_BYTES`). */
  compressionMinBytes: number;
  /** Brotli quality (0-11). @default DEFAULT_BROTLI_QUALITY */
  brotliQuality?: number;
  /** gzip level (1-9). @default DEFAULT_GZIP_LEVEL */
  gzipLevel?: number;
  /** Compressed bodies of cacheable answers kept, by content and encoding. @default DEFAULT_MEMO_ENTRIES */
  memoEntries?: number;
}

type Encoding = 'br' | 'gzip';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

const COMPRESSIBLE = /^application\/(graphql-response\+)?json\b/i;

export function useCompression(options: CompressionOptions): Plugin {
  const minBytes = options.compressionMinBytes;
  const brotliQuality = options.brotliQuality ?? DEFAULT_BROTLI_QUALITY;
  const gzipLevel = options.gzipLevel ?? DEFAULT_GZIP_LEVEL;
  const memoEntries = options.memoEntries ?? DEFAULT_MEMO_ENTRIES;
  const compress = (body: Buffer, encoding: Encoding) =>
    encoding === 'br'
      ? brotli(body, { params: { [constants.BROTLI_PARAM_QUALITY]: brotliQuality, [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength } })
      : gzipAsync(body, { level: gzipLevel });
  const memo = new Map<string, Awaited<ReturnType<typeof compress>>>();
  return {
    async onResponse({ request, response, setResponse, fetchAPI }) {
      const contentType = response.headers.get('content-type') ?? '';
      if (!COMPRESSIBLE.test(contentType) || response.headers.has('content-encoding')) return;
      response.headers.append('vary', 'Accept-Encoding');
      const encoding = pickEncoding(request.headers.get('accept-encoding'));
      // Only now `response.body`: reading it makes the fetch ponyfill turn a string body into a
      // stream over a copy of its bytes, which an answer sent as it is does not need.
      if (!encoding || !response.body) return;
      const body = Buffer.from(await response.arrayBuffer());
      const headers = new fetchAPI.Headers(response.headers);
      if (body.byteLength < minBytes) {
        setResponse(new fetchAPI.Response(body, { status: response.status, statusText: response.statusText, headers }));
        return;
      }
      // Digesting 34 KB costs a fraction of compressing it.
      const key = response.headers.has('etag') ? `${encoding} ${createHash('sha256').update(body).digest('base64url')}` : null;
      let compressed = key === null ? undefined : memo.get(key);
      if (compressed === undefined) {
        compressed = await compress(body, encoding);
        if (key !== null && memoEntries > 0) {
          memo.set(key, compressed);
          if (memo.size > memoEntries) memo.delete(memo.keys().next().value!);
        }
      } else {
        // Most recently used last.
        memo.delete(key!);
        memo.set(key!, compressed);
      }
      headers.set('content-encoding', encoding);
      headers.set('content-length', String(compressed.byteLength));
      setResponse(new fetchAPI.Response(compressed, { status: response.status, statusText: response.statusText, headers }));
    },
  };
}

/** The best encoding the client accepts (`q=0` excludes one), brotli first. */
export function pickEncoding(acceptEncoding: string | null): Encoding | null {
  if (!acceptEncoding) return null;
  const accepted = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((param) => /^\s*q=([\d.]+)\s*$/.exec(param)?.[1]).find((value) => value !== undefined);
    accepted.set(name.trim(), q === undefined ? 1 : Number(q));
  }
  const weight = (name: Encoding) => accepted.get(name) ?? accepted.get('*') ?? 0;
  const best = (['br', 'gzip'] as const).filter((name) => weight(name) > 0).sort((a, b) => weight(b) - weight(a))[0];
  return best ?? null;
}
