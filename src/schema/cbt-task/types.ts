/**
 * The `CbtTask` type: change-block-tracking tasks (CbtTaskInventory) read through QueryCbtTask.
 */
import { builder } from '../../builder.js';
import { recordEnum } from '../kit/enums.js';
import { nodeByUuid, resourceFamily } from '../kit/families.js';
import { entityByUuid } from '../kit/federation.js';
import { exposeRecordEnums, exposeRecordFields } from '../kit/record-fields.js';

export const CbtTaskStatus = recordEnum('CbtTaskStatus', {
  record: 'cbtTask',
  field: 'status',
  description: 'Lifecycle status of a CBT task. Since 4.10.10.',
  values: {
    Created: 'Created and not yet started (the status CreateCbtTask gives).',
    Starting: 'Being started (EnableCbtTask in progress).',
    Running: 'Tracking changed blocks.',
    Stopped: 'Stopped (the status DisableCbtTask gives).',
    Failed: 'Failed.',
  },
});

export const cbtTasks = resourceFamily('cbtTasks');

export const CbtTaskRef = builder.loadableNode('CbtTask', {
  description: 'A change-block-tracking (CBT) task that tracks changed blocks of volumes for incremental backup (CbtTaskInventory). Since 4.10.10.',
  ...nodeByUuid(cbtTasks, 'CbtTask'),
  fields: (t) => ({
    ...exposeRecordFields(t, 'cbtTask', 'uuid', 'name', 'description'),
    ...exposeRecordEnums(t, 'cbtTask', CbtTaskStatus, 'status'),
    ...exposeRecordFields(t, 'cbtTask', 'createDate', 'lastOpDate'),
  }),
});

// A Federation entity: other subgraphs reference it by uuid (or id), `_entities` loads it like a page does.
entityByUuid(CbtTaskRef, 'CbtTask');
