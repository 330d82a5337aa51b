/** CBT tasks (spec: Endpoints, "CBT tasks", since 4.10.10; QueryCbtTask is in `queries.ts`). */
import { DecodeError, asObject, type RecordDecoder } from '../decode.js';
import type { VolumeRecord } from '../records.js';
import { bodyParam, defineOperation, pathParam } from './define.js';
import { EMPTY_RESULT, inventoryOf } from './results.js';

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

const taskUuid = pathParam('uuid', 'The CBT task (path parameter). Since 4.10.10.');

export const CreateCbtTask = defineOperation('CreateCbtTask', 'POST cbt-task/create', {
  params: {
    name: bodyParam('text', 'Name of the task. Since 4.10.10.', { required: true }),
    description: bodyParam('text', 'Description of the task. Since 4.10.10.'),
    taskType: bodyParam(
      'text',
      'Kind of task. The spec does not show the allowed values; the service is known to take `VM` (so the set stays open here and the upstream validates it). Since 4.10.10.',
      { required: true },
    ),
    resourceUuids: bodyParam('uuids', 'The resources to track: the VM (all its volumes) or some of its volumes. Since 4.10.10.', { required: true }),
    resourceUuid: bodyParam('uuid', 'A caller-chosen uuid for the new task. Since 4.10.10.'),
    tagUuids: bodyParam('uuids', 'Tags to attach to the new task. Since 4.10.10.'),
    vmInstanceUuid: bodyParam('uuid', 'The VM the task tracks; carried by the request body, whether the service requires it is not shown. Since 4.10.10.'),
  },
  decode: (body, decoder) => ({ inventory: inventoryOf(body, decoder.cbtTask) }),
});

export const DeleteCbtTask = defineOperation('DeleteCbtTask', 'DELETE cbt-task/{uuid}', {
  params: { uuid: taskUuid, force: bodyParam('bool', 'Delete even while the task runs. Since 4.10.10.'), deleteMode: 'body' },
  decode: () => EMPTY_RESULT,
});

export const DisableCbtTask = defineOperation('DisableCbtTask', 'POST cbt-task/disable/{uuid}', {
  params: { uuid: taskUuid, force: bodyParam('bool', 'Disable forcibly. Since 4.10.10.') },
  decode: (body, decoder) => ({ inventory: inventoryOf(body, decoder.cbtTask) }),
});

export const EnableCbtTask = defineOperation('EnableCbtTask', 'POST cbt-task/enable/{uuid}', {
  params: { uuid: taskUuid, bitmapName: bodyParam('text', 'Name of the dirty bitmap that tracks changed blocks. Since 4.10.10.') },
  decode: (body, decoder) => ({
    inventory: inventoryOf(body, decoder.cbtTask),
    // The spec does not show the items' fields: they are passed on as the service gives them.
    volumeCbtBackupInfos: Array.isArray(body.volumeCbtBackupInfos) ? (body.volumeCbtBackupInfos as unknown[]) : [],
  }),
});

export const ExportNbdVolumes = defineOperation('ExportNbdVolumes', 'POST cbt-task/exportvolume', {
  params: {
    volumeUuids: bodyParam('uuids', 'The volumes to export; each must be attached to the VM. Since 4.10.10.', { required: true }),
    vmInstanceUuid: bodyParam('uuid', 'The VM the volumes belong to. Since 4.10.10.', { required: true }),
    force: bodyParam('bool', 'Export again volumes that are already exported. Since 4.10.10.'),
  },
  decode: (body, decoder) => {
    const infos = body.volumeInfos;
    if (infos === undefined || infos === null) return { volumeInfos: [] };
    if (!Array.isArray(infos)) throw new DecodeError('volumeInfos', 'expected a list');
    return { volumeInfos: infos.map((info, index) => decodeNbdVolumeInfo(decoder, info, `volumeInfos[${index}]`)) };
  },
});
