/**
 * The credential as the upstream reads it: the one place that decides when two spellings of a
 * credential are the same caller, and that puts a credential into a request's headers. The
 * service takes `Authorization: <scheme> <token>` with the scheme in any case and whitespace
 * around and between the two ignored (`OAuth  s `, `oauth s` and `OAuth s` are one session), so
 * budgets, job ownership, the rejected-credential memory and every other per-caller key use
 * `credentialIdentity`, never the header text.
 */
import { createHash } from 'node:crypto';
import type { CursorCredential, ResourceCredential } from './types.js';

const SCHEME_AND_TOKEN = /^(\S+)\s+(\S+)$/;

/**
 * `<scheme in lower case> <token>`, or null when the value has no token the upstream could read
 * (empty, a scheme alone, or more than two words): the upstream answers such a header as if no
 * credential came.
 */
export function readableAuthorization(authorization: string): string | null {
  const match = SCHEME_AND_TOKEN.exec(authorization.trim());
  return match === null ? null : `${match[1]!.toLowerCase()} ${match[2]!}`;
}

/** The authorization as the upstream reads it, or its trimmed text when it reads none from it. */
function normalizedAuthorization(authorization: string): string {
  return readableAuthorization(authorization) ?? authorization.trim();
}

/** Who a resource-family credential is to the upstream: equal for every spelling of one session. */
export function resourceIdentity(credential: ResourceCredential): string {
  return `svc ${normalizedAuthorization(credential.authorization)}`;
}

/** Who a cursor-family credential is to the upstream: its token as read, and its tenant. */
export function cursorIdentity(credential: CursorCredential): string {
  return `res ${normalizedAuthorization(credential.authorization)}\u0000${credential.tenantId?.trim() ?? ''}`;
}

/**
 * One text for a caller's whole set of credentials (either may be missing): the key of budgets
 * and caches that span both families.
 */
export function credentialsIdentity(resource: ResourceCredential | undefined, cursor: CursorCredential | undefined): string {
  return `${resource === undefined ? '' : resourceIdentity(resource)}\u0001${cursor === undefined ? '' : cursorIdentity(cursor)}`;
}

/**
 * Digest of a resource-family credential as the upstream reads it: who a job belongs to, without
 * keeping the credential itself (the same session in another spelling owns the same jobs).
 */
export function ownerOf(credential: ResourceCredential): string {
  return createHash('sha256').update(resourceIdentity(credential)).digest('hex');
}

/**
 * The caller of one request: its credentials (either may be missing) and every key the gateway
 * keeps per caller, worked out once per request (the context's `caller`) and read everywhere:
 * budgets, the response cache's session, live-query scopes, shared subscriptions and coalescing
 * key on `key`; jobs on `owner`. Each is computed when first read, then kept.
 */
export class Caller {
  private identityText: string | undefined;
  private digest: string | undefined;
  private ownerDigest: string | null | undefined;

  constructor(
    readonly resource: ResourceCredential | undefined,
    readonly cursor: CursorCredential | undefined,
  ) {}

  /** Whether the caller sent no credential at all. */
  get anonymous(): boolean {
    return this.resource === undefined && this.cursor === undefined;
  }

  /** Both credentials as the upstream reads them (`credentialsIdentity`): equal for every spelling. */
  get identity(): string {
    return (this.identityText ??= credentialsIdentity(this.resource, this.cursor));
  }

  /** The sha256 of `identity`, in hex: the caller's key, the same on every replica, holding no credential. */
  get key(): string {
    return (this.digest ??= createHash('sha256').update(this.identity).digest('hex'));
  }

  /** Who owns the caller's jobs (`ownerOf` its resource-family credential); undefined without one. */
  get owner(): string | undefined {
    if (this.ownerDigest === undefined) this.ownerDigest = this.resource === undefined ? null : ownerOf(this.resource);
    return this.ownerDigest ?? undefined;
  }
}

/** Who a call is made for (its identity above) and the headers that say so upstream. */
export interface CallCredentials {
  readonly identity: string;
  readonly headers: Record<string, string>;
}

/** What a resource-family call carries: `Authorization` as given. */
export function resourceCallCredentials(credential: ResourceCredential): CallCredentials {
  return { identity: resourceIdentity(credential), headers: { authorization: credential.authorization } };
}

/** What a cursor-family call carries: `Authorization` as given, and `X-Tenant-ID` when the caller sent one. */
export function cursorCallCredentials(credential: CursorCredential): CallCredentials {
  const headers: Record<string, string> = { authorization: credential.authorization };
  if (credential.tenantId) headers['x-tenant-id'] = credential.tenantId;
  return { identity: cursorIdentity(credential), headers };
}
