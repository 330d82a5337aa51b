/** CBT tasks (spec: Endpoints, "CBT tasks", since 4.10.10; QueryCbtTask is in `queries.ts`). */
import { DecodeError, asObject, type RecordDecoder } from '../decode.js';
import type { VolumeRecord } from '../records.js';
import { bodyParam, defineOperation, pathParam } from './define.js';
import { EMPTY_RESULT, answersInventory, inventoryOf } from './results.js';

/** CBT tasks came with 4.10.10: every operation below and each of its parameters. */
const since = '4.10.10';

/** One exported volume of an ExportNbdVolumes answer (`volumeInfos` item; the spec answers `{}`, the service adds this list). */
export interface NbdVolumeInfoRecord {
  volume: VolumeRecord | null;
  bitmapBase64: string | null;
  target: string | null;
  nbdPort: number | null;
  nbdServer: string | null;
  mode: string | null;
  bitmapName: string | null;
}

function decodeNbdVolumeInfo(decoder: RecordDecoder, value: unknown, path: string): NbdVolumeInfoRecord {
  const o = asObject(value, path);
  const text = (key: string): string | null => {
    const field = o[key];
    if (field === undefined || field === null) return null;
    if (typeof field !== 'string') throw new DecodeError(`${path}.${key}`, 'expected text');
    return field;
  };
  const port = o.nbdPort;
  if (port !== undefined && port !== null && !(typeof port === 'number' && Number.isInteger(port))) {
    throw new DecodeError(`${path}.nbdPort`, 'expected an integer');
  }
  return {
    volume: o.volume === undefined || o.volume === null ? null : decoder.volume(o.volume, `${path}.volume`),
    bitmapBase64: text('bitmapBase64'),
    target: text('target'),
    nbdPort: typeof port === 'number' ? port : null,
    nbdServer: text('nbdServer'),
    mode: text('mode'),
    bitmapName: text('bitmapName'),
  };
}

const taskUuid = pathParam('uuid', 'The CBT task (path parameter).', { since });

export const CreateCbtTask = defineOperation('CreateCbtTask', 'POST cbt-task/create', {
  since,
  params: {
    name: bodyParam('text', 'Name of the task.', { required: true, since }),
    description: bodyParam('text', 'Description of the task.', { since }),
    taskType: bodyParam(
      'text',
      'Kind of task. The spec does not show the allowed values; the service is known to take `VM` (so the set stays open here and the upstream validates it).',
      { required: true, since },
    ),
    resourceUuids: bodyParam('uuids', 'The resources to track: the VM (all its volumes) or some of its volumes.', { required: true, since }),
    resourceUuid: bodyParam('uuid', 'A caller-chosen uuid for the new task.', { since }),
    tagUuids: bodyParam('uuids', 'Tags to attach to the new task.', { since }),
    vmInstanceUuid: bodyParam('uuid', 'The VM the task tracks; carried by the request body, whether the service requires it is not shown.', { since }),
  },
  decode: answersInventory('cbtTask'),
});

export const DeleteCbtTask = defineOperation('DeleteCbtTask', 'DELETE cbt-task/{uuid}', {
  since,
  params: { uuid: taskUuid, force: bodyParam('bool', 'Delete even while the task runs.', { since }), deleteMode: 'body' },
  decode: () => EMPTY_RESULT,
});

export const DisableCbtTask = defineOperation('DisableCbtTask', 'POST cbt-task/disable/{uuid}', {
  since,
  params: { uuid: taskUuid, force: bodyParam('bool', 'Disable forcibly.', { since }) },
  decode: answersInventory('cbtTask'),
});

export const EnableCbtTask = defineOperation('EnableCbtTask', 'POST cbt-task/enable/{uuid}', {
  since,
  params: { uuid: taskUuid, bitmapName: bodyParam('text', 'Name of the dirty bitmap that tracks changed blocks.', { since }) },
  decode: (body, decoder) => ({
    inventory: inventoryOf(body, decoder.cbtTask),
    // The spec does not show the items' fields: they are passed on as the service gives them.
    volumeCbtBackupInfos: Array.isArray(body.volumeCbtBackupInfos) ? (body.volumeCbtBackupInfos as unknown[]) : [],
  }),
});

export const ExportNbdVolumes = defineOperation('ExportNbdVolumes', 'POST cbt-task/exportvolume', {
  since,
  params: {
    volumeUuids: bodyParam('uuids', 'The volumes to export; each must be attached to the VM.', { required: true, since }),
    vmInstanceUuid: bodyParam('uuid', 'The VM the volumes belong to.', { required: true, since }),
    force: bodyParam('bool', 'Export again volumes that are already exported.', { since }),
  },
  decode: (body, decoder) => {
    const infos = body.volumeInfos;
    if (infos === undefined || infos === null) return { volumeInfos: [] };
    if (!Array.isArray(infos)) throw new DecodeError('volumeInfos', 'expected a list');
    return { volumeInfos: infos.map((info, index) => decodeNbdVolumeInfo(decoder, info, `volumeInfos[${index}]`)) };
  },
});
