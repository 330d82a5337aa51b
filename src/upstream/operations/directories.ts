/** Directories (spec: Endpoints, "Directories", since 4.6.0). */
import { bodyParam, defineOperation } from './define.js';
import { EMPTY_RESULT } from './results.js';

export const DeleteDirectory = defineOperation('DeleteDirectory', 'DELETE delete/directory', {
  params: { uuid: bodyParam('uuid', 'The directory (sent in the body). Since 4.6.0.', { required: true }), deleteMode: 'body' },
  decode: () => EMPTY_RESULT,
});
