/**
 * `createTrustedDocuments`: production's lock-down (`TRUSTED_DOCUMENTS=<manifest>`). Only the
 * operations of the manifest run, named by id; any other document is refused before it is parsed:
 *
 * - a text document: `PERSISTED_QUERY_ONLY`, 400 (so is an id sent together with a text);
 * - an id the manifest does not hold: `PERSISTED_QUERY_NOT_FOUND`, 404, `Cache-Control: no-store`
 *   (a reload may add it);
 * - no id, an id that is not a string of 1 to 256 characters, or two different ids: `BAD_REQUEST`, 400.
 *
 * The id travels where each client stack puts it: `extensions.persistedQuery.sha256Hash`
 * (Apollo's persisted-query link, version 1), `documentId` (GraphQL Code Generator's client preset)
 * or `doc_id` (Relay), in a POST body or as GET parameters. Over graphql-ws, whose protocol requires
 * a `query` string, the subscribe payload carries `query: ""` and the id the same ways.
 *
 * With `graphiql` (the gateway's `GRAPHIQL=true`), a text document is parsed, under
 * the usual token limits, and runs only if every root field it selects is an introspection field
 * (`__schema`, `__type`, `__typename`): GraphiQL can load the schema, nothing else runs from text.
 *
 * The HTTP side (`use-trusted-documents.ts`) is yoga's `usePersistedOperations` with its arbitrary
 * operations off; the id is resolved to the manifest's text, so every plugin after it (parsing and
 * validation caches, limits, cost and budgets, the response cache) sees an ordinary request.
 */
import { GraphQLError, type FieldNode, type GraphQLSchema, type ValidationRule } from 'graphql';
import type { Logger } from 'pino';
import { PERSISTED_QUERY_NOT_FOUND } from '../errors/codes.js';
import { loadTrustedManifest, ManifestError, MAX_DOCUMENT_ID_LENGTH, type TrustedManifest } from './manifest.js';

export interface TrustedDocumentsOptions {
  /** The manifest's path: read (and checked against `schema`) at once, and again by `reload()`. */
  path: string;
  schema: GraphQLSchema;
  logger: Logger;
  /** GraphiQL is served (`GRAPHIQL`): text documents that select introspection fields only run (its schema fetch). */
  graphiql: boolean;
  /** Called with the number of operations of each manifest put in force. */
  onLoaded?: (operations: number) => void;
  /** Called after each `reload()`, with whether the new manifest is in force. */
  onReload?: (loaded: boolean) => void;
}

export interface TrustedDocuments {
  /** Whether text documents that select introspection fields only may run (GraphiQL's schema fetch). */
  readonly allowsText: boolean;
  /** The manifest's text of the operation `id`; throws `PERSISTED_QUERY_NOT_FOUND` when it holds none. */
  documentOf(id: string): string;
  /**
   * The same rule for a graphql-ws subscribe payload (a `query` string, maybe empty, and whatever
   * else the client sent): the payload with the manifest's `query`, or the error to answer.
   */
  resolveSubscribePayload<P extends { readonly query: string }>(payload: P): P | GraphQLError;
  /** Reads the manifest again; a manifest that cannot be used is logged and the one in force kept. True if the new one is in force. */
  reload(): boolean;
  /** The manifest in force. */
  readonly manifest: TrustedManifest;
}

/** The code a text document is refused with (an id the manifest lacks: `PERSISTED_QUERY_NOT_FOUND`, shared with APQ). */
export const PERSISTED_QUERY_ONLY = 'PERSISTED_QUERY_ONLY';

const INTROSPECTION_ROOT_FIELDS: ReadonlySet<string> = new Set(['__schema', '__type', '__typename']);

