/**
 * The spec's `deleteMode`, shared by the delete mutations of several resources.
 */
import type { GatewaySchemaTypes } from '../../builder.js';
import { paramRelease, type WriteOperation } from '../../upstream/operations/define.js';
import { describeSince } from '../../upstream/releases.js';
import { closedSetEnum } from './enums.js';
import { DestroyVmInstance } from '../../upstream/operations/vm-instances.js';

type Types = PothosSchemaTypes.ExtendDefaultTypes<GatewaySchemaTypes>;

export const DeleteMode = closedSetEnum('DeleteMode', {
  description: 'How a delete treats what still depends on the resource (the spec\'s `deleteMode`; default `Permissive`).',
  values: {
    Permissive: '`Permissive` (the upstream\'s default): the delete is refused while something still depends on the resource.',
    Enforcing: '`Enforcing`: the delete goes ahead even when something still depends on the resource.',
  },
  // Convention 6 of the spec, as old as the oldest delete (DestroyVmInstance).
  since: DestroyVmInstance.since,
});

/**
 * The `deleteMode` input field of a delete mutation: the enum above, described once and as old
 * as `operation`'s parameter; `note` adds what is particular to the operation (where it is sent).
 */
export function deleteModeField(t: PothosSchemaTypes.InputFieldBuilder<Types, 'InputObject'>, operation: WriteOperation, note = '') {
  return t.field({
    type: DeleteMode,
    description: describeSince(`How strictly to delete; the upstream default is \`PERMISSIVE\`.${note}`, paramRelease(operation, operation.params.deleteMode)),
  });
}
