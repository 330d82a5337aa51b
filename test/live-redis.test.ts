/**
 * Two replicas sharing one Redis (real redis-server): a job finished on replica A updates a live
 * query open on replica B, through the finished-jobs topic both follow.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../src/app.js';
import type { Simulator } from '../src/simulator/server.js';
import { credentialHeaders } from './support/harness.js';
import { subscribeSse, subscribeWs } from './support/subscriptions.js';
import { startAppReplicas, type AppReplicas } from './support/app-replicas.js';

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
