/** `useRootRedirect(to)`: `/` answers 302 to `to` (the GraphQL endpoint), where GraphiQL is. */
import type { Plugin } from 'graphql-yoga';
import { requestPath } from '../../utils/route-answers.js';

export function useRootRedirect(to: string): Plugin {
  return {
    onRequest({ request, endResponse, fetchAPI }) {
      if (requestPath(request.url) === '/') endResponse(new fetchAPI.Response(null, { status: 302, headers: { location: to } }));
    },
  };
}
