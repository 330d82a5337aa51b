/**
 * What GraphiQL opens with at `/graphql` in a browser: the example tabs (`examples.ts`), every
 * tab's headers holding the demo's credentials (or, against a real upstream, a comment naming the
 * three to set), and a link to the guide beside GraphiQL's logo.
 */
import type { GraphiQLOptions } from 'graphql-yoga';
import type { SimulatorCredentials } from '../simulator/server.js';
import { exampleTabs, NEW_TAB_QUERY, type ExampleValues } from './examples.js';

export interface GraphiQLPageOptions {
  /** The embedded simulator's demo credentials (never a real upstream's): they fill every tab's headers. */
  demoCredentials?: SimulatorCredentials;
  /**
   * The demo's records for the tabs, asked for each page served (only with `demoCredentials`).
   * When it fails, the tabs open with placeholders and say where to find the values.
   */
  pickValues?: () => Promise<ExampleValues>;
  /** Hears why `pickValues` failed; the page is served anyway. */
  onPickFailed?: (error: unknown) => void;
  /** Where the "Guide" link beside GraphiQL's logo points (a page the gateway serves). */
  guideUrl: string;
}

/** Against a real upstream: no credential of anyone's, and the names of the three headers to set. */
const HEADERS_TO_SET = `{
  // Set your credentials (docs/security/credentials.md), e.g.:
  // "Authorization": "OAuth <session uuid>",
  // "X-Resources-Authorization": "Bearer <token>",
  // "X-Tenant-ID": "<tenant id>"
}
`;

/** The three credential headers of the demo tenant, as GraphiQL's headers editor holds them. */
export function demoHeaders(credentials: SimulatorCredentials): Record<string, string> {
  return {
    Authorization: `OAuth ${credentials.session}`,
    'X-Resources-Authorization': `Bearer ${credentials.token}`,
    'X-Tenant-ID': credentials.tenantId,
  };
}

/** The options of each page served: yoga calls it per request, so the demo's values are current. */
export function createGraphiQLOptions(options: GraphiQLPageOptions): () => Promise<GraphiQLOptions> {
  const headers = options.demoCredentials ? `${JSON.stringify(demoHeaders(options.demoCredentials), null, 2)}\n` : HEADERS_TO_SET;
  // GraphiQL renders the title as HTML beside its logo, where seven tabs leave room for a link and
  // little else; renderGatewayGraphiQL keeps the full title in <title>.
  const title = `<a href="${options.guideUrl}" target="_blank" rel="noopener" title="What each tab shows, and how to use them">Guide</a>`;
  return async () => {
    const values = options.demoCredentials && options.pickValues ? await options.pickValues().catch((error: unknown) => options.onPickFailed?.(error)) : undefined;
    return {
      title,
      defaultTabs: exampleTabs(values ?? {}).map((tab) => ({ query: tab.query, variables: tab.variables ?? null, headers })),
      // A tab opened with `+`.
      defaultQuery: NEW_TAB_QUERY,
      headers,
    };
  };
}
