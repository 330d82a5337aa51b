/**
 * The upstream client as the gateway builds it from its default settings (`defaultConfig`, under
 * the same names) and its fixed options, for tests that construct the client directly.
 */
import { defaultConfig, strictRecordReads } from '../../src/config/index.js';
import { createUpstreamClient, UPSTREAM_FIXED_OPTIONS, type UpstreamClientOptions } from '../../src/upstream/client.js';
import type { UpstreamClient } from '../../src/upstream/types.js';

/** Every option the client takes: the defaults, then `options`. */
export function upstreamOptions(options: Partial<UpstreamClientOptions> & Pick<UpstreamClientOptions, 'upstreamUrl'>): UpstreamClientOptions {
  return {
    ...UPSTREAM_FIXED_OPTIONS,
    cursorUrl: defaultConfig.cursorUrl,
    upstreamTimezone: defaultConfig.upstreamTimezone,
    upstreamTimeoutMs: defaultConfig.upstreamTimeoutMs,
    upstreamConnections: defaultConfig.upstreamConnections,
    upstreamMaxQueued: defaultConfig.upstreamMaxQueued,
    upstreamBreakerThreshold: defaultConfig.upstreamBreakerThreshold,
    upstreamBreakerOpenMs: defaultConfig.upstreamBreakerOpenMs,
    shareUpstreamGets: defaultConfig.shareUpstreamGets,
    rejectedCredentialTtlMs: defaultConfig.rejectedCredentialTtlMs,
    rememberedCredentials: defaultConfig.rememberedCredentials,
    unverifiedCallsPerAddress: defaultConfig.unverifiedCallsPerAddress,
    unverifiedCallsPerMinute: defaultConfig.unverifiedCallsPerMinute,
    strictRecordReads,
    ...options,
  };
}

/** A client with the default options and `options`. */
export function createTestUpstreamClient(options: Partial<UpstreamClientOptions> & Pick<UpstreamClientOptions, 'upstreamUrl'>): UpstreamClient {
  return createUpstreamClient(upstreamOptions(options));
}
