/**
 * `useVaryOrigin`: `Vary: Origin` on every answer while CORS is on. An answer's
 * `Access-Control-Allow-Origin` depends on the request's `Origin` (an answer to a request without
 * one carries none), so a cache that ignored `Origin` could hand a browser a copy made for another
 * origin, or for none, and the browser would refuse it. Yoga's CORS says `Vary: Origin` only when
 * several origins are allowed.
 */
import type { Plugin } from 'graphql-yoga';

export function useVaryOrigin(): Plugin {
  return {
    onResponse({ response }) {
      const vary = response.headers.get('vary');
      const names = (vary ?? '').split(',').map((name) => name.trim().toLowerCase());
      if (!names.includes('origin') && !names.includes('*')) response.headers.append('vary', 'Origin');
    },
  };
}
