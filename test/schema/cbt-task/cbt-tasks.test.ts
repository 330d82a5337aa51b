import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CbtTask } from '../../../src/simulator/model.js';
import { errorCodes, startHarness, type Harness } from '../../support/harness.js';

interface Page<T> {
  totalCount: number;
  edges: { cursor: string; node: T }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

interface CbtNode {
  id: string;
  uuid: string;
  name: string;
  description: string | null;
  status: string;
  createDate: string;
  lastOpDate: string;
}

const CBT_FIELDS = 'id uuid name description status createDate lastOpDate';
const MISSING_UUID = 'fedcba9876543210fedcba9876543210';

const STATUS_ENUM: Record<CbtTask['status'], string> = {
  Created: 'CREATED',
  Starting: 'STARTING',
  Running: 'RUNNING',
  Stopped: 'STOPPED',
  Failed: 'FAILED',
};

function expectCbtMatches(node: CbtNode, task: CbtTask): void {
  expect(node).toEqual({
    id: expect.any(String),
    uuid: task.uuid,
    name: task.name,
    description: task.description,
    status: STATUS_ENUM[task.status],
    createDate: task.createDate.toISOString(),
    lastOpDate: task.lastOpDate.toISOString(),
  });
}

describe('CBT tasks', () => {
  let harness: Harness;
  let tenantId: string;

  beforeAll(async () => {
    // 200 VMs give 10 CBT tasks, enough to cover several statuses.
    harness = await startHarness({ simulator: { hosts: 8, vms: 200 } });
    tenantId = harness.simulator.store.tenants[0]!.id;
  });

  afterAll(async () => {
    await harness.close();
  });

  const store = () => harness.simulator.store;

  describe('cbtTasks', () => {
    it('returns every task with its status mapped to CbtTaskStatus and ISO timestamps', async () => {
      const tasks = [...store().cbtTasks.list(tenantId)];
      expect(tasks.length).toBeGreaterThan(3);
      expect(new Set(tasks.map((task) => task.status)).size).toBeGreaterThan(1);
      const response = await harness.gql<{ cbtTasks: Page<CbtNode> }>(`{ cbtTasks(first: 100) { totalCount edges { node { ${CBT_FIELDS} } } } }`);
      expect(response.errors).toBeUndefined();
      expect(response.data!.cbtTasks.totalCount).toBe(tasks.length);
      expect(response.data!.cbtTasks.edges).toHaveLength(tasks.length);
      for (const { node } of response.data!.cbtTasks.edges) {
        const task = store().cbtTasks.get(tenantId, node.uuid);
        expect(task).toBeDefined();
        expectCbtMatches(node, task!);
      }
    });

    it('filters by status, name and uuids, and pages with any edge\'s cursor', async () => {
      const tasks = [...store().cbtTasks.list(tenantId)];
      const status = tasks[0]!.status;
      const byStatus = await harness.gql<{ cbtTasks: Page<CbtNode> }>(
        'query ($status: CbtTaskStatus) { cbtTasks(first: 100, filter: { status: $status }) { totalCount edges { node { uuid status } } } }',
        { status: STATUS_ENUM[status] },
      );
      const expected = tasks.filter((task) => task.status === status).map((task) => task.uuid);
      expect(byStatus.data!.cbtTasks.totalCount).toBe(expected.length);
      expect(byStatus.data!.cbtTasks.edges.map((edge) => edge.node.uuid).sort()).toEqual(expected.sort());

      const byName = await harness.gql<{ cbtTasks: Page<CbtNode> }>(
        'query ($name: String) { cbtTasks(filter: { nameContains: $name }) { edges { node { uuid } } } }',
        { name: tasks[2]!.name.slice(4) },
      );
      expect(byName.data!.cbtTasks.edges.map((edge) => edge.node.uuid)).toContain(tasks[2]!.uuid);
      expect(
        byName.data!.cbtTasks.edges.every((edge) => store().cbtTasks.get(tenantId, edge.node.uuid)!.name.includes(tasks[2]!.name.slice(4))),
      ).toBe(true);

      const all = await harness.gql<{ cbtTasks: Page<CbtNode> }>('{ cbtTasks(first: 100, orderBy: { field: NAME }) { edges { cursor node { uuid name } } } }');
      const names = all.data!.cbtTasks.edges.map((edge) => edge.node.name);
      expect(names).toEqual([...names].sort());
      const after = await harness.gql<{ cbtTasks: Page<CbtNode> }>(
        'query ($after: String) { cbtTasks(first: 2, after: $after, orderBy: { field: NAME }) { edges { node { uuid } } } }',
        { after: all.data!.cbtTasks.edges[1]!.cursor },
      );
      expect(after.data!.cbtTasks.edges.map((edge) => edge.node.uuid)).toEqual(all.data!.cbtTasks.edges.slice(2, 4).map((edge) => edge.node.uuid));
    });

    it('cbtTask(uuid) returns one task; an unknown uuid is null with NOT_FOUND', async () => {
      const task = [...store().cbtTasks.list(tenantId)][1]!;
      const response = await harness.gql<{ cbtTask: CbtNode }>(`query ($uuid: Uuid!) { cbtTask(uuid: $uuid) { ${CBT_FIELDS} } }`, { uuid: task.uuid });
      expectCbtMatches(response.data!.cbtTask, task);
      const missing = await harness.gql<{ cbtTask: null }>(`{ cbtTask(uuid: "${MISSING_UUID}") { uuid } }`);
      expect(missing.data!.cbtTask).toBeNull();
      expect(errorCodes(missing)).toEqual(['NOT_FOUND']);
    });
  });
});
