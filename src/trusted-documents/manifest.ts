/**
 * Trusted-document manifests: the operations an app ships, by id, as the persisted-query tooling
 * of the three client stacks writes them. Read whole and checked against the schema before any of
 * it is used, so a manifest with one broken operation is refused with that operation's name rather
 * than discovered by the first client that sends its id.
 *
 * - Apollo's persisted query manifest (`@apollo/generate-persisted-query-manifest`):
 *   `{ "format": "apollo-persisted-query-manifest", "version": 1, "operations": [{ "id", "name", "type", "body" }] }`
 * - The `{ id: document }` map Relay's compiler (`persistConfig.file`, `queryMap.json`) and GraphQL
 *   Code Generator's client preset (`persistedDocuments: true`, `persisted-documents.json`) write.
 */
import { readFileSync } from 'node:fs';
import { parse, validate, type DocumentNode, type GraphQLError, type GraphQLSchema } from 'graphql';

/** The operations of one manifest: each id's document text, checked against the schema. */
export interface TrustedManifest {
  /** The file it was read from. */
  readonly path: string;
  /** The document text stored under `id`, or undefined for an id the manifest does not hold. */
  documentOf(id: string): string | undefined;
  /** Whether `text` is, character for character, one of the manifest's documents. */
  holdsDocument(text: string): boolean;
  readonly size: number;
}

/** A manifest that cannot be used, with the reason (and the operation at fault, when one is). */
export class ManifestError extends Error {
  override name = 'ManifestError';
}

/** Longest id a manifest may hold and a client may send: a SHA-256 in hex is 64, Relay's MD5 32. */
export const MAX_DOCUMENT_ID_LENGTH = 256;

/**
 * Reads, parses and validates the manifest at `path`; throws a ManifestError naming what is wrong.
 * Synchronous: it runs once at start, before the gateway listens, and on a reload.
 */
export function loadTrustedManifest(path: string, schema: GraphQLSchema): TrustedManifest {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ManifestError(`the trusted-document manifest ${path} cannot be read: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ManifestError(`the trusted-document manifest ${path} is not JSON: ${(error as Error).message}`);
  }
  const entries = readEntries(json, path);
  const documents = new Map<string, string>();
  for (const entry of entries) {
    checkId(entry.id, entry.label, path);
    const known = documents.get(entry.id);
    if (known !== undefined && known !== entry.body) throw new ManifestError(`${path}: ${entry.label} reuses id ${entry.id} for a different document`);
    checkDocument(entry.body, entry.label, path, schema);
    documents.set(entry.id, entry.body);
  }
  const texts = new Set(documents.values());
  return {
    path,
    documentOf: (id) => documents.get(id),
    holdsDocument: (candidate) => texts.has(candidate),
    size: documents.size,
  };
}

interface ManifestEntry {
  id: string;
  body: string;
  /** How an error names the operation: its name when the manifest gives one, else its id. */
  label: string;
}

function readEntries(json: unknown, path: string): ManifestEntry[] {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new ManifestError(`${path} is neither an Apollo persisted query manifest nor an { id: document } map`);
  }
  const record = json as Record<string, unknown>;
  if (record.format !== undefined) return readApolloEntries(record, path);
  return Object.entries(record).map(([id, body]) => {
    if (typeof body !== 'string') throw new ManifestError(`${path}: the document of id ${JSON.stringify(id)} is not a string`);
    return { id, body, label: `the operation of id ${JSON.stringify(id)}${nameSuffix(body)}` };
  });
}

function readApolloEntries(record: Record<string, unknown>, path: string): ManifestEntry[] {
  if (record.format !== 'apollo-persisted-query-manifest' || record.version !== 1) {
    throw new ManifestError(`${path}: format ${JSON.stringify(record.format)} version ${JSON.stringify(record.version)} is not one this gateway reads (apollo-persisted-query-manifest version 1)`);
  }
  if (!Array.isArray(record.operations)) throw new ManifestError(`${path}: "operations" is not an array`);
  return record.operations.map((operation: unknown, index) => {
    const entry = (typeof operation === 'object' && operation !== null ? operation : {}) as Record<string, unknown>;
    const label = typeof entry.name === 'string' ? `operation ${entry.name}` : `operations[${index}]`;
    if (typeof entry.id !== 'string') throw new ManifestError(`${path}: ${label} has no string "id"`);
    if (typeof entry.body !== 'string') throw new ManifestError(`${path}: ${label} has no string "body"`);
    return { id: entry.id, body: entry.body, label };
  });
}

function checkId(id: string, label: string, path: string): void {
  if (id.length === 0 || id.length > MAX_DOCUMENT_ID_LENGTH) {
    throw new ManifestError(`${path}: ${label} has an id of ${id.length} characters (1 to ${MAX_DOCUMENT_ID_LENGTH})`);
  }
}

function checkDocument(body: string, label: string, path: string, schema: GraphQLSchema): void {
  let document: DocumentNode;
  try {
    document = parse(body);
  } catch (error) {
    throw new ManifestError(`${path}: ${label} is not GraphQL: ${(error as GraphQLError).message}`);
  }
  if (!document.definitions.some((definition) => definition.kind === 'OperationDefinition')) {
    throw new ManifestError(`${path}: ${label} holds no operation`);
  }
  const errors = validate(schema, document);
  if (errors.length > 0) {
    throw new ManifestError(`${path}: ${label} does not validate against the schema: ${errors.map((error) => error.message).join(' ')}`);
  }
}

/** ` (query Dashboard)`, read cheaply from the text, for the map formats that carry no name. */
function nameSuffix(body: string): string {
  const match = /\b(query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]*)/.exec(body);
  return match ? ` (${match[1]} ${match[2]})` : '';
}
