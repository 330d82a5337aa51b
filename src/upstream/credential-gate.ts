/**
 * What the gateway knows of each credential from the upstream's own answers, so that a credential
 * nobody has seen accepted cannot make the gateway call the upstream for it at will:
 *
 * - **Accepted** (the upstream answered a call under it with anything but a rejection): its calls
 *   pass untouched.
 * - **Rejected** (`ID.1001`, a 401, or a 400 to a header the upstream reads no credential from):
 *   every call under it fails at once, without reaching the upstream, for `rejectedCredentialTtlMs`. The
 *   calls of the same request that were waiting fail with it.
 * - **Unknown**: one call at a time goes upstream (the probe); the others wait for its verdict.
 *   Each probe draws on a token bucket of the client's address, so inventing a fresh credential
 *   per request buys no fresh upstream calls.
 *
 * Both memories are bounded (least recently used forgotten first): a forgotten credential is
 * merely unknown again.
 */
import { UpstreamAuthenticationError, UpstreamRateLimitedError } from './errors.js';

export interface CredentialGateOptions {
  /** How long a rejected credential's calls fail without reaching the upstream, in ms. 0 remembers none. */
  rejectedCredentialTtlMs: number;
  /** Credentials remembered as accepted, and (separately) as rejected, at most. */
  rememberedCredentials: number;
  /** Calls an address may make under credentials not yet accepted, in a burst; 0 turns the address budget off. */
  unverifiedCallsPerAddress: number;
  /** Such calls an address regains per minute. */
  unverifiedCallsPerMinute: number;
  /** Addresses whose budget is kept at most. */
  rememberedAddresses: number;
  /** Clock, for tests. @default Date.now */
  now?: (() => number) | undefined;
}

/** What a call's answer says about the credential it carried. */
export type CredentialVerdict = 'accepted' | 'rejected' | 'unknown';

/** A call let through the gate; `settle` once it ended, with what its answer said. */
export interface GatePass {
  /** `sent`: whether the request may have reached the upstream (a probe that did not gets its token back). */
  settle(verdict: CredentialVerdict, sent: boolean): void;
}

const OPEN_PASS: GatePass = { settle: () => {} };

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export class CredentialGate {
  private readonly accepted = new Map<string, true>();
  /** Rejected credentials and when their rejection is forgotten. */
  private readonly rejected = new Map<string, number>();
  /** Credentials with a probe in flight: settled with its verdict. */
  private readonly probes = new Map<string, Promise<void>>();
  private readonly buckets = new Map<string, Bucket>();
  private readonly rejectedTtlMs: number;
  private readonly maxRemembered: number;
  private readonly burst: number;
  private readonly perMinute: number;
  private readonly maxAddresses: number;
  private readonly now: () => number;

  constructor(options: CredentialGateOptions) {
    this.rejectedTtlMs = Math.max(0, options.rejectedCredentialTtlMs);
    this.maxRemembered = Math.max(1, options.rememberedCredentials);
    this.burst = Math.max(0, options.unverifiedCallsPerAddress);
    this.perMinute = Math.max(0, options.unverifiedCallsPerMinute);
    this.maxAddresses = Math.max(1, options.rememberedAddresses);
    this.now = options.now ?? Date.now;
  }

  /** Whether the upstream has accepted `identity` (and this gate still remembers it). */
  isAccepted(identity: string): boolean {
    return this.accepted.has(identity);
  }

  /**
   * Lets a call under `identity` through, waiting for the verdict of a probe in flight for it;
   * rejects with `UNAUTHENTICATED` (a rejected credential) or `RATE_LIMITED` (the address spent
   * its calls under unknown credentials). `address` undefined: a call of the gateway's own.
   */
  async enter(identity: string, address: string | undefined, operation: string, signal?: AbortSignal): Promise<GatePass> {
    for (;;) {
      if (this.accepted.has(identity)) {
        // Re-inserted: the Map's order is least recently used first.
        this.accepted.delete(identity);
        this.accepted.set(identity, true);
        return OPEN_PASS;
      }
      this.refuseIfRejected(identity, operation);
      const probe = this.probes.get(identity);
      if (probe === undefined) return this.startProbe(identity, address, operation);
      await waitFor(probe, signal);
    }
  }

  private refuseIfRejected(identity: string, operation: string): void {
    const until = this.rejected.get(identity);
    if (until === undefined) return;
    if (until <= this.now()) {
      this.rejected.delete(identity);
      return;
    }
    throw new UpstreamAuthenticationError(
      `${operation}: the upstream rejected this credential moments ago; the gateway fails its calls without asking again for ${Math.ceil((until - this.now()) / 1000)} s`,
      { operation },
    );
  }

  private startProbe(identity: string, address: string | undefined, operation: string): GatePass {
    const charged = address !== undefined && this.burst > 0;
    if (charged) this.take(address, operation);
    let settled = false;
    let finish = (): void => {};
    this.probes.set(identity, new Promise<void>((resolve) => (finish = resolve)));
    return {
      settle: (verdict, sent) => {
        if (settled) return;
        settled = true;
        this.probes.delete(identity);
        if (verdict === 'accepted') remember(this.accepted, identity, true, this.maxRemembered);
        else if (verdict === 'rejected' && this.rejectedTtlMs > 0) remember(this.rejected, identity, this.now() + this.rejectedTtlMs, this.maxRemembered);
        if (charged && !sent) this.refund(address);
        finish();
      },
    };
  }

  /** Takes one call from the address's bucket, or refuses the call. */
  private take(address: string, operation: string): void {
    const bucket = this.refilled(address);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return;
    }
    const retryAfterSeconds = this.perMinute > 0 ? Math.max(1, Math.ceil(((1 - bucket.tokens) * 60) / this.perMinute)) : 60;
    throw new UpstreamRateLimitedError(
      `${operation}: too many calls from this address under credentials the upstream has not accepted yet; retry in ${retryAfterSeconds} s`,
      { operation, retryAfterSeconds },
    );
  }

  private refund(address: string): void {
    const bucket = this.refilled(address);
    bucket.tokens = Math.min(this.burst, bucket.tokens + 1);
  }

  private refilled(address: string): Bucket {
    const now = this.now();
    let bucket = this.buckets.get(address);
    if (bucket === undefined) {
      bucket = { tokens: this.burst, updatedAt: now };
    } else {
      this.buckets.delete(address);
      bucket.tokens = Math.min(this.burst, bucket.tokens + (Math.max(0, now - bucket.updatedAt) / 60_000) * this.perMinute);
      bucket.updatedAt = now;
    }
    remember(this.buckets, address, bucket, this.maxAddresses);
    return bucket;
  }
}

/** Sets `key` as the most recently used entry, forgetting the least recently used beyond `max`. */
function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  if (map.size >= max) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
  map.set(key, value);
}

/** Waits for `promise`, or rejects with the signal's reason once it aborts. */
function waitFor(promise: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    void promise.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
