/**
 * The `CbtTask` type: change-block-tracking tasks (CbtTaskInventory) read through QueryCbtTask.
 */
import { builder } from '../../builder.js';
import { nodeByUuid, queryFamily } from '../kit/families.js';
import { exposeRecordEnums, exposeRecordFields } from '../kit/record-fields.js';

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

export const cbtTasks = queryFamily('cbtTasks');

export const CbtTaskRef = builder.loadableNode('CbtTask', {
  description: 'A change-block-tracking (CBT) task that tracks changed blocks of volumes for incremental backup (CbtTaskInventory). Since 4.10.10.',
  ...nodeByUuid(cbtTasks, 'CbtTask'),
  fields: (t) => ({
    ...exposeRecordFields(t, 'cbtTask', 'uuid', 'name', 'description'),
    ...exposeRecordEnums(t, 'cbtTask', CbtTaskStatus, 'status'),
    ...exposeRecordFields(t, 'cbtTask', 'createDate', 'lastOpDate'),
  }),
});

export const CbtTaskConnection = builder.connectionObject({
  type: CbtTaskRef,
  name: 'CbtTaskConnection',
  description: 'A page of CBT tasks.',
});

