/**
 * `node(id:)` and `nodes(ids:)`: any record by its global id. Each id is decoded and checked on
 * its own, so a malformed id, an id of an unknown type or of a record that does not exist nulls
 * its own slot with a coded error while the other ids resolve. The Relay plugin's own fields
 * decode every id up front and fail the whole field on the first bad one; these replace them
 * (`nodeQueryOptions: false` in the builder) and hand the valid ids to the plugin's loading. A
 * job's global id is its uuid (32 hex, which no encoded id ever is): it is read from the job store.
 */
import { decodeGlobalID, resolveNodes } from '@pothos/plugin-relay';
import { GraphQLError, isObjectType, type GraphQLResolveInfo } from 'graphql';
import { builder } from '../../builder.js';
import type { GatewayContext } from '../../context.js';
import { hasEmbeddedGlobalId } from './embedded-ids.js';
import { JOB_ID, loadJobNode } from './job.js';
import { callsPerValueOf } from './upstream-calls.js';

/** Most ids one `nodes` call takes (as GitHub's API); more is `BAD_USER_INPUT`, refused before any upstream call. */
export const MAX_NODE_IDS = 100;

const UUID = /^[0-9a-f]{32}$/;
/** `<parentUuid>.<uuid>`; the parent is empty when the record named none. */
const EMBEDDED_ID = /^(?:[0-9a-f]{32})?\.[0-9a-f]{32}$/;

interface DecodedId {
  typename: string;
  id: string;
}

function badGlobalId(globalId: string, argument: string, reason: string): GraphQLError {
  const shown = globalId.length > 80 ? `${globalId.slice(0, 80)}…` : globalId;
  return new GraphQLError(`\`${shown}\` is not a global id of this API: ${reason}`, {
    extensions: { code: 'BAD_USER_INPUT', argument },
  });
}

/**
 * Decodes one global id, or says why it names no record type of this API. A fresh error per id:
 * the plugin brands each slot's value with its type, and an error shared by two slots could not be.
 */
function decodeNodeId(globalId: string, argument: string, info: GraphQLResolveInfo): DecodedId | GraphQLError {
  let decoded: DecodedId;
  try {
    decoded = decodeGlobalID(globalId);
  } catch {
    return badGlobalId(globalId, argument, 'pass an `id` exactly as a record returned it.');
  }
  const type = info.schema.getType(decoded.typename);
  if (!isObjectType(type) || !type.getInterfaces().some((iface) => iface.name === 'Node')) {
    return badGlobalId(globalId, argument, `\`${decoded.typename}\` is not a record type.`);
  }
  const form = hasEmbeddedGlobalId(type.extensions) ? EMBEDDED_ID : UUID;
  if (!form.test(decoded.id)) return badGlobalId(globalId, argument, `it names no ${decoded.typename}.`);
  return decoded;
}

/**
 * Loads the records of the well-formed ids through their types' loaders, and jobs (whose global id
 * is their uuid) from the job store; the others keep their error.
 */
async function resolveNodeIds(
  globalIds: readonly string[],
  argument: string,
  context: GatewayContext, info: GraphQLResolveInfo): Promise<unknown[]> {
  const decoded = globalIds.map((globalId) => (JOB_ID.test(globalId) ? null : decodeNodeId(globalId, argument, info)));
  const valid = decoded.filter((entry): entry is DecodedId => entry !== null && !(entry instanceof GraphQLError));
  const [loaded, jobs] = await Promise.all([
    valid.length === 0 ? [] : resolveNodes(builder, context, info, valid),
    Promise.all(globalIds.map((globalId, index) => (decoded[index] === null ? loadJobNode(context, globalId).catch((error: unknown) => error) : undefined))),
  ]);
  let next = 0;
  return decoded.map((entry, index) => (entry === null ? jobs[index] : entry instanceof GraphQLError ? entry : loaded[next++]));
}

builder.queryFields((t) => ({
  node: t.field({
    type: builder.nodeInterfaceRef(),
    nullable: true,
    description:
      'Any record by its global `id`; null with an error when there is none: `BAD_USER_INPUT` for an id this API did not issue, `NOT_FOUND` for a record that does not exist (or not for you), or the error that kept it from being read.',
    extensions: { ...callsPerValueOf('id'), since: null },
    args: { id: t.arg.id({ required: true, description: 'A global id, as any record\'s `id` field returns it.' }) },
    resolve: async (_root, args, context, info) => (await resolveNodeIds([String(args.id)], 'id', context, info))[0],
  }),
  nodes: t.field({
    type: [builder.nodeInterfaceRef()],
    nullable: { list: false, items: true },
    description: `Records by their global ids, in the order given (at most ${MAX_NODE_IDS}). Each id that names no record is null in its own slot, with an error as \`node\` gives it; the others still resolve.`,
    extensions: { ...callsPerValueOf('ids'), since: null },
    args: {
      ids: t.arg.idList({
        required: true,
        description: `Global ids, as records' \`id\` fields return them; at most ${MAX_NODE_IDS}.`,
      }),
    },
    resolve: (_root, args, context, info) => {
      if (args.ids.length > MAX_NODE_IDS) {
        throw new GraphQLError(`\`nodes\` takes at most ${MAX_NODE_IDS} ids, got ${args.ids.length}.`, {
          extensions: { code: 'BAD_USER_INPUT', argument: 'ids', max: MAX_NODE_IDS },
        });
      }
      return resolveNodeIds(args.ids.map(String), 'ids', context, info);
    },
  }),
}));
