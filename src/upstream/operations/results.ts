/**
 * Readers shared by the operations' decoders: the parts of a result body the spec gives every
 * operation of a kind (`inventories`, `total`, `inventory`, the success envelope).
 */
import { DecodeError, type Readable, type RecordDecoder, type RecordName } from '../decode.js';
import { decodeEach } from '../wire.js';
import type { QueryResult } from '../types.js';

/** Decodes one item; `path` names it in a `DecodeError`. */
export type ItemDecoder<T> = (value: unknown, path: string) => T;

/** A write the service answers with `{}`: nothing to read but its success. */
export type EmptyResult = Readonly<Record<never, never>>;

export const EMPTY_RESULT: EmptyResult = Object.freeze({});

/**
 * The records under `key`, each decoded alone: one that cannot be read is an `UnreadableRecord` in
 * its own slot, the others stand. The service omits null fields, so a missing list is an empty one.
 */
export function decodeItems<T>(body: Record<string, unknown>, key: string, decodeItem: ItemDecoder<T>): Readable<T>[] {
  const items = body[key];
  if (items === undefined || items === null) return [];
  if (!Array.isArray(items)) throw new DecodeError(`body.${key}`, 'expected a list');
  return decodeEach(items, `body.${key}`, decodeItem);
}

/** A count the service may render as `12` or `"12.0"`; null when absent. */
export function optionalCount(body: Record<string, unknown>, key: string): number | null {
  const value = body[key];
  if (value === undefined || value === null) return null;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  if (typeof value === 'string' && /^\d+(\.0+)?$/.test(value)) return Number(value);
  throw new DecodeError(`body.${key}`, 'expected a count');
}

/** The body minus the result envelope, for answers whose shape the spec leaves unshown. */
export function withoutEnvelope(body: Record<string, unknown>): Record<string, unknown> {
  const { success: _success, error: _error, ...rest } = body;
  return rest;
}

/** The record a write answers with in `inventory`; null when the answer carries none. */
export function inventoryOf<T>(body: Record<string, unknown>, decodeItem: ItemDecoder<T>): T | null {
  const inventory = body.inventory;
  return inventory ? decodeItem(inventory, 'inventory') : null;
}

/** What a write answers when the service gives back the record it wrote: that record, or null. */
export interface InventoryResult<T> {
  readonly inventory: T | null;
}

/**
 * The decoder of a write the service answers with the record it wrote, in `inventory` (most of
 * them): `decode: answersInventory('vmInstance')`.
 */
export function answersInventory<const K extends RecordName>(record: K): (body: Record<string, unknown>, decoder: RecordDecoder) => InventoryResult<ReturnType<RecordDecoder[K]>> {
  return (body, decoder) => ({ inventory: inventoryOf(body, decoder[record] as ItemDecoder<ReturnType<RecordDecoder[K]>>) });
}

/** One page of a query operation (convention 4): `inventories`, and `total` when asked for. */
export function decodeQueryResult<T>(body: Record<string, unknown>, decodeItem: ItemDecoder<T>): QueryResult<T> {
  return { inventories: decodeItems(body, 'inventories', decodeItem), total: optionalCount(body, 'total') };
}
