/**
 * `useReleaseLoadedRecords`: a request's DataLoaders are emptied once its execution is done, so
 * the records they cached do not outlive the answer. Seen from outside: reading a record through
 * the finished request's loaders goes to the upstream again instead of to the cache.
 */
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { createYoga, type Plugin } from 'graphql-yoga';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerOfRequest, createContext, forgetLoadedRecords, type GatewayContext } from '../../src/context.js';
import { createCursorKeeper } from '../../src/cursors/keeper.js';
import { releaseDispatchedBatchesOnClear } from '../../src/observability/loader-batches.js';
import type { JobManager } from '../../src/jobs/manager.js';
import { useReleaseLoadedRecords } from '../../src/execution/use-release-loaded-records.js';
import { schema } from '../../src/schema/index.js';
import { VmInstanceRef } from '../../src/schema/vm-instance/index.js';
import { createSimulator, type Simulator } from '../../src/simulator/server.js';
import type { UpstreamClient } from '../../src/upstream/types.js';
import { credentialHeaders } from '../support/harness.js';
import { createTestUpstreamClient } from '../support/upstream-client.js';

describe('useReleaseLoadedRecords', () => {
  let simulator: Simulator;
  let upstream: UpstreamClient;
  let headers: Record<string, string>;

  beforeAll(async () => {
    // As createApp does.
    releaseDispatchedBatchesOnClear();
    simulator = createSimulator({ asyncDelayMs: 5 });
    const url = await simulator.start(0, '127.0.0.1');
    upstream = createTestUpstreamClient({ upstreamUrl: url });
    headers = credentialHeaders(simulator.credentials);
  });

  afterAll(async () => {
    await upstream.close();
    await simulator.stop();
  });

  /** A yoga over the real schema whose last request's context is kept for the test to look into. */
  function gateway(plugins: Plugin[]) {
    const seen: { context?: GatewayContext } = {};
    const keepContext: Plugin<GatewayContext> = { onExecute: ({ args }) => void (seen.context = args.contextValue) };
    const yoga = createYoga<object, GatewayContext>({
      schema,
      logging: false,
      plugins: [...plugins, keepContext],
      context: ({ request }) =>
        createContext({
          caller: callerOfRequest(request),
          upstream,
          maxBatchSize: 100,
          jobs: {} as JobManager,
          mutationWaitMs: 0,
          cursors: createCursorKeeper({ cursorSecret: undefined, cursorTtlMs: 60_000, cursorStoreMaxBytes: 1_000_000, redis: undefined }),
        }),
    });
    const post = (query: string) =>
      yoga.fetch('http://gateway/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, multipart/mixed', ...headers },
        body: JSON.stringify({ query }),
      });
    return { post, seen };
  }

  /** Upstream requests made while `read` runs. */
  async function upstreamRequestsOf(read: () => Promise<unknown>): Promise<number> {
    const before = simulator.stats().total;
    await read();
    return simulator.stats().total - before;
  }

  it('leaves nothing in the loaders once the answer is out', async () => {
    const { post, seen } = gateway([useReleaseLoadedRecords()]);
    const body = (await (await post('{ vmInstances(first: 3) { nodes { uuid name } } }')).json()) as {
      data: { vmInstances: { nodes: { uuid: string; name: string }[] } };
    };
    const vm = body.data.vmInstances.nodes[0]!;
    // The page primed the VM loader; after the answer, the same load must go upstream again.
    let name: string | null = null;
    expect(await upstreamRequestsOf(async () => (name = (await VmInstanceRef.getDataloader(seen.context!).load(vm.uuid)).name))).toBe(1);
    expect(name).toBe(vm.name);
  });

  it('without it the finished request keeps its records (the test above can fail)', async () => {
    const { post, seen } = gateway([]);
    const body = (await (await post('{ vmInstances(first: 3) { nodes { uuid } } }')).json()) as {
      data: { vmInstances: { nodes: { uuid: string }[] } };
    };
    const uuid = body.data.vmInstances.nodes[0]!.uuid;
    expect(await upstreamRequestsOf(() => VmInstanceRef.getDataloader(seen.context!).load(uuid))).toBe(0);
  });

  it("lets go of what the loaders' last batch loaded, though the finished request's context is still held", async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const { post, seen } = gateway([useReleaseLoadedRecords()]);
    const body = (await (await post('{ vmInstances(first: 1) { nodes { uuid } } }')).json()) as {
      data: { vmInstances: { nodes: { uuid: string }[] } };
    };
    const loader = VmInstanceRef.getDataloader(seen.context!);
    // A load through the finished request's loader: one batch, whose record only it holds.
    const record = new WeakRef(await loader.load(body.data.vmInstances.nodes[0]!.uuid));
    forgetLoadedRecords(seen.context!);
    // A WeakRef keeps its target until the current job ends.
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    // DataLoader keeps its last dispatched batch (and through its promises the record) until the
    // next load; clearing must drop it, or the record lives as long as the loader.
    expect(record.deref()).toBeUndefined();
    expect(seen.context).toBeDefined();
  });

  it('waits for the last part of an incremental answer before emptying them', async () => {
    const { post } = gateway([useDeferStream(), useReleaseLoadedRecords()]);
    const groups = (await (await post('{ volumeSnapshotGroups(first: 1) { nodes { vmInstanceUuid } } }')).json()) as {
      data: { volumeSnapshotGroups: { nodes: { vmInstanceUuid: string }[] } };
    };
    const uuid = groups.data.volumeSnapshotGroups.nodes[0]!.vmInstanceUuid;
    // The deferred part reads the VM's snapshot groups (one upstream request), then the VM again
    // through each group: from the cache the page primed, unless the loaders were emptied when
    // the first part went out (one more request).
    const query = `{ vmInstances(first: 1, filter: { uuids: ["${uuid}"] }) { nodes { uuid ... @defer { snapshotGroups(first: 1) { nodes { vmInstance { name } } } } } } }`;
    let text = '';
    const requests = await upstreamRequestsOf(async () => (text = await (await post(query)).text()));
    expect(text).toMatch(/"vmInstance":\{"name":"[^"]+"\}/);
    expect(requests).toBe(2);
  });
});
