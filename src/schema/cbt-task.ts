/**
 * Change-block-tracking tasks (CbtTaskInventory) read through QueryCbtTask.
 */
import { builder } from '../builder.js';
import type { GatewayContext } from '../context.js';
import type { CbtTaskRecord } from '../upstream/records.js';
import type { QueryCondition } from '../upstream/types.js';
import { OrderDirection } from './common.js';
import { pageArgs, resolveQueryConnection } from './connections.js';
import { loadQueryRecordsWhereIn, matchByKey, notFound } from './loading.js';
import { addContainsCondition, addEqualsCondition, addInCondition } from './query-conditions.js';

export const CbtTaskStatus = builder.enumType('CbtTaskStatus', {
  description: 'Lifecycle status of a CBT task. Since 4.10.10.',
  values: {
    CREATED: { value: 'Created', description: 'Created and not yet started (the status CreateCbtTask gives).' },
    STARTING: { value: 'Starting', description: 'Being started (EnableCbtTask in progress).' },
    RUNNING: { value: 'Running', description: 'Tracking changed blocks.' },
    STOPPED: { value: 'Stopped', description: 'Stopped (the status DisableCbtTask gives).' },
    FAILED: { value: 'Failed', description: 'Failed.' },
  } as const,
});

/** Loads CBT tasks by uuid: one QueryCbtTask (`q=uuid?=...`) per batch. */
async function loadCbtTasks(uuids: string[], context: GatewayContext): Promise<(CbtTaskRecord | Error)[]> {
  const records = await loadQueryRecordsWhereIn(context, 'cbtTasks', 'uuid', uuids);
  return matchByKey(uuids, records, (task) => task.uuid, (uuid) => notFound('CbtTask', uuid));
}

export const CbtTaskRef = builder.loadableNode('CbtTask', {
  description: 'A change-block-tracking (CBT) task that tracks changed blocks of volumes for incremental backup (CbtTaskInventory). Since 4.10.10.',
  id: { resolve: (task) => task.uuid },
  load: loadCbtTasks,
  fields: (t) => ({
    uuid: t.field({ type: 'Uuid', nullable: false, description: 'Identifier. Since 4.10.10.', resolve: (task) => task.uuid }),
    name: t.exposeString('name', { description: 'Name. Since 4.10.10.' }),
    description: t.exposeString('description', { description: 'Description. Since 4.10.10.' }),
    status: t.expose('status', { type: CbtTaskStatus, description: 'Lifecycle status. Since 4.10.10.' }),
    createDate: t.expose('createDate', { type: 'DateTime', description: 'When the task was created. Since 4.10.10.' }),
    lastOpDate: t.expose('lastOpDate', { type: 'DateTime', description: 'When the task last changed. Since 4.10.10.' }),
  }),
});

export const CbtTaskConnection = builder.connectionObject({
  type: CbtTaskRef,
  name: 'CbtTaskConnection',
  description: 'A page of CBT tasks.',
});

const CbtTaskFilter = builder.inputType('CbtTaskFilter', {
  description: 'Conditions on CBT tasks; all given conditions must hold.',
  fields: (t) => ({
    uuids: t.field({ type: ['Uuid'], description: 'Only these tasks.' }),
    status: t.field({ type: CbtTaskStatus, description: 'Only tasks with this status.' }),
    nameContains: t.string({ description: 'Name contains this text.' }),
  }),
});

const CbtTaskOrderField = builder.enumType('CbtTaskOrderField', {
  description: 'Fields CBT tasks can be sorted by.',
  values: {
    CREATE_DATE: { value: 'createDate', description: 'Creation time.' },
    LAST_OP_DATE: { value: 'lastOpDate', description: 'Last update time.' },
    NAME: { value: 'name', description: 'Name.' },
    STATUS: { value: 'status', description: 'Status (alphabetical by the upstream spelling).' },
  } as const,
});

const CbtTaskOrder = builder.inputType('CbtTaskOrder', {
  description: 'Order of a CBT task connection.',
  fields: (t) => ({
    field: t.field({ type: CbtTaskOrderField, required: true, description: 'Sort key.' }),
    direction: t.field({ type: OrderDirection, defaultValue: 'asc', description: 'Direction. Default ASC.' }),
  }),
});

builder.queryFields((t) => ({
  cbtTasks: t.field({
    type: CbtTaskConnection,
    nullable: false,
    description: 'CBT tasks (QueryCbtTask). Since 4.10.10.',
    args: {
      ...pageArgs,
      filter: t.arg({ type: CbtTaskFilter, description: 'Conditions the tasks must meet.' }),
      orderBy: t.arg({ type: CbtTaskOrder, description: 'Sort order. Default: the upstream\'s own (stable) order.' }),
    },
    resolve: (_root, args, context) => {
      const conditions: QueryCondition[] = [];
      addInCondition(conditions, 'uuid', args.filter?.uuids);
      addEqualsCondition(conditions, 'status', args.filter?.status);
      addContainsCondition(conditions, 'name', args.filter?.nameContains);
      return resolveQueryConnection(context, {
        collection: 'cbtTasks',
        first: args.first,
        after: args.after,
        conditions,
        sort: args.orderBy ? { field: args.orderBy.field, direction: args.orderBy.direction ?? 'asc' } : undefined,
      });
    },
  }),
  cbtTask: t.field({
    type: CbtTaskRef,
    nullable: true,
    description: 'One CBT task by uuid; null with a `NOT_FOUND` error when it does not exist. Since 4.10.10.',
    args: { uuid: t.arg({ type: 'Uuid', required: true, description: 'The task\'s uuid.' }) },
    resolve: (_root, args) => args.uuid,
  }),
}));
