/**
 * `useCsrfPrevention`: yoga's CSRF prevention with a stable error code. A browser may send a
 * "simple" request (a GET, or a POST of a form or plain text) to another origin without a CORS
 * preflight, carrying the user's cookies; requiring a custom header on such requests forces the
 * preflight, so only origins allowed by CORS get through. JSON POSTs (`content-type:
 * application/json`, what GraphiQL and GraphQL clients send) always preflight and pass untouched.
 *
 * The credential headers count as such a header: none of them is CORS-safelisted, so a browser
 * preflights any request carrying one (this keeps hash-only persisted-query GETs working).
 *
 * A request without the header: HTTP 403, `extensions.code = "CSRF_PREVENTED"`.
 */
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';

export interface CsrfPreventionOptions {
  /** Headers any one of which makes a simple request acceptable. @default ['x-graphql-yoga-csrf', 'authorization', 'x-resources-authorization', 'x-tenant-id'] */
  requestHeaders?: string[] | undefined;
}

export function useCsrfPrevention(options: CsrfPreventionOptions = {}): Plugin {
  const requestHeaders = options.requestHeaders ?? ['x-graphql-yoga-csrf', 'authorization', 'x-resources-authorization', 'x-tenant-id'];
  const inner = useCSRFPrevention({ requestHeaders });
  return {
    onRequestParse(payload) {
      try {
        return inner.onRequestParse?.(payload);
      } catch (error) {
        if (!(error instanceof Error)) throw error;
        throw new GraphQLError(
          `${error.message}: a GET or a form/text POST must carry one of the headers ${requestHeaders.join(', ')} (or send JSON).`,
          { extensions: { code: 'CSRF_PREVENTED', http: { status: 403 } } },
        );
      }
    },
  };
}
