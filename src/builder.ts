/**
 * The Pothos builder: plugins, context and scalar typing, Relay options. It only configures;
 * every type lives in `schema/<resource>.ts`.
 */
import SchemaBuilder from '@pothos/core';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import DirectivesPlugin from '@pothos/plugin-directives';
import FederationPlugin from '@pothos/plugin-federation';
import RelayPlugin from '@pothos/plugin-relay';
import type { GatewayContext } from './context.js';

export interface GatewaySchemaTypes {
  Context: GatewayContext;
  Scalars: {
    ID: { Input: string; Output: string };
    Uuid: { Input: string; Output: string };
    // Records carry instants as epoch milliseconds (`Instant`); the scalar writes either as ISO 8601.
    DateTime: { Input: Date; Output: Date | number };
    Long: { Input: number; Output: number };
    JSON: { Input: unknown; Output: unknown };
  };
  /** Every connection reports `totalCount` (the upstream's `total`). */
  Connection: { totalCount: number };
  /** `edges: [XEdge]!` and `nodes: [X]!`: one record the gateway cannot read nulls its own slot, not the page. */
  DefaultEdgesNullability: { list: false; items: true };
  DefaultNodeNullability: true;
}

/**
 * A cursor may be a promise (one whose upstream cursor is kept only once a client reads it, see
 * connections.ts). Pothos gives an exposed field graphql's default resolver, which graphql-jit
 * replaces with a plain property read that never awaits; unmarking the field keeps Pothos' own
 * `parent[name]` resolver, whose promise every engine awaits.
 */
const CURSOR_MAY_BE_PROMISED = { pothosExposedField: null };

/**
 * The gateway's own types (connections, edges, page info): as old as the service, present
 * whenever what they hold is (`schema/releases.ts`).
 */
const GATEWAY_OWN = { since: null };

export const builder = new SchemaBuilder<GatewaySchemaTypes>({
  // Federation last, as its docs ask: it reads the resolvers the others settled on. It only adds
  // directives (`@key`) that the directives plugin carries into the subgraph's SDL; the standalone
  // schema prints without them (`schema/index.ts`).
  plugins: [RelayPlugin, DataloaderPlugin, DirectivesPlugin, FederationPlugin],
  relay: {
    // The kit declares clientMutationId itself: a payload read later through `Job.payload`
    // must echo it from the job, which the plugin's per-request field cannot.
    clientMutationId: 'omit',
    cursorType: 'String',
    nodesOnConnection: {
      description:
        'The nodes of the page, without their cursors (a shortcut for `edges { node }`). A record the upstream sent unreadable is null in its slot, with an `UPSTREAM_PROTOCOL_ERROR` at that index; skip null nodes.',
    },
    // A record the upstream sent unreadable keeps its edge (its cursor stays valid) with a null
    // node and an error at its index; the page's other records answer (GitHub's shape).
    edgesFieldOptions: {
      nullable: { list: false, items: true },
      description: 'The records of this page, each with its cursor. An edge is never null today; its `node` is null (with an error) when the upstream sent that record unreadable.',
    },
    nodeFieldOptions: {
      nullable: true,
      description: 'The record at this edge; null, with an `UPSTREAM_PROTOCOL_ERROR` at this path, when the upstream sent it unreadable (its cursor stays valid).',
    },
    cursorFieldOptions: {
      description: 'Opaque position of this edge: pass it as `after` to continue right after this record.',
      extensions: CURSOR_MAY_BE_PROMISED,
    },
    pageInfoFieldOptions: { description: 'Where this page sits in the whole collection.' },
    hasNextPageFieldOptions: { description: 'More records follow this page.' },
    hasPreviousPageFieldOptions: {
      description: 'Records precede this page (true whenever `after` was given; paging is forward only).',
    },
    startCursorFieldOptions: { description: 'Cursor of the first edge of this page.', extensions: CURSOR_MAY_BE_PROMISED },
    endCursorFieldOptions: {
      description: 'Cursor of the last edge of this page: pass it as `after` for the next page.',
      extensions: CURSOR_MAY_BE_PROMISED,
    },
    nodeTypeOptions: {
      description: 'A record with a globally unique, opaque `id`; the gateway\'s own `/graphql` fetches any of them again with `node(id:)` (its `/subgraph` has no `node`: a router cannot tell whose an id is).',
      extensions: GATEWAY_OWN,
    },
    // Shareable: another subgraph's Relay connections bring a `PageInfo` of their own to the supergraph.
    pageInfoTypeOptions: { description: 'Forward pagination state of a connection.', extensions: GATEWAY_OWN, shareable: true },
    idFieldOptions: { description: 'Opaque global identifier: pass it back exactly as returned (to `node(id:)` and `nodes(ids:)` on the gateway\'s own `/graphql`).' },
    // `node` and `nodes` are schema/kit/node.ts's own: the plugin's decode every id before resolving,
    // so one bad id would fail the whole field instead of its own slot.
    nodeQueryOptions: false,
    nodesQueryOptions: false,
    mutationInputArgOptions: { description: 'The mutation input.' },
    defaultConnectionTypeOptions: { description: 'A page of records (Relay connection).', extensions: GATEWAY_OWN },
    defaultEdgeTypeOptions: { description: 'A record and its cursor.', extensions: GATEWAY_OWN },
  },
});

builder.queryType({ description: 'Reads of the infrastructure: the cursor family and the resource family.' });
builder.mutationType({ description: 'Every write operation of the service, one mutation each; each runs as an upstream job.' });
