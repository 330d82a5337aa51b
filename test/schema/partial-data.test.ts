/**
 * A failing field nulls itself and no more: a top-level field that cannot be read (a credential
 * not sent, a tenant the token does not belong to, an unreachable upstream family) is null with a
 * coded error while the rest of the answer still comes.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCodes, startHarness, type Harness } from '../support/harness.js';

/** A loopback port nothing listens on: connections to it are refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** The tenant whose records the harness's default credentials read. */
const tenantOf = (harness: Harness): string => harness.simulator.credentials.tenantId;

describe('partial data', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness();
  });

  afterAll(async () => {
    await harness.close();
  });

  it('a dashboard sent only Authorization gets its resource-family data and a coded null for the cursor-family field', async () => {
    const response = await harness.gql<{ volumeSnapshotGroups: { totalCount: number } | null; vmInstances: { totalCount: number } | null }>(
      '{ volumeSnapshotGroups(first: 1) { totalCount } vmInstances(first: 1) { totalCount } }',
      undefined,
      { authorization: harness.headers.authorization },
    );
    expect(response.data?.volumeSnapshotGroups?.totalCount).toBe(harness.simulator.store.snapshotGroups.count(tenantOf(harness)));
    expect(response.data?.vmInstances).toBeNull();
    expect(errorCodes(response)).toEqual(['UNAUTHENTICATED']);
    expect(response.errors?.[0]?.path).toEqual(['vmInstances']);
  });

  it('a tenant the token does not belong to nulls only the cursor-family fields', async () => {
    const response = await harness.gql<{ volumes: unknown; cbtTasks: { totalCount: number } | null }>(
      '{ volumes(first: 1) { totalCount } cbtTasks(first: 1) { totalCount } }',
      undefined,
      { ...harness.headers, 'x-tenant-id': 'no-such-tenant' },
    );
    expect(response.data?.volumes).toBeNull();
    expect(response.data?.cbtTasks?.totalCount).toBe(harness.simulator.store.cbtTasks.count(tenantOf(harness)));
    expect(errorCodes(response)).toEqual(['FORBIDDEN']);
  });

  it('every connection of the resource family answers while the cursor family is unreachable', async () => {
    const unreachable = await startHarness({ config: { cursorUrl: `http://127.0.0.1:${await closedPort()}` } });
    try {
      const response = await unreachable.gql<Record<string, { totalCount: number } | null>>(
        `{ vmInstances(first: 1) { totalCount } snsApplicationPlatforms(first: 1) { totalCount }
           cbtTasks(first: 1) { totalCount } volumeSnapshotGroups(first: 1) { totalCount } hbaDevices(first: 1) { totalCount }
           fiberChannelLuns(first: 1) { totalCount } snsEmailAddresses(first: 1) { totalCount } }`,
      );
      expect(response.data?.vmInstances).toBeNull();
      expect(response.data?.snsApplicationPlatforms).toBeNull();
      const { store } = unreachable.simulator;
      const tenant = tenantOf(unreachable);
      expect({
        cbtTasks: response.data?.cbtTasks?.totalCount,
        volumeSnapshotGroups: response.data?.volumeSnapshotGroups?.totalCount,
        hbaDevices: response.data?.hbaDevices?.totalCount,
        fiberChannelLuns: response.data?.fiberChannelLuns?.totalCount,
        snsEmailAddresses: response.data?.snsEmailAddresses?.totalCount,
      }).toEqual({
        cbtTasks: store.cbtTasks.count(tenant),
        volumeSnapshotGroups: store.snapshotGroups.count(tenant),
        hbaDevices: store.hbas.count(tenant),
        fiberChannelLuns: store.luns.count(tenant),
        snsEmailAddresses: store.snsEmails.count(tenant),
      });
      expect(errorCodes(response)).toEqual(['UPSTREAM_UNAVAILABLE', 'UPSTREAM_UNAVAILABLE']);
    } finally {
      await unreachable.close();
    }
  });
});
