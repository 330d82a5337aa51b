/**
 * Scenario 4: the mobile path. The dashboard as an automatic persisted query over GET (hash only,
 * brotli/gzip accepted) with the response cache warm, against the plain uncached POST. Latency
 * comes from autocannon at one connection; bytes on the wire are counted on a fresh socket.
 */
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { DASHBOARD_BODY, DASHBOARD_QUERY } from './dashboard.js';
import { runLoad, type LoadResult } from './load.js';

export interface WireBytes {
  /** Bytes the client wrote (request line, headers, body). */
  sent: number;
  /** Bytes the client read (status line, headers, body as encoded). */
  received: number;
  status: number;
}

export interface MobileResult {
  /** Warm APQ GET through the cache-enabled gateway. */
  apqGet: LoadResult;
  /** Plain POST through the gateway without the response cache. */
  plainPost: LoadResult;
  apqGetBytes: WireBytes;
  plainPostBytes: WireBytes;
  /** A warm APQ GET revalidated with its ETag. */
  notModifiedBytes: WireBytes;
  /** plain POST p50 / APQ GET p50 (target ≥ 5). */
  speedup: number;
}

export const DASHBOARD_HASH = createHash('sha256').update(DASHBOARD_QUERY).digest('hex');

/** The hash-only GET URL Apollo's persisted-query link sends. */
export function persistedDashboardUrl(gatewayUrl: string): string {
  const params = new URLSearchParams({
    operationName: 'Dashboard',
    extensions: JSON.stringify({ persistedQuery: { version: 1, sha256Hash: DASHBOARD_HASH } }),
  });
  return `${gatewayUrl}/graphql?${params}`;
}

/** One request on its own connection, counting what crosses the socket both ways. */
export function measureWire(url: string, init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string }): Promise<WireBytes & { etag: string | null }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: init.method, headers: { ...init.headers, connection: 'close' }, agent: false }, (res) => {
      res.resume();
      res.once('end', () => {
        const socket = req.socket;
        resolve({
          sent: socket?.bytesWritten ?? 0,
          received: socket?.bytesRead ?? 0,
          status: res.statusCode ?? 0,
          etag: typeof res.headers.etag === 'string' ? res.headers.etag : null,
        });
      });
    });
    req.once('error', reject);
    req.end(init.body);
  });
}

export async function measureMobile(options: {
  cachedGatewayUrl: string;
  uncachedGatewayUrl: string;
  headers: Record<string, string>;
  durationSec: number;
}): Promise<MobileResult> {
  const mobileHeaders = { accept: 'application/graphql-response+json, application/json', 'accept-encoding': 'br, gzip', ...options.headers };
  const postHeaders = { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', ...options.headers };
  const getUrl = persistedDashboardUrl(options.cachedGatewayUrl);

  // Register the query (the client's second step after PersistedQueryNotFound), then warm the cache.
  const missing = await fetch(getUrl, { headers: mobileHeaders });
  const missingBody = (await missing.json()) as { errors?: { extensions?: { code?: string } }[] };
  if (missingBody.errors?.[0]?.extensions?.code !== 'PERSISTED_QUERY_NOT_FOUND') throw new Error('expected PersistedQueryNotFound first');
  const register = await fetch(`${options.cachedGatewayUrl}/graphql`, {
    method: 'POST',
    headers: postHeaders,
    body: JSON.stringify({ query: DASHBOARD_QUERY, operationName: 'Dashboard', extensions: { persistedQuery: { version: 1, sha256Hash: DASHBOARD_HASH } } }),
  });
  await register.arrayBuffer();
  const warm = await fetch(getUrl, { headers: mobileHeaders });
  await warm.arrayBuffer();

  const apqGetBytes = await measureWire(getUrl, { method: 'GET', headers: mobileHeaders });
  const plainPostBytes = await measureWire(`${options.uncachedGatewayUrl}/graphql`, { method: 'POST', headers: postHeaders, body: DASHBOARD_BODY });
  const notModifiedBytes = apqGetBytes.etag
    ? await measureWire(getUrl, { method: 'GET', headers: { ...mobileHeaders, 'if-none-match': apqGetBytes.etag } })
    : { sent: 0, received: 0, status: 0 };

  const apqGet = await runLoad({ url: getUrl, method: 'GET', headers: mobileHeaders, connections: 1, durationSec: options.durationSec });
  const plainPost = await runLoad({
    url: `${options.uncachedGatewayUrl}/graphql`,
    method: 'POST',
    headers: postHeaders,
    body: DASHBOARD_BODY,
    connections: 1,
    durationSec: options.durationSec,
  });
  return {
    apqGet,
    plainPost,
    apqGetBytes: strip(apqGetBytes),
    plainPostBytes: strip(plainPostBytes),
    notModifiedBytes: strip(notModifiedBytes),
    speedup: plainPost.p50Ms / apqGet.p50Ms,
  };
}

function strip(bytes: WireBytes & { etag?: string | null }): WireBytes {
  return { sent: bytes.sent, received: bytes.received, status: bytes.status };
}
