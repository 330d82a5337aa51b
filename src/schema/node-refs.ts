/**
 * The node types that VMs, volumes and snapshot groups point at one another through: a VM has its
 * volumes, a volume its VM, a snapshot group both. Each is declared here with the family that
 * loads it by uuid, and implemented by its own module (`vm-instance/types.ts`, `volume.ts`), which
 * imports this file rather than the other's: the dependencies between those modules run one way
 * (snapshot groups and VMs on volumes, VMs on snapshot groups for `VmInstance.snapshotGroups`), and
 * none of them is half-evaluated when another reads its exports.
 */
import { builder } from '../builder.js';
import { cursorFamily, nodeByUuid } from './kit/families.js';

/** VMs, read through the cursor family (resourceType `vm`). */
export const vmInstances = cursorFamily('vm');

/** Volumes, read through the cursor family (resourceType `volume`). */
export const volumes = cursorFamily('volume');

export const VmInstanceRef = builder.loadableNodeRef('VmInstance', {
  ...nodeByUuid(vmInstances, 'VmInstance'),
  cacheResolved: (vm) => vm.uuid,
});

export const VolumeRef = builder.loadableNodeRef('Volume', nodeByUuid(volumes, 'Volume'));
