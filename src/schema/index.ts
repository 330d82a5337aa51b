/**
 * The whole schema: each module registers its types, queries and mutations on the builder for
 * its side effects; this file only orders the imports and builds. The modules import one another
 * without cycles (the node types they point at one another through are in `node-refs.ts`), so
 * each reads the others' exports whole whatever the order here; what the order still decides is
 * where the subgraph SDL, which Pothos leaves unsorted within a type, lists the fields that
 * several modules add to one type (`Host.vmInstances` before `Host.hbaDevices`) and the mutations. `kit/` is the machinery every
 * resource shares (scalars, errors, connections and the families, loaders, the mutation kit,
 * jobs, `node`); every other entry here is one upstream resource: a file when it tells one short
 * story, a folder (`vm-instance/`: its types, queries, mutations and loaders) when it outgrew one.
 */
import { GraphQLLiveDirective } from '@n1ru4l/graphql-live-query';
import { specifiedDirectives, type GraphQLSchema } from 'graphql';
import { builder } from '../builder.js';
import { buildSubgraphSchema } from './kit/federation.js';
import { defineJobOperations } from './kit/job.js';
import { sayEachReleaseOnce } from './kit/since-once.js';
import './kit/scalars.js';
import './kit/errors.js';
import './kit/connection-fields.js';
import './kit/mutation-kit.js';
import './kit/job.js';
import './kit/node.js';
import './host/index.js';
import './storage-device/index.js';
import './vm-instance/index.js';
import './volume.js';
import './volume-snapshot-group/index.js';
import './cbt-task/index.js';
import './sns/index.js';
import './directory.js';
import './primary-storage.js';

// Every module above has defined its mutations: a job's `operation` enum lists them.
defineJobOperations();

export interface SchemaOptions {
  /**
   * Build the Federation v2 subgraph (`_service`, `_entities`, `@key`s; see `kit/federation.ts`)
   * instead of the standalone API. It declares no `@live`: a router runs no live queries. @default false
   */
  readonly subgraph?: boolean;
  /**
   * Of the subgraph, only what this upstream release offers (`UPSTREAM_VERSION`, see
   * `releases.ts`). The standalone schema goes through `schemaForRelease` where it is served.
   */
  readonly release?: string;
}

/** The served schema: the standalone API, or the same types as a Federation v2 subgraph. */
export function buildSchema(options: SchemaOptions = {}): GraphQLSchema {
  if (options.subgraph) return buildSubgraphSchema(options.release);
  // `@live` is declared so that GraphiQL, codegen and validation know it (`useLiveQuery` runs it).
  return sayEachReleaseOnce(builder.toSchema({ sortSchema: true, directives: [...specifiedDirectives, GraphQLLiveDirective] }));
}

export const schema = buildSchema();
