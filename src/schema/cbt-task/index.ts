/**
 * Change-block-tracking tasks: the type, its queries (QueryCbtTask) and its writes (create,
 * delete, enable, disable, and NBD export of the tracked volumes).
 */
import './types.js';
import './queries.js';
import './mutations.js';

export { CbtTaskRef, CbtTaskStatus } from './types.js';
