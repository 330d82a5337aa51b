/**
 * Small pieces several resource modules share: the order direction, filter-to-upstream
 * translation, and global ids for records embedded in a parent record.
 */
import { builder } from '../builder.js';
import type { CursorFilter } from '../upstream/types.js';

export const OrderDirection = builder.enumType('OrderDirection', {
  description: 'Sort direction.',
  values: {
    ASC: { value: 'asc', description: 'Smallest first.' },
    DESC: { value: 'desc', description: 'Largest first.' },
  } as const,
});

/** Appends an equality (one value) or in-list (several) filter when `values` is given. */
export function addInFilter(filters: CursorFilter[], field: string, values: readonly string[] | null | undefined): void {
  if (!values) return;
  filters.push(values.length === 1 ? { field, op: 'eq', value: values[0]! } : { field, op: 'in', value: values });
}

/** Appends an equality filter when `value` is given. */
export function addEqualsFilter(filters: CursorFilter[], field: string, value: string | null | undefined): void {
  if (value !== null && value !== undefined) filters.push({ field, op: 'eq', value });
}

/** Appends a `like` filter (`%` wildcards around the text) when `value` is given. */
export function addContainsFilter(filters: CursorFilter[], field: string, value: string | null | undefined): void {
  if (value) filters.push({ field, op: 'like', value: `%${value}%` });
}

/**
 * Records embedded in a parent (a VM's NICs, a host's bonds) have no query of their own, so
 * their global id carries the parent's uuid: `<parentUuid>.<uuid>`.
 */
export function embeddedId(parentUuid: string | null, uuid: string): string {
  return `${parentUuid ?? ''}.${uuid}`;
}

/**
 * Type `extensions` of a record type whose ids are `embeddedId`s, so that `node(id:)` can tell a
 * well-formed id of that type from garbage before any upstream call.
 */
export const EMBEDDED_GLOBAL_ID = { embeddedGlobalId: true } as const;

export function hasEmbeddedGlobalId(extensions: Readonly<Record<string, unknown>> | null | undefined): boolean {
  return extensions?.embeddedGlobalId === true;
}

export function parseEmbeddedId(id: string): { parentUuid: string; uuid: string } | null {
  const [parentUuid, uuid, ...rest] = id.split('.');
  if (!parentUuid || !uuid || rest.length > 0) return null;
  return { parentUuid, uuid };
}

export const DeleteMode = builder.enumType('DeleteMode', {
  description: 'How a delete treats what still depends on the resource (the spec\'s `deleteMode`; default `Permissive`).',
  values: {
    PERMISSIVE: {
      value: 'Permissive',
      description: '`Permissive` (the upstream\'s default): the delete is refused while something still depends on the resource.',
    },
    ENFORCING: {
      value: 'Enforcing',
      description: '`Enforcing`: the delete goes ahead even when something still depends on the resource.',
    },
  } as const,
});
