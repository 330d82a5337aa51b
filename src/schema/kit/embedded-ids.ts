/**
 * Global ids of records embedded in a parent record (a VM's NICs, a host's bonds), which have no
 * query of their own.
 */
import type { GatewayContext } from '../../context.js';
import { UnreadableRecord, type Readable } from '../../upstream/wire.js';
import { unreadableRecordError } from './errors.js';
import { embeddedLoadError, notFound } from './loading.js';
import type { UuidFields } from './record-fields.js';

/** The global id of an embedded record carries its parent's uuid: `<parentUuid>.<uuid>`. */
export function embeddedId(parentUuid: string | null, uuid: string): string {
  return `${parentUuid ?? ''}.${uuid}`;
}

/**
 * Type `extensions` of a record type whose ids are `embeddedId`s, so that `node(id:)` can tell a
 * well-formed id of that type from garbage before any upstream call.
 */
const EMBEDDED_GLOBAL_ID = { embeddedGlobalId: true } as const;

export function hasEmbeddedGlobalId(extensions: Readonly<Record<string, unknown>> | null | undefined): boolean {
  return extensions?.embeddedGlobalId === true;
}

export function parseEmbeddedId(id: string): { parentUuid: string; uuid: string } | null {
  const [parentUuid, uuid, ...rest] = id.split('.');
  if (!parentUuid || !uuid || rest.length > 0) return null;
  return { parentUuid, uuid };
}

/**
 * The batch function of a record type embedded in parents, by `<parentUuid>.<uuid>` ids: each
 * parent is read once (`loadParents`, answering in the order of the uuids given) and each id is
 * found in what `pick` takes from its parent. A malformed id or a record its parent lacks is
 * `NOT_FOUND` in its own slot; a parent that failed gives its error to its own records only, and
 * a record its parent holds unreadable gives its own error.
 */
export function loadEmbedded<P, T extends { uuid: string }>(
  typeName: string,
  loadParents: (parentUuids: string[], context: GatewayContext) => Promise<readonly (P | Error)[]>,
  pick: (parent: P) => readonly Readable<T>[],
): (ids: string[], context: GatewayContext) => Promise<(T | Error)[]> {
  return async (ids, context) => {
    const parsed = ids.map(parseEmbeddedId);
    const parentUuids = [...new Set(parsed.flatMap((id) => (id ? [id.parentUuid] : [])))];
    const parents = await loadParents(parentUuids, context);
    const byUuid = new Map(parentUuids.map((uuid, index) => [uuid, parents[index]]));
    return parsed.map((id, index) => {
      if (!id) return notFound(typeName, ids[index]!);
      const parent = byUuid.get(id.parentUuid);
      if (parent instanceof Error) return embeddedLoadError(parent, typeName, id.uuid);
      const found = parent && pick(parent).find((record) => record.uuid === id.uuid);
      if (!found) return notFound(typeName, id.uuid);
      return found instanceof UnreadableRecord ? unreadableRecordError(found) : found;
    });
  };
}

/**
 * An embedded node's identity and loader, as `nodeByUuid` gives a top-level one's: its global id
 * is `embeddedId(<parentField>, uuid)`, `load` finds such ids (`loadEmbedded`), and its type's
 * `extensions` (with the type's own) say that its ids have that form:
 * `...embeddedNode(loadVmNics, 'vmInstanceUuid', backedBy('vmNic'))`.
 */
export function embeddedNode<T extends { uuid: string }>(
  load: (ids: string[], context: GatewayContext) => Promise<(T | Error)[]>,
  parentField: UuidFields<T>,
  extensions: Readonly<Record<string, unknown>>,
) {
  return {
    id: { resolve: (record: T) => embeddedId(record[parentField] as string | null, record.uuid) },
    extensions: { ...extensions, ...EMBEDDED_GLOBAL_ID },
    load,
  };
}
