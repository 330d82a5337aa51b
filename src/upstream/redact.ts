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
 *
 * A secret is searched for as plain text, never made into a pattern: a regular expression built
 * from one failed on a 70 KB credential ("Invalid regular expression: /zzz…/"), and the error
 * that carried it went to the log whole. Nothing here throws, whatever the secret.
 */
export function redact(text: string, secrets: readonly string[]): string {
  let clean = text;
  for (const secret of secrets) {
    for (const spelling of spellingsOf(secret)) clean = replaceIgnoringCase(clean, spelling);
  }
  return clean.replace(SCHEMED_CREDENTIAL, `$1$2${REDACTED}`);
}

/** The secret as sent, and percent-encoded when that differs (a secret that cannot be encoded has no such spelling). */
function spellingsOf(secret: string): string[] {
  const encoded = secret.isWellFormed() ? encodeURIComponent(secret) : secret;
  return encoded === secret ? [secret] : [secret, encoded];
}

/**
 * `text` with every occurrence of `spelling`, in any case, replaced by `REDACTED`. The search runs
 * on lower-cased copies, whose indexes are the original's as long as lower-casing keeps each
 * string's length (it does for ASCII, which credentials are); when it does not, only the exact
 * spelling is replaced.
 */
function replaceIgnoringCase(text: string, spelling: string): string {
  if (spelling === '') return text;
  const haystack = text.toLowerCase();
  const needle = spelling.toLowerCase();
  if (haystack.length !== text.length || needle.length !== spelling.length) return text.split(spelling).join(REDACTED);
  let clean = '';
  let from = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, from)) {
    clean += text.slice(from, at) + REDACTED;
    from = at + needle.length;
  }
  return from === 0 ? text : clean + text.slice(from);
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
