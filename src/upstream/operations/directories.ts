/** Directories (spec: Endpoints, "Directories", since 4.6.0). */
import { bodyParam, defineOperation } from './define.js';
import { EMPTY_RESULT } from './results.js';

export const DeleteDirectory = defineOperation('DeleteDirectory', 'DELETE delete/directory', {
  since: '4.6.0',
  params: { uuid: bodyParam('uuid', 'The directory (sent in the body).', { required: true, since: '4.6.0' }), deleteMode: 'body' },
  decode: () => EMPTY_RESULT,
});
