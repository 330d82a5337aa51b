/**
 * CBT task queries: `cbtTasks` and `cbtTask(uuid)` (QueryCbtTask).
 */
import { anyOf, defineListQuery, equals, NAME_AND_DATE_ORDER_FIELDS, NAME_CONTAINS_FILTER, uuidsFilter } from '../kit/list-query.js';
import { CbtTaskRef, CbtTaskStatus, cbtTasks } from './types.js';

defineListQuery({
  record: 'cbtTask',
  family: cbtTasks,
  connectionDescription: 'A page of CBT tasks.',
  naming: { a: 'a CBT task', plural: 'CBT tasks' },
  since: '4.10.10',
  list: {
    name: 'cbtTasks',
    description: 'CBT tasks (QueryCbtTask).',
  },
  one: {
    type: CbtTaskRef,
    noun: 'CBT task',
    argDescription: 'The task\'s uuid.',
  },
  filter: {
    argDescription: 'Conditions the tasks must meet.',
    fields: {
      uuids: uuidsFilter('tasks'),
      status: equals('Only tasks with this status.', CbtTaskStatus),
      statusIn: anyOf('status', 'Only tasks with one of these statuses, e.g. `[RUNNING, FAILED]`.', CbtTaskStatus),
      nameContains: NAME_CONTAINS_FILTER,
    },
  },
  order: {
    fields: {
      ...NAME_AND_DATE_ORDER_FIELDS,
      status: 'Status (alphabetical by the upstream spelling).',
    },
  },
});
