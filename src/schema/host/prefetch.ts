/**
 * Host relations that start loading from a host's uuid alone: a field that resolves to a host
 * from a uuid it already holds starts the relations selected under it at once.
 */
import { GraphQLObjectType, Kind, type FieldNode, type GraphQLResolveInfo, type SelectionNode } from 'graphql';
import type { GatewaySchemaTypes } from '../../builder.js';
import type { GatewayContext } from '../../context.js';
import { reads, type UuidFields } from '../kit/record-fields.js';
import { HostRef } from './types.js';

type Types = PothosSchemaTypes.ExtendDefaultTypes<GatewaySchemaTypes>;

/** Starts loading one relation of the host `hostUuid` (the loader caches it for the field). */
type HostPrefetch = (context: GatewayContext, hostUuid: string) => void;

/** The field extension under which a `Host` field keeps its prefetch: on the schema, not in a module registry. */
const HOST_PREFETCH_EXTENSION = 'prefetchFromHostUuid';

/**
 * `extensions` of a per-host relation (e.g. `hbaDevices`) whose per-request loader can start as
 * soon as a host's uuid is known, before the host record itself has been read.
 */
export function prefetchFromHostUuid(prefetch: HostPrefetch): { [HOST_PREFETCH_EXTENSION]: HostPrefetch } {
  return { [HOST_PREFETCH_EXTENSION]: prefetch };
}

/**
 * Called by fields that resolve to a host from a uuid they already hold (`VmInstance.host`):
 * the relations the query selects under it start now, batched with the host's own load, instead
 * of one upstream round trip later once the host has arrived.
 */
export function prefetchHostRelations(context: GatewayContext, info: GraphQLResolveInfo, hostUuid: string | null): void {
  if (hostUuid === null) return;
  for (const prefetch of selectedHostPrefetches(info)) prefetch(context, hostUuid);
}

/**
 * `host: followsHost(t, 'hostUuid', description)`: the host a uuid of the record names, as
 * `follows` gives it, with the relations selected under it started at once (`prefetchHostRelations`).
 */
export function followsHost<R>(t: PothosSchemaTypes.ObjectFieldBuilder<Types, R>, field: UuidFields<R>, description: string) {
  return t.field({
    type: HostRef,
    nullable: true,
    description,
    extensions: reads<R>(field),
    resolve: (record, _args, context, info) => {
      const hostUuid = record[field] as string | null;
      prefetchHostRelations(context, info, hostUuid);
      return hostUuid;
    },
  });
}

/**
 * The prefetches of the `Host` fields selected directly under the current field (fragments
 * included), of those asked for without conditions of their own (a relation with a `filter` or
 * `orderBy` is read once its host is: a prefetch of every child would be read for nothing). A page
 * of VMs asks once per VM with the same field nodes, so the answer is kept per field-node list.
 */
function selectedHostPrefetches(info: GraphQLResolveInfo): readonly HostPrefetch[] {
  let prefetches = prefetchesByNodes.get(info.fieldNodes);
  if (prefetches === undefined) {
    const hostType = info.schema.getType('Host');
    const fields = hostType instanceof GraphQLObjectType ? hostType.getFields() : {};
    prefetches = [...collectSelectedFieldNames(info)].flatMap((name) => {
      const prefetch = fields[name]?.extensions[HOST_PREFETCH_EXTENSION];
      return typeof prefetch === 'function' ? [prefetch as HostPrefetch] : [];
    });
    prefetchesByNodes.set(info.fieldNodes, prefetches);
  }
  return prefetches;
}

const prefetchesByNodes = new WeakMap<readonly FieldNode[], readonly HostPrefetch[]>();

/** Arguments that only cut a page from a relation's whole list: the prefetched list serves them. */
const PAGING_ARGUMENTS: ReadonlySet<string> = new Set(['first', 'after']);

function collectSelectedFieldNames(info: GraphQLResolveInfo): Set<string> {
  const names = new Set<string>();
  const visit = (selections: readonly SelectionNode[]): void => {
    for (const selection of selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.arguments?.every((argument) => PAGING_ARGUMENTS.has(argument.name.value)) ?? true) names.add(selection.name.value);
      }
      else if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet.selections);
      else {
        const fragment = info.fragments[selection.name.value];
        if (fragment) visit(fragment.selectionSet.selections);
      }
    }
  };
  for (const node of info.fieldNodes) if (node.selectionSet) visit(node.selectionSet.selections);
  return names;
}
