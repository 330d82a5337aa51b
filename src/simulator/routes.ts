/**
 * Tells a wrong method (405) from an unknown route (404) on the resource family. Dispatch itself
 * is `reads.ts` (GET) and `writes.ts` (everything else); both own their path templates.
 */
import { matchRead } from './reads.js';
import { isWritePath, isWriteSubPath } from './writes.js';

export { isWritePath };

/** Whether some method is routed at `subPath`. */
export function isKnownResourcePath(subPath: string): boolean {
  return matchRead(subPath) !== null || isWriteSubPath(subPath) || /^api-jobs\/[^/]+$/.test(subPath);
}
