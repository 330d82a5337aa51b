/**
 * The two spellings of a uuid the gateway takes: the upstream's 32 hexadecimal digits, and RFC
 * 9562's hyphenated `8-4-4-4-12` form, in either case (RFC 9562, section 4: hex digits are case
 * insensitive on input). Both become the upstream's spelling, 32 lowercase digits, before anything
 * else sees them, so a cache key, a loader key and an upstream request never tell them apart.
 */

const UPSTREAM_FORM = /^[0-9a-f]{32}$/;
const ACCEPTED_FORM = /^[0-9a-f]{8}(-?)[0-9a-f]{4}\1[0-9a-f]{4}\1[0-9a-f]{4}\1[0-9a-f]{12}$/i;

/** `value` as 32 lowercase hex digits, or null when it is no uuid in either accepted spelling. */
export function normalizeUuid(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  if (UPSTREAM_FORM.test(value)) return value;
  return ACCEPTED_FORM.test(value) ? value.replaceAll('-', '').toLowerCase() : null;
}
