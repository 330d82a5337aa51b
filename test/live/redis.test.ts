/**
 * Two replicas sharing one Redis (real redis-server): a job finished on replica A updates a live
 * query open on replica B, through the finished-jobs topic both follow; and a replica whose
 * subscription to the change feed's channel was lost runs its live queries again once it is back.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import type { Simulator } from '../../src/simulator/server.js';
import { credentialHeaders } from '../support/harness.js';
import { subscribeSse, subscribeWs } from '../support/subscriptions.js';
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
      const vm = overWs.results[0]!.data!.vmInstances.nodes.find((candidate) => candidate.state === 'Running' && candidate.nics[0] !== undefined)!;
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

describe('a replica that lost its subscription to the change feed channel', () => {
  let replicas: AppReplicas | undefined;

  afterAll(async () => {
    await replicas?.stop();
  });

  it('runs its live queries again once the subscription is back: a change published meanwhile is not lost', async () => {
    // No poll within the test: only what comes through Redis can make a second answer.
    replicas = await startAppReplicas({ liveMinIntervalMs: 0, livePollMs: 600_000 });
    const { simulator, replicaB, redis } = replicas;
    const live = await subscribeWs<Dashboard>(replicaB.url, DASHBOARD, {}, credentialHeaders(simulator.credentials));
    try {
      await live.waitFor(1);
      const vm = live.results[0]!.data!.vmInstances.nodes.find((candidate) => candidate.state === 'Running')!;
      // Changed upstream while the replicas' subscriber connections are cut (a PUBLISH then reaches nobody).
      simulator.churn.apply({ tenant: 'first', kind: 'vmState', uuid: vm.uuid });
      const admin = new Redis(redis.url);
      try {
        expect(await admin.client('KILL', 'TYPE', 'pubsub')).toBeGreaterThanOrEqual(1);
      } finally {
        admin.disconnect();
      }
      await live.waitFor(2);
      const after = live.results[1]!.data!.vmInstances.nodes.find((candidate) => candidate.uuid === vm.uuid);
      expect(after?.state ?? 'gone').not.toBe('Running');
    } finally {
      await live.close();
    }
  });
});
