/** CBT tasks (spec: Endpoints, "CBT tasks", since 4.10.10; QueryCbtTask is in `queries.ts`). */
import { DecodeError, asObject, type RecordDecoder } from '../decode.js';
import type { VolumeRecord } from '../records.js';
import { defineOperation } from './define.js';
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

export const CreateCbtTask = defineOperation({
  name: 'CreateCbtTask',
  method: 'POST',
  family: 'resource',
  path: 'cbt-task/create',
  params: {
    name: 'body',
    description: 'body',
    taskType: 'body',
    resourceUuids: 'body',
    resourceUuid: 'body',
    tagUuids: 'body',
    vmInstanceUuid: 'body',
  },
  decode: (body, decoder) => ({ inventory: inventoryOf(body, decoder.cbtTask) }),
});

export const DeleteCbtTask = defineOperation({
  name: 'DeleteCbtTask',
  method: 'DELETE',
  family: 'resource',
  path: 'cbt-task/{uuid}',
  params: { force: 'body', deleteMode: 'body' },
  decode: () => EMPTY_RESULT,
});

export const DisableCbtTask = defineOperation({
  name: 'DisableCbtTask',
  method: 'POST',
  family: 'resource',
  path: 'cbt-task/disable/{uuid}',
  params: { force: 'body' },
  decode: (body, decoder) => ({ inventory: inventoryOf(body, decoder.cbtTask) }),
});

export const EnableCbtTask = defineOperation({
  name: 'EnableCbtTask',
  method: 'POST',
  family: 'resource',
  path: 'cbt-task/enable/{uuid}',
  params: { bitmapName: 'body' },
  decode: (body, decoder) => ({
    inventory: inventoryOf(body, decoder.cbtTask),
    // The spec does not show the items' fields: they are passed on as the service gives them.
    volumeCbtBackupInfos: Array.isArray(body.volumeCbtBackupInfos) ? (body.volumeCbtBackupInfos as unknown[]) : [],
  }),
});

export const ExportNbdVolumes = defineOperation({
  name: 'ExportNbdVolumes',
  method: 'POST',
  family: 'resource',
  path: 'cbt-task/exportvolume',
  params: { volumeUuids: 'body', vmInstanceUuid: 'body', force: 'body' },
  decode: (body, decoder) => {
    const infos = body.volumeInfos;
    if (infos === undefined || infos === null) return { volumeInfos: [] };
    if (!Array.isArray(infos)) throw new DecodeError('volumeInfos', 'expected a list');
    return { volumeInfos: infos.map((info, index) => decodeNbdVolumeInfo(decoder, info, `volumeInfos[${index}]`)) };
  },
});
