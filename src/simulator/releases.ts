/**
 * The simulator playing an older upstream release (`SIM_VERSION`): an operation newer than the
 * release is an unknown route (404 plain text, as the real service answers one), and a write's
 * parameters newer than the release are dropped before it runs, as the real service's JSON binding
 * ignores fields its API message does not have. Record fields newer than the release are left out
 * of every answer by `wire.ts`. The releases are the gateway's declarations of the spec
 * (`upstream/operations/`, `upstream/records.ts`), so the two cannot tell different stories.
 */
import { OPERATIONS, paramRelease, type AnyOperation } from '../upstream/operations/index.js';
import { existsIn } from '../upstream/releases.js';
import { isPlainObject } from './writes/arguments.js';

const OPERATIONS_BY_NAME: ReadonlyMap<string, AnyOperation> = new Map(OPERATIONS.map((operation) => [operation.name, operation]));

/** Whether the spec's operation `name` exists in `release` (one the spec does not name always does). */
export function operationExists(name: string, release: string): boolean {
  const operation = OPERATIONS_BY_NAME.get(name);
  return operation === undefined || existsIn(operation.since, release);
}

/** A write's body without the parameters of operation `name` newer than `release` (in `params` or the action object). */
export function withoutNewerParameters(name: string, body: Record<string, unknown>, release: string): Record<string, unknown> {
  const operation = OPERATIONS_BY_NAME.get(name);
  if (operation === undefined) return body;
  const keep = (container: unknown): unknown =>
    isPlainObject(container)
      ? Object.fromEntries(Object.entries(container).filter(([key]) => !Object.hasOwn(operation.params, key) || existsIn(paramRelease(operation, operation.params[key]), release)))
      : container;
  const out: Record<string, unknown> = { ...body };
  if (Object.hasOwn(out, 'params')) out.params = keep(out.params);
  if (operation.actionKey !== undefined && Object.hasOwn(out, operation.actionKey)) out[operation.actionKey] = keep(out[operation.actionKey]);
  return out;
}
