/**
 * Scenario 6's reference point: the least a GraphQL server on this stack can cost for the
 * dashboard. graphql-yoga with its defaults and graphql-jit, over a schema of only the dashboard's
 * types, whose one resolver (`vmInstances`) runs the direct client and returns its finished
 * answer; every other field is a default resolver reading that tree. No per-record resolvers,
 * loaders, decoding, credentials, limits, metrics or plugins of the gateway's: what it costs over
 * the direct client is what GraphQL over HTTP costs in this stack, the floor under the gateway's
 * figure. A separate process, like the gateway; prints `{"url": ...}` when listening.
 */
import { createServer } from 'node:http';
import { buildSchema, type DocumentNode, type ExecutionResult } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { createYoga, type Plugin, type YogaInitialContext } from 'graphql-yoga';
import { createDirectClient, type DirectFilter } from './direct-client.js';
import { serveAnnounced } from './serve.js';

const upstreamUrl = process.env.UPSTREAM_URL;
if (!upstreamUrl) throw new Error('UPSTREAM_URL is required');
const client = createDirectClient(upstreamUrl);

// The dashboard's types as the gateway names them, so the scenario's documents and variables
// validate unchanged; the outputs the gateway types as `Uuid`/`Long` serialize the same as `ID`/`Float`.
const schema = buildSchema(/* GraphQL */ `
  input VmInstanceFilter {
    architecture: String
    platform: String
    state: String
  }
  enum VmInstanceOrderField {
    CPU_NUM
    CREATE_DATE
    LAST_OP_DATE
    MEMORY_SIZE
    NAME
    STATE
  }
  enum OrderDirection {
    ASC
    DESC
  }
  input VmInstanceOrder {
    direction: OrderDirection = ASC
    field: VmInstanceOrderField!
  }
  enum NicDriverType {
    E1000
    RTL8139
    VIRTIO
  }
  type HbaDevice {
    uuid: ID!
    portName: String
  }
  type HbaDeviceConnection {
    totalCount: Int!
    nodes: [HbaDevice!]!
  }
  type Host {
    uuid: ID!
    name: String
    managementIp: String
    hbaDevices(first: Int): HbaDeviceConnection!
  }
  type Volume {
    uuid: ID!
    size: Float
    type: String
  }
  type UsedIp {
    ip: String
  }
  type VmNic {
    uuid: ID!
    ip: String
    driverType: NicDriverType
    usedIps: [UsedIp!]!
  }
  type VolumeSnapshotGroup {
    uuid: ID!
    name: String
    snapshotCount: Int
  }
  type VolumeSnapshotGroupConnection {
    totalCount: Int!
    nodes: [VolumeSnapshotGroup!]!
  }
  type VmInstance {
    uuid: ID!
    name: String
    state: String
    host: Host
    rootVolume: Volume
    volumes: [Volume!]!
    nics: [VmNic!]!
    snapshotGroups(first: Int): VolumeSnapshotGroupConnection!
  }
  type VmInstanceConnection {
    totalCount: Int!
    nodes: [VmInstance!]!
  }
  type Query {
    vmInstances(first: Int, filter: VmInstanceFilter, orderBy: VmInstanceOrder): VmInstanceConnection!
  }
`);

schema.getQueryType()!.getFields().vmInstances!.resolve = async (_root, args: DirectFilter, { request }: YogaInitialContext) => {
  const { headers } = request;
  const answer = await client.dashboard(
    {
      authorization: headers.get('authorization') ?? '',
      cursorAuthorization: headers.get('x-resources-authorization') ?? '',
      tenantId: headers.get('x-tenant-id') ?? undefined,
    },
    { filter: args.filter, orderBy: args.orderBy },
  );
  return answer.data.vmInstances;
};

/** graphql-jit, compiled once per document and operation (the scenario sends one of each). */
function useJit(): Plugin {
  const compiled = new WeakMap<DocumentNode, CompiledQuery | ExecutionResult>();
  return {
    onExecute({ setExecuteFn }) {
      setExecuteFn((args) => {
        let query = compiled.get(args.document);
        if (!query) {
          query = compileQuery(args.schema, args.document, args.operationName ?? undefined);
          compiled.set(args.document, query);
        }
        if (!isCompiledQuery(query)) return query;
        return query.query(args.rootValue, args.contextValue, args.variableValues);
      });
    },
  };
}

const yoga = createYoga({ schema, plugins: [useJit()], graphiql: false, logging: false });
const server = createServer(yoga);

serveAnnounced(server, () => client.close());
