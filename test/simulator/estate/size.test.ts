import { describe, expect, it } from 'vitest';
import { createSimulator } from '../../../src/simulator/server.js';

describe('estate size', () => {
  it('generates and serves an estate of 10,000 VMs', async () => {
    const large = createSimulator({ seed: 42, hosts: 40, vms: 10_000 });
    await large.start(0);
    try {
      const tenant = large.credentials.tenantId;
      expect(large.store.vms.count(tenant)).toBe(10_000);
      expect(large.store.vms.count(large.credentials.second.tenantId)).toBe(1_000);
      const response = await fetch(`${large.url}/api/v1/resources/cursor-query?resourceType=vm&pageSize=1000`, {
        headers: { authorization: `Bearer ${large.credentials.token}` },
      });
      const body = (await response.json()) as { items: unknown[]; total: number };
      expect(body.total).toBe(10_000);
      expect(body.items).toHaveLength(1000);
      for (const vm of large.store.vms.list(tenant)) {
        const host = vm.hostUuid === null ? undefined : large.store.hosts.get(tenant, vm.hostUuid);
        if (vm.hostUuid !== null) expect(host?.clusterUuid).toBe(vm.clusterUuid);
        expect(large.store.volumes.get(tenant, vm.rootVolumeUuid)?.vmInstanceUuid).toBe(vm.uuid);
      }
    } finally {
      await large.stop();
    }
  });
});
