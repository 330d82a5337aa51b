/**
 * `useTrustedDocuments(trusted)`: the trusted documents (`trusted-documents.ts`) over HTTP (POST,
 * GET, SSE), on yoga's `usePersistedOperations` with its arbitrary operations off: an id is
 * resolved to the manifest's text before the parameters are checked, and any other document is
 * refused before it is parsed. With GraphiQL, a text document runs only if it introspects.
 */
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import type { Plugin } from 'graphql-yoga';
import { extractDocumentId, IntrospectionOnly, missingDocumentId, textRefused, type TrustedDocuments } from './trusted-documents.js';

export function useTrustedDocuments(trusted: TrustedDocuments): Plugin {
  const persistedOperations = usePersistedOperations({
    allowArbitraryOperations: trusted.allowsText,
    extractPersistedOperationId: (params, request) => extractDocumentId(params as unknown as Record<string, unknown>, request),
    // A string, not a DocumentNode: the parse and validation caches keyed by text then serve it.
    getPersistedOperation: (id) => trusted.documentOf(id),
    customErrors: {
      persistedQueryOnly: () => textRefused(),
      keyNotFound: () => missingDocumentId(),
    },
  });

  return {
    onPluginInit({ addPlugin }) {
      addPlugin(persistedOperations);
    },
    onValidate({ context, addValidationRule }) {
      if (!trusted.allowsText) return;
      const query = (context as { params?: { query?: unknown } }).params?.query;
      // A document of the manifest runs whichever way it came; any other text only if it introspects.
      if (typeof query === 'string' && trusted.manifest.holdsDocument(query)) return;
      addValidationRule(IntrospectionOnly);
    },
  };
}
