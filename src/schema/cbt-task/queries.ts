/**
 * CBT task queries: `cbtTasks` and `cbtTask(uuid)` (QueryCbtTask).
 */
import { defineListQuery } from '../kit/list-query.js';
import { CbtTaskConnection, CbtTaskRef, CbtTaskStatus, cbtTasks } from './types.js';

defineListQuery({
  typeName: 'CbtTask',
  family: cbtTasks,
  connection: CbtTaskConnection,
  list: {
    name: 'cbtTasks',
    description:
      'CBT tasks (QueryCbtTask). Null when they cannot be read (with an error): no `Authorization` sent (`UNAUTHENTICATED`) or the upstream failing; the other fields of the query still answer. Since 4.10.10.',
  },
  one: {
    name: 'cbtTask',
    type: CbtTaskRef,
    description:
      'One CBT task by uuid; null when it does not exist (with a `NOT_FOUND` error) or cannot be read (with the error that stopped it, e.g. `UNAUTHENTICATED`). Since 4.10.10.',
    argDescription: 'The task\'s uuid.',
  },
  filter: {
    description: 'Conditions on CBT tasks; all given conditions must hold.',
    argDescription: 'Conditions the tasks must meet.',
    fields: {
      uuids: { field: 'uuid', op: 'in', type: ['Uuid'], description: 'Only these tasks.' },
      status: { field: 'status', op: 'eq', type: CbtTaskStatus, description: 'Only tasks with this status.' },
      nameContains: { field: 'name', op: 'contains', type: 'String', description: 'Name contains this text.' },
    },
  },
  order: {
    fieldsDescription: 'Fields CBT tasks can be sorted by.',
    description: 'Order of a CBT task connection.',
    argDescription: 'Sort order. Default: the upstream\'s own (stable) order.',
    fields: {
      CREATE_DATE: { value: 'createDate', description: 'Creation time.' },
      LAST_OP_DATE: { value: 'lastOpDate', description: 'Last update time.' },
      NAME: { value: 'name', description: 'Name.' },
      STATUS: { value: 'status', description: 'Status (alphabetical by the upstream spelling).' },
    },
  },
});
