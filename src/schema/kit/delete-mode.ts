/**
 * The spec's `deleteMode`, shared by the delete mutations of several resources.
 */
import { closedSetEnum } from './enums.js';
import { DestroyVmInstance } from '../../upstream/operations/vm-instances.js';

export const DeleteMode = closedSetEnum('DeleteMode', {
  description: 'How a delete treats what still depends on the resource (the spec\'s `deleteMode`; default `Permissive`).',
  values: {
    Permissive: '`Permissive` (the upstream\'s default): the delete is refused while something still depends on the resource.',
    Enforcing: '`Enforcing`: the delete goes ahead even when something still depends on the resource.',
  },
  // Convention 6 of the spec, as old as the oldest delete (DestroyVmInstance).
  since: DestroyVmInstance.since,
});
