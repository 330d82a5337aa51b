/**
 * Two replicas sharing one Redis (real redis-server): a job finished on replica A updates a live
 * query open on replica B, through the finished-jobs topic both follow; and a replica that may
 * have missed changes of the change feed runs its live queries again: when the stream of changes
 * lost entries it had not read, or, with a replica of the release before about (which publishes on
 * a channel only), when its subscription to that channel was lost and is back.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { LIVE_CHANGES_STREAM_KEY } from '../../src/redis/streams.js';
import type { Simulator } from '../../src/simulator/server.js';
import { Caller } from '../../src/upstream/credentials.js';
import { credentialHeaders } from '../support/harness.js';
import { eventually } from '../support/process.js';
import { readerIds } from '../support/redis.js';
import { subscribeSse, subscribeWs, type Collected } from '../support/subscriptions.js';
import { startAppReplicas, type AppReplicas } from '../support/app-replicas.js';

const DASHBOARD = /* GraphQL */ `
  query Dashboard @live {
    vmInstances(first: 50) { nodes { uuid state nics { uuid driverType } } }
  }
`;

interface Dashboard {
  vmInstances: { nodes: { uuid: string; state: string; nics: { uuid: string; driverType: string }[] }[] };
}

describe('live queries across two replicas sharing Redis', () => {
  let replicas: AppReplicas | undefined;
  let simulator: Simulator;
  let replicaA: App;
  let replicaB: App;

  beforeAll(async () => {
    replicas = await startAppReplicas({ liveMinIntervalMs: 0 });
    ({ simulator, replicaA, replicaB } = replicas);
  });

  afterAll(async () => {
    await replicas?.stop();
  });

  it('a write through replica A updates live queries on replica B, over graphql-ws and SSE', async () => {
    const headers = credentialHeaders(simulator.credentials);
    const overWs = await subscribeWs<Dashboard>(replicaB.url, DASHBOARD, {}, headers);
    const overSse = await subscribeSse<Dashboard>(replicaB.url, DASHBOARD, {}, headers);
    try {
      await Promise.all([overWs.waitFor(1), overSse.waitFor(1)]);
      const vm = overWs.results[0]!.data!.vmInstances.nodes.find((candidate) => candidate.state === 'RUNNING' && candidate.nics[0] !== undefined)!;
      const driver = vm.nics[0]!.driverType === 'E1000' ? 'VIRTIO' : 'E1000';
      const response = await fetch(`${replicaA.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({
          query: 'mutation($input: UpdateVmNicDriverInput!) { updateVmNicDriver(input: $input) { job { status } } }',
          variables: { input: { vmInstanceUuid: vm.uuid, vmNicUuid: vm.nics[0]!.uuid, driverType: driver } },
        }),
      });
      expect(await response.json()).toMatchObject({ data: { updateVmNicDriver: { job: { status: 'SUCCEEDED' } } } });
      await Promise.all([overWs.waitFor(2), overSse.waitFor(2)]);
      for (const live of [overWs, overSse]) {
        const updated = live.results.at(-1)!.data!.vmInstances.nodes.find((candidate) => candidate.uuid === vm.uuid)!;
        expect(updated.nics[0]!.driverType).toBe(driver);
      }
    } finally {
      await overWs.close();
      await overSse.close();
    }
  });
});

describe('a replica that may have missed changes other replicas published', () => {
  let replicas: AppReplicas | undefined;
  let admin: Redis;

  beforeAll(async () => {
    // No poll within the tests: only what comes through Redis can make a second answer.
    replicas = await startAppReplicas({ liveMinIntervalMs: 0, livePollMs: 600_000 });
    admin = new Redis(replicas.redis.url, { connectionName: 'test-control' });
  });

  afterAll(async () => {
    admin?.disconnect();
    await replicas?.stop();
  });

  /** A live dashboard on replica B, its first answer in, and a VM of it that runs. */
  async function dashboardOnB(): Promise<{ live: Collected<Dashboard>; vm: string }> {
    const { simulator, replicaB } = replicas!;
    const live = await subscribeWs<Dashboard>(replicaB.url, DASHBOARD, {}, credentialHeaders(simulator.credentials));
    await live.waitFor(1);
    return { live, vm: live.results[0]!.data!.vmInstances.nodes.find((candidate) => candidate.state === 'RUNNING')!.uuid };
  }

  function stateIn(live: Collected<Dashboard>, index: number, vm: string): string {
    return live.results[index]!.data!.vmInstances.nodes.find((candidate) => candidate.uuid === vm)?.state ?? 'gone';
  }

  it('runs its live queries again when the stream of changes lost entries it had not read', async () => {
    const { live, vm } = await dashboardOnB();
    try {
      replicas!.simulator.churn.apply({ tenant: 'first', kind: 'vmState', uuid: vm });
      // Every reader cut once it reads from its offsets, and the stream trimmed past them before
      // they can reconnect.
      const readers = await eventually(async () => {
        const ids = readerIds(await admin.client('LIST'), true);
        return ids.length === 2 && ids;
      }, 'both readers reading');
      const cut = admin.multi();
      for (const id of readers) cut.client('KILL', 'ID', id);
      await cut.xadd(LIVE_CHANGES_STREAM_KEY, '*', 'change', '{}').xtrim(LIVE_CHANGES_STREAM_KEY, 'MAXLEN', 0).exec();
      await live.waitFor(2);
      expect(stateIn(live, 1, vm)).not.toBe('RUNNING');
    } finally {
      await live.close();
    }
  });

  it('takes the changes a replica of the release before PUBLISHes, and once it heard one, runs its live queries again when its subscription to that channel comes back', async () => {
    const { simulator } = replicas!;
    const { live, vm } = await dashboardOnB();
    try {
      simulator.churn.apply({ tenant: 'first', kind: 'vmState', uuid: vm });
      // As the release before publishes: on the channel only, unmarked.
      const scopeKey = new Caller({ authorization: `OAuth ${simulator.credentials.session}` }, { authorization: `Bearer ${simulator.credentials.token}`, tenantId: simulator.credentials.tenantId }).key;
      await admin.publish('gateway:live:changes', JSON.stringify({ from: 'older-release', scopeKey, changes: [{ collection: 'vmInstance', uuids: [vm] }] }));
      await live.waitFor(2);
      expect(stateIn(live, 1, vm)).not.toBe('RUNNING');

      // Changed while the replicas' subscriber connections are cut: a PUBLISH then reaches nobody.
      simulator.churn.apply({ tenant: 'first', kind: 'vmState', uuid: vm });
      expect(await admin.client('KILL', 'TYPE', 'pubsub')).toBeGreaterThanOrEqual(1);
      await live.waitFor(3);
      expect(stateIn(live, 2, vm)).not.toBe(stateIn(live, 1, vm));
    } finally {
      await live.close();
    }
  });
});