/** Reads the manifest (throwing a ManifestError that names the operation at fault) and keeps the one in force. */
export function createTrustedDocuments(options: TrustedDocumentsOptions): TrustedDocuments {
  const { path, schema, logger } = options;
  const allowText = options.graphiql;
  let manifest = loadTrustedManifest(path, schema);
  options.onLoaded?.(manifest.size);

  const documentOf = (id: string): string => {
    const document = manifest.documentOf(id);
    if (document === undefined) throw notFound(id);
    return document;
  };

  return {
    allowsText: allowText,
    documentOf,
    resolveSubscribePayload(payload) {
      try {
        if (payload.query !== '') {
          if (allowText) return payload;
          return textRefused();
        }
        const id = extractDocumentId(payload as unknown as Record<string, unknown>, undefined);
        if (id === null) return badRequest('Send the id of an operation from the trusted-document manifest with an empty "query": extensions.persistedQuery.sha256Hash, documentId or doc_id.');
        return { ...payload, query: documentOf(id) };
      } catch (error) {
        if (error instanceof GraphQLError) return error;
        throw error;
      }
    },
    reload() {
      try {
        manifest = loadTrustedManifest(path, schema);
      } catch (error) {
        if (!(error instanceof ManifestError)) throw error;
        logger.error({ err: error }, 'trusted-document manifest not reloaded: the one in force stays');
        options.onReload?.(false);
        return false;
      }
      options.onLoaded?.(manifest.size);
      options.onReload?.(true);
      logger.info({ path, operations: manifest.size }, 'trusted-document manifest reloaded');
      return true;
    },
    get manifest() {
      return manifest;
    },
  };
}

/**
 * The id a request names, from any of the places client stacks put it; null when it names none.
 * Throws BAD_REQUEST for an id of the wrong type or length, or two places naming different ids.
 */
export function extractDocumentId(params: Readonly<Record<string, unknown>>, request: Request | undefined): string | null {
  const ids: unknown[] = [];
  const extensions = params.extensions;
  const persisted = typeof extensions === 'object' && extensions !== null ? (extensions as Record<string, unknown>).persistedQuery : undefined;
  if (persisted !== undefined && persisted !== null) {
    if (typeof persisted !== 'object' || (persisted as Record<string, unknown>).version !== 1) {
      throw badRequest('extensions.persistedQuery must be { "version": 1, "sha256Hash": "<id>" }.');
    }
    ids.push((persisted as Record<string, unknown>).sha256Hash);
  }
  for (const name of ['documentId', 'doc_id']) {
    if (params[name] !== undefined) ids.push(params[name]);
  }
  if (request?.method === 'GET') {
    const searchParams = new URL(request.url).searchParams;
    for (const name of ['documentId', 'doc_id']) {
      const values = searchParams.getAll(name);
      if (values.length > 1) throw badRequest(`The "${name}" parameter is given more than once.`);
      ids.push(...values);
    }
  }
  if (ids.length === 0) return null;
  for (const id of ids) {
    if (typeof id !== 'string' || id.length === 0 || id.length > MAX_DOCUMENT_ID_LENGTH) {
      throw badRequest(`A document id must be a string of 1 to ${MAX_DOCUMENT_ID_LENGTH} characters.`);
    }
  }
  if (new Set(ids).size > 1) throw badRequest('The request names two different document ids.');
  return ids[0] as string;
}

/** Refuses every root field of a text document but the introspection ones. */
export const IntrospectionOnly: ValidationRule = (context) => ({
  OperationDefinition(node) {
    const refused = node.selectionSet.selections.some(
      (selection) => selection.kind !== 'Field' || !INTROSPECTION_ROOT_FIELDS.has((selection as FieldNode).name.value),
    );
    if (refused) context.reportError(textRefused());
  },
});

/** The refusal of a text document. */
export function textRefused(): GraphQLError {
  return new GraphQLError(
    'This gateway runs trusted documents only: send the id of an operation from its manifest (extensions.persistedQuery.sha256Hash, documentId or doc_id), not a document text.',
    { extensions: { code: PERSISTED_QUERY_ONLY, http: { status: 400 } } },
  );
}

function notFound(id: string): GraphQLError {
  return new GraphQLError(`No operation of the trusted-document manifest has the id ${JSON.stringify(id)}.`, {
    extensions: { code: PERSISTED_QUERY_NOT_FOUND, http: { status: 404, headers: { 'cache-control': 'no-store' } } },
  });
}

/** The refusal of a request that names no operation of the manifest over HTTP. */
export function missingDocumentId(): GraphQLError {
  return badRequest(`Send the id of an operation from the trusted-document manifest: extensions.persistedQuery.sha256Hash, documentId or doc_id.`);
}

function badRequest(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } });
}
