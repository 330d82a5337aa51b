/**
 * The spec's CBT task writes as mutations: create, delete, enable, disable, and NBD export of
 * the tracked volumes.
 */
import { builder } from '../../builder.js';
import {
  CreateCbtTask,
  DeleteCbtTask,
  DisableCbtTask,
  EnableCbtTask,
  ExportNbdVolumes,
  type NbdVolumeInfoRecord,
} from '../../upstream/operations/index.js';
import { defineWriteMutation, removesNamedRecord, resultInventory, writtenUuid } from '../kit/mutation-kit.js';
import { VmInstanceRef } from '../vm-instance/index.js';
import { VolumeRef } from '../volume.js';
import { CbtTaskRef } from './types.js';

defineWriteMutation({
  name: 'createCbtTask',
  operation: CreateCbtTask,
  description:
    'Creates a CBT task that tracks changed blocks of one VM\'s volumes; the task starts `CREATED` (CreateCbtTask: `POST cbt-task/create`). Fails when the VM already belongs to a task. Since 4.10.10.',
  payloadFields: (t, result) => ({
    cbtTask: t.field({
      type: CbtTaskRef,
      nullable: true,
      description: 'The new task (CbtTaskInventory), status `CREATED`; null until the job succeeded. Since 4.10.10.',
      resolve: resultInventory(result),
    }),
  }),
  touches: { types: ['CbtTask'], uuids: () => [] },
});

defineWriteMutation({
  name: 'deleteCbtTask',
  operation: DeleteCbtTask,
  description:
    'Deletes a CBT task (DeleteCbtTask: `DELETE cbt-task/{uuid}`); a running task needs `force` or `deleteMode: ENFORCING`. Since 4.10.10.',
  ...removesNamedRecord('CbtTask', 'task'),
});

defineWriteMutation({
  name: 'disableCbtTask',
  operation: DisableCbtTask,
  description: 'Stops a CBT task and ends its NBD exports; the task becomes `STOPPED` (DisableCbtTask: `POST cbt-task/disable/{uuid}`). Since 4.10.10.',
  payloadFields: (t, result) => ({
    cbtTask: t.field({
      type: CbtTaskRef,
      nullable: true,
      description: 'The task (CbtTaskInventory), status `STOPPED`; null until the job succeeded. Since 4.10.10.',
      resolve: resultInventory(result),
    }),
  }),
  touches: { types: ['CbtTask'], uuids: (input) => [input.uuid] },
});

defineWriteMutation({
  name: 'enableCbtTask',
  operation: EnableCbtTask,
  description:
    'Starts a CBT task: `STARTING` while the job runs, then `RUNNING` (`FAILED` on error) (EnableCbtTask: `POST cbt-task/enable/{uuid}`). Since 4.10.10.',
  payloadFields: (t, result) => ({
    cbtTask: t.field({
      type: CbtTaskRef,
      nullable: true,
      description: 'The task (CbtTaskInventory), status `RUNNING`; null until the job succeeded. Since 4.10.10.',
      resolve: resultInventory(result),
    }),
    volumeCbtBackupInfos: t.field({
      type: ['JSON'],
      nullable: true,
      description:
        'Backup information of each tracked volume, as the upstream gives it (`volumeCbtBackupInfos`; the spec does not show the item fields); null until the job succeeded. Since 4.10.10.',
      resolve: (source, _args, context) => result(source, context)?.volumeCbtBackupInfos ?? null,
    }),
  }),
  touches: { types: ['CbtTask'], uuids: (input) => [input.uuid] },
});

const NbdVolumeInfoRef = builder.objectRef<NbdVolumeInfoRecord>('NbdVolumeInfo');

NbdVolumeInfoRef.implement({
  extensions: { since: ExportNbdVolumes.since },
  description:
    'A volume exported over NBD by ExportNbdVolumes (`volumeInfos` item; the spec answers `{}`, the service adds this list). Since 4.10.10.',
  fields: (t) => ({
    volume: t.field({
      type: VolumeRef,
      nullable: true,
      description: 'The exported volume (volume record). Since 4.10.10.',
      resolve: (info) => info.volume,
    }),
    bitmapBase64: t.exposeString('bitmapBase64', { description: 'The dirty bitmap of the volume, base64-encoded. Since 4.10.10.' }),
    target: t.exposeString('target', { description: 'NBD export name to connect to. Since 4.10.10.' }),
    nbdPort: t.exposeInt('nbdPort', { description: 'TCP port of the NBD server. Since 4.10.10.' }),
    nbdServer: t.exposeString('nbdServer', { description: 'Address of the NBD server: the management IP of the VM\'s host. Since 4.10.10.' }),
    mode: t.exposeString('mode', {
      description: 'Export mode, e.g. `full` or `incremental` (the set is not shown in the spec, so it stays open). Since 4.10.10.',
    }),
    bitmapName: t.exposeString('bitmapName', { description: 'Name of the dirty bitmap the export reads. Since 4.10.10.' }),
  }),
});

defineWriteMutation({
  name: 'exportNbdVolumes',
  operation: ExportNbdVolumes,
  description:
    'Exports volumes of a stopped VM with a CBT task over NBD (ExportNbdVolumes: `POST cbt-task/exportvolume`); an already exported volume needs `force`. Since 4.10.10.',
  payloadFields: (t, result) => ({
    volumeInfos: t.field({
      type: [NbdVolumeInfoRef],
      nullable: true,
      description: 'One item per exported volume (empty when the upstream answers a bare `{}`); null until the job succeeded. Since 4.10.10.',
      resolve: (source, _args, context) => result(source, context)?.volumeInfos ?? null,
    }),
    vmInstance: t.field({
      type: VmInstanceRef,
      nullable: true,
      description: 'The VM whose volumes were exported, read again; null until the job succeeded.',
      // Read afresh by uuid, so it does not wait on (or fail with) the decoding of `volumeInfos`.
      resolve: (source) => writtenUuid(source, 'vmInstanceUuid'),
    }),
  }),
  // The VM's task records the exports, and the input names the VM, not its task.
  touches: {
    types: ['CbtTask', 'VmInstance', 'Volume'],
    uuids: (input) => [input.vmInstanceUuid, ...input.volumeUuids],
    everyRecordOf: ['CbtTask'],
  },
});
