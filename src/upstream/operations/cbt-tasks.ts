/** CBT tasks (spec: Endpoints, "CBT tasks", since 4.10.10; QueryCbtTask is in `queries.ts`). */
import { DecodeError, asObject, type RecordDecoder } from '../decode.js';
import type { VolumeRecord } from '../records.js';
import { defineOperation, inBody } from './define.js';
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

export const CreateCbtTask = defineOperation('CreateCbtTask', 'POST cbt-task/create', {
  params: inBody('name', 'description', 'taskType', 'resourceUuids', 'resourceUuid', 'tagUuids', 'vmInstanceUuid'),
  decode: (body, decoder) => ({ inventory: inventoryOf(body, decoder.cbtTask) }),
});

export const DeleteCbtTask = defineOperation('DeleteCbtTask', 'DELETE cbt-task/{uuid}', {
  params: { force: 'body', deleteMode: 'body' },
  decode: () => EMPTY_RESULT,
});

export const DisableCbtTask = defineOperation('DisableCbtTask', 'POST cbt-task/disable/{uuid}', {
  params: { force: 'body' },
  decode: (body, decoder) => ({ inventory: inventoryOf(body, decoder.cbtTask) }),
});

export const EnableCbtTask = defineOperation('EnableCbtTask', 'POST cbt-task/enable/{uuid}', {
  params: { bitmapName: 'body' },
  decode: (body, decoder) => ({
    inventory: inventoryOf(body, decoder.cbtTask),
    // The spec does not show the items' fields: they are passed on as the service gives them.
    volumeCbtBackupInfos: Array.isArray(body.volumeCbtBackupInfos) ? (body.volumeCbtBackupInfos as unknown[]) : [],
  }),
});

export const ExportNbdVolumes = defineOperation('ExportNbdVolumes', 'POST cbt-task/exportvolume', {
  params: inBody('volumeUuids', 'vmInstanceUuid', 'force'),
  decode: (body, decoder) => {
    const infos = body.volumeInfos;
    if (infos === undefined || infos === null) return { volumeInfos: [] };
    if (!Array.isArray(infos)) throw new DecodeError('volumeInfos', 'expected a list');
    return { volumeInfos: infos.map((info, index) => decodeNbdVolumeInfo(decoder, info, `volumeInfos[${index}]`)) };
  },
});
