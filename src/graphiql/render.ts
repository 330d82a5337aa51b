/**
 * The GraphiQL page: graphql-yoga's bundled GraphiQL (its explorer plugin included), every asset
 * inlined in the one HTML answer, so the page fetches nothing from anywhere but the gateway.
 */
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import type { GraphiQLOptions } from 'graphql-yoga';

/** The page's title, as the browser shows it. */
export const GRAPHIQL_TITLE = 'Infrastructure GraphQL gateway';

/**
 * yoga's page with our `<title>`: yoga writes its title option into both the `<title>` (as text)
 * and beside GraphiQL's logo (as HTML), where ours is the guide's link.
 */
export function renderGatewayGraphiQL(options: GraphiQLOptions): string {
  return renderGraphiQL(options).replace(/<title>[\s\S]*?<\/title>/, `<title>${GRAPHIQL_TITLE}</title>`);
}
