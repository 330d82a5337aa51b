/**
 * The spec's `deleteMode`, shared by the delete mutations of several resources.
 */
import { builder } from '../../builder.js';

export const DeleteMode = builder.enumType('DeleteMode', {
  description: 'How a delete treats what still depends on the resource (the spec\'s `deleteMode`; default `Permissive`).',
  values: {
    PERMISSIVE: {
      value: 'Permissive',
      description: '`Permissive` (the upstream\'s default): the delete is refused while something still depends on the resource.',
    },
    ENFORCING: {
      value: 'Enforcing',
      description: '`Enforcing`: the delete goes ahead even when something still depends on the resource.',
    },
  } as const,
});
