/**
 * Credentials out of upstream text. The service quotes the credential it was sent in some
 * errors (`Invalid session[OAuth 895a…]`); that text becomes GraphQL errors, mutation payloads,
 * job results and log lines, so it is cleaned once, where it enters the gateway: the upstream
 * client's answers and the job webhook's bodies.
 */

/** What stands in for a credential. */
export const REDACTED = '[redacted]';

/**
 * `OAuth <x>`, `Bearer <x>` (any case) where `<x>` looks like a credential (16 or more token
 * characters; a session is 32 hex): the credential of any caller, even one not known here, while
 * prose such as "Bearer token required" stays as it is.
 */
const SCHEMED_CREDENTIAL = /\b(OAuth|Bearer)(\s+)[A-Za-z0-9._~+/=-]{16,}/gi;

/** Shorter values are not worth mangling text for: no real session or token is this short. */
const MIN_SECRET_CHARS = 4;

/**
 * The secret part of an `Authorization` value (`OAuth <session>` → the session uuid, `Bearer
 * <token>` → the token), which is what the upstream may quote bare; the value itself when it has
 * no scheme.
 */
export function secretOf(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const secret = /^\s*(?:OAuth|Bearer)\s+(\S+)\s*$/i.exec(authorization)?.[1] ?? authorization.trim();
  return secret.length >= MIN_SECRET_CHARS ? secret : undefined;
}

/** True when `text` may quote one of `secrets` (a cheap test before the full `redact`). */
export function mayQuote(text: string, secrets: readonly string[]): boolean {
  return secrets.some((secret) => text.includes(secret));
}

/**
 * `text` with every spelling of each secret replaced: as sent, upper or lower case, or
 * percent-encoded; and with any `OAuth`/`Bearer` credential, whoever's, replaced as well.
 */
export function redact(text: string, secrets: readonly string[]): string {
  let clean = text;
  for (const secret of secrets) {
    for (const spelling of new Set([secret, encodeURIComponent(secret)])) {
      clean = clean.replace(new RegExp(escapeRegExp(spelling), 'gi'), REDACTED);
    }
  }
  return clean.replace(SCHEMED_CREDENTIAL, `$1$2${REDACTED}`);
}

/** A JSON value with `redact` applied to every string in it (keys stay as they are). */
export function redactJson<T>(value: T, secrets: readonly string[]): T {
  if (typeof value === 'string') return redact(value, secrets) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => redactJson(item, secrets)) as T;
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactJson(item, secrets)])) as T;
  }
  return value;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
