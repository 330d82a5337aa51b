/**
 * The resource family's path table, used only to tell a wrong method (405) and an unaccepted
 * action (400) from an unknown route (404). Dispatch itself is `reads.ts` (GET) and
 * `writes.ts` (everything else).
 */
import { matchRead } from './reads.js';

/** Every write path of the spec below `svc/v1/`, `*` standing for one path segment. */
const WRITE_PATHS: readonly [method: string, path: string][] = [
  ['PUT', 'hosts/nqn/*/actions'],
  ['POST', 'hosts/bondings/*/ip'],
  ['POST', 'cbt-task/create'],
  ['DELETE', 'cbt-task/*'],
  ['POST', 'cbt-task/disable/*'],
  ['POST', 'cbt-task/enable/*'],
  ['POST', 'cbt-task/exportvolume'],
  ['POST', 'volume-snapshots/group'],
  ['DELETE', 'volume-snapshots/group/*'],
  ['PUT', 'volume-snapshots/group/*/actions'],
  ['PUT', 'vm-instances/*/actions'],
  ['POST', 'vm-instances/from/volume-snapshots/group/*'],
  ['DELETE', 'vm-instances/nics/*'],
  ['DELETE', 'vm-instances/*/ssh-keys'],
  ['DELETE', 'vm-instances/*'],
  ['DELETE', 'delete/directory'],
  ['PUT', 'sns/application-platforms/*/actions'],
  ['PUT', 'sns/application-endpoints/http/*/actions'],
  ['DELETE', 'sns/sms-endpoints/*/receivers/*'],
];

const COMPILED = WRITE_PATHS.map(([method, path]) => ({
  method,
  pattern: new RegExp(`^${path.replace(/\*/g, '[^/]+')}$`),
}));

/** Whether `method subPath` is one of the spec's writes (whatever its body). */
export function isWritePath(method: string, subPath: string): boolean {
  return COMPILED.some((route) => route.method === method && route.pattern.test(subPath));
}

/** Whether some method is routed at `subPath`. */
export function isKnownSvcPath(subPath: string): boolean {
  return matchRead(subPath) !== null || COMPILED.some((route) => route.pattern.test(subPath)) || /^api-jobs\/[^/]+$/.test(subPath);
}
