/**
 * Upstream releases: the spec says of every operation, parameter and record field the release
 * that brought it ("Since 4.10.6"). Declarations carry it as a value (`since: '4.10.6'`), and the
 * text "Since 4.10.6." of their descriptions is derived from it, so it is said once. This module
 * knows nothing of GraphQL: the schema filter (`schema/releases.ts`) and the simulator read it.
 */

/**
 * The release that brought an element: a dotted version (`'4.10.6'`, `'2.3'`), or `null` for one
 * as old as the service (the gateway's own elements: connections, jobs, the input tags).
 */
export type Release = string | null;

/**
 * The newest release the spec describes: the default of `UPSTREAM_VERSION` and `SIM_VERSION`.
 * `test/schema/releases.test.ts` checks it against the spec's own "Since" values.
 */
export const NEWEST_RELEASE = '5.3.0';

const RELEASE_PATTERN = /^\d+(\.\d+){0,3}$/;

/** Whether `text` is a release as the spec writes one (`4.10.6`, `2.3`). */
export function isRelease(text: string): boolean {
  return RELEASE_PATTERN.test(text);
}

function partsOf(release: string): number[] {
  return release.split('.').map(Number);
}

/** Negative when `a` is older than `b`, 0 when the same (`2.3` = `2.3.0`), positive when newer. */
export function compareReleases(a: string, b: string): number {
  const left = partsOf(a);
  const right = partsOf(b);
  for (let index = 0; index < Math.max(left.length, right.length); index++) {
    const difference = (left[index] ?? 0) - (right[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/** Whether an element brought by `since` exists in `release`. */
export function existsIn(since: Release, release: string): boolean {
  return since === null || compareReleases(since, release) <= 0;
}

/** The newer of two releases (`null` is the oldest). */
export function newerOf(a: Release, b: Release): Release {
  if (a === null) return b;
  if (b === null) return a;
  return compareReleases(a, b) >= 0 ? a : b;
}

/** `text` followed by the spec's words for `since` (`Identifier. Since 0.6.`); `text` alone for none. */
export function describeSince(text: string, since: Release | undefined): string {
  return since === undefined || since === null ? text : `${text} Since ${since}.`;
}
