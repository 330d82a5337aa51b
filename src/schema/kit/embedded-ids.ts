/**
 * Global ids of records embedded in a parent record (a VM's NICs, a host's bonds), which have no
 * query of their own.
 */

/** The global id of an embedded record carries its parent's uuid: `<parentUuid>.<uuid>`. */
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
