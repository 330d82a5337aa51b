/**
 * The upstream client over undici's MockAgent, for its edge cases: a fresh agent and client per
 * test, what each intercepted request carried, and the `onRequest` events the client reported.
 */
import { MockAgent } from 'undici';
import { afterEach, beforeEach } from 'vitest';
import type { UpstreamClient, UpstreamClientOptions, UpstreamRequestError, UpstreamRequestEvent } from '../../src/upstream/index.js';
import { createTestUpstreamClient } from '../support/upstream-client.js';

export const UP = 'http://upstream.test';
export const RES = 'http://resources.test';
export const SESSION = { authorization: 'OAuth 0123456789abcdef0123456789abcdef' };
export const TOKEN = { authorization: 'Bearer tok-1', tenantId: 'tenant-a' };
export const U1 = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1';
export const U2 = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb2';
export const JOB = 'cccccccccccccccccccccccccccccccc';
export const JSON_HEADERS = { 'content-type': 'application/json;charset=UTF-8' };
export const TEXT_HEADERS = { 'content-type': 'text/plain' };

/** One request as the upstream received it. */
export interface Seen {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
}

export interface MockUpstream {
  /** This test's agent, client and events (set before each test). */
  agent: MockAgent;
  client: UpstreamClient;
  events: UpstreamRequestEvent[];
  /** Another client on this test's agent, its events reported with the default client's. */
  makeClient(overrides?: Partial<UpstreamClientOptions>): UpstreamClient;
  /** Intercepts one request on `origin` and records exactly what was sent. */
  capture(origin: string, status: number, body: unknown, headers?: Record<string, string>): Seen[];
}

/** Registers the hooks that give each test its own agent and client. */
export function useMockUpstream(): MockUpstream {
  const upstream = {
    makeClient(overrides: Partial<UpstreamClientOptions> = {}): UpstreamClient {
      return createTestUpstreamClient({
        upstreamUrl: `${UP}/`,
        cursorUrl: RES,
        dispatcher: upstream.agent,
        upstreamTimeoutMs: 2000,
        retryBaseDelayMs: 1,
        onRequest: (event) => upstream.events.push(event),
        ...overrides,
      });
    },
    capture(origin: string, status: number, body: unknown, headers: Record<string, string> = JSON_HEADERS): Seen[] {
      const seen: Seen[] = [];
      upstream.agent
        .get(origin)
        .intercept({ path: () => true, method: () => true })
        .reply(
          status,
          (opts) => {
            seen.push({ method: opts.method, path: opts.path, headers: normalizeHeaders(opts.headers), body: typeof opts.body === 'string' ? opts.body : undefined });
            return typeof body === 'string' ? body : JSON.stringify(body);
          },
          { headers },
        );
      return seen;
    },
  } as MockUpstream;

  beforeEach(() => {
    upstream.agent = new MockAgent();
    upstream.agent.disableNetConnect();
    upstream.events = [];
    upstream.client = upstream.makeClient();
  });

  afterEach(async () => {
    await upstream.client.close();
    await upstream.agent.close();
  });

  return upstream;
}

/** The decoded query parameters of a recorded path, as [key, value] pairs in order. */
export function paramsOf(path: string): Array<[string, string]> {
  return [...new URL(path, 'http://x').searchParams];
}

/** The error a call rejects with. */
export async function failure(promise: Promise<unknown>): Promise<UpstreamRequestError> {
  try {
    await promise;
  } catch (error) {
    return error as UpstreamRequestError;
  }
  throw new Error('expected the call to fail');
}

function normalizeHeaders(headers: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers === null || headers === undefined) return out;
  const entries: Iterable<[string, unknown]> = Array.isArray(headers) ? pairs(headers as string[]) : Object.entries(headers as Record<string, unknown>);
  for (const [key, value] of entries) out[key.toLowerCase()] = String(value);
  return out;
}

function* pairs(flat: string[]): Generator<[string, unknown]> {
  for (let i = 0; i + 1 < flat.length; i += 2) yield [flat[i] as string, flat[i + 1]];
}
