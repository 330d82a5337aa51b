/** Directories (spec: Endpoints, "Directories", since 4.6.0). */
import { defineOperation } from './define.js';
import { EMPTY_RESULT } from './results.js';

export const DeleteDirectory = defineOperation('DeleteDirectory', 'DELETE delete/directory', {
  params: { uuid: 'body', deleteMode: 'body' },
  decode: () => EMPTY_RESULT,
});
