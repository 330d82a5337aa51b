/**
 * Typed filter arguments to resource-family `q=` conditions (the `common.ts` helpers do the same
 * for the cursor family's `filter=`).
 */
import type { QueryCondition } from '../upstream/types.js';

/** Appends `field=value` (one value) or `field?=a,b` (several) when `values` is given. */
export function addInCondition(conditions: QueryCondition[], field: string, values: readonly string[] | null | undefined): void {
  if (!values) return;
  conditions.push(values.length === 1 ? { field, op: '=', value: values[0]! } : { field, op: '?=', value: values });
}

/** Appends `field=value` when `value` is given. */
export function addEqualsCondition(conditions: QueryCondition[], field: string, value: string | null | undefined): void {
  if (value !== null && value !== undefined) conditions.push({ field, op: '=', value });
}

/** Appends `field~=%value%` (like, `%` wildcards) when `value` is given. */
export function addContainsCondition(conditions: QueryCondition[], field: string, value: string | null | undefined): void {
  if (value) conditions.push({ field, op: '~=', value: `%${value}%` });
}
